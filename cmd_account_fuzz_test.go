package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzAccountCLI: dplab account with any numbers in its flags (every event,
// pipeline mechanism and RGM calibration, query and accountant) exits 0
// with an answer, or 1 or 2 with a message naming the command; never a
// panic, a NaN answer or more than 30 s. Under --accountant all every row
// agrees with its accountant run alone (checkAllAgrees). Run for 300 s when
// written (114,845 invocations, without pipelines and RGM calibration; then
// 300 s, 113,273 invocations with them): nothing found.
func FuzzAccountCLI(f *testing.F) {
	f.Add(uint8(0), 1.0, 1.0, 0.25, 1.0, uint32(10), 1e-5, uint8(0), uint8(0))
	f.Add(uint8(2), 0.01, 1.0, 0.25, 1.0, uint32(1000), 1e-5, uint8(1), uint8(1))
	f.Add(uint8(3), 5.0, 20.0, 1.0, 1.0, uint32(1), 1e-5, uint8(2), uint8(0))
	f.Add(uint8(5), 57.0, 1000.0, 0.0, 0.0, uint32(1), 1e-5, uint8(0), uint8(2))
	f.Add(uint8(7), 5.0, 1.0, 2.0, 0.5, uint32(1), 1e-5, uint8(0), uint8(0))
	f.Add(uint8(8), 5.0, 1000.0, 1.0, 0.5, uint32(1), 1e-5, uint8(0), uint8(0))
	f.Add(uint8(9), 0.01, 1.0, 1.0, 0.5, uint32(100), 1e-5, uint8(0), uint8(0))
	f.Add(uint8(10), 0.01, 1.0, 10.0, 2.0, uint32(1), 1e-5, uint8(0), uint8(0))
	// Issue 34: invalid input under --accountant all (σ = NaN; ε = +Inf).
	f.Add(uint8(0), math.NaN(), 1.0, 0.0, 0.0, uint32(1), 1e-5, uint8(3), uint8(0))
	f.Add(uint8(0), 1.0, 1.0, 0.0, 0.0, uint32(1), math.Inf(1), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c, d float64, steps uint32, q float64, acct, mode uint8) {
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		var args []string
		switch kind % 11 {
		case 0:
			args = []string{"gaussian", "--sigma", g(a), "--sensitivity", g(b)}
		case 1:
			args = []string{"laplace", "--scale", g(a), "--sensitivity", g(b)}
		case 2:
			args = []string{"sgm", "--q", g(a), "--sigma", g(b)}
		case 3:
			args = []string{"objpert", "--sigma", g(a), "--lambda", g(b), "--beta", g(c), "--lipschitz", g(d)}
		case 4:
			args = []string{"amp", "--sigma", g(a), "--lambda", g(b), "--beta", g(c), "--lipschitz", g(d), "--tau", "0.01", "--sigma-out", "5"}
		case 5:
			args = []string{"gaussmix", "--k", strconv.Itoa(int(a)), "--gamma", g(b)}
		case 6:
			args = []string{"rgm", "--eta", g(a), "--gamma", g(b), "--d", strconv.Itoa(int(c))}
		case 7:
			args = []string{"pipeline", "--mech", "gaussian", "--sigma", g(a), "--l12", g(b), "--delta-inf", strconv.Itoa(int(c)), "--delta-2", g(d), "--n", "1000"}
		case 8:
			args = []string{"pipeline", "--mech", "dp-gd", "--sigma", g(a), "--n", strconv.Itoa(int(b)), "--lipschitz", "1", "--mu-x", g(c), "--delta-inf", "1", "--delta-2", g(d)}
		case 9:
			args = []string{"pipeline", "--mech", "dp-sgd", "--q", g(a), "--sigma", g(b), "--clip", "1", "--mu-x", g(c), "--delta-inf", "2", "--delta-2", g(d), "--n", "1000", "--relation", "add_remove"}
		case 10:
			args = []string{"rgm", "--eta", g(a), "--d", strconv.Itoa(int(c)), "--calibrate", "gamma", "--epsilon", g(b), "--order", g(d)}
		}
		if steps > 1 {
			args = append(args, "--steps", strconv.FormatUint(uint64(steps), 10))
		}
		switch {
		case kind%11 == 10: // the query is in its flags
		case mode%4 == 0:
			args = append(args, "--delta", g(q))
		case mode%4 == 1:
			args = append(args, "--epsilon", g(q))
		case mode%4 == 2:
			args = append(args, "--order", g(q))
		default:
			args = append(args, "--calibrate", "sigma", "--epsilon", g(q), "--delta", "1e-5")
		}
		accountant := []string{"rdp", "pld", "exact", "all"}[acct%4]
		if accountant == "pld" || accountant == "all" {
			if steps > 2000 || kind%11 == 2 && mode%4 == 3 {
				t.Skip() // PLD runs and PLD calibrations of DP-SGD take seconds
			}
		}
		args = append(args, "--accountant", accountant)
		all := accountRun(t, args)
		// --order is an RDP query: all refuses it outright, pld and exact
		// say they have no RDP curve.
		if accountant == "all" && !slices.Contains(args, "--order") {
			var single [3]accountOutcome
			for i, k := range []string{"rdp", "pld", "exact"} {
				single[i] = accountRun(t, append(args[:len(args)-1:len(args)-1], k))
			}
			checkAllAgrees(t, args, all, single)
		}
	})
}

// accountOutcome is one "dplab account" invocation's exit code and output.
type accountOutcome struct {
	code     int
	out, err string
}

// accountRun runs "dplab account args" and checks what every invocation
// must satisfy: exit 0 with an answer and no NaN, or 1 or 2 with a message
// naming the command, within 30 s.
func accountRun(t *testing.T, args []string) accountOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	start := time.Now()
	code := Main(ctx, append([]string{"account"}, args...), &out, &errb)
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("account %s: %v", strings.Join(args, " "), d)
	}
	switch {
	case code == 0 && (out.Len() == 0 || strings.Contains(out.String(), "NaN")):
		t.Fatalf("account %s: exit 0 with %q", strings.Join(args, " "), out.String())
	case code != 0 && (code > 2 || !strings.HasPrefix(errb.String(), "dplab account: ")):
		t.Fatalf("account %s: exit %d with %q", strings.Join(args, " "), code, errb.String())
	}
	return accountOutcome{code, out.String(), errb.String()}
}

// checkAllAgrees checks "--accountant all" (args) against the rdp, pld and
// exact accountants run alone on the same input (single, in that order):
// validity is the input's, not an accountant's (issue 34 item 14). An
// accountant's error that does not name it ("the rdp accountant …") is about
// the input: then every accountant refuses it with that same message, and
// so does all. All exits 0 iff some accountant answers; its row of an
// accountant that answers is that answer's first line, of one that does not
// "n/a, does not apply to this input (its reason)".
func checkAllAgrees(t *testing.T, args []string, all accountOutcome, single [3]accountOutcome) {
	t.Helper()
	cmd := "account " + strings.Join(args, " ")
	kinds := [3]string{"rdp", "pld", "exact"}
	reason := func(msg string) string {
		return strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(msg, "dplab account: "), "\n"), "accounting: ")
	}
	answered := false
	for i, s := range single {
		answered = answered || s.code == 0
		if s.code != 0 && !strings.Contains(s.err, "the "+kinds[i]+" accountant") {
			for j, o := range single {
				if o.code == 0 || o.err != s.err {
					t.Fatalf("%s: %s refuses the input (%q) but %s says exit %d %q %q", cmd, kinds[i], s.err, kinds[j], o.code, o.out, o.err)
				}
			}
			if all.code != 2 || all.err != s.err {
				t.Fatalf("%s: every accountant refuses the input (%q) but all exits %d with %q %q", cmd, s.err, all.code, all.out, all.err)
			}
		}
	}
	if (all.code == 0) != answered {
		t.Fatalf("%s: exit %d (%q) though an accountant answered: %v", cmd, all.code, all.err, answered)
	}
	if all.code != 0 {
		return
	}
	lines := strings.Split(all.out, "\n")
	for i, s := range single {
		prefix := fmt.Sprintf("%-6s ", kinds[i]+":")
		row := ""
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				row = strings.TrimPrefix(l, prefix)
				break
			}
		}
		want := "n/a, does not apply to this input (" + reason(s.err) + ")"
		if s.code == 0 {
			want = strings.SplitN(s.out, "\n", 2)[0]
		}
		if row != want {
			t.Fatalf("%s: row %q, want %q (the %s accountant alone: exit %d %q %q)", cmd, row, want, kinds[i], s.code, s.out, s.err)
		}
	}
}
