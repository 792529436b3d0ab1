package plan

import (
	"context"
	"errors"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLimits checks the grid limits at the API: the count is exact, a spec
// above the limits is refused from the counts (quickly, allocating little),
// and LoadOptions raise them (issue 9, item 7).
func TestLimits(t *testing.T) {
	src := strings.Replace(strings.Replace(validSpec, "[0.5, 2]", "{ logspace = [-2, 1, 10000] }", 1),
		"rho = 1e-4", "rho = { linspace = [1e-5, 0.5, 10000] }", 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Parse("toml", []byte(src))
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	var se *spec.SpecError
	if !errors.As(err, &se) || se.Key != "mechanism[0].params" || !strings.Contains(err.Error(), "100000001 cells") {
		t.Fatalf("10⁸ cells: %v", err)
	}
	// Loose bounds (a shared machine): expanding would take minutes and
	// about 18 GB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 || elapsed > 2*time.Second {
		t.Errorf("refusing took %v and %d MB", elapsed, alloc>>20)
	}
	// Raised: validated point by point (10⁴ points), still not expanded.
	s, err := ParseWith("toml", []byte(src), spec.LoadOptions{Limits: spec.Limits{MaxCells: 2e8, MaxTrials: 1e9}})
	if err != nil {
		t.Fatal(err)
	}
	if cells, trials := newChecker(s).size(); cells != 100000001 || trials != 300000003 {
		t.Errorf("Size = %d cells, %d trials; want 100000001, 300000003", cells, trials)
	}
	// Size agrees with Expand on a small spec with sweeps and a reference.
	small := mustParse(t, strings.Replace(validSpec, "rho = 1e-4", "rho = [1e-4, 1e-3, 1e-2]", 1))
	if cells, trials := newChecker(small).size(); cells != int64(len(cellsOf(t, small))) || cells != 7 || trials != 21 {
		t.Errorf("Size = %d, %d; Expand has %d cells; want 7 cells (3 points × 2 ε + ridge), 21 trials", cells, trials, len(cellsOf(t, small)))
	}
	// The tuning grid counts too.
	tuned := strings.Replace(validSpec, "rho = 1e-4 }", "rho = 1e-4 }\n[mechanism.tuning]\nmode = \"oracle\"\ncandidates = { rho = { linspace = [1e-5, 0.5, 2000] }, bound_x = { linspace = [1, 2, 1000] } }", 1)
	if _, err := Parse("toml", []byte(tuned)); !errors.As(err, &se) || se.Key != "mechanism[0].tuning.candidates" || !strings.Contains(err.Error(), "2000000 tuning configurations") {
		t.Errorf("2·10⁶ candidates: %v", err)
	}
	// A cancelled context stops a long validation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseWith("toml", []byte(src), spec.LoadOptions{Limits: spec.Limits{MaxCells: 2e8, MaxTrials: 1e9}, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled validation: %v", err)
	}
}

// TestEachPoint checks the lazy sweep against Points: same points, same
// order.
func TestEachPoint(t *testing.T) {
	var p spec.ParamTable
	if err := p.UnmarshalTOML(map[string]any{"a": []any{int64(1), int64(2)}, "b": "x", "c": []any{0.5, 1.5, 2.5}}); err != nil {
		t.Fatal(err)
	}
	want, _ := p.Points()
	var got []map[string]any
	p.EachPoint(func(pt map[string]any) bool { got = append(got, pt); return true })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("EachPoint %v\nPoints    %v", got, want)
	}
	n := 0
	p.EachPoint(func(map[string]any) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("EachPoint went on after false: %d calls", n)
	}
}

// TestBlameKey checks which params key a validation message is attributed
// to (issue 9, item 9: "mechanism[0].params.:" named no key).
func TestBlameKey(t *testing.T) {
	keys := []string{"bound_x", "bound_y", "k", "k_over_d", "rho"}
	tests := []struct{ msg, want string }{
		{"mechanism adassp: params: rho must be in (0, 1) (0 means 1e-4)", "rho"},
		{"mechanism linear-mixing: params: k = -1 must be ≥ 1 (0 means int(k_over_d·d))", "k"},
		{"mechanism x: params: k_over_d = -1 must be finite and ≥ 0", "k_over_d"},
		{"mechanism x: params: bound_x = NaN must be finite and ≥ 0", "bound_x"},
		{"mechanism x: params: something else", ""},
	}
	for _, tc := range tests {
		if got := blameKey("", errors.New(tc.msg), keys); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := blameKey("rho", errors.New("k is bad"), keys); got != "rho" {
		t.Errorf("the decoder's key is kept: %q", got)
	}
}

// TestDeltaRuleCheck checks δ rules over training-set sizes (issue 9, item
// 9): a rule valid at n = d = 1 but not at other sizes is refused, and the
// usual rules pass.
func TestDeltaRuleCheck(t *testing.T) {
	for _, ok := range []any{1e-6, "1/n^2", "min(1e-6, 0.01/n)", "0.1/(n*d)", "1/n", 1e-300} {
		var r spec.DeltaRule
		if err := r.UnmarshalTOML(ok); err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
	for _, bad := range []any{math.NaN(), "1/n - 1", "sqrt(-n)", 1e-320, "exp(-n)", "1/(n*d)^40", "0.5 + 0.5*log(n)", 0.0} {
		var r spec.DeltaRule
		if err := r.UnmarshalTOML(bad); err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
