package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

const rankingSpec = `name = "rk"
seed = 1
trials = 3
epsilon = [0.5, 2]
delta = 1e-6
ci = "normal"

[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 300, d = 4 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"

[[mechanism]]
name = "linear-mixing"
label = "Mixing"

[[mechanism]]
name = "adassp"
label = "Tuned"
[mechanism.tuning]
mode = "oracle"
candidates = { rho = [1e-4, 1e-3] }

[[mechanism]]
name = "ridge"
label = "Ridge"

[[table]]
name = "rank"
kind = "ranking"
metric = "test_mse"

[[table]]
name = "rank-honest"
kind = "ranking"
metric = "test_mse"
epsilon = [2]
non_private_tuning = "exclude"
`

// rankingTrials are hand-chosen trials per (label, ε): test MSE, wall
// seconds and ε spent of each of 3 trials.
var rankingTrials = map[string]map[float64]struct {
	mse, wall []float64
	spent     float64
}{
	"AdaSSP": {0.5: {[]float64{1, 2, 3}, []float64{1, 2, 3}, 0.5}, 2: {[]float64{1, 2, 3}, []float64{1, 2, 3}, 1.5}},
	"Mixing": {0.5: {[]float64{4, 4.5, 5}, []float64{0.5, 0.5, 0.5}, 0.6}, 2: {[]float64{2.5, 3, 3.5}, []float64{0.5, 0.5, 0.5}, 2}},
	"Tuned":  {0.5: {[]float64{1, 5, 9}, []float64{9, 9, 9}, math.Inf(1)}, 2: {[]float64{0.1, 0.2, 0.3}, []float64{9, 9, 9}, math.Inf(1)}},
	"Ridge":  {math.Inf(1): {[]float64{0.05, 0.05, 0.05}, []float64{0.1, 0.1, 0.1}, math.Inf(1)}},
}

// TestRankingTable checks the ranking kind against values worked by hand
// from the trials above (normal CI: half-width 1.96·sd/√3):
//
//	ε = 0.5: AdaSSP 2 ± 1.96/√3 (sd 1), Mixing 4.5 ± 0.98/√3 (sd 0.5),
//	         Tuned 5 ± 7.84/√3 (sd 4). Winner AdaSSP, runner-up Mixing,
//	         margin 2.5 ± 2.94/√3 = 2.5 ± 1.697 > 0, but Tuned's wide CI
//	         overlaps AdaSSP's (|5 − 2| = 3 ≤ 9.8/√3 = 5.66): a tie, with
//	         Tuned. Mixing spent 0.6 > 0.5.
//	ε = 2:   Tuned 0.2 ± 0.196/√3 (oracle tuned, ε = ∞) wins over AdaSSP by
//	         1.8 ± 2.156/√3 = 1.8 ± 1.245; AdaSSP spent 1.5 < 2.
//	         Without oracle tuning: AdaSSP 2 vs Mixing 3 ± 0.98/√3, margin
//	         1 ± 1.697: the CIs overlap, a tie.
func TestRankingTable(t *testing.T) {
	s := spectest.MustParse(t, rankingSpec)
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	for _, c := range spectest.Cells(t, s) {
		tr := rankingTrials[c.Label][c.Epsilon]
		tuning := results.TuningNone
		if c.Label == "Tuned" {
			tuning = results.TuningOracle
		}
		for i := range 3 {
			recs = append(recs, results.Record{Schema: results.SchemaVersion, CellKey: c.Key, Dataset: "Lin", Label: c.Label,
				Epsilon: results.Float(c.Epsilon), Trial: i, Status: results.StatusOK,
				Metrics:     map[string]results.Float{"test_mse": results.Float(tr.mse[i])},
				Privacy:     results.Privacy{EpsTarget: results.Float(c.Epsilon), EpsSpent: results.Float(tr.spent), Delta: 1e-6, Accountant: "rdp", Tuning: tuning},
				WallSeconds: tr.wall[i]})
		}
	}
	v, err := newView(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := decodeOutputs(s)
	if err != nil {
		t.Fatal(err)
	}
	all, honest := outs.tables[0].Build(&View{v}), outs.tables[1].Build(&View{v})
	if len(all) != 1 || len(honest) != 1 {
		t.Fatalf("%d and %d tables, want one each", len(all), len(honest))
	}
	h := 1.96 / math.Sqrt(3) // half-width of a sample with sd 1
	col := func(name string) int {
		for i, c := range rankingColumns {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}
	type want struct {
		text  map[string]string
		entry map[string][2]float64 // mean, half
	}
	check := func(tab *plotting.Table, rows []string, wants []want) {
		t.Helper()
		if strings.Join(tab.Rows, ",") != strings.Join(rows, ",") {
			t.Fatalf("%s: rows %v, want %v", tab.Name, tab.Rows, rows)
		}
		for i, w := range wants {
			for name, txt := range w.text {
				if got := tab.Cells[i][col(name)]; !got.Present || got.Text != txt {
					t.Errorf("%s ε = %s, %s: %q, want %q", tab.Name, rows[i], name, got.Text, txt)
				}
			}
			for name, mh := range w.entry {
				got := tab.Cells[i][col(name)]
				if !got.Present || got.Text != "" || math.Abs(got.Mean-mh[0]) > 1e-12 || math.Abs(got.Half-mh[1]) > 1e-12 && !(got.Half == 0 && mh[1] == 0) {
					t.Errorf("%s ε = %s, %s: %g ± %g, want %g ± %g", tab.Name, rows[i], name, got.Mean, got.Half, mh[0], mh[1])
				}
			}
		}
	}
	sgd := "Tuned (non-private tuning)"
	check(all[0], []string{"0.5", "2"}, []want{
		{text: map[string]string{"winner": "AdaSSP", "runner-up": "Mixing", "verdict": "tie", "tied with winner": sgd,
			"winner ε spent / target": "0.5 / 0.5", "runner-up ε spent / target": "0.6 / 0.5 (OVERSPENT 0.6 > 0.5)",
			"ε flags": "Mixing: OVERSPENT 0.6 > 0.5; " + sgd + ": NON-PRIVATE tuning, ε spent = ∞"},
			entry: map[string][2]float64{"winner mean": {2, h}, "runner-up mean": {4.5, h / 2}, "margin": {2.5, 1.5 * h},
				"winner s/trial": {2, 0}, "runner-up s/trial": {0.5, 0}}},
		{text: map[string]string{"winner": sgd, "runner-up": "AdaSSP", "verdict": "win", "tied with winner": "none",
			"winner ε spent / target": "∞ / 2 (NON-PRIVATE tuning, ε spent = ∞)", "runner-up ε spent / target": "1.5 / 2 (spent 1.5 < target 2)",
			"ε flags": sgd + ": NON-PRIVATE tuning, ε spent = ∞; AdaSSP: spent 1.5 < target 2"},
			entry: map[string][2]float64{"winner mean": {0.2, h / 10}, "runner-up mean": {2, h}, "margin": {1.8, 1.1 * h},
				"winner s/trial": {9, 0}, "runner-up s/trial": {2, 0}}},
	})
	check(honest[0], []string{"2"}, []want{
		{text: map[string]string{"winner": "AdaSSP", "runner-up": "Mixing", "verdict": "tie", "tied with winner": "Mixing",
			"ε flags": "AdaSSP: spent 1.5 < target 2"},
			entry: map[string][2]float64{"margin": {1, 1.5 * h}}},
	})
	for _, tab := range append(all, honest...) {
		if !strings.Contains(captionText(tab.Caption), "Reference (non-private): Ridge: 0.05") || !strings.Contains(captionText(tab.Caption), "a tie") || !strings.Contains(captionText(tab.Caption), "Accountant: rdp") {
			t.Errorf("%s note %q", tab.Name, captionText(tab.Caption))
		}
	}
	if !strings.Contains(captionText(all[0].Caption), "Tuned: NON-PRIVATE tuning") || !strings.Contains(captionText(honest[0].Caption), "oracle-tuned cells excluded") {
		t.Errorf("notes do not label the oracle tuning: %q / %q", captionText(all[0].Caption), captionText(honest[0].Caption))
	}

	bad := strings.Replace(rankingSpec, `non_private_tuning = "exclude"`, `non_private_tuning = "maybe"`, 1)
	if _, err := parseChecked("t.toml", bad); err == nil || !strings.Contains(err.Error(), "table[1].non_private_tuning") {
		t.Errorf("non_private_tuning = \"maybe\": %v", err)
	}
}
