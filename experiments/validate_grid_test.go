package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
)

// TestLedgerCheckMatchesRuns checks validation's accountant check against
// what a run does (issue 9, item 5): for every registered mechanism, every
// accountant and tuning none or private, validate refuses the spec exactly
// when a run of it (validation bypassed) fails its trial. The refusal names
// the mechanism block.
func TestLedgerCheckMatchesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs one trial of each mechanism × accountant × tuning")
	}
	// A numeric param each private mechanism can tune over.
	tuneKey := map[string]string{"dpsgd": "clip", "objpert-output": "clip", "objpert-amp": "clip"}
	cache := &DataCache{}
	for _, info := range mechanisms.List() {
		for _, kind := range []string{"rdp", "pld", "exact"} {
			for _, mode := range []string{TuneNone, TunePrivate} {
				if mode == TunePrivate && !info.Private {
					continue
				}
				name := fmt.Sprintf("%s/%s/%s", info.Name, kind, mode)
				t.Run(name, func(t *testing.T) {
					data := "synthetic-linear"
					if info.Tasks[0] == datasets.Binary {
						data = "synthetic-logistic"
					}
					key := tuneKey[info.Name]
					if key == "" {
						key = "bound_x"
					}
					base := fmt.Sprintf(`name = "ledger"
seed = 1
trials = 1
epsilon = [1]
delta = 1e-5

[[dataset]]
name = %q
params = { n = 300, d = 3 }

[[mechanism]]
name = %q
`, data, info.Name)
					if info.Name == "dpsgd" {
						base += "params = { epochs = 1 }\n"
					}
					full := strings.Replace(base, "delta = 1e-5", fmt.Sprintf("delta = 1e-5\naccountant = { kind = %q }", kind), 1)
					if mode == TunePrivate {
						full += fmt.Sprintf("[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 3\ncandidates = { %s = [1, 1.5] }\n", key)
					}
					_, verr := Parse("spec.toml", []byte(full))
					var se *SpecError
					if verr != nil && (!errors.As(verr, &se) || !strings.HasPrefix(se.Key, "mechanism[0]")) {
						t.Fatalf("validation error not about mechanism[0]: %v", verr)
					}

					// The same spec, validation bypassed: parse the untuned
					// RDP spec and set the accountant and tuning afterwards.
					s := mustParse(t, base)
					s.Accountant.Kind = kind
					if mode == TunePrivate {
						var cands ParamTable
						if err := cands.UnmarshalTOML(map[string]any{key: []any{1.0, 1.5}}); err != nil {
							t.Fatal(err)
						}
						s.Mechanisms[0].Tuning = TuningSpec{Mode: TunePrivate, Distribution: "poisson", Mean: 3,
							SelectOn: "test", Sample: "grid", Candidates: cands}
					}
					dir := filepath.Join(t.TempDir(), "out")
					rep, rerr := Run(context.Background(), s, Options{OutDir: dir, Cache: cache})
					if rep == nil {
						t.Fatalf("run: %v", rerr)
					}
					failed := rep.Failed > 0
					if (verr != nil) != failed {
						t.Errorf("validate: %v\nrun: %d failed (%v)\nwant validate to refuse exactly the specs whose trials fail", verr, rep.Failed, rerr)
					}
					if verr != nil {
						t.Logf("refused: %v", verr)
					}
				})
			}
		}
	}
}

// TestLimits checks the grid limits at the API: the count is exact, a spec
// above the limits is refused from the counts (quickly, allocating little),
// and LoadOptions raise them (issue 9, item 7).
func TestLimits(t *testing.T) {
	src := strings.Replace(strings.Replace(validSpec, "[0.5, 2]", "{ logspace = [-2, 1, 10000] }", 1),
		"rho = 1e-4", "rho = { linspace = [1e-5, 0.5, 10000] }", 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Parse("spec.toml", []byte(src))
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	var se *SpecError
	if !errors.As(err, &se) || se.Key != "mechanism[0].params" || !strings.Contains(err.Error(), "100000001 cells") {
		t.Fatalf("10⁸ cells: %v", err)
	}
	// Loose bounds (a shared machine): expanding would take minutes and
	// about 18 GB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 || elapsed > 2*time.Second {
		t.Errorf("refusing took %v and %d MB", elapsed, alloc>>20)
	}
	// Raised: validated point by point (10⁴ points), still not expanded.
	s, err := ParseWith("spec.toml", []byte(src), LoadOptions{Limits: Limits{MaxCells: 2e8, MaxTrials: 1e9}})
	if err != nil {
		t.Fatal(err)
	}
	if cells, trials := s.Size(); cells != 100000001 || trials != 300000003 {
		t.Errorf("Size = %d cells, %d trials; want 100000001, 300000003", cells, trials)
	}
	// Size agrees with Expand on a small spec with sweeps and a reference.
	small := mustParse(t, strings.Replace(validSpec, "rho = 1e-4", "rho = [1e-4, 1e-3, 1e-2]", 1))
	if cells, trials := small.Size(); cells != int64(len(small.Expand())) || cells != 7 || trials != 21 {
		t.Errorf("Size = %d, %d; Expand has %d cells; want 7 cells (3 points × 2 ε + ridge), 21 trials", cells, trials, len(small.Expand()))
	}
	// The tuning grid counts too.
	tuned := strings.Replace(validSpec, "rho = 1e-4 }", "rho = 1e-4 }\n[mechanism.tuning]\nmode = \"oracle\"\ncandidates = { rho = { linspace = [1e-5, 0.5, 2000] }, bound_x = { linspace = [1, 2, 1000] } }", 1)
	if _, err := Parse("spec.toml", []byte(tuned)); !errors.As(err, &se) || se.Key != "mechanism[0].tuning.candidates" || !strings.Contains(err.Error(), "2000000 tuning configurations") {
		t.Errorf("2·10⁶ candidates: %v", err)
	}
	// A cancelled context stops a long validation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseWith("spec.toml", []byte(src), LoadOptions{Limits: Limits{MaxCells: 2e8, MaxTrials: 1e9}, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled validation: %v", err)
	}
}

// TestPlanCountsTrials checks that MakePlan counts stored trials per cell
// rather than visiting every trial index: 2·10⁹ trials plan in well under a
// second (visiting them took minutes), with stored and to-run counts exact.
func TestPlanCountsTrials(t *testing.T) {
	s, err := ParseWith("t.toml", []byte(strings.Replace(validSpec, "trials = 3", "trials = 700000000", 1)),
		LoadOptions{Limits: Limits{MaxTrials: 1e10}})
	if err != nil {
		t.Fatal(err)
	}
	cells := s.Expand()
	recs := []results.Record{
		{CellKey: cells[0].Key, Trial: 0, Status: results.StatusOK},
		{CellKey: cells[0].Key, Trial: 5, Status: results.StatusOK},
		{CellKey: cells[0].Key, Trial: 5, Status: results.StatusOK}, // a retry: counted once
		{CellKey: cells[1].Key, Trial: 1, Status: results.StatusFailed},
		{CellKey: "gone", Trial: 0, Status: results.StatusOK},
	}
	start := time.Now()
	p, err := MakePlan(context.Background(), s, recs)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("MakePlan took %v", elapsed)
	}
	if p.Cells != 3 || p.Total != 2100000000 || p.Stored != 2 || p.Stale != 1 || p.Rows[0].Stored != 2 || p.Rows[0].ToRun != 1399999998 {
		t.Errorf("plan %+v", p)
	}
}

// TestRunStreamsPending checks that Run does not list its pending trials:
// a cancelled run of 5·10⁷ pending trials allocates little (the list took
// 16 bytes per trial, and 10⁹ trials ran out of memory).
func TestRunStreamsPending(t *testing.T) {
	s := mustParse(t, strings.Replace(strings.Replace(validSpec, "trials = 3", "trials = 50000000", 1), "[0.5, 2]", "[1]", 1))
	s.Mechanisms = s.Mechanisms[:1]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := Run(ctx, s, Options{OutDir: filepath.Join(t.TempDir(), "out"), Cache: &DataCache{}})
	runtime.ReadMemStats(&after)
	if err == nil || rep == nil || !rep.Interrupted || rep.PendingBefore != 50000000 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("a cancelled run of 5·10⁷ trials allocated %d MB", alloc>>20)
	}
}

// TestEachPoint checks the lazy sweep against Points: same points, same
// order.
func TestEachPoint(t *testing.T) {
	var p ParamTable
	if err := p.UnmarshalTOML(map[string]any{"a": []any{int64(1), int64(2)}, "b": "x", "c": []any{0.5, 1.5, 2.5}}); err != nil {
		t.Fatal(err)
	}
	want, _ := p.Points()
	var got []map[string]any
	p.eachPoint(func(pt map[string]any) bool { got = append(got, pt); return true })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("eachPoint %v\nPoints    %v", got, want)
	}
	n := 0
	p.eachPoint(func(map[string]any) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("eachPoint went on after false: %d calls", n)
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
		var r DeltaRule
		if err := r.UnmarshalTOML(ok); err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
	for _, bad := range []any{math.NaN(), "1/n - 1", "sqrt(-n)", 1e-320, "exp(-n)", "1/(n*d)^40", "0.5 + 0.5*log(n)", 0.0} {
		var r DeltaRule
		if err := r.UnmarshalTOML(bad); err != nil {
			t.Fatal(err)
		}
		if err := r.Check(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
