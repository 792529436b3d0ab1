package report

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// quantityData is a small dataset of task for the mechanisms' fits.
func quantityData(t *testing.T, task datasets.Task) *datasets.Dataset {
	return datatest.Tiny(t, task, 400, 5)
}

// TestQuantitiesCoverMechanisms fits every registered mechanism (its test
// configuration and its Info.QuantityParams) on every task it supports and checks
// that each key of its noise parameters and diagnostics has a quantity,
// declared by the mechanism (Info.Quantities in its Register call) or, for
// solver counters, listed here: no key reaches a table unlabelled. Labels
// are unique among a mechanism's quantities (a table's columns are keyed
// by label), every declared key is reported by some fit, and every
// quantity states what it is and, unless it is a solver counter, where
// its notation comes from. Also the keys the runner adds: tuning's runs,
// total_<counter> and sel_<param>, and every pre-processing statistic.
func TestQuantitiesCoverMechanisms(t *testing.T) {
	for _, info := range mechanisms.List() {
		if strings.HasPrefix(info.Name, "test-") {
			continue // this package's test mechanisms
		}
		e, _ := mechanisms.Lookup(info.Name)
		var ms []mechanisms.Mechanism
		m, err := e.Test()
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
		for _, p := range info.QuantityParams {
			var doc struct{ P map[string]any }
			if _, err := toml.Decode("P = {"+p+"}", &doc); err != nil {
				t.Fatalf("%s QuantityParams %q: %v", info.Name, p, err)
			}
			m, _, err := e.Build(func(v any) error { _, err := spec.DecodeStrict(doc.P, v); return err })
			if err != nil {
				t.Fatalf("%s QuantityParams %q: %v", info.Name, p, err)
			}
			ms = append(ms, m)
		}
		keys := map[string]bool{}
		for i, m := range ms {
			for _, task := range info.Tasks {
				b := mechanisms.Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
				rel, err := m.Fit(context.Background(), quantityData(t, task), b, rngs.New(rngs.Derive("quantities", info.Name)))
				if err != nil {
					t.Fatalf("%s config %d, %s: %v", info.Name, i, task, err)
				}
				for k := range rel.Noise {
					keys[k] = true
				}
				for k := range rel.Stats {
					keys[k] = true
				}
			}
		}
		checkMechanismQuantities(t, info, keys)
	}
	for _, table := range []map[string][]quantity{sharedQuantities, preprocessQuantities} {
		for key, qs := range table {
			checkQuantities(t, key, qs)
		}
	}
	// The runner's keys: the tuning's and the pre-processing steps'.
	for _, k := range []string{"runs", "total_iterations", "total_grad_evals", "sel_lr", "preprocess/step0/n"} {
		if quantitiesOf("objpert-amp", k) == nil {
			t.Errorf("runner key %q has no quantity", k)
		}
	}
	ds := quantityData(t, datasets.Regression)
	for _, name := range preprocess.Names() {
		pp, err := preprocess.Build(name, preprocess.Params{Eta: 0.1, K: 2, Trim: 1})
		if err != nil {
			t.Fatal(err)
		}
		fit, err := preprocess.FitDataset(ds, pp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k := range fit.Diagnostics() {
			if quantitiesOf("ssp", "preprocess/"+k) == nil {
				t.Errorf("pre-processor %s reports %q, which preprocessQuantities does not list", name, k)
			}
		}
	}
}

// checkMechanismQuantities checks the quantities of the keys (with their
// groups) that fits of a mechanism reported: each key has one, declared or
// shared, their labels are unique, and each key the mechanism declares was
// reported and says what it is.
func checkMechanismQuantities(t *testing.T, info mechanisms.Info, keys map[string]bool) {
	t.Helper()
	labels, seen := map[string]string{}, map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		_, name, _ := cutLast(k)
		qs := quantitiesOf(info.Name, k)
		if len(qs) == 0 {
			t.Errorf("%s reports %q, which its Register(Info{Name: %q, …}) call (%s) does not declare in Info.Quantities (nor harness/report/quantities.go's shared keys): tables would print it unlabelled", info.Name, k, info.Name, registerFile(info.Name))
		}
		for _, q := range qs {
			if prev, dup := labels[q.label]; dup && prev != name {
				t.Errorf("%s: keys %q and %q both print as %q", info.Name, prev, name, q.label)
			}
			labels[q.label] = name
		}
		seen[name] = true
	}
	// Every declared key is reported by the mechanism in some
	// configuration (so it declares no key nothing prints), and says what
	// it is.
	for _, key := range slices.Sorted(maps.Keys(info.Quantities)) {
		if !seen[key] {
			t.Errorf("%s declares the quantity of %q in Info.Quantities, which none of its fits reported", info.Name, key)
		}
		checkQuantities(t, info.Name+" "+key, quantitiesOf(info.Name, key))
	}
}

// registerFile names the source file of the mechanisms package whose
// Register call names the mechanism (its name quoted, directly or in a
// constant), or the package when no single file does.
func registerFile(name string) string {
	const dir = "../../mechanisms"
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var found []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if bytes.Contains(src, []byte("Register(Info{")) && bytes.Contains(src, []byte(strconv.Quote(name))) {
			found = append(found, "mechanisms/"+filepath.Base(f))
		}
	}
	if len(found) != 1 {
		return "package mechanisms"
	}
	return found[0]
}

// checkQuantities checks that each quantity of a key says what it is, how
// it is set in LaTeX and, when derived, how.
func checkQuantities(t *testing.T, what string, qs []quantity) {
	t.Helper()
	for _, q := range qs {
		if q.label == "" || q.tex == "" || q.means == "" {
			t.Errorf("%s: quantity %+v lacks a label, LaTeX or meaning", what, q)
		}
		if (q.of == nil) != (q.formula == "") {
			t.Errorf("%s %q: a derived quantity needs both of and formula", what, q.label)
		}
		if strings.Count(q.tex, "$")%2 != 0 {
			t.Errorf("%s %q: unbalanced math in %q", what, q.label, q.tex)
		}
	}
}

// quantitySpec runs the distributed-GD family's code preset, whose stored
// γ and c are in other units than the authors' code prints (issue 35).
const quantitySpec = `name = "units"
seed = 1
trials = 3
epsilon = [0.1]
delta = 1e-5
accountant = { kind = "rdp" }
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 100, d = 3 }
split = { all = true }
[[mechanism]]
name = "dgd-rgm"
label = "Relative"
params = { preset = "code" }
[[mechanism]]
name = "dgd-clip"
label = "Clipped"
params = { preset = "code" }
[[mechanism]]
name = "dgd-rgm"
label = "Relative (paper)"
[[table]]
name = "d"
kind = "diagnostics"
columns = ["n", "c_frobenius"]
noise_columns = ["gamma", "sigma", "clip"]
[[table]]
name = "p"
kind = "privacy"
[[table]]
name = "paper"
kind = "diagnostics"
noise_columns = ["gamma"]
mechanisms = ["Relative (paper)"]
`

// quantityOutputs parses quantitySpec and decodes its tables.
func quantityOutputs(t *testing.T) (*spec.Spec, *outputs) {
	t.Helper()
	s := spectest.MustParse(t, quantitySpec)
	outs, err := decodeOutputs(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, outs
}

// quantityRecords returns hand-written records of quantitySpec's cells:
// over the trials node1/gamma = 4e-4·(t+1)², node1/sigma = 0.01·(t+1),
// node1/clip = 50·(t+1), node1/n = 100·(t+1) (a training set that differs by
// trial), node1/c_frobenius = 20·(t+1)²; the RGM cells' ledgers are of the
// code's std-linear form under the code preset, of the variance form
// otherwise.
func quantityRecords(t *testing.T, s *spec.Spec) []results.Record {
	var recs []results.Record
	for _, c := range spectest.Cells(t, s) {
		for trial := range 3 {
			x := float64(trial + 1)
			r := results.Record{Schema: results.SchemaVersion, Experiment: s.Name, CellKey: c.Key, Dataset: "Lin",
				Mechanism: c.Entry.Info.Name, Label: c.Label, Epsilon: results.Float(c.Epsilon), Trial: trial, Status: results.StatusOK,
				MechParams: c.Params,
				Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), EpsSpent: 1, Delta: 1e-5, Accountant: "rdp", Relation: "replace_one", Tuning: "none",
					Noise: map[string]results.Float{"node1/sigma": results.Float(0.01 * x)}},
				Diagnostics: map[string]results.Float{"node1/n": results.Float(100 * x), "node1/c_frobenius": results.Float(20 * x * x)},
			}
			if c.Entry.Info.Name == "dgd-rgm" {
				r.Privacy.Noise["node1/gamma"] = results.Float(4e-4 * x * x)
				e := accounting.RGM{Eta: 0.02 * x, Gamma: 4e-4 * x * x, D: 3, Sigma: 0.01 * x, RRel: 1e-3}
				if c.Params["preset"] == "code" {
					e.Form = accounting.RGMStdLinear
				}
				ev, err := json.Marshal(accounting.SelfComposed{Event: e, Count: 2})
				if err != nil {
					t.Fatal(err)
				}
				r.Privacy.Event = ev
			} else {
				r.Privacy.Noise["node1/clip"] = results.Float(50 * x)
			}
			recs = append(recs, r)
		}
	}
	return recs
}

// TestQuantitiesInPapersUnits: the code preset's stored γ (the variance
// coefficient, the square of the code's γ) and c (on the paper's gradient
// scale, n times the code's c) are printed both as stored, under the
// paper's symbols, and in the authors' code's units, labelled: γ_code =
// √γ, c_code = c/n, ‖G‖_F = c_frobenius/n. The printed values are
// recomputed here from the records, trial by trial (the mean of √γ, not
// √ of the mean), with the 95% Student-t interval of 3 values. Before
// issue 35 the tables printed "gamma" and "clip" as stored only.
func TestQuantitiesInPapersUnits(t *testing.T) {
	s, outs := quantityOutputs(t)
	recs := quantityRecords(t, s)
	v, err := newView(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	// stat is the independent summary: the transform of each trial's
	// stored values, then the mean and t₂·sd/√3.
	stat := func(f func(x float64) float64) plotting.Entry {
		var xs []float64
		for trial := range 3 {
			xs = append(xs, f(float64(trial+1)))
		}
		mean := (xs[0] + xs[1] + xs[2]) / 3
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		return plotting.Entry{Mean: mean, Half: t975nu2 * math.Sqrt(ss/2) / math.Sqrt(3), Present: true}
	}
	gamma := stat(func(x float64) float64 { return 4e-4 * x * x })
	gammaCode := stat(func(x float64) float64 { return math.Sqrt(4e-4 * x * x) })
	sigma := stat(func(x float64) float64 { return 0.01 * x })
	clip := stat(func(x float64) float64 { return 50 * x })
	clipCode := stat(func(x float64) float64 { return 50 * x / (100 * x) })
	frob := stat(func(x float64) float64 { return 20 * x * x })
	frobCode := stat(func(x float64) float64 { return 20 * x * x / (100 * x) })
	n := stat(func(x float64) float64 { return 100 * x })

	diag := outs.tables[0].Build(&View{v})[0]
	wantCols := []string{"n", "n‖G‖_F", "‖G‖_F", "γ", "γ_code = √γ", "σ", "c", "c_code = c/n"}
	if !slices.Equal(diag.Columns, wantCols) {
		t.Fatalf("diagnostics columns %q, want %q", diag.Columns, wantCols)
	}
	if want := []string{"$n$", `$n\|G\|_F$`, `$\|G\|_F$`, `$\gamma$`, `$\gamma_{\mathrm{code}} = \sqrt{\gamma}$`, `$\sigma$`, "$c$", `$c_{\mathrm{code}} = c/n$`}; !slices.Equal(diag.TeXColumns, want) {
		t.Errorf("LaTeX headers %q, want %q", diag.TeXColumns, want)
	}
	absent := plotting.Entry{}
	checkRow(t, diag, "Relative, ε = 0.1 / node1", []plotting.Entry{n, frob, frobCode, gamma, gammaCode, sigma, absent, absent})
	checkRow(t, diag, "Clipped, ε = 0.1 / node1", []plotting.Entry{n, frob, frobCode, absent, absent, sigma, clip, clipCode})
	// The paper preset's γ is Definition 3's, and its noise is not the
	// code's: no γ_code (nor a column of it in a table of such rows).
	checkRow(t, diag, "Relative (paper), ε = 0.1 / node1", []plotting.Entry{n, frob, frobCode, gamma, absent, sigma, absent, absent})
	if paper := outs.tables[2].Build(&View{v})[0]; !slices.Equal(paper.Columns, []string{"γ"}) {
		t.Errorf("paper preset only: columns %q, want [γ]", paper.Columns)
	}
	for _, phrase := range []string{"γ_code = √γ: the authors' code's γ = η√(α/ε)", "(√gamma; authors' code", "c_code = c/n: the authors' code's clipping threshold c (code preset only) [code scale",
		"σ: Relative, Relative (paper): baseline noise std", " / Clipped: noise std per coordinate"} {
		if notes := strings.Join(diag.Caption.Notes, "; "); !strings.Contains(notes, phrase) {
			t.Errorf("diagnostics caption notes lack %q:\n%s", phrase, notes)
		}
	}

	priv := outs.tables[1].Build(&View{v})[0]
	for label, want := range map[string]plotting.Entry{"γ (node1)": gamma, "γ_code = √γ (node1)": gammaCode, "c (node1)": clip, "c_code = c/n (node1)": clipCode, "σ (node1)": sigma} {
		j := slices.Index(priv.Columns, label)
		if j < 0 {
			t.Fatalf("privacy table: no column %q in %q", label, priv.Columns)
		}
		row := slices.IndexFunc(priv.Rows, func(r string) bool { return strings.HasPrefix(r, "Relative,") })
		if strings.HasPrefix(label, "c") {
			row = slices.IndexFunc(priv.Rows, func(r string) bool { return strings.HasPrefix(r, "Clipped") })
		}
		if got := priv.Cells[row][j]; !got.Present || !near(got.Mean, want.Mean) {
			t.Errorf("privacy table %s, %s: %+v, want the mean %v", priv.Rows[row], label, got, want.Mean)
		}
	}
}

// checkRow compares a table row's entries with want (means and intervals
// within 1e-12; absent where want is).
func checkRow(t *testing.T, tab *plotting.Table, row string, want []plotting.Entry) {
	t.Helper()
	i := slices.Index(tab.Rows, row)
	if i < 0 {
		t.Fatalf("no row %q in %q", row, tab.Rows)
	}
	for j, w := range want {
		g := tab.Cells[i][j]
		if g.Present != w.Present || g.Present && (!near(g.Mean, w.Mean) || !near(g.Half, w.Half)) {
			t.Errorf("%s, %s: got %+v, want %+v", row, tab.Columns[j], g, w)
		}
	}
}

// TestQuantitiesRerunReplacesDerived: a trial stored twice counts once in
// the derived values too, with its later record's values, as in the
// stored ones.
func TestQuantitiesRerunReplacesDerived(t *testing.T) {
	s, outs := quantityOutputs(t)
	recs := quantityRecords(t, s)
	var again []results.Record
	for _, r := range recs {
		if r.Trial == 0 && r.Mechanism == "dgd-rgm" {
			r.Privacy.Noise = map[string]results.Float{"node1/gamma": 0.09, "node1/sigma": 0.01}
			again = append(again, r)
		}
	}
	v, err := newView(s, append(recs, again...))
	if err != nil {
		t.Fatal(err)
	}
	diag := outs.tables[0].Build(&View{v})[0]
	i, j := slices.Index(diag.Rows, "Relative, ε = 0.1 / node1"), slices.Index(diag.Columns, "γ_code = √γ")
	want := (0.3 + math.Sqrt(4e-4*4) + math.Sqrt(4e-4*9)) / 3
	if got := diag.Cells[i][j]; !near(got.Mean, want) {
		t.Errorf("γ_code after a rerun of trial 0: %v, want %v", got.Mean, want)
	}
	if got := diag.Cells[i][slices.Index(diag.Columns, "γ")]; !near(got.Mean, (0.09+4e-4*4+4e-4*9)/3) {
		t.Errorf("γ after a rerun of trial 0: %v", got.Mean)
	}
}
