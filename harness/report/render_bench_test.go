package report

import (
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/benchcpu"
	"github.com/dplab/dplab/results"
)

// renderBenchSpec is the Boston panel of experiments/gaussmix_fig4.toml
// (Lev et al. 2025, Figure 4(c): 4 private mechanisms × 5 ε × 250 trials
// and 250 of the non-private baseline, 5250 records; its figure, its MSE
// table and its privacy table) on built-in synthetic data of Boston
// housing's shape (506 × 13), so that it runs without DPLAB_DATA.
const renderBenchSpec = `
name = "render_bench"
title = "Linear mixing on four more regression datasets (Lev et al. 2025, Figure 4)"
seed = 50
trials = 250
epsilon = { logspace = [-1, 1, 5] }
delta = "min(1e-6, 0.01/n)"
metrics = ["test_mse", "train_mse"]

[[dataset]]
name = "synthetic-linear"
label = "Boston-shaped"
params = { n = 506, d = 13, seed = 1 }
split = { test = 0.2 }
scale = { x = "max-row-norm", y = "max-abs" }

[[mechanism]]
name = "sheffet17"
label = "Sheffet '17"

[[mechanism]]
name = "adassp"
label = "AdaSSP [Wang '18]"
params = { rho = 1e-4 }

[[mechanism]]
name = "sheffet17-renyi"
label = "Sheffet '17 (ours)"

[[mechanism]]
name = "linear-mixing"
label = "Linear mixing (ours)"

[[mechanism]]
name = "ridge"
label = "Baseline (non-private ridge)"
params = { lambda = 1e-6 }

[[figure]]
name = "fig4-test-mse"
title = "Figure 4: linear mixing, k = int(2.5d)"
metric = "test_mse"
band = "ci"
columns = 2
time_ratio = ["Linear mixing (ours)", "AdaSSP [Wang '18]"]
note = "Paper calibration (preset = paper). Sketches drawn by the exact sampler (same output distribution as S·[X y] + σΞ)"

[[table]]
name = "test-mse"
metric = "test_mse"

[[table]]
name = "calibration"
kind = "privacy"
title = "Calibration and privacy spent (RDP accountant)"
`

// BenchmarkRenderRecords times RenderRecords as dplab run calls it after
// the trials: summary.csv, the figure (PNG and SVG) and the tables of a
// run shaped like the Boston panel of Figure 4 (renderBenchSpec), from
// the run's records in memory. The run itself is done once, before the
// timer. Besides wall time it reports the process's CPU time per render
// (all threads; not reported where unavailable), which other load on the
// machine disturbs less.
func BenchmarkRenderRecords(b *testing.B) {
	s, dir := renderBenchRun(b)
	recs, err := results.Read(dir, nil)
	if err != nil || len(recs) != 5250 {
		b.Fatalf("the run left %d records (%v), want 5250", len(recs), err)
	}
	cpu0 := benchcpu.Process()
	for b.Loop() {
		if _, err := RenderRecords(s, dir, recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := benchcpu.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRenderStore times Render as dplab render calls it: the store of
// renderBenchSpec's run (5250 records) scanned from its file into a
// Collector, then summary.csv, the figure and the tables written.
func BenchmarkRenderStore(b *testing.B) {
	s, dir := renderBenchRun(b)
	cpu0 := benchcpu.Process()
	for b.Loop() {
		if _, err := Render(s, dir, nil); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := benchcpu.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// renderBenchRun runs renderBenchSpec into a new result directory and
// returns the spec and the directory.
func renderBenchRun(b *testing.B) (*spec.Spec, string) {
	s := spectest.MustParse(b, renderBenchSpec)
	if err := Check(s); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "out")
	if _, err := run.Run(b.Context(), s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		b.Fatal(err)
	}
	return s, dir
}
