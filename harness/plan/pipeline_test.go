package plan

import (
	"errors"
	"github.com/dplab/dplab/harness/spec"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// pipelineBase has a pre-processed second mechanism block (line numbers
// matter to TestPipelineErrors).
const pipelineBase = `name = "pp"
seed = 1
trials = 2
epsilon = [1]
delta = 1e-5

[[dataset]]
name = "clustered-unit-ball"
params = { n = 200, d = 5 }

[[mechanism]]
name = "dpgd"
label = "A"

[[mechanism]]
name = "dpgd"
label = "B"
preprocess = [{ name = "quantize", eta = 0.1 }]
[mechanism.pipeline]
collection = { max_local = 30 }
`

// TestPipelineErrors: every problem with a preprocess list or a pipeline
// table is refused at load with its file, line and key (the second
// [[mechanism]] block's), and names what is wrong.
func TestPipelineErrors(t *testing.T) {
	step := func(new string) func(string) string {
		return func(s string) string {
			return strings.Replace(s, `preprocess = [{ name = "quantize", eta = 0.1 }]`, "preprocess = "+new, 1)
		}
	}
	coll := func(new string) func(string) string {
		return func(s string) string { return strings.Replace(s, "collection = { max_local = 30 }", new, 1) }
	}
	mech := func(name string) func(string) string {
		return func(s string) string {
			return strings.Replace(s, "name = \"dpgd\"\nlabel = \"B\"", "name = \""+name+"\"\nlabel = \"B\"", 1)
		}
	}
	both := func(a, b func(string) string) func(string) string { return func(s string) string { return b(a(s)) } }
	tests := []struct {
		name      string
		edit      func(string) string
		line      int
		key, want string
	}{
		{"unknown step", step(`[{ name = "quantise", eta = 0.1 }]`), 18, "mechanism[1].preprocess[0].name", `unknown pre-processor "quantise" (known: dedup, quantize,`},
		{"unknown step key", step(`[{ name = "quantize", eta = 0.1, etta = 1 }]`), 18, "mechanism[1].preprocess[0].etta", "unknown key"},
		{"wrong step param type", step(`[{ name = "quantize", eta = "big" }]`), 18, "mechanism[1].preprocess[0].eta", "incompatible types"},
		{"missing eta", step(`["quantize"]`), 18, "mechanism[1].preprocess[0].eta", "eta = 0: must be a finite number > 0"},
		{"param the step does not read", step(`[{ name = "quantize", eta = 0.1, k = 3 }]`), 18, "mechanism[1].preprocess[0].k", "quantize does not read k (it takes eta)"},
		{"step of the wrong type", step(`[3]`), 18, "mechanism[1].preprocess[0]", "a name or a table"},
		{"second step's key", step(`[{ name = "quantize", eta = 0.1 }, { name = "pca-rank", k = -1 }]`), 18, "mechanism[1].preprocess[1].k", "k = -1: must be ≥ 1"},
		{"imputer after a step", step(`[{ name = "quantize", eta = 0.1 }, "impute-mean"]`), 18, "mechanism[1].preprocess", "imputation must come first"},
		{"missing collection parameter", both(step(`[{ name = "pca-rank", k = 2 }]`), coll("collection = { }")), 20, "mechanism[1].pipeline.collection.gap_k", "gap_k = 0: declare a finite eigengap > 0"},
		{"unknown collection key", coll("collection = { max_locl = 30 }"), 20, "mechanism[1].pipeline.collection.max_locl", `unknown key (did you mean "max_local"?); valid keys: gap_1, gap_all, gap_k,`},
		{"collection wrong type", coll(`collection = { max_local = 2.5 }`), 20, "mechanism[1].pipeline.collection.max_local", "incompatible types"},
		{"collection infinite", both(step(`[{ name = "pca-rank", k = 2 }]`), coll("collection = { gap_k = inf }")), 20, "mechanism[1].pipeline.collection", "finite"},
		{"collection relation", coll(`collection = { relation = "zero_out" }`), 20, "mechanism[1].pipeline.collection.relation", `relation "zero_out": want "replace_one" or "add_remove"`},
		{"bad mode", coll("mode = \"tight\"\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.mode", `mode "tight": want safe`},
		{"analysis the mechanism does not support", coll("analyses = [\"tight_pq\", \"frobenius\"]\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.analyses", `analyses[1] = "frobenius", want an analysis the mechanism supports`},
		{"bad analysis", coll("analyses = [\"best\"]\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.analyses", `analyses[0] = "best"`},
		{"repeated analysis", coll("analyses = [\"group\", \"group\"]\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.analyses", "listed twice"},
		{"group size offset zero", coll("group_size_offset = 0\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.group_size_offset", "the paper's g = Δ∞ is not a guarantee"},
		{"bad on_violation", coll("on_violation = \"warn\"\ncollection = { max_local = 30 }"), 20, "mechanism[1].pipeline.on_violation", `on_violation "warn": want fail`},
		{"unknown pipeline key", coll("collection = { max_local = 30 }\nmodes = 1"), 21, "mechanism[1].pipeline.modes", "unknown key"},
		{"pipeline without preprocess", step("[]\n"), 20, "mechanism[1].pipeline", "needs preprocess"},
		// The mechanism's ledger and the pipeline.
		{"relation mismatch (DP-GD, add/remove quantization)", coll(`collection = { max_local = 30, relation = "add_remove" }`), 18, "mechanism[1].preprocess",
			`"dpgd" charges a ledger for replace-one neighbours, but the pre-processing quantize[eta=0.1] is analysed for add/remove neighbours`},
		{"PCA for add/remove", both(mech("dpsgd"), both(step(`[{ name = "pca-rank", k = 2 }]`), coll(`collection = { gap_k = 0.01, relation = "add_remove" }`))), 20, "mechanism[1].pipeline.collection.relation",
			"no sensitivity is derived for add/remove neighbours"},
		{"no smooth-RDP result, group left out", both(mech("dpsgd"), coll("analyses = [\"tight_pq\"]\ncollection = { max_local = 30, relation = \"add_remove\" }")), 20, "mechanism[1].pipeline.analyses",
			"no smooth-RDP result for dpsgd: dpsgd: no smooth-RDP result without a projection radius"},
		{"a mechanism that refuses a wrapped ledger", mech("objpert-amp"), 18, "mechanism[1].preprocess", "refuses a wrapped ledger"},
		{"an (ε, δ) ledger", both(mech("objpert-kifer"), coll(`collection = { max_local = 30, relation = "add_remove" }`)), 18, "mechanism[1].preprocess", "charges an (ε, δ) part (approx_dp) in its ledger, which has no RDP curve"},
		{"accountant without pipelines", func(s string) string {
			s = strings.Replace(s, "[[mechanism]]\nname = \"dpgd\"\nlabel = \"A\"\n\n", "", 1)
			return strings.Replace(s, "delta = 1e-5", "delta = 1e-5\naccountant = { kind = \"pld\" }", 1)
		}, 12, "mechanism[0]", `accountant "pld" cannot account its ledger (event preprocessed`},
		{"private tuning behind PCA", both(step(`[{ name = "pca-rank", k = 2 }]`), coll("collection = { gap_k = 0.01 }\n[mechanism.tuning]\nmode = \"private\"\nselect_on = \"test\"\nmean = 3\ncandidates = { step = [0.1, 0.2] }")),
			22, "mechanism[1].tuning.mode", "does not cover"},
	}
	for _, tc := range tests {
		src := tc.edit(pipelineBase)
		if src == pipelineBase {
			t.Fatalf("%s: the edit changed nothing", tc.name)
		}
		_, err := Parse("p.toml", []byte(src))
		var se *spec.SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *SpecError", tc.name, err)
			continue
		}
		if se.File != "p.toml" || se.Line != tc.line || se.Key != tc.key || !strings.Contains(se.Err.Error(), tc.want) {
			t.Errorf("%s:\n got  %s:%d key %s: %v\n want p.toml:%d key %s containing %q", tc.name, se.File, se.Line, se.Key, se.Err, tc.line, tc.key, tc.want)
		}
	}
}

// TestPipelineAccepted: what validation lets through, and what it builds.
func TestPipelineAccepted(t *testing.T) {
	_, err := Parse("p.toml", []byte(strings.Replace(pipelineBase, `preprocess = [{ name = "quantize", eta = 0.1 }]`,
		`preprocess = [{ name = "quantize", eta = 0.1 }, { name = "pca-rank", k = 2 }]`, 1)+"gap_k = 0.02\n"))
	if err == nil {
		t.Fatal("a key after the inline collection table should be a pipeline key, and gap_k is not one")
	}
	src := strings.Replace(pipelineBase, "collection = { max_local = 30 }", "mode = \"paper\"\nanalyses = [\"paper\", \"group\"]\ngroup_size_offset = 2\non_violation = \"group\"\ncollection = { max_cluster = 20, gap_k = 0.02 }", 1)
	src = strings.Replace(src, `preprocess = [{ name = "quantize", eta = 0.1 }]`, `preprocess = [{ name = "quantize", eta = 0.1 }, { name = "pca-rank", k = 2 }]`, 1)
	s, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if preprocessingOf(t, s, 0) != nil {
		t.Error("block without preprocess has a pipeline")
	}
	p := preprocessingOf(t, s, 1)
	if p == nil || p.Mode != preprocess.Paper || p.GroupSizeOffset != 2 || p.OnViolation != ViolationGroup || p.Collection.MaxCluster != 20 || p.Collection.GapK != 0.02 ||
		len(p.Steps) != 2 || p.StepsText() != "quantize[eta=0.1]→pca-rank[k=2]" || p.Pre.Name() != "chain" || p.TransformIsIdentity() {
		t.Fatalf("pipeline %+v", p)
	}
	if got := p.CollectionText(160); got != "{gap_k = 0.02, max_cluster = 20, n = 160 (the training size)}" {
		t.Errorf("collection text %q", got)
	}
	// The chain's sensitivity: the first step's, composed with the second's
	// (preprocess.ComposeSensitivity), at the training size.
	sens, err := p.Sensitivity(160)
	if err != nil || sens.DeltaInf != 160 || sens.Mode != preprocess.Paper {
		t.Errorf("chain sensitivity %+v, %v", sens, err)
	}
	// A bare name is a step without params.
	if _, err := Parse("p.toml", []byte(strings.Replace(pipelineBase, `preprocess = [{ name = "quantize", eta = 0.1 }]`, `preprocess = ["impute-mean"]`, 1))); err != nil {
		t.Errorf("bare step name: %v", err)
	}
}

// TestPipelineEvent: the charged event of one run behind the pipeline.
// With the mechanism's SRDP curve (dpgd), Theorem 2's analyses; without
// one, group privacy alone, saying why; after a violation, group privacy
// over all n rows whatever the mechanism.
func TestPipelineEvent(t *testing.T) {
	s, err := Parse("p.toml", []byte(pipelineBase))
	if err != nil {
		t.Fatal(err)
	}
	p := preprocessingOf(t, s, 1)
	e, _ := mechanisms.Lookup("dpgd")
	m, _, _ := e.Build(func(any) error { return nil })
	sens, _ := p.Sensitivity(100)
	if sens.DeltaInf != 60 || sens.Delta2 != 0.2 {
		t.Fatalf("safe quantization at n = 100, m = 30: %+v", sens)
	}
	ledger := accounting.WithRelation{Event: accounting.SelfComposed{Event: accounting.Gaussian{Sigma: 2, Sensitivity: 0.02}, Count: 10}, Relation: accounting.RelationReplaceOne}
	ev, group := p.Event("dpgd", m, ledger, Charge{Sens: sens, N: 100})
	if group != "" || ev.SRDP == nil || ev.DeltaInf != 60 || ev.Delta2 != 0.2 || ev.N != 100 || ev.Analyses != nil || ev.Relation != "" {
		t.Errorf("dpgd: %+v (%q)", ev, group)
	}
	if err := accounting.Validate(ev); err != nil {
		t.Error(err)
	}
	// A mechanism without SmoothRDP.
	ae, _ := mechanisms.Lookup("adassp")
	am, _, _ := ae.Build(func(any) error { return nil })
	ev, group = p.Event("adassp", am, accounting.SelfComposed{Event: accounting.Gaussian{Sigma: 2, Sensitivity: 1}, Count: 3}, Charge{Sens: sens, N: 100})
	if group != "no smooth-RDP result for adassp" || ev.SRDP != nil || len(ev.Analyses) != 1 || ev.Analyses[0] != "group" {
		t.Errorf("adassp: %+v (%q)", ev, group)
	}
	// A violation voids the sensitivities.
	void := &preprocess.ViolationError{Preprocessor: "quantize[eta=0.1]", Violations: []preprocess.Violation{{Param: "max_local", Declared: "30", Observed: "41"}}}
	ev, group = p.Event("dpgd", m, ledger, Charge{Sens: sens, N: 100, Void: void})
	if ev.SRDP != nil || ev.DeltaInf != 100 || ev.GroupSize() != 100 || !strings.Contains(group, "max_local = 30 declared, 41 observed") {
		t.Errorf("violation: %+v (%q)", ev, group)
	}
	// Wrap is Event's, and composes inside private tuning.
	w := ComposeWraps(PrivateWrap(spec.TuningSpec{Distribution: "poisson", Mean: 3}), p.Wrap("dpgd", m, Charge{Sens: sens, N: 100}))
	rs, ok := w(ledger).(accounting.RepeatAndSelect)
	if !ok {
		t.Fatalf("tuning ∘ pipeline: %T", w(ledger))
	}
	if _, ok := rs.Event.(accounting.Preprocessed); !ok {
		t.Errorf("repeat-and-select wraps %T, want the pre-processed run", rs.Event)
	}
}

// TestPipelineCellKeys: preprocess and pipeline enter the cell key only
// when present: a block without them keeps its key (the goldens pin the
// shipped specs' keys), every pipeline setting that changes results
// changes the key, and two blocks that differ only in their pre-processing
// are not duplicates.
func TestPipelineCellKeys(t *testing.T) {
	keys := func(src string) []string {
		s, err := Parse("p.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		cells, err := planCells(s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cells {
			out = append(out, c.Key)
		}
		return out
	}
	base := keys(pipelineBase)
	plain := keys(pipelineBase[:strings.Index(pipelineBase, "\n[[mechanism]]\nname = \"dpgd\"\nlabel = \"B\"")+1])
	if base[0] != plain[0] {
		t.Error("a block without preprocess changed its cell key")
	}
	if base[0] == base[1] {
		t.Error("blocks A and B (pre-processed) share a cell key")
	}
	seen := map[string]string{"base": base[1]}
	for name, edit := range map[string][2]string{
		"eta":          {"eta = 0.1", "eta = 0.2"},
		"collection":   {"max_local = 30", "max_local = 31"},
		"mode":         {"collection =", "mode = \"paper\"\nanalyses = [\"paper\"]\ncollection = { max_cluster = 5, max_local = 30 }\nx ="},
		"on_violation": {"collection =", "on_violation = \"group\"\ncollection ="},
		"offset":       {"collection =", "group_size_offset = 2\ncollection ="},
	} {
		src := strings.Replace(pipelineBase, edit[0], edit[1], 1)
		if name == "mode" {
			src = strings.Replace(src, "\nx = { max_local = 30 }", "", 1)
		}
		k := keys(src)[1]
		for other, ok := range seen {
			if ok == k {
				t.Errorf("%s and %s share a cell key", name, other)
			}
		}
		seen[name] = k
	}
}
