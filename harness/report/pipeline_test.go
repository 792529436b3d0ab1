package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/results"
)

// pipelineBinary: DP-GD behind quantization (Theorem 2), the same behind
// the paper's sensitivities with a label that names the step, and DP-GD
// alone.
const pipelineBinary = `name = "pl"
seed = 2
trials = 2
epsilon = [1, 4]
delta = 1e-5
[[dataset]]
name = "clustered-unit-ball"
label = "clusters"
params = { n = 300, d = 8, eta = 0.1, max_cluster = 10, seed = 1 }
scale = { x = "none" }
[[mechanism]]
name = "dpgd"
label = "DP-GD"
params = { iterations = 20 }
preprocess = [{ name = "quantize", eta = 0.1 }]
[mechanism.pipeline]
collection = { max_local = 150 }
[[mechanism]]
name = "dpgd"
label = "DP-GD quantized"
params = { iterations = 20 }
preprocess = [{ name = "quantize", eta = 0.1 }]
[mechanism.pipeline]
mode = "paper"
collection = { max_cluster = 10, max_local = 150 }
[[mechanism]]
name = "dpgd"
label = "DP-GD alone"
params = { iterations = 20 }
[[figure]]
name = "acc"
metric = "test_accuracy"
[[figure]]
name = "alone"
metric = "test_accuracy"
mechanisms = ["DP-GD alone"]
[[table]]
name = "privacy"
kind = "privacy"
`

// pipelineRegression: AdaSSP behind quantization (no smooth-RDP result:
// group privacy).
const pipelineRegression = `name = "pr"
seed = 2
trials = 2
epsilon = [1, 4]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
label = "linear"
params = { n = 300, d = 4, seed = 1 }
[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { calibration = "accountant" }
preprocess = [{ name = "quantize", eta = 0.01 }]
[mechanism.pipeline]
collection = { relation = "add_remove", max_local = 100 }
[[figure]]
name = "mse"
metric = "test_mse"
`

// renderPipeline runs and renders src and returns its view, its legends by
// mechanism label and its footnotes.
func renderPipeline(t *testing.T, src string) (map[string]string, map[string]string) {
	t.Helper()
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if rep, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatalf("run: %v (%+v)", err, rep)
	}
	recs, _ := results.Read(dir, nil)
	v, err := newView(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	legends := map[string]string{}
	for i := range v.cells {
		legends[s.Mechanisms[v.cells[i].Mechanism].Label] = v.legend(&v.cells[i])
	}
	return legends, footnotes(t, s, dir)
}

// TestPipelineLabels: figures and tables say which mechanisms ran behind
// non-private pre-processing — in the legend when the label does not name
// the steps (with "paper bounds" and "group privacy" when they apply) — and
// state in their captions the steps, the sensitivities and the analysis
// that gave ε, each phrase once with the mechanisms it concerns, followed
// by the records' assumptions (the clipping and the declared collection).
// A figure without pre-processed mechanisms says nothing of it.
func TestPipelineLabels(t *testing.T) {
	legends, notes := renderPipeline(t, pipelineBinary)
	for label, want := range map[string]string{
		"DP-GD":           "DP-GD (pre-processed: quantize[eta=0.1])",
		"DP-GD quantized": "DP-GD quantized (paper bounds)",
		"DP-GD alone":     "DP-GD alone",
	} {
		if legends[label] != want {
			t.Errorf("legend of %s: %q, want %q", label, legends[label], want)
		}
	}
	acc := notes["figure acc"]
	for _, want := range []string{
		"pre-processing: quantize[eta=0.1] (rows clipped to the unit ball first) (DP-GD, DP-GD quantized)",
		"safe sensitivities (DP-GD)",
		"ε by [HSS24] Theorem 2 (tight_pq) conditional on the declared collection (DP-GD, DP-GD quantized)",
		"PAPER sensitivities (as [HSS24] prints them, several refuted; reproduction only) (DP-GD quantized)",
		run.AssumeUnitBall,
		"data outside the declared collection {max_local = 150, n = 240 (the training size)}: ε covers the non-private pre-processing quantize[eta=0.1] by [HSS24] Theorem 2 (tight_pq, safe sensitivities Δ∞ = 239, Δ₂ = 0.2)",
	} {
		if !strings.Contains(acc, want) {
			t.Errorf("figure acc's footnote lacks %q:\n%s", want, acc)
		}
	}
	if alone := notes["figure alone"]; strings.Contains(alone, "pre-processing: ") {
		t.Errorf("a figure of DP-GD alone footnotes pre-processing:\n%s", alone)
	}
	found := false
	for name, note := range notes {
		if strings.HasPrefix(name, "table privacy") {
			found = true
			if !strings.Contains(note, "pre-processing: quantize[eta=0.1]") || !strings.Contains(note, "DP-GD (pre-processed: quantize[eta=0.1])") {
				t.Errorf("%s does not label the pre-processing:\n%s", name, note)
			}
		}
	}
	if !found {
		t.Error("no privacy table")
	}

	legends, notes = renderPipeline(t, pipelineRegression)
	if want := "AdaSSP (pre-processed: quantize[eta=0.01], group privacy)"; legends["AdaSSP"] != want {
		t.Errorf("legend %q, want %q", legends["AdaSSP"], want)
	}
	for _, want := range []string{
		// AdaSSP is the one mechanism shown: the phrases concern every curve.
		"pre-processing: quantize[eta=0.01] (rows clipped to the unit ball first); safe sensitivities; ε by group privacy only (no smooth-RDP result for adassp);",
		"by group privacy over g = 201 rows (no smooth-RDP result for adassp, so not by [HSS24] Theorem 2",
	} {
		if !strings.Contains(notes["figure mse"], want) {
			t.Errorf("figure mse's footnote lacks %q:\n%s", want, notes["figure mse"])
		}
	}
}
