package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/plotting"
)

// TestOutputErrors: each figure and table kind decodes its block strictly;
// an error names the file, line and key, as the spec's own errors do.
func TestOutputErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		line int
		key  string
		want string
	}{
		{"unknown metric", func(s string) string { return strings.Replace(s, `metric = "test_mse"`, `metric = "mse"`, 1) }, 23, "figure[0].metric", `unknown metric "mse"`},
		{"misspelt metric", func(s string) string { return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mes"`, 1) }, 23, "figure[0].metric", `unknown metric "test_mes" (did you mean "test_mse"?)`},
		{"bad legend", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nlegend = \"middle\"", 1)
		}, 24, "figure[0].legend", "bottom-right, bottom-left, outside"},
		// issue 13: the figure size keys, in a block and spec-wide.
		{"figure width too small", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nwidth = 0.5", 1)
		}, 24, "figure[0].width", "width = 0.5: want inches in [1, 40]"},
		{"figure dpi of the wrong type", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\ndpi = \"high\"", 1)
		}, 24, "figure[0].dpi", "incompatible types"},
		{"figure height NaN", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nheight = nan", 1)
		}, 24, "figure[0].height", "want inches in [1, 40]"},
		{"figure too many pixels with the spec's dpi", func(s string) string {
			return "figure_defaults = { dpi = 600 }\n" + strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nwidth = 39", 1)
		}, 22, "figure[0].dpi", "23400 px: want at most 12000 px"},
		{"spec-wide dpi out of range", func(s string) string { return "figure_defaults = { dpi = 5000 }\n" + s }, 1, "figure_defaults.dpi", "want pixels per inch in [50, 600]"},
		{"spec-wide unknown key", func(s string) string { return s + "\n[figure_defaults]\nwidht = 5\n" }, 30, "figure_defaults.widht", "unknown key"},
		{"unknown figure kind", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nkind = \"no-such-kind\"", 1)
		}, 24, "figure[0].kind", "want " + strings.Join(FigureKinds(), ", ")},
		{"unknown figure key", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nbnad = \"ci\"", 1)
		}, 24, "figure[0].bnad", `unknown key (did you mean "band"?); valid keys: band, band_min_trials, center, columns,`},
		{"misspelt figure kind", func(s string) string {
			return strings.Replace(s, `metric = "test_mse"`, `metric = "test_mse"`+"\nkind = \"epsillon\"", 1)
		}, 24, "figure[0].kind", `figure kind "epsillon" (did you mean "epsilon"?): want`},
		// issue 10: a curves figure used to accept (and ignore) the epsilon
		// kind's keys, and validation returned early for it.
		{"curves figure with time_ratio", func(s string) string {
			return strings.Replace(s+testCurve, "name = \"mse\"\nmetric = \"test_mse\"\n\n[[table]]", "name = \"mse\"\nkind = \"curves\"\ntime_ratio = [\"a\", \"a\"]\ncenter = \"median\"\n\n[[table]]", 1)
		}, 25, "figure[0].center", "unknown key"},
		{"privacy table with metric", func(s string) string {
			return strings.Replace(s, "[[table]]\nname = \"mse\"\nmetric = \"test_mse\"", "[[table]]\nname = \"mse\"\nkind = \"privacy\"\nmetric = \"test_mse\"", 1)
		}, 28, "table[0].metric", "unknown key"},
		{"table format", func(s string) string { return s + "formats = [\"xls\"]\n" }, 28, "table[0].formats", "want one of md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := plan.Parse("spec.toml", []byte(tc.edit(spectest.Valid)))
			if err == nil {
				err = Check(s)
			}
			se, ok := err.(*spec.SpecError)
			if !ok {
				t.Fatalf("err = %v (%T), want *spec.SpecError", err, err)
			}
			if se.File != "spec.toml" || se.Line != tc.line || se.Key != tc.key || !strings.Contains(se.Error(), tc.want) {
				t.Errorf("got %q (line %d, key %q); want line %d, key %q, mentioning %q", se.Error(), se.Line, se.Key, tc.line, tc.key, tc.want)
			}
		})
	}
}

// TestUnknownLabelsSuggest: a misspelt dataset, mechanism, curve or panel
// label is the same error, with a did-you-mean, whichever block names it
// (a figure's and a table's labels had none, a claim's had).
func TestUnknownLabelsSuggest(t *testing.T) {
	base := strings.Replace(spectest.Valid, "[[figure]]", testCurve+"\n[[figure]]", 1)
	add := func(block, keys string) string {
		return strings.Replace(base, "[["+block+"]]\nname = \"mse\"\n", "[["+block+"]]\nname = \"mse\"\n"+keys+"\n", 1)
	}
	const claim = "\n[[claim]]\nid = \"c\"\nquote = \"q\"\nwhere = \"§1\"\ncheck = \"value\"\nmax = 1\n"
	mech := `no mechanism labelled "AdaSP" (did you mean "AdaSSP"?)`
	data := `no dataset labelled "Lim" (did you mean "Lin"?)`
	for _, tc := range []struct{ name, src, key, want string }{
		{"figure mechanism", add("figure", `mechanisms = ["AdaSP"]`), "figure[0].mechanisms", mech},
		{"figure dataset", add("figure", `datasets = ["Lim"]`), "figure[0].datasets", data},
		{"table mechanism", add("table", `mechanisms = ["AdaSSP", "AdaSP"]`), "table[0].mechanisms", mech},
		{"privacy table dataset", strings.Replace(add("table", `datasets = ["Lim"]`), "metric = \"test_mse\"\ndatasets", "kind = \"privacy\"\ndatasets", 1), "table[0].datasets", data},
		{"claim mechanism", base + claim + "quantity = \"metric:test_mse\"\nmechanism = \"AdaSP\"\n", "claim[0].mechanism", mech},
		{"claim dataset", base + claim + "quantity = \"metric:test_mse\"\ndataset = \"Lim\"\n", "claim[0].dataset", data},
		{"curves figure curve", base + "\n[[figure]]\nname = \"c\"\nkind = \"curves\"\ncurves = [\"RPD\"]\n", "figure[1].curves", `no curve labelled "RPD" (did you mean "RDP"?)`},
		{"claim curve", base + claim + "quantity = \"curve\"\ncurve = \"RPD\"\n", "claim[0].curve", `no curve labelled "RPD" (did you mean "RDP"?)`},
		{"curves figure panel", base + "\n[[figure]]\nname = \"c\"\nkind = \"curves\"\npanels = [\"pp\"]\n", "figure[1].panels", `no curve panel "pp" (did you mean "p"?)`},
		{"quick mechanism", base + "\n[quick]\nmechanisms = [\"AdaSP\"]\n", "quick.mechanisms", mech},
	} {
		_, err := parseChecked("spec.toml", tc.src)
		var se *spec.SpecError
		if !errors.As(err, &se) || se.Key != tc.key || se.Err.Error() != tc.want {
			t.Errorf("%s: %v; want at %s: %s", tc.name, err, tc.key, tc.want)
		}
	}
}

// TestFigureSizeOptions: a figure's width, height and dpi keys, and the
// spec's figure_defaults under them, set the PNG's size in pixels.
func TestFigureSizeOptions(t *testing.T) {
	src := "figure_defaults = { width = 7, height = 5, dpi = 100 }\n" +
		strings.Replace(spectest.Valid, `metric = "test_mse"`, `metric = "test_mse"`+"\nheight = 3", 1) +
		"\n[[figure]]\nname = \"mse-default\"\nmetric = \"test_mse\"\nformats = [\"png\"]\n"
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{OutDir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]int{"mse": {700, 300}, "mse-default": {700, 500}} {
		b, err := os.ReadFile(filepath.Join(dir, "figures", name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int{cfg.Width, cfg.Height}; got != want {
			t.Errorf("%s.png: %v px, want %v", name, got, want)
		}
	}
}

// scratchFigure is a throwaway figure kind, registered by this test file
// only (issue 10, Done when 2): a kind is one type with a strict params
// struct and the two methods of Figure. Leaving out draw is a compile error
// at the registration (`*scratchFigure does not implement Figure (missing
// method draw)`), never a runtime panic; leaving out the example is a panic
// at registration; an unknown key is a named error.
type scratchFigure struct {
	Metric string `toml:"metric"`

	name string
}

func (f *scratchFigure) Draw(v *View) *plotting.Figure {
	var eps []float64
	for _, c := range v.cells {
		eps = append(eps, c.Epsilon)
	}
	return &plotting.Figure{Name: f.name, Panels: []plotting.Panel{{Title: f.Metric,
		Series: []plotting.Series{{Label: "cells", X: eps, Y: eps}}}}}
}
func (f *scratchFigure) FileFormats() []string { return []string{"svg"} }

func TestScratchFigureKind(t *testing.T) {
	RegisterFigure("scratch", Kind[Figure]{Params: scratchFigure{}, Example: `metric = "test_mse"`, Decode: func(b *Block) (Figure, error) {
		f := scratchFigure{name: b.Out.Name}
		if err := b.Decode(&f); err != nil {
			return nil, err
		}
		return &f, plan.CheckMetric(b.Spec, b.Kind, b.Index, f.Metric)
	}})
	defer delete(figureKinds, "scratch")
	src := strings.Replace(spectest.Valid, `metric = "test_mse"`, `metric = "test_mse"`+"\nkind = \"scratch\"", 1)
	if err := Check(spectest.MustParse(t, src)); err != nil {
		t.Fatalf("a valid scratch figure: %v", err)
	}
	bad := strings.Replace(src, `kind = "scratch"`, "kind = \"scratch\"\nband = \"ci\"", 1)
	err := Check(spectest.MustParse(t, bad))
	if se, ok := err.(*spec.SpecError); !ok || se.Key != "figure[0].band" || !strings.Contains(se.Error(), "unknown key") {
		t.Errorf("a key the scratch kind does not declare: %v", err)
	}
	// Registered, the kind is one of those TestEveryKindRenders exercises.
	if !slices.Contains(FigureKinds(), "scratch") {
		t.Fatalf("FigureKinds() = %v, without scratch", FigureKinds())
	}
	if err := exerciseKind("figure", "scratch", t.TempDir(), &run.DataCache{}); err != nil {
		t.Error(err)
	}
}

// parseChecked parses src and checks its figures and tables, as the CLI
// loads a spec.
func parseChecked(file, src string) (*spec.Spec, error) {
	s, err := plan.Parse(file, []byte(src))
	if err != nil {
		return nil, err
	}
	return s, Check(s)
}

// testCurve is the [[curve]] block of the kinds' test spec (a kind =
// "curves" block needs one).
const testCurve = "\n[[curve]]\nname = \"gaussian-rdp\"\nlabel = \"RDP\"\npanel = \"p\"\nx = \"alpha\"\nparams = { alpha = [2, 4], sigma = 1 }\n"

// testIterative are the mechanism blocks the kinds' test spec adds to
// spectest.Valid's: the test-only iterative mechanisms of
// iterative_mech_test.go (a trace, grouped diagnostics and noise, a target
// scope, a param "split" to panel by), so that the iterations and
// diagnostics kinds have something to show.
const testIterative = "\n[[mechanism]]\nname = \"test-iterative\"\nlabel = \"Iter\"\n" +
	"params = { split = [\"random\", \"label\"], jitter = 0.5, steps = 6, scope = \"per-step test ε\" }\n" +
	"\n[[mechanism]]\nname = \"test-iterative-ref\"\nlabel = \"Iter ref\"\nparams = { scale = 0.5, steps = 6 }\n"

// exampleName is the name of the block kindSpec adds.
const exampleName = "example"

// kindSpec is the test spec of a figure or table kind: spectest.Valid's
// datasets, mechanisms, ε and trials without its figure and table,
// testIterative's mechanisms, testCurve, and one [[block]] of the kind,
// named exampleName, with keys.
func kindSpec(block, kind, keys string) string {
	return fmt.Sprintf("%s\n[[%s]]\nname = %q\nkind = %q\n%s\n", kindBase(), block, exampleName, kind, keys)
}

// kindBase is the kinds' test spec without blocks of its own:
// spectest.Valid's datasets, mechanisms, ε and trials without its figure
// and table, testIterative's mechanisms and testCurve.
func kindBase() string {
	base := spectest.Valid
	if i := strings.Index(base, "\n[[figure]]"); i >= 0 {
		base = base[:i]
	}
	if i := strings.Index(base, "\n[[table]]"); i >= 0 {
		base = base[:i]
	}
	return base + testIterative + testCurve
}

// exerciseKind checks a registered figure or table kind on its Example:
// the example decodes, and with an unknown key added does not (a
// *spec.SpecError at that key); the spec runs (harness/run) and renders
// without error; the block writes figures/<name>.<format> (a table:
// tables/<name>[-<part>].<format>, at least one) in each of its formats,
// none empty; and a second render from the store writes the same files,
// byte for byte. The error names the kind.
func exerciseKind(block, kind, dir string, cache *run.DataCache) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s kind %q: %w", block, kind, err)
		}
	}()
	var example, sub string
	switch block {
	case "figure":
		example, sub = figureKinds[kind].Example, "figures"
	case "table":
		example, sub = tableKinds[kind].Example, "tables"
	default:
		return fmt.Errorf("block %q: want figure or table", block)
	}
	if strings.TrimSpace(example) == "" {
		return errors.New("not registered, or without an example")
	}
	s, err := plan.Parse("kind.toml", []byte(kindSpec(block, kind, example)))
	if err != nil {
		return fmt.Errorf("the example does not parse: %w", err)
	}
	if len(s.Figures)+len(s.Tables) != 1 {
		return fmt.Errorf("the test spec has %d figures and %d tables, want the example's block only", len(s.Figures), len(s.Tables))
	}
	outs, err := decodeOutputs(s)
	if err != nil {
		return fmt.Errorf("the example does not decode: %w", err)
	}
	var formats []string
	var decoded, params reflect.Type
	if block == "figure" {
		formats = outs.figures[0].FileFormats()
		decoded, params = reflect.TypeOf(outs.figures[0]), reflect.TypeOf(figureKinds[kind].Params)
	} else {
		formats = outs.tables[0].FileFormats()
		decoded, params = reflect.TypeOf(outs.tables[0]), reflect.TypeOf(tableKinds[kind].Params)
	}
	if decoded != reflect.PointerTo(params) {
		return fmt.Errorf("Decode returned a %v, but the kind's Params is a %v: dplab kinds would list the wrong keys", decoded, params)
	}
	if len(formats) == 0 {
		return errors.New("the example's block writes no formats")
	}

	// Strict decoding: a key the kind does not declare is an error at it.
	bad, err := plan.Parse("kind.toml", []byte(kindSpec(block, kind, example+"\nnot_a_key = 1")))
	if err != nil {
		return fmt.Errorf("the example with not_a_key does not parse: %w", err)
	}
	wantKey := block + "[0].not_a_key"
	var se *spec.SpecError
	if err := Check(bad); !errors.As(err, &se) || se.Key != wantKey {
		return fmt.Errorf("the example with an unknown key not_a_key: Check = %v, want a *spec.SpecError at %s (decode the block with b.Decode)", err, wantKey)
	}

	if _, err := run.Run(context.Background(), s, run.Options{Jobs: 2, OutDir: dir, Cache: cache}); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	paths, err := Render(s, dir, nil)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	first := map[string][]byte{}
	written := map[string][]string{} // file stem under sub -> formats
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if len(b) == 0 {
			return fmt.Errorf("render wrote %s empty", rel)
		}
		first[p] = b
		if filepath.Dir(rel) == sub {
			name := filepath.Base(rel)
			ext := filepath.Ext(name)
			for _, c := range plotting.CaptionFiles {
				if strings.HasSuffix(name, c) {
					ext = c
				}
			}
			stem := strings.TrimSuffix(name, ext)
			written[stem] = append(written[stem], strings.TrimPrefix(ext, "."))
		}
	}
	stems := slices.Sorted(maps.Keys(written))
	if len(stems) == 0 {
		return fmt.Errorf("render wrote nothing in %s/", sub)
	}
	for _, stem := range stems {
		if block == "figure" && stem != exampleName ||
			block == "table" && stem != exampleName && !strings.HasPrefix(stem, exampleName+"-") {
			return fmt.Errorf("render wrote %s/%s.*, not named after the block %q", sub, stem, exampleName)
		}
		want := slices.Clone(formats) // and the caption files (issue 35)
		for _, c := range plotting.CaptionFiles {
			want = append(want, strings.TrimPrefix(c, "."))
		}
		if got := written[stem]; !slices.Equal(got, want) {
			return fmt.Errorf("render wrote %s/%s in formats %v, want %v", sub, stem, got, want)
		}
	}

	again, err := Render(s, dir, nil)
	if err != nil {
		return fmt.Errorf("second render: %w", err)
	}
	if !slices.Equal(again, paths) {
		return fmt.Errorf("second render wrote %v, the first %v", again, paths)
	}
	for _, p := range again {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Equal(b, first[p]) {
			rel, _ := filepath.Rel(dir, p)
			return fmt.Errorf("%s differs between two renders of the same records", rel)
		}
	}
	return nil
}

// TestClaimCheckExamples: the example "dplab kinds" prints for each
// [[claim]] check kind is valid in the kinds' test spec, runs and is
// evaluated (a verdict with its points, not "not run"), the value example
// holds against the closed form it quotes (Gaussian RDP at α = 2, σ = 1:
// α/(2σ²) = 1, Mironov 2017 Prop. 7); and the keys "dplab kinds" leaves out
// of a check kind are exactly those its decoding refuses: each such key,
// added to the example, is an error at that key.
func TestClaimCheckExamples(t *testing.T) {
	claimBlock := func(check, keys string) string { return fmt.Sprintf("\n[[claim]]\ncheck = %q\n%s\n", check, keys) }
	src := kindBase()
	for _, k := range CheckKinds() {
		src += claimBlock(k, checkKinds[k].example)
	}
	s := spectest.MustParse(t, src)
	if err := Check(s); err != nil {
		t.Fatalf("the examples do not decode: %v", err)
	}
	dir := t.TempDir()
	if _, _, err := runAndRender(s, run.Options{OutDir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	c, err := ReadClaims(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Claims) != len(checkKinds) {
		t.Fatalf("%d claims evaluated for %d check kinds", len(c.Claims), len(checkKinds))
	}
	for i, k := range CheckKinds() {
		cl := c.Claims[i]
		if cl.Check != k || cl.Verdict == NotRun || len(cl.Points) == 0 {
			t.Errorf("check %s: claim %s (%s) %s with %d points", k, cl.ID, cl.Check, cl.Summary, len(cl.Points))
		}
		if k == "value" && cl.Verdict != Holds {
			t.Errorf("the value example (Gaussian RDP at α = 2, σ = 1 is 1): %s", cl.Summary)
		}
	}

	// A value of each key's type, for the keys a check kind does not take.
	values := map[string]string{"b": `{ mechanism = "Ridge" }`, "better": `"lower"`, "over": `"epsilon"`, "at": "1",
		"direction": `"increasing"`, "paper_value": "1", "paper_is": `"value"`, "tolerance": "0.1",
		"abs_tolerance": "0.1", "factor": "2", "min": "0", "max": "1"}
	docs := map[string][]string{}
	for _, d := range Kinds() {
		if d.Block == "claim" {
			for _, p := range d.Params {
				docs[d.Kind] = append(docs[d.Kind], p.Key)
			}
		}
	}
	for _, k := range CheckKinds() {
		for _, f := range fielddoc.Fields(reflect.TypeOf(claimSpec{}), kindDocs) {
			if f.Key == "check" || slices.Contains(docs[k], f.Key) {
				continue
			}
			v, ok := values[f.Key]
			if !ok {
				t.Errorf("check %s: dplab kinds leaves out %s, which the test has no value for", k, f.Key)
				continue
			}
			bad := spectest.MustParse(t, kindBase()+claimBlock(k, checkKinds[k].example+"\n"+f.Key+" = "+v))
			var se *spec.SpecError
			if err := Check(bad); !errors.As(err, &se) || se.Key != "claim[0]."+f.Key {
				t.Errorf("check %s with %s = %s, a key dplab kinds does not list for it: Check = %v, want an error at claim[0].%s", k, f.Key, v, err, f.Key)
			}
		}
	}
}

// TestEveryKindRenders exercises every registered figure and table kind on
// its own Example (exerciseKind): a new kind is tested by registering it.
func TestEveryKindRenders(t *testing.T) {
	cache := &run.DataCache{}
	for _, block := range []string{"figure", "table"} {
		kinds := FigureKinds()
		if block == "table" {
			kinds = TableKinds()
		}
		if len(kinds) == 0 {
			t.Fatalf("no %s kinds registered", block)
		}
		for _, kind := range kinds {
			t.Run(block+"/"+kind, func(t *testing.T) {
				if err := exerciseKind(block, kind, t.TempDir(), cache); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// brokenFigure is a figure kind whose figure and formats the test chooses.
type brokenFigure struct {
	Metric string `toml:"metric"`

	name string
	fig  func(name string) *plotting.Figure
	fmts []string
}

func (f *brokenFigure) Draw(*View) *plotting.Figure { return f.fig(f.name) }
func (f *brokenFigure) FileFormats() []string       { return f.fmts }

// brokenTable is a table kind whose tables the test chooses.
type brokenTable struct {
	Title string `toml:"title"`

	name string
	tabs func(name string) []*plotting.Table
}

func (t *brokenTable) Build(*View) []*plotting.Table { return t.tabs(t.name) }
func (t *brokenTable) FileFormats() []string         { return plotting.TableFormats }

// TestExerciseKindCatchesBrokenKinds: a kind with one fault fails
// exerciseKind with an error naming the kind and the fault; the same kind
// without the fault passes.
func TestExerciseKindCatchesBrokenKinds(t *testing.T) {
	panel := func(x, y []float64) []plotting.Panel {
		return []plotting.Panel{{Title: "p", Series: []plotting.Series{{Label: "s", X: x, Y: y}}}}
	}
	goodFig := func(name string) *plotting.Figure {
		return &plotting.Figure{Name: name, Panels: panel([]float64{1, 2}, []float64{1, 2})}
	}
	goodTab := func(name string) []*plotting.Table {
		return []*plotting.Table{{Name: name, Columns: []string{"c"}, Rows: []string{"r"}, Cells: [][]plotting.Entry{{{Mean: 1, Present: true}}}}}
	}
	renders := 0
	tests := []struct {
		name    string
		block   string
		example string
		strict  bool // decode with b.Decode
		fig     func(name string) *plotting.Figure
		fmts    []string
		tabs    func(name string) []*plotting.Table
		want    string // "" for the kind without a fault
	}{
		{"valid figure", "figure", `metric = "test_mse"`, true, goodFig, plotting.Formats, nil, ""},
		{"valid table", "table", `title = "t"`, true, nil, nil, goodTab, ""},
		{"invalid panel", "figure", `metric = "test_mse"`, true, func(name string) *plotting.Figure {
			return &plotting.Figure{Name: name, Panels: panel([]float64{1, 2}, []float64{1})}
		}, plotting.Formats, nil, "lengths differ"},
		{"figure without panels", "figure", `metric = "test_mse"`, true, func(name string) *plotting.Figure {
			return &plotting.Figure{Name: name}
		}, plotting.Formats, nil, "no panels"},
		{"example with an unknown key", "figure", "metric = \"test_mse\"\nbnad = \"ci\"", true, goodFig, plotting.Formats, nil, "figure[0].bnad"},
		{"example that is not TOML", "figure", `metric = `, true, goodFig, plotting.Formats, nil, "does not parse"},
		{"decode not strict", "figure", `metric = "test_mse"`, false, goodFig, plotting.Formats, nil, "not_a_key"},
		{"figure not named after its block", "figure", `metric = "test_mse"`, true, func(string) *plotting.Figure {
			return goodFig("scratch")
		}, plotting.Formats, nil, "figures/scratch.*, not named after the block"},
		{"no formats", "figure", `metric = "test_mse"`, true, goodFig, nil, nil, "no formats"},
		{"a different figure each render", "figure", `metric = "test_mse"`, true, func(name string) *plotting.Figure {
			renders++
			f := goodFig(name)
			f.Title = fmt.Sprint("render ", renders)
			return f
		}, []string{"svg"}, nil, "figures/example.svg differs between two renders"},
		{"no tables", "table", `title = "t"`, true, nil, nil, func(string) []*plotting.Table { return nil }, "wrote nothing in tables/"},
		{"table with a short row", "table", `title = "t"`, true, nil, nil, func(name string) []*plotting.Table {
			tabs := goodTab(name)
			tabs[0].Columns = append(tabs[0].Columns, "d")
			return tabs
		}, "1 cells for 2 columns"},
	}
	cache := &run.DataCache{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			decode := func(b *Block, v any) error {
				if tc.strict {
					return b.Decode(v)
				}
				return nil
			}
			if tc.block == "figure" {
				RegisterFigure("broken", Kind[Figure]{Params: brokenFigure{}, Example: tc.example, Decode: func(b *Block) (Figure, error) {
					f := &brokenFigure{name: b.Out.Name, fig: tc.fig, fmts: tc.fmts}
					return f, decode(b, f)
				}})
				defer delete(figureKinds, "broken")
			} else {
				RegisterTable("broken", Kind[Table]{Params: brokenTable{}, Example: tc.example, Decode: func(b *Block) (Table, error) {
					t := &brokenTable{name: b.Out.Name, tabs: tc.tabs}
					return t, decode(b, t)
				}})
				defer delete(tableKinds, "broken")
			}
			err := exerciseKind(tc.block, "broken", t.TempDir(), cache)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("a kind without a fault: %v", err)
			case tc.want == "":
			case err == nil:
				t.Errorf("passed; want an error mentioning %q", tc.want)
			case !strings.Contains(err.Error(), tc.block+` kind "broken": `) || !strings.Contains(err.Error(), tc.want):
				t.Errorf("got %v; want an error naming %s kind \"broken\" and mentioning %q", err, tc.block, tc.want)
			}
		})
	}
}

// TestRegisterRefusesIncompleteKinds: a kind without an example, a decode
// function or its params struct cannot be registered.
func TestRegisterRefusesIncompleteKinds(t *testing.T) {
	decode := func(b *Block) (Figure, error) { return nil, nil }
	for name, k := range map[string]Kind[Figure]{
		"no example":       {Decode: decode, Params: iterationsFigure{}},
		"a blank example":  {Decode: decode, Example: " \n", Params: iterationsFigure{}},
		"no decode":        {Example: `metric = "test_mse"`, Params: iterationsFigure{}},
		"no params":        {Decode: decode, Example: `metric = "test_mse"`},
		"a pointer params": {Decode: decode, Example: `metric = "test_mse"`, Params: &iterationsFigure{}},
		"a duplicate kind": {Decode: decode, Example: `metric = "test_mse"`, Params: iterationsFigure{}},
	} {
		t.Run(name, func(t *testing.T) {
			kind := "incomplete"
			if name == "a duplicate kind" {
				kind = "epsilon"
			}
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterFigure(%q) with %s did not panic", kind, name)
				}
				if kind != "epsilon" {
					delete(figureKinds, kind)
				}
			}()
			RegisterFigure(kind, k)
		})
	}
}

// TestKindDocsReadAsHelp: what 'dplab kinds' prints for each kind is help
// for spec writers: it does not begin with a leftover of its Go doc
// comment ("is, per dataset …", the type's name) or point at a source file.
func TestKindDocsReadAsHelp(t *testing.T) {
	for _, k := range Kinds() {
		doc := k.Doc
		if doc == "" || strings.HasPrefix(doc, "is ") || strings.HasPrefix(doc, "is,") || strings.Contains(doc, ".go") ||
			strings.HasPrefix(doc, strings.ToLower(k.Kind[:1])+k.Kind[1:]+"Table") || strings.HasPrefix(doc, k.Kind+"Figure") {
			t.Errorf("%s %s: %q", k.Block, k.Kind, doc)
		}
	}
}
