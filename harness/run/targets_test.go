package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
)

// TestExtremeTargetsRefusedOrAccounted sweeps every private mechanism, with
// its registry defaults, over extreme targets: each ε is refused at
// validation (a *SpecError at key "epsilon" saying it is out of range), or a
// trial at it is stored ok with a finite ε spent, infeasible with its reason
// (when validation warned so, always), or failed; never ok with ε spent =
// +Inf, which the summary calls "NOT PRIVATE" (AdaSSP's paper constants at
// ε = 1e300 were: noise multiplier 1.2e-299, ε spent +Inf) (issue 34,
// item 14).
func TestExtremeTargetsRefusedOrAccounted(t *testing.T) {
	// Params a mechanism needs on the 4-feature data (PCA to k < d, PTR's
	// public β) or to run fast.
	base := map[string]string{"dpsgd": "{ epochs = 1 }", "dppca-dpgd": "{ k = 2 }", "ptr-pca-dpgd": "{ k = 2, beta = 0.01 }"}
	targets := []float64{1e-300, 1e300}
	if !testing.Short() {
		targets = []float64{1e-300, 1e-30, 1e30, 1e300}
	}
	refused := 0
	cache := &DataCache{}
	for _, info := range mechanisms.List() {
		if !info.Private {
			continue
		}
		for _, eps := range targets {
			t.Run(fmt.Sprintf("%s/%g", info.Name, eps), func(t *testing.T) {
				data := "synthetic-linear"
				if info.Tasks[0] == datasets.Binary {
					data = "synthetic-logistic"
				}
				src := fmt.Sprintf("name = \"extreme\"\nseed = 1\ntrials = 1\nepsilon = [%g]\ndelta = 1e-6\n\n[[dataset]]\nname = %q\nparams = { n = 300, d = 4 }\n\n[[mechanism]]\nname = %q\n",
					eps, data, info.Name)
				if p, ok := base[info.Name]; ok {
					src += "params = " + p + "\n"
				}
				s, err := plan.Parse("spec.toml", []byte(src))
				if err != nil {
					var se *spec.SpecError
					if !errors.As(err, &se) || se.Key != "epsilon" || !strings.Contains(err.Error(), "out of range") {
						t.Fatalf("refused, but not as an out-of-range ε: %v", err)
					}
					refused++
					return
				}
				warned := strings.Contains(strings.Join(s.Warnings, "\n"), "recorded infeasible")
				dir := filepath.Join(t.TempDir(), "out")
				rep, _ := Run(context.Background(), s, Options{OutDir: dir, Cache: cache, Jobs: 1})
				recs, err := results.Read(dir, nil)
				if rep == nil || err != nil || len(recs) != 1 {
					t.Fatalf("want one record, got %+v (%v)", rep, err)
				}
				r := recs[0]
				switch r.Status {
				case results.StatusOK:
					if spent := float64(r.Privacy.EpsSpent); math.IsInf(spent, 1) || math.IsNaN(spent) {
						t.Errorf("stored ok with ε spent %v: a private mechanism recorded as non-private", spent)
					}
				case results.StatusInfeasible:
					if r.Error == "" {
						t.Error("infeasible without a reason")
					}
				}
				if warned && r.Status != results.StatusInfeasible {
					t.Errorf("validation warned %q, but the trial is %s: %s", s.Warnings, r.Status, r.Error)
				}
			})
		}
	}
	if refused == 0 {
		t.Error("no extreme target was refused")
	}
}
