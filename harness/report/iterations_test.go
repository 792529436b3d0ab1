package report

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// iterSpecSrc is the spec of the iterations and diagnostics tests: the
// test-only iterative mechanisms (iterative_mech_test.go) with a sweep over
// "split", a second private one without it, and a non-private reference.
// The records are written by hand (iterRecords), so every value drawn or
// tabulated is known.
const iterSpecSrc = `name = "iter"
seed = 1
trials = 3
epsilon = [1]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 100, d = 3 }
split = { all = true }
[[mechanism]]
name = "test-iterative"
label = "RGM"
params = { split = ["random", "label"] }
[[mechanism]]
name = "test-iterative"
label = "Clip"
params = { scale = 2 }
[[mechanism]]
name = "test-iterative-ref"
label = "GD"
`

// The traces of the hand-written records: RGM's three trials (the same in
// both splits), Clip's three and GD's single trial (the spec asks for 3).
var (
	rgmTraces  = [][]float64{{4, 2, 0}, {2, 1, 0}, {6, 3, 0}}
	clipTraces = [][]float64{{8, 4, 2}, {8, 4, 2}, {8, 4, 2}}
	gdTraces   = [][]float64{{1, 0.5, 0.25}}
)

// iterRecords returns hand-written ok records for the cells of s: RGM's
// with a target scope and ε spent 5 (over its target 1), Clip's without a
// scope and also overspending, GD's non-private. Diagnostics: n and
// node1/eta, node2/eta, node10/eta (= 1, 2, 10 times the trial number + 1);
// noise node1/gamma = 10·(trial + 1).

// t975nu2 is t₂ = t_{0.975, 2}, the 95% Student-t quantile of 3 trials (the
// default interval under 30 trials), in closed form for ν = 2:
// (2p − 1)/√(2p(1 − p)) at p = 0.975 [Abramowitz & Stegun 26.7.5].
var t975nu2 = 0.95 / math.Sqrt(2*0.975*0.025)

func iterRecords(t *testing.T, s *spec.Spec) []results.Record {
	t.Helper()
	var recs []results.Record
	for _, c := range spectest.Cells(t, s) {
		traces := map[string][][]float64{"RGM": rgmTraces, "Clip": clipTraces, "GD": gdTraces}[s.Mechanisms[c.Mechanism].Label]
		for trial, tr := range traces {
			r := results.Record{Schema: results.SchemaVersion, Experiment: s.Name, CellKey: c.Key, Dataset: "Lin",
				Mechanism: c.Entry.Info.Name, Label: c.Label, Epsilon: results.Float(c.Epsilon), Trial: trial, Status: results.StatusOK,
				Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), EpsSpent: 5, Delta: 1e-5, Accountant: "rdp", Relation: "add_remove", Tuning: "none"},
				Traces:  map[string][]results.Float{"excess_objective": nil},
				Diagnostics: map[string]results.Float{"n": 100, "node1/eta": results.Float(trial + 1), "node2/eta": results.Float(2 * (trial + 1)),
					"node10/eta": results.Float(10 * (trial + 1))},
			}
			for _, x := range tr {
				r.Traces["excess_objective"] = append(r.Traces["excess_objective"], results.Float(x))
			}
			switch {
			case !c.Private:
				r.Privacy.EpsSpent, r.Privacy.EpsTarget = results.Float(math.Inf(1)), results.Float(math.Inf(1))
			case s.Mechanisms[c.Mechanism].Label == "RGM":
				r.Privacy.TargetScope = "per-step RDP ε at α = 2"
				r.Privacy.Noise = map[string]results.Float{"node1/gamma": results.Float(10 * (trial + 1))}
			}
			recs = append(recs, r)
		}
	}
	return recs
}

// iterView parses iterSpecSrc with blocks added and returns its decoded
// outputs and the view of iterRecords.
func iterView(t *testing.T, blocks string) (*outputs, *view) {
	t.Helper()
	s := spectest.MustParse(t, iterSpecSrc+blocks)
	outs, err := decodeOutputs(s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newView(s, iterRecords(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return outs, v
}

// near compares within 1e-12 relative: a few floating-point operations.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestIterationsFigure: the lines, bands, panels and footnote of an
// iterations figure, by hand. RGM at t = 0, 1, 2 has values {4, 2, 6},
// {2, 1, 3}, {0, 0, 0}: means 4, 2, 0; min–max bands [2, 6], [1, 3], [0, 0];
// the zeros are drawn at the floor 0.01 (a tenth of 0.1, the decade of
// 0.25, GD's last value, the smallest positive value drawn); the 95% CI at t = 0 is 4 ± t₂·2/√3 (3 trials: Student-t, the default).
// panel_by = "split" makes two panels; Clip (no split param) and GD (dashed,
// non-private) are in both. RGM's overspend is its target scope, stated;
// Clip's is a warning. GD has 1 trial of 3.
func TestIterationsFigure(t *testing.T) {
	ci := t975nu2 * 2 / math.Sqrt(3)
	tests := []struct {
		name     string
		block    string
		rgmY     []float64
		rgmLo    []float64
		rgmHi    []float64
		notes    []string // in the footnote
		notNotes []string // not in it
	}{
		{"minmax band, log y", "band = \"minmax\"", []float64{4, 2, 0.01}, []float64{2, 1, 0.01}, []float64{6, 3, 0.01},
			[]string{"drawn at the floor 0.01", "trials per line: GD 1 (spec: 3)", "mean with min–max band over 1–3 trials per cell",
				"ε = 1 is the per-step RDP ε at α = 2 (target scope of RGM); ε spent is the (ε, δ) of the whole run under rdp",
				"WARNING: Clip spent more than the target ε at ε = 1", "dashed: non-private"},
			[]string{"WARNING: RGM"}},
		{"ci band, linear y", "band = \"ci\"\nlog_y = false", []float64{4, 2, 0}, []float64{4 - ci, 2 - ci/2, 0}, []float64{4 + ci, 2 + ci/2, 0},
			[]string{"95% CI"}, []string{"floor"}},
		{"given floor", "floor = 1e-3", []float64{4, 2, 1e-3}, []float64{2, 1, 1e-3}, []float64{6, 3, 1e-3},
			[]string{"drawn at the floor 0.001"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outs, v := iterView(t, "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\n"+tc.block+"\n")
			fig := outs.figures[0].Draw(&View{v})
			var titles []string
			for _, p := range fig.Panels {
				titles = append(titles, p.Title)
			}
			if want := []string{"split = random", "split = label"}; !slices.Equal(titles, want) {
				t.Fatalf("panels %q, want %q", titles, want)
			}
			for _, p := range fig.Panels {
				var labels []string
				for _, s := range p.Series {
					labels = append(labels, s.Label)
					if s.Dashed != (s.Label == "GD") {
						t.Errorf("%s: %s dashed = %v; want only the non-private GD dashed", p.Title, s.Label, s.Dashed)
					}
					if !slices.Equal(s.X, []float64{0, 1, 2}) {
						t.Errorf("%s: %s x = %v", p.Title, s.Label, s.X)
					}
				}
				if want := []string{"RGM", "Clip", "GD"}; !slices.Equal(labels, want) {
					t.Errorf("%s: lines %q, want %q (the split param is the panel's)", p.Title, labels, want)
				}
				rgm := p.Series[0]
				if !nearAll(rgm.Y, tc.rgmY) || !nearAll(rgm.Lo, tc.rgmLo) || !nearAll(rgm.Hi, tc.rgmHi) {
					t.Errorf("%s: RGM y %v [%v, %v], want %v [%v, %v]", p.Title, rgm.Y, rgm.Lo, rgm.Hi, tc.rgmY, tc.rgmLo, tc.rgmHi)
				}
				if gd := p.Series[2]; !nearAll(gd.Y, []float64{1, 0.5, 0.25}) {
					t.Errorf("%s: GD y %v, want its one trial", p.Title, gd.Y)
				}
			}
			for _, want := range tc.notes {
				if !strings.Contains(captionText(fig.Caption), want) {
					t.Errorf("footnote lacks %q:\n%s", want, captionText(fig.Caption))
				}
			}
			for _, not := range tc.notNotes {
				if strings.Contains(captionText(fig.Caption), not) {
					t.Errorf("footnote has %q:\n%s", not, captionText(fig.Caption))
				}
			}
			if err := fig.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestIterationsPanelTitles: panel_titles titles the figure's panels and
// the table's tables by their panel_by value (issue 35: the RGM code
// preset's "label" split is not a label split, and its panel says so); a
// value without a title keeps "split = <value>", and the tables keep their
// file names.
func TestIterationsPanelTitles(t *testing.T) {
	titles := "panel_titles = { label = \"the code's “label” split: labels not separated\" }\n"
	outs, v := iterView(t, "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\n"+titles+
		"[[table]]\nname = \"it\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\n"+titles)
	fig := outs.figures[0].Draw(&View{v})
	var got []string
	for _, p := range fig.Panels {
		got = append(got, p.Title)
	}
	if want := []string{"split = random", "the code's “label” split: labels not separated"}; !slices.Equal(got, want) {
		t.Errorf("panel titles %q, want %q", got, want)
	}
	tabs := outs.tables[0].Build(&View{v})
	if len(tabs) != 2 || tabs[0].Name != "it-split-random" || tabs[1].Name != "it-split-label" {
		t.Fatalf("tables %d, want it-split-random and it-split-label", len(tabs))
	}
	if want := "excess_objective per iteration — the code's “label” split: labels not separated"; tabs[1].Title != want {
		t.Errorf("table title %q, want %q", tabs[1].Title, want)
	}
}

// TestIterationsFigurePanelsByDataset: without panel_by, one panel per
// dataset, and the lines keep their full labels.
func TestIterationsFigurePanelsByDataset(t *testing.T) {
	outs, v := iterView(t, "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\n")
	fig := outs.figures[0].Draw(&View{v})
	if len(fig.Panels) != 1 || fig.Panels[0].Title != "Lin" {
		t.Fatalf("panels %+v, want one titled Lin", fig.Panels)
	}
	var labels []string
	for _, s := range fig.Panels[0].Series {
		labels = append(labels, s.Label)
	}
	if want := []string{"RGM[split=random]", "RGM[split=label]", "Clip", "GD"}; !slices.Equal(labels, want) {
		t.Errorf("lines %q, want %q", labels, want)
	}
	if !fig.LogY || fig.XLabel != "iteration t" || fig.YLabel != "excess_objective" {
		t.Errorf("log y %v, x label %q, y label %q: want the defaults", fig.LogY, fig.XLabel, fig.YLabel)
	}
}

// TestIterationsTable: rows at t = 0 and the last iteration (2), columns
// the lines, entries mean ± CI half-width: RGM at t = 0 is 4 ± t₂·2/√3,
// at t = 2 exactly 0; GD's single trial has no interval (NaN).
func TestIterationsTable(t *testing.T) {
	outs, v := iterView(t, "[[table]]\nname = \"it\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\nat = [0, \"last\"]\n")
	tabs := outs.tables[0].Build(&View{v})
	if len(tabs) != 2 || tabs[0].Name != "it-split-random" || tabs[1].Name != "it-split-label" {
		t.Fatalf("tables %d, want it-split-random and it-split-label", len(tabs))
	}
	tab := tabs[0]
	if !slices.Equal(tab.Rows, []string{"0", "2"}) || !slices.Equal(tab.Columns, []string{"RGM", "Clip", "GD"}) {
		t.Fatalf("rows %q, columns %q", tab.Rows, tab.Columns)
	}
	want := [][]plotting.Entry{
		{{Mean: 4, Half: t975nu2 * 2 / math.Sqrt(3), Present: true}, {Mean: 8, Half: 0, Present: true}, {Mean: 1, Half: math.NaN(), Present: true}},
		{{Mean: 0, Half: 0, Present: true}, {Mean: 2, Half: 0, Present: true}, {Mean: 0.25, Half: math.NaN(), Present: true}},
	}
	for i := range want {
		for j, w := range want[i] {
			g := tab.Cells[i][j]
			if g.Present != w.Present || !near(g.Mean, w.Mean) || !(near(g.Half, w.Half) || math.IsNaN(w.Half) && math.IsNaN(g.Half)) {
				t.Errorf("row %s, %s: got %+v, want %+v", tab.Rows[i], tab.Columns[j], g, w)
			}
		}
	}
	if !strings.Contains(captionText(tab.Caption), "target scope of RGM") || !strings.Contains(captionText(tab.Caption), "trials per line: GD 1 (spec: 3)") {
		t.Errorf("footnote: %s", captionText(tab.Caption))
	}
}

// TestIterationsTablePanelRows: with rows = "panels" one table has a row
// per panel (split = random, split = label) at one iteration, a column per
// line; by hand at t = 1: RGM's {2, 1, 3} is 2 ± t₂·1/√3, Clip's 4 (every
// trial), GD's single trial 0.5; at "last" (t = 2) RGM 0, Clip 2, GD 0.25.
func TestIterationsTablePanelRows(t *testing.T) {
	h := t975nu2 / math.Sqrt(3)
	for _, c := range []struct {
		at    string
		title string
		want  []plotting.Entry
	}{
		{"1", "excess_objective at t = 1", []plotting.Entry{{Mean: 2, Half: h, Present: true}, {Mean: 4, Present: true}, {Mean: 0.5, Half: math.NaN(), Present: true}}},
		{"\"last\"", "excess_objective at the last iteration", []plotting.Entry{{Mean: 0, Present: true}, {Mean: 2, Present: true}, {Mean: 0.25, Half: math.NaN(), Present: true}}},
	} {
		outs, v := iterView(t, "[[table]]\nname = \"it\"\nkind = \"iterations\"\ntrace = \"excess_objective\"\npanel_by = \"split\"\nrows = \"panels\"\nat = "+c.at+"\n")
		tabs := outs.tables[0].Build(&View{v})
		if len(tabs) != 1 {
			t.Fatalf("at = %s: %d tables", c.at, len(tabs))
		}
		tab := tabs[0]
		if tab.Name != "it" || tab.Title != c.title || tab.RowHeader != "split" || !slices.Equal(tab.Rows, []string{"split = random", "split = label"}) ||
			!slices.Equal(tab.Columns, []string{"RGM", "Clip", "GD"}) {
			t.Fatalf("at = %s: name %q, title %q, header %q, rows %q, columns %q", c.at, tab.Name, tab.Title, tab.RowHeader, tab.Rows, tab.Columns)
		}
		for i := range tab.Rows {
			for j, w := range c.want {
				g := tab.Cells[i][j]
				if g.Present != w.Present || !near(g.Mean, w.Mean) || !(near(g.Half, w.Half) || math.IsNaN(w.Half) && math.IsNaN(g.Half)) {
					t.Errorf("at = %s, %s, %s: got %+v, want %+v", c.at, tab.Rows[i], tab.Columns[j], g, w)
				}
			}
		}
		if notes := strings.Join(tab.Caption.Notes, "; "); !strings.Contains(notes, "rows: panels (split)") || !strings.Contains(notes, "trials per line: GD 1 (spec: 3)") {
			t.Errorf("caption notes: %s", notes)
		}
	}
}

// TestDiagnosticsTable: one row per (cell, group), groups in natural order
// (node2 before node10), the cell's ungrouped keys in its own row first,
// entries means over trials by hand: node1/eta = 1, 2, 3 over the trials:
// mean 2 ± t₂·1/√3; node1/gamma (RGM's noise) 10, 20, 30: 20 ± 10·t₂/√3;
// n = 100 in every trial: no interval. Title and footnote say the values
// are not private.
func TestDiagnosticsTable(t *testing.T) {
	outs, v := iterView(t, "[[table]]\nname = \"d\"\nkind = \"diagnostics\"\ncolumns = [\"n\", \"eta\"]\nnoise_columns = [\"gamma\"]\nmechanisms = [\"RGM\", \"GD\"]\n")
	tabs := outs.tables[0].Build(&View{v})
	if len(tabs) != 1 {
		t.Fatalf("%d tables", len(tabs))
	}
	tab := tabs[0]
	wantRows := []string{
		"RGM[split=random], ε = 1", "RGM[split=random], ε = 1 / node1", "RGM[split=random], ε = 1 / node2", "RGM[split=random], ε = 1 / node10",
		"RGM[split=label], ε = 1", "RGM[split=label], ε = 1 / node1", "RGM[split=label], ε = 1 / node2", "RGM[split=label], ε = 1 / node10",
		"GD", "GD / node1", "GD / node2", "GD / node10",
	}
	if !slices.Equal(tab.Rows, wantRows) || !slices.Equal(tab.Columns, []string{"n", "eta", "gamma"}) {
		t.Fatalf("rows %q\ncolumns %q", tab.Rows, tab.Columns)
	}
	h := t975nu2 / math.Sqrt(3)
	absent := plotting.Entry{}
	want := map[string][]plotting.Entry{
		"RGM[split=random], ε = 1":          {{Mean: 100, Present: true}, absent, absent},
		"RGM[split=random], ε = 1 / node1":  {absent, {Mean: 2, Half: h, Present: true}, {Mean: 20, Half: 10 * h, Present: true}},
		"RGM[split=random], ε = 1 / node10": {absent, {Mean: 20, Half: 10 * h, Present: true}, absent},
		"GD / node2":                        {absent, {Mean: 2, Half: math.NaN(), Present: true}, absent}, // one trial
	}
	for row, w := range want {
		i := slices.Index(tab.Rows, row)
		for j := range w {
			g := tab.Cells[i][j]
			if g.Present != w[j].Present || g.Present && (!near(g.Mean, w[j].Mean) || !(near(g.Half, w[j].Half) || math.IsNaN(w[j].Half) && math.IsNaN(g.Half))) {
				t.Errorf("%s, %s: got %+v, want %+v", row, tab.Columns[j], g, w[j])
			}
		}
	}
	if !strings.Contains(tab.Title, "without noise (NOT DP)") || !strings.Contains(captionText(tab.Caption), "NOT DIFFERENTIALLY PRIVATE") ||
		!strings.Contains(captionText(tab.Caption), "gamma: the noise parameters of privacy.noise") {
		t.Errorf("title %q, footnote %q: want both to say the values are not private", tab.Title, captionText(tab.Caption))
	}
	if tab.Digits != 6 {
		t.Errorf("digits %d, want 6 (row counts print exactly)", tab.Digits)
	}
}

// TestIterationAndDiagnosticsErrors: the new kinds' blocks are checked at
// decode, errors naming the key.
func TestIterationAndDiagnosticsErrors(t *testing.T) {
	tests := []struct {
		name, block, key, want string
	}{
		{"no trace", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\n", "figure[0].trace", "trace is required"},
		{"unknown panel_by", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\npanel_by = \"splitt\"\n", "figure[0].panel_by", `panel_by = "splitt" is not a param of any mechanism shown (their params: scale, split)`},
		{"panel_by of a mechanism not shown", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\npanel_by = \"split\"\nmechanisms = [\"Clip\"]\n", "figure[0].panel_by", "not a param"},
		{"bad band", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\nband = \"iqr\"\n", "figure[0].band", "want minmax, ci, none"},
		{"negative floor", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\nfloor = -1.0\n", "figure[0].floor", "floor = -1"},
		{"table at negative", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\nat = [0, -1]\n", "table[0].at", "iteration -1"},
		{"table at unknown word", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\nat = \"first\"\n", "table[0].at", `"first": want integers`},
		{"rows = panels at two iterations", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\nrows = \"panels\"\nat = [0, \"last\"]\n", "table[0].at", "shows one iteration"},
		{"rows = panels at every iteration", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\nrows = \"panels\"\n", "table[0].at", "shows one iteration"},
		{"unknown rows", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\nrows = \"x\"\n", "table[0].rows", "panels"},
		{"panel_titles without panel_by", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\npanel_titles = { random = \"R\" }\n", "figure[0].panel_titles", "needs panel_by"},
		{"panel_titles of no value", "[[table]]\nname = \"t\"\nkind = \"iterations\"\ntrace = \"x\"\npanel_by = \"split\"\npanel_titles = { bias = \"B\" }\n", "table[0].panel_titles", `key "bias" is not a value of split (its values: label, random)`},
		{"empty panel title", "[[figure]]\nname = \"f\"\nkind = \"iterations\"\ntrace = \"x\"\npanel_by = \"split\"\npanel_titles = { label = \" \" }\n", "figure[0].panel_titles", "panel_titles.label is empty"},
		{"diagnostics without columns", "[[table]]\nname = \"t\"\nkind = \"diagnostics\"\n", "table[0].columns", "needs columns"},
		{"diagnostics grouped column", "[[table]]\nname = \"t\"\nkind = \"diagnostics\"\ncolumns = [\"node1/eta\"]\n", "table[0].columns", "without its group"},
		{"diagnostics column twice", "[[table]]\nname = \"t\"\nkind = \"diagnostics\"\ncolumns = [\"eta\"]\nnoise_columns = [\"eta\"]\n", "table[0].noise_columns", "already in columns"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(spectest.MustParse(t, iterSpecSrc+tc.block))
			se, ok := err.(*spec.SpecError)
			if !ok || se.Key != tc.key || !strings.Contains(se.Error(), tc.want) {
				t.Errorf("Check = %v; want a *spec.SpecError at %s mentioning %q", err, tc.key, tc.want)
			}
		})
	}
}

// TestNaturalCompare: groups sort with numbers compared as numbers.
func TestNaturalCompare(t *testing.T) {
	got := []string{"node10", "node2", "", "node1", "b", "a10", "a9", "node01"}
	slices.SortFunc(got, naturalCompare)
	if want := []string{"", "a9", "a10", "b", "node01", "node1", "node2", "node10"}; !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
}

// TestReadmeIterationsExample: the "Per-iteration runs" example of
// experiments/README.md (its second toml block: a dataset with split.all,
// an iterations figure and table, a diagnostics table) decodes with the
// kinds' strict decoders, with the test-only iterative mechanisms in place
// of the real ones.
func TestReadmeIterationsExample(t *testing.T) {
	b, err := os.ReadFile("../../experiments/README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```toml\n")
	if len(blocks) < 3 {
		t.Fatal("experiments/README.md has no second toml block")
	}
	example, _, ok := strings.Cut(blocks[2], "```")
	if !ok || !strings.Contains(example, `kind     = "iterations"`) {
		t.Fatal("the second toml block of experiments/README.md is not the per-iteration example")
	}
	src := "name = \"readme\"\nseed = 1\ntrials = 3\nepsilon = [0.1]\ndelta = 1e-5\n" + example +
		"\n[[mechanism]]\nname = \"test-iterative\"\nlabel = \"RGM\"\nparams = { split = [\"random\", \"label\", \"bias\"] }\n" +
		"\n[[mechanism]]\nname = \"test-iterative-ref\"\nlabel = \"GD\"\nparams = { split = [\"random\", \"label\", \"bias\"] }\n"
	s := spectest.MustParse(t, src)
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	if !s.Datasets[0].Split.All || len(s.Figures) != 1 || len(s.Tables) != 2 {
		t.Errorf("split %+v, %d figures, %d tables: want split.all, 1 and 2", s.Datasets[0].Split, len(s.Figures), len(s.Tables))
	}
}
