package mechanisms

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestPCADPGDMemoisesTrainingSet: dppca-dpgd and ptr-pca-dpgd compute the
// clipped rows, their second moment and Algorithm 1's non-private PCA once
// per training set (datasets.Dataset.Memo), not in every trial of a fixed
// split (preprocessing_fig3 fits each of them 60 times on one set); a
// second fit on the memoised set releases bit for bit what a fit on a
// fresh copy of the set (nothing memoised) releases, under the same
// streams: the same θ, σ, event and statistics. (Fails before: the memo
// keys are never filled.)
func TestPCADPGDMemoisesTrainingSet(t *testing.T) {
	shared := lowRank(t, 1000, 12, 3)
	b := Budget{Epsilon: 4, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
	for _, m := range []*PCADPGD{
		{p: PCADPGDParams{DPGDParams: DPGDParams{Iterations: 20}, K: 3}},
		{ptr: true, p: PCADPGDParams{DPGDParams: DPGDParams{Iterations: 20}, K: 3, Beta: 0.01, TestFraction: 0.5}},
	} {
		fit := func(d *datasets.Dataset, seed string) *Release {
			rel, err := m.Fit(context.Background(), d, b, rngs.New(rngs.Derive(seed)))
			if err != nil {
				t.Fatal(err)
			}
			return rel
		}
		fit(shared, "first trial")
		keys := []string{memoClipped, memoSecondMoment}
		if m.ptr {
			keys = []string{memoClipped, fmt.Sprintf("%s|k=%d", memoPTRPCA, 3)}
		}
		for _, k := range keys {
			if _, err := shared.Memo(k, func() (any, error) { return nil, fmt.Errorf("not memoised") }); err != nil {
				t.Errorf("ptr=%v: %s: %v after a fit", m.ptr, k, err)
			}
		}
		fresh := &datasets.Dataset{Name: shared.Name, Task: shared.Task, X: shared.X, Y: shared.Y}
		got, want := fit(shared, "second trial"), fit(fresh, "second trial")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ptr=%v: a fit on the memoised set differs from one on a fresh copy:\n%+v\n%+v", m.ptr, got, want)
		}
	}
}
