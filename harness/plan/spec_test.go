package plan

import (
	"github.com/dplab/dplab/harness/spec"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validSpec is harness/internal/spectest's Valid spec (this package's
// tests cannot import spectest, which imports spec).
var validSpec = func() string {
	b, err := os.ReadFile(filepath.Join("..", "internal", "spectest", "valid.toml"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestParseValidSpec(t *testing.T) {
	s, err := Parse("t.toml", []byte(validSpec))
	if err != nil {
		t.Fatal(err)
	}
	cells := cellsOf(t, s)
	// 2 ε for AdaSSP + 1 non-private cell for ridge.
	if len(cells) != 3 {
		t.Fatalf("%d cells, want 3", len(cells))
	}
	if !math.IsInf(cells[2].Epsilon, 1) || cells[2].Private {
		t.Errorf("ridge cell: ε = %v, private = %v", cells[2].Epsilon, cells[2].Private)
	}
	if s.Datasets[0].Split.Test != 0.2 || s.Datasets[0].Scale.X != "max-row-norm" || s.Datasets[0].Scale.Y != "max-abs" {
		t.Errorf("defaults not filled: %+v", s.Datasets[0])
	}
}

// TestSplitAll: split = { all = true } keeps no test fraction, changes
// the dataset's key (so its cells), and makes the default metrics the train
// metrics of the datasets' tasks; a spec without it keeps its key.
func TestSplitAll(t *testing.T) {
	plain, err := Parse("t.toml", []byte(validSpec))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(validSpec, `label = "Lin"`, `label = "Lin"`+"\nsplit = { all = true }", 1)
	s, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sp := s.Datasets[0].Split; !sp.All || sp.Test != 0 || sp.Validation != 0 {
		t.Errorf("split %+v, want all without test or validation fractions", sp)
	}
	if got := strings.Join(s.Metrics, ","); got != "train_mse" {
		t.Errorf("default metrics %q, want train_mse (the regression task's train metric)", got)
	}
	if plain.Metrics != nil {
		t.Errorf("a spec without split.all got metrics %v filled", plain.Metrics)
	}
	if k := DatasetKey(plain.Datasets[0]); strings.Contains(k, "All") {
		t.Errorf("the key of a dataset without split.all mentions it: %s", k)
	}
	if DatasetKey(plain.Datasets[0]) == DatasetKey(s.Datasets[0]) {
		t.Error("split.all does not change the dataset's key")
	}
}

// TestSpecErrors checks that every kind of bad spec gives a *SpecError
// naming the file, the line and the key (issue 2, Done when 4).
func TestSpecErrors(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(string) string
		line      int
		key, want string
	}{
		{"unknown top-level key", func(s string) string { return strings.Replace(s, "trials = 3", "trials = 3\ntrails = 4", 1) }, 4, "trails", `unknown key (did you mean "trials"?); valid keys: accountant, audit, ci,`},
		{"unknown key in a block", func(s string) string {
			return strings.Replace(s, `label = "AdaSSP"`, `label = "AdaSSP"`+"\nlable = \"x\"", 1)
		}, 15, "mechanism[0].lable", "unknown key"},
		{"unknown param", func(s string) string { return strings.Replace(s, "rho = 1e-4", "rho = 1e-4, rhoo = 2", 1) }, 15, "mechanism[0].params.rhoo",
			`unknown key (did you mean "rho"?); valid keys: bound_x, bound_y, calibration`},
		{"wrong type", func(s string) string { return strings.Replace(s, "trials = 3", `trials = "three"`, 1) }, 3, "trials", "incompatible types"},
		{"wrong param type", func(s string) string { return strings.Replace(s, "rho = 1e-4", `rho = "small"`, 1) }, 15, "mechanism[0].params.rho", "incompatible types"},
		{"epsilon zero", func(s string) string { return strings.Replace(s, "[0.5, 2]", "[0, 2]", 1) }, 4, "epsilon", "> 0"},
		{"epsilon negative", func(s string) string { return strings.Replace(s, "[0.5, 2]", "[-1]", 1) }, 4, "epsilon", "> 0"},
		{"delta one", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, "1.0", 1) }, 5, "delta", "(0, 1)"},
		{"delta rule syntax", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, `"1/m^2"`, 1) }, 5, "delta", "unknown name"},
		{"unknown mechanism", func(s string) string { return strings.Replace(s, `name = "adassp"`, `name = "adasp"`, 1) }, 13, "mechanism[0].name", `unknown mechanism "adasp" (did you mean "adassp"?); known mechanisms: adassp,`},
		{"unknown dataset", func(s string) string { return strings.Replace(s, `"synthetic-linear"`, `"synth"`, 1) }, 8, "dataset[0].name", "unknown dataset"},
		{"unknown dataset param", func(s string) string { return strings.Replace(s, "seed = 3 }", "seed = 3, seeed = 4 }", 1) }, 10, "dataset[0].params.seeed", `unknown key (did you mean "seed"?); valid keys: `},
		{"bad dataset param", func(s string) string { return strings.Replace(s, "n = 400", "n = 400.5", 1) }, 10, "dataset[0].params.n", "incompatible types"},
		{"duplicate label", func(s string) string { return strings.Replace(s, `label = "Ridge"`, `label = "AdaSSP"`, 1) }, 19, "mechanism[1].label", "duplicate"},
		{"task mismatch", func(s string) string { return strings.Replace(s, `name = "ridge"`, `name = "logreg"`, 1) }, 18, "mechanism[1].name", "does not fit"},
		{"ordered and resample", func(s string) string {
			return strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\nsplit = { ordered = true, resample = true }", 1)
		}, 10, "dataset[0].split", "exclude"},
		// Issue 11: split.all trains on every row; nothing may need a test
		// or validation part.
		{"split all with a test fraction", func(s string) string {
			return strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\nsplit = { all = true, test = 0.1 }", 1)
		}, 10, "dataset[0].split.all", "excludes test, validation, resample and ordered"},
		{"split all with ordered", func(s string) string {
			return strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\nsplit = { all = true, ordered = true }", 1)
		}, 10, "dataset[0].split.all", "excludes"},
		{"split all with a test metric", func(s string) string {
			s = strings.Replace(s, "trials = 3", "trials = 3\nmetrics = [\"train_mse\", \"test_mse\"]", 1)
			return strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\nsplit = { all = true }", 1)
		}, 4, "metrics", `metric "test_mse" is computed on the test part, but dataset "Lin" has split.all = true`},
		{"no metric for a dataset's task", func(s string) string {
			return strings.Replace(s, "trials = 3", "trials = 3\nmetrics = [\"test_accuracy\"]", 1)
		}, 4, "metrics", `no metric listed applies to dataset "Lin" (regression data): add one of test_mse, train_mse`},
		{"split all with tuning", func(s string) string {
			s = strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\nsplit = { all = true }", 1)
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"oracle\"\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 10, "dataset[0].split.all", `mechanism "AdaSSP" is tuned (mode "oracle")`},
		{"oracle on validation", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"oracle\"\nselect_on = \"validation\"\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 18, "mechanism[0].tuning.select_on", "test set"},
		{"param also a candidate", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "rho = 1e-4 }\n[mechanism.tuning]\nmode = \"oracle\"\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 18, "mechanism[0].tuning.candidates.rho", "rho is both a param (params.rho) and a tuning candidate"},
		{"toml syntax", func(s string) string { return strings.Replace(s, "seed = 1", "seed = = 1", 1) }, 2, "seed", "expected"},

		// Issue 9, item 9: δ rules are checked over training-set sizes, not
		// only at n = d = 1; a subnormal δ is refused.
		{"delta nan", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, "nan", 1) }, 5, "delta", "δ = NaN"},
		{"delta rule negative", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, `"1/n - 1"`, 1) }, 5, "delta", "gives -0.5 for n = 2"},
		{"delta rule NaN", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, `"sqrt(-n)"`, 1) }, 5, "delta", "gives NaN"},
		{"delta rule underflows", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, `"exp(-n)"`, 1) }, 5, "delta", "gives 0 for n = 1000"},
		{"delta subnormal", func(s string) string { return strings.Replace(s, `"min(1e-6, 0.01/n)"`, "1e-320", 1) }, 5, "delta", "≥ 1e-300"},
		// Item 9: private tuning's mean number of runs is bounded.
		{"tuning mean huge", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 1e9\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 19, "mechanism[0].tuning.mean", "[1, 1000]"},
		{"tuning mean below one", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 0.5\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 19, "mechanism[0].tuning.mean", "[1, 1000]"},
		{"tuning mean missing", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 16, "mechanism[0].tuning.mean", "mean is not set: private tuning needs the mean number of runs E[K], in [1, 1000]"},
		// Item 9: a range error names its key, not "params.".
		{"param out of range", func(s string) string { return strings.Replace(s, "rho = 1e-4", "rho = 2", 1) }, 15, "mechanism[0].params.rho", "rho must be in"},
		{"dataset param out of range", func(s string) string { return strings.Replace(s, "seed = 3 }", "seed = 3, noise = -1 }", 1) }, 10, "dataset[0].params.noise", "noise"},
		// Item 9: a repeated value would store every trial twice.
		{"epsilon repeated", func(s string) string { return strings.Replace(s, "[0.5, 2]", "[1, 1]", 1) }, 4, "epsilon", "ε = 1 appears twice"},
		{"epsilon repeated int and float", func(s string) string { return strings.Replace(s, "[0.5, 2]", "[2, 0.5, 2.0]", 1) }, 4, "epsilon", "ε = 2 appears twice"},
		{"param value repeated", func(s string) string { return strings.Replace(s, "rho = 1e-4", "rho = [1e-4, 0.01, 1e-4]", 1) }, 15, "mechanism[0].params.rho", "rho = 0.0001 appears twice"},
		{"dataset repeated", func(s string) string {
			return strings.Replace(s, "seed = 3 }", "seed = 3 }\n[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"Lin again\"\nparams = { seed = 3, d = 4, n = 400 }", 1)
		}, 11, "dataset[1]", "same name, params, split and scale as dataset[0]"},
		{"mechanism cells repeated", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "rho = 1e-4 }\n[[mechanism]]\nname = \"adassp\"\nlabel = \"Ada2\"\nparams = { rho = [1e-3, 1e-4] }", 1)
		}, 16, "mechanism[1]", "repeats mechanism[0]"},
		// Item 6: figure and table names are identifiers, unique per kind.
		{"figure name escapes", func(s string) string { return strings.Replace(s, `name = "mse"`, `name = "../../../x"`, 1) }, 22, "figure[0].name", "must be an identifier"},
		{"table name with a separator", func(s string) string {
			return strings.Replace(s, "[[table]]\nname = \"mse\"", "[[table]]\nname = \"sub/mse\"", 1)
		}, 26, "table[0].name", "must be an identifier"},
		{"figure name repeated", func(s string) string { return s + "[[figure]]\nname = \"mse\"\nmetric = \"train_mse\"\n" }, 29, "figure[1].name", "already figure[0]'s"},
		// Item 5: an accountant that cannot evaluate a mechanism's ledger.
		{"pld with private tuning", func(s string) string {
			s = strings.Replace(s, `delta = "min(1e-6, 0.01/n)"`, `delta = "min(1e-6, 0.01/n)"`+"\naccountant = { kind = \"pld\" }", 1)
			return strings.Replace(s, "rho = 1e-4 }", "}\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 10\ncandidates = { rho = [0.01, 0.1] }", 1)
		}, 13, "mechanism[0]", `"adassp" with private tuning: accountant "pld" cannot account its ledger (event repeat_and_select`},
		{"pld with linear mixing", func(s string) string {
			s = strings.Replace(s, `delta = "min(1e-6, 0.01/n)"`, `delta = "min(1e-6, 0.01/n)"`+"\naccountant = { kind = \"pld\" }", 1)
			return strings.Replace(s, "name = \"adassp\"\nlabel = \"AdaSSP\"\nparams = { rho = 1e-4 }", "name = \"linear-mixing\"\nlabel = \"LM\"", 1)
		}, 13, "mechanism[0]", `"linear-mixing": accountant "pld" cannot account its ledger (event gaussmix`},
		// Item 7: the grid is counted before it is expanded.
		{"too many cells", func(s string) string {
			s = strings.Replace(s, "[0.5, 2]", "{ logspace = [-2, 1, 10000] }", 1)
			return strings.Replace(s, "rho = 1e-4", "rho = { linspace = [1e-5, 0.5, 10000] }", 1)
		}, 15, "mechanism[0].params", "100000001 cells"},
		// Issue 10: the decoder names the [[array]] element of every
		// problem and its own line. The TOML library keeps one position per
		// key path: a type error in the first of two [[dataset]] blocks was
		// reported at the second block's line, under "dataset.optional".
		{"wrong type in the first of two blocks", func(s string) string {
			s = strings.Replace(s, `label = "Lin"`, `label = "Lin"`+"\noptional = \"yes\"", 1)
			return strings.Replace(s, "seed = 3 }", "seed = 3 }\n[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"Lin2\"\noptional = true\nparams = { n = 300, d = 4, seed = 3 }", 1)
		}, 10, "dataset[0].optional", "incompatible types: TOML value has type string; destination has type boolean"},
		{"unknown key in the second of two blocks", func(s string) string {
			return strings.Replace(s, "seed = 3 }", "seed = 3 }\n[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"Lin2\"\nsplit = { test = 0.3, tset = 0.1 }\nparams = { n = 300, d = 4, seed = 3 }", 1)
		}, 14, "dataset[1].split.tset", "unknown key"},
		{"first problem in the file wins", func(s string) string {
			s = strings.Replace(s, "trials = 3", "trials = 3\ntrails = 4", 1)
			return strings.Replace(s, `label = "Ridge"`, `label = "Ridge"`+"\nlable = \"x\"", 1)
		}, 4, "trails", "unknown key"},
		// The library wrapped a negative integer into an unsigned field
		// (seed = -3 became 18446744073709551613) and rounded integers a
		// float cannot hold; both are errors now.
		{"negative unsigned param", func(s string) string { return strings.Replace(s, "seed = 3 }", "seed = -3 }", 1) }, 10, "dataset[0].params.seed", "-3 is out of the range of uint64"},
		{"integer too large for a float", func(s string) string { return strings.Replace(s, "rho = 1e-4", "rho = 9007199254740993", 1) }, 15, "mechanism[0].params.rho", "not exactly a float64"},
		{"float for an integer", func(s string) string { return strings.Replace(s, "trials = 3", "trials = 3.0", 1) }, 3, "trials", "TOML value has type float; destination has type integer"},
		{"table for a string", func(s string) string { return strings.Replace(s, `label = "Lin"`, `label = { x = 1 }`, 1) }, 9, "dataset[0].label", "TOML value has type table; destination has type string"},
		{"too many trials", func(s string) string { return strings.Replace(s, "trials = 3", "trials = 1000000000", 1) }, 3, "trials", "3000000000 trials, above the limit of 100000000 trials"},
		// exclude: labels of this spec's datasets, each with a reason.
		{"exclude an unknown dataset", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "rho = 1e-4 }\nexclude = { \"Lim\" = \"slow\" }", 1)
		}, 16, "mechanism[0].exclude", `no dataset labelled "Lim" (did you mean "Lin"?)`},
		{"exclude without a reason", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "rho = 1e-4 }\nexclude = { \"Lin\" = \" \" }", 1)
		}, 16, "mechanism[0].exclude", `dataset "Lin": give the reason`},
		{"exclude of the wrong type", func(s string) string {
			return strings.Replace(s, "rho = 1e-4 }", "rho = 1e-4 }\nexclude = [\"Lin\"]", 1)
		}, 16, "mechanism[0].exclude", "incompatible types"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("spec.toml", []byte(tc.edit(validSpec)))
			se, ok := err.(*spec.SpecError)
			if !ok {
				t.Fatalf("err = %v (%T), want *SpecError", err, err)
			}
			if se.File != "spec.toml" || se.Line != tc.line || se.Key != tc.key || !strings.Contains(se.Error(), tc.want) {
				t.Errorf("got %q (line %d, key %q); want line %d, key %q, mentioning %q", se.Error(), se.Line, se.Key, tc.line, tc.key, tc.want)
			}
		})
	}
}

// TestGenerators checks linspace and logspace against numpy 1.24
// (np.linspace(0.08, 0.5, 10), np.logspace(-1, 1, 5)).
func TestGenerators(t *testing.T) {
	var v spec.Values
	if err := v.UnmarshalTOML(map[string]any{"linspace": []any{0.08, 0.5, int64(10)}}); err != nil {
		t.Fatal(err)
	}
	lin, _ := v.Floats()
	want := []float64{0.08, 0.12666666666666668, 0.17333333333333334, 0.22, 0.26666666666666666, 0.31333333333333335, 0.36, 0.4066666666666667, 0.45333333333333337, 0.5}
	for i := range want {
		if math.Abs(lin[i]-want[i]) > 1e-15 {
			t.Errorf("linspace[%d] = %.17g, want %.17g", i, lin[i], want[i])
		}
	}
	if err := v.UnmarshalTOML(map[string]any{"logspace": []any{int64(-1), int64(1), int64(5)}}); err != nil {
		t.Fatal(err)
	}
	logv, _ := v.Floats()
	for i, w := range []float64{0.1, 0.31622776601683794, 1, 3.1622776601683795, 10} {
		if math.Abs(logv[i]-w) > 1e-15*w {
			t.Errorf("logspace[%d] = %.17g, want %.17g", i, logv[i], w)
		}
	}
	for _, bad := range []any{map[string]any{"linspace": []any{0.0, 1.0}}, map[string]any{"geomspace": []any{1.0, 2.0, int64(2)}}, []any{}} {
		if err := v.UnmarshalTOML(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestParamPoints(t *testing.T) {
	var p spec.ParamTable
	err := p.UnmarshalTOML(map[string]any{"a": []any{int64(1), int64(2)}, "b": "x", "c": map[string]any{"logspace": []any{int64(0), int64(1), int64(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	points, swept := p.Points()
	if len(points) != 4 || strings.Join(swept, ",") != "a,c" {
		t.Fatalf("points %v, swept %v", points, swept)
	}
	if points[0]["a"] != int64(1) || points[0]["c"] != 1.0 || points[1]["c"] != 10.0 || points[3]["a"] != int64(2) || points[3]["b"] != "x" {
		t.Errorf("points in the wrong order: %v", points)
	}
}

func TestDeltaRule(t *testing.T) {
	tests := []struct {
		rule string
		n, d int
		want float64
	}{
		{"1/n^2", 1000, 5, 1e-6},
		{"min(1e-6, 0.01/n)", 8708, 18, 1e-6},
		{"min(1e-6, 0.01/n)", 100000, 18, 1e-7},
		{"0.1/(n*d)", 100, 10, 1e-4},
		{"exp(-log(n))", 50, 1, 0.02},
		{"-2^2 + 4.5", 1, 1, 0.5}, // unary minus binds looser than ^ (as in maths)
		{"2^-1", 1, 1, 0.5},
	}
	for _, tc := range tests {
		var r spec.DeltaRule
		if err := r.UnmarshalTOML(tc.rule); err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		got, err := r.Eval(tc.n, tc.d)
		if err != nil || math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("%s at n=%d, d=%d: %v, %v; want %v", tc.rule, tc.n, tc.d, got, err, tc.want)
		}
	}
	for _, bad := range []string{"1/", "min(1,", "sqrt(1, 2)", "n n", "1e-6)", "foo(1)"} {
		var r spec.DeltaRule
		if err := r.UnmarshalTOML(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	var r spec.DeltaRule
	r.UnmarshalTOML("1/n")
	if _, err := r.Eval(1, 1); err == nil {
		t.Error("δ = 1 accepted at evaluation")
	}
}

// TestCellKeys checks that cosmetic edits keep cell keys (stored trials are
// reused) and that a content change rekeys exactly the affected cells.
func TestCellKeys(t *testing.T) {
	keys := func(src string) []string {
		s, err := Parse("t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cellsOf(t, s) {
			out = append(out, c.Key)
		}
		return out
	}
	base := keys(validSpec)
	cosmetic := keys(strings.Replace(strings.Replace(validSpec, `label = "AdaSSP"`, `label = "Ada"`, 1), `name = "mse"`, `name = "mse2"`, 1))
	if strings.Join(base, ",") != strings.Join(cosmetic, ",") {
		t.Error("relabelling changed cell keys")
	}
	changed := keys(strings.Replace(validSpec, "rho = 1e-4", "rho = 1e-3", 1))
	if changed[0] == base[0] || changed[1] == base[1] || changed[2] != base[2] {
		t.Errorf("changing AdaSSP's rho: keys %v -> %v; want only AdaSSP's cells rekeyed", base, changed)
	}
	reseeded := keys(strings.Replace(validSpec, "seed = 1", "seed = 2", 1))
	if reseeded[2] == base[2] {
		t.Error("changing the seed kept a cell key")
	}
}

// TestExclude: a mechanism's exclude leaves out its cells on the named
// datasets only; Size counts what Expand makes; the other cells keep their
// keys (exclude is not part of a key); a mechanism excluded from a dataset
// of a task it does not fit is valid; --quick may drop an excluded dataset.
func TestExclude(t *testing.T) {
	two := strings.Replace(validSpec, "[[mechanism]]", "[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"Lin2\"\nparams = { n = 300, d = 3, seed = 4 }\n\n[[mechanism]]", 1)
	ex := strings.Replace(two, "rho = 1e-4 }", "rho = 1e-4 }\nexclude = { \"Lin2\" = \"too slow\" }", 1)
	all, some := cellsOf(t, mustParse(t, two)), cellsOf(t, mustParse(t, ex))
	keys := map[string]bool{}
	for _, c := range all {
		keys[c.Key] = true
	}
	s := mustParse(t, ex)
	if cells, _ := newChecker(s).size(); len(some) != 4 || len(all) != 6 || cells != 4 {
		t.Fatalf("%d cells with exclude (Size %d), %d without; want 4, 4, 6", len(some), cells, len(all))
	}
	for _, c := range some {
		if !keys[c.Key] || s.Datasets[c.Dataset].Label == "Lin2" && s.Mechanisms[c.Mechanism].Label == "AdaSSP" {
			t.Errorf("cell %s on %s: key changed or excluded pair expanded", c.Label, s.Datasets[c.Dataset].Label)
		}
	}
	if why, ok := s.Excluded(1, 0); !ok || why != "too slow" {
		t.Errorf("Excluded(Lin2, AdaSSP) = %q, %v", why, ok)
	}
	// A binary dataset that only the classifier runs on.
	mixed := strings.Replace(ex, "[[mechanism]]", "[[dataset]]\nname = \"synthetic-logistic\"\nlabel = \"Bin\"\nparams = { n = 300, d = 3, seed = 4 }\n\n[[mechanism]]", 1)
	mixed = strings.Replace(mixed, "\"Lin2\" = \"too slow\" }", "\"Lin2\" = \"too slow\", \"Bin\" = \"regression only\" }", 1)
	mixed = strings.Replace(mixed, "name = \"ridge\"\nlabel = \"Ridge\"", "name = \"ridge\"\nlabel = \"Ridge\"\nexclude = { \"Bin\" = \"regression only\" }\n\n[[mechanism]]\nname = \"logreg\"\nlabel = \"LR\"\nexclude = { \"Lin\" = \"binary only\", \"Lin2\" = \"binary only\" }", 1)
	if _, err := Parse("t.toml", []byte(mixed)); err != nil {
		t.Fatalf("mixed tasks with excludes: %v", err)
	}
	q := mustParse(t, ex+"\n[quick]\ndatasets = [\"Lin\"]\n")
	if _, err := ApplyQuick(q); err != nil {
		t.Fatalf("quick dropping the excluded dataset: %v", err)
	}
}

func TestQuickOverrides(t *testing.T) {
	src := validSpec + `
[quick]
trials = 1
epsilon = [1]
mechanisms = ["AdaSSP"]
[quick.params.AdaSSP]
rho = 0.01
`
	s, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = ApplyQuick(s); err != nil {
		t.Fatal(err)
	}
	cells := cellsOf(t, s)
	if len(cells) != 1 || cells[0].Trials != 1 || cells[0].Epsilon != 1 || cells[0].Params["rho"] != 0.01 {
		t.Fatalf("quick cells: %+v", cells)
	}
}

// cellsOf expands s or fails t.
func cellsOf(t testing.TB, s *spec.Spec) []Cell {
	t.Helper()
	cells, err := planCells(s)
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

// mustParse parses src as "t.toml" or fails t.
func mustParse(t testing.TB, src string) *spec.Spec {
	t.Helper()
	s, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCellKeysStable: cell keys are the store's identity of a cell, so an
// output-format change must not move them (schema 3 writes +Inf as null in
// records, and briefly changed every non-private reference's key with it,
// so stored references reran). The keys of experiments/quickstart.toml's
// ridge reference and first AdaSSP cell as dplab 1c46c9f computed them.
func TestCellKeysStable(t *testing.T) {
	s, err := Load("../../experiments/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := planCells(s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Non-private ridge":        "f475cd17ac99583389ec4b2e",
		"AdaSSP (paper constants)": "4fab8e033d039781036c3ff4", // ε = 0.1
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if k, ok := want[c.Label]; ok && !seen[c.Label] {
			seen[c.Label] = true
			if c.Key != k {
				t.Errorf("%s: key %s, want %s (as stored by earlier versions)", c.Label, c.Key, k)
			}
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("cells found: %v", seen)
	}
}

// oldAuditGrid is experiments/audits/audit_grid.toml in the audit spec
// format before issue 36 (no [audit] table, a mechanism's "trials").
const oldAuditGrid = `# An audit grid.
# Run: dplab audit experiments/audits/audit_grid.toml [--quick]
name = "audit_grid"
title = "Claimed vs audited ε (δ = 1e-5)"
seed = 1
delta = 1e-5
confidence = 0.95
trials = 4000
epsilon = [0.5, 1, 2, 4]

[[mechanism]]
name = "gaussian"
label = "Gaussian (reference)"
trials = 20000

[[mechanism]]
name = "dpsgd"
label = "DP-SGD (1 step)"

[quick]
trials = 300
`

// TestAuditSpecHint: an audit grid in the old format (without its [audit]
// table) given to dplab run, plan or validate is refused for its
// "confidence" key (or a mechanism's "trials") with the hint to give it an
// [audit] table; a run spec with the same fault gets no hint.
func TestAuditSpecHint(t *testing.T) {
	const hint = "(without [[dataset]] blocks this looks like an audit grid: give it an [audit] table with runs and confidence, see experiments/audits/audit_grid.toml)"
	audit := []byte(oldAuditGrid)
	noConfidence := strings.Replace(string(audit), "confidence = 0.95\n", "", 1)
	for _, tc := range []struct {
		name, src string
		line      int
		key       string
		hint      bool
	}{
		{"audit spec", string(audit), 7, "confidence", true},
		{"audit spec without confidence", noConfidence, 13, "mechanism[0].trials", true},
		{"run spec with confidence", strings.Replace(validSpec, "trials = 3", "trials = 3\nconfidence = 0.9", 1), 4, "confidence", false},
	} {
		_, err := Parse("a.toml", []byte(tc.src))
		se, ok := err.(*spec.SpecError)
		if !ok {
			t.Fatalf("%s: err = %v (%T), want *SpecError", tc.name, err, err)
		}
		if se.Line != tc.line || se.Key != tc.key || strings.Contains(se.Error(), hint) != tc.hint {
			t.Errorf("%s: %q (line %d, key %q); want line %d, key %q, hint %v", tc.name, se.Error(), se.Line, se.Key, tc.line, tc.key, tc.hint)
		}
	}
}
