package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/benchcpu"
)

// bostonPanelSpec returns experiments/gaussmix_fig4.toml restricted to its
// Boston panel: the other [[dataset]] tables and the [quick] overrides (which
// name the Uniform dataset) are removed; everything else — the five
// mechanisms, 5 ε × 250 trials, the figure and both tables — is kept.
func bostonPanelSpec(b *testing.B) string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join("experiments", "gaussmix_fig4.toml"))
	if err != nil {
		b.Fatal(err)
	}
	var out, block strings.Builder
	keep := true
	flush := func() {
		if keep {
			out.WriteString(block.String())
		}
		block.Reset()
	}
	for _, line := range strings.SplitAfter(string(src), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") {
			flush()
			keep = !strings.HasPrefix(t, "[quick")
		}
		if strings.HasPrefix(strings.TrimSpace(line), "name = ") && strings.Contains(block.String(), "[[dataset]]") && !strings.Contains(line, `"boston"`) {
			keep = false
		}
		block.WriteString(line)
	}
	flush()
	s := out.String()
	if strings.Count(s, "[[dataset]]") != 1 || !strings.Contains(s, `name = "boston"`) {
		b.Fatalf("could not cut the Boston panel out of gaussmix_fig4.toml:\n%s", s)
	}
	return s
}

// BenchmarkRunBostonPanel times the whole run path as the CLI takes it
// (dplab run SPEC --out DIR -j 2: spec load and validation, the 5250
// trials of the Boston panel of Lev et al. Figure 4 — 4 private mechanisms
// × 5 ε × 250 trials, and 250 of the non-private baseline —, the JSONL
// store, the manifest, summary.csv, the figure and the tables) into a fresh
// result directory each iteration. The dataset is loaded once per process
// (the CLI's data cache), as in a one-spec run. Besides wall time it
// reports the process's CPU time per run (user + system, all threads; not
// reported where unavailable), which other load on the machine disturbs
// less. Skips without DPLAB_DATA.
func BenchmarkRunBostonPanel(b *testing.B) {
	if os.Getenv("DPLAB_DATA") == "" {
		b.Skip("DPLAB_DATA is not set")
	}
	spec := filepath.Join(b.TempDir(), "gaussmix_fig4_boston.toml")
	if err := os.WriteFile(spec, []byte(bostonPanelSpec(b)), 0o644); err != nil {
		b.Fatal(err)
	}
	benchRun(b, spec)
}

// benchRun times "dplab run SPEC --out DIR -j 2" into a fresh result
// directory per iteration and reports the process's CPU time per run (user
// + system, all threads) where available.
func benchRun(b *testing.B, spec string) {
	i := 0
	cpu0 := benchcpu.Process()
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		var errb strings.Builder
		if code := Main(context.Background(), []string{"run", spec, "--out", dir, "-j", "2"}, io.Discard, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		i++
	}
	if cpu := benchcpu.Process() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
}

// BenchmarkRGMFigure1 times the whole run path of experiments/rgm_fig1.toml
// (3 splits × 5 methods × 3 runs × 40 iterations on ijcnn1's 141,691 × 22,
// -j 2) into a fresh result directory per iteration; the dataset is loaded
// once per process (the first iteration), as the CLI's cache does within a
// run. Skips without DPLAB_DATA.
func BenchmarkRGMFigure1(b *testing.B) {
	if os.Getenv("DPLAB_DATA") == "" {
		b.Skip("DPLAB_DATA is not set")
	}
	benchRun(b, filepath.Join("experiments", "rgm_fig1.toml"))
}
