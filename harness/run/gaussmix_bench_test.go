package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/plan"
)

// panelSpec is one regression panel of Lev et al. Figure 4 as
// gaussmix_fig4.toml runs it: 5 ε × 250 trials × 4 private mechanisms (the
// non-private line is left out, as in "4 methods"), no figures or tables.
const panelSpec = `name = "bench"
seed = 50
trials = 250
epsilon = { logspace = [-1, 1, 5] }
delta = "min(1e-6, 0.01/n)"
metrics = ["test_mse", "train_mse"]
[[dataset]]
name = "%s"
split = { test = 0.2 }
scale = { x = "max-row-norm", y = "max-abs" }
[[mechanism]]
name = "sheffet17"
[[mechanism]]
name = "adassp"
params = { rho = 1e-4 }
[[mechanism]]
name = "sheffet17-renyi"
[[mechanism]]
name = "linear-mixing"
`

// BenchmarkGaussMixPanel times experiments.Run on one full Figure 4 panel
// with Jobs = 2: loading and splitting the data (a fresh DataCache each
// time), calibration, 5000 trials, accounting and the JSONL store. The
// authors' Python takes 2.9 s (Boston) and 31 s (Bike) for 6 ε × 250 trials
// × 4 methods on 2 cores with one BLAS thread (reference-code.md §1.5).
// Skips without DPLAB_DATA.
func BenchmarkGaussMixPanel(b *testing.B) {
	if os.Getenv("DPLAB_DATA") == "" {
		b.Skip("DPLAB_DATA is not set")
	}
	for _, ds := range []string{"boston", "bike"} {
		s, err := plan.Parse("bench.toml", []byte(fmt.Sprintf(panelSpec, ds)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(ds, func(b *testing.B) {
			i := 0
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
				rep, err := Run(context.Background(), s, Options{OutDir: dir, Jobs: 2, Cache: &DataCache{}})
				if err != nil || rep.Ran != 5000 {
					b.Fatalf("ran %d: %v", rep.Ran, err)
				}
				i++
			}
		})
	}
}
