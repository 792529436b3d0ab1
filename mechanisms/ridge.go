package mechanisms

import (
	"context"
	"fmt"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// Ridge is non-private ridge regression without intercept,
//
//	θ = (XᵀX + λI)⁻¹Xᵀy,
//
// the reference line of the linear-regression figures ([LSS+25] §6.3 item 7:
// λ = 1e-6, no intercept).
type Ridge struct{ p RidgeParams }

// RidgeParams is the params table of "ridge".
type RidgeParams struct {
	// Lambda is the ridge penalty λ ≥ 0; 0 means 1e-6 ([LSS+25] code's
	// Ridge(alpha=1e-6, fit_intercept=False)). Use a tiny positive value for
	// (almost) ordinary least squares.
	Lambda float64 `toml:"lambda" default:"1e-6" range:"> 0"`
}

// Validate implements Params.
func (p RidgeParams) Validate() error {
	return checkNonNegative("lambda", p.Lambda)
}

func init() {
	Register(Info{Name: "ridge", Title: "Non-private ridge", Ref: "LSS+25", Tasks: []datasets.Task{datasets.Regression}, Private: false, Version: 1, Events: []string{"non_private"}},
		func(p RidgeParams) (Mechanism, error) { return &Ridge{p: p}, nil }, RidgeParams{})
}

// Fit implements Mechanism.
func (r *Ridge) Fit(ctx context.Context, train *datasets.Dataset, _ Budget, _ rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Deterministic in the data: fitted once per training set and λ (the
	// trials of a fixed split share it; an SVD fallback on a rank-deficient
	// 8192 × 512 set takes seconds).
	lambda := orDefault(r.p.Lambda, 1e-6)
	v, err := train.Memo(fmt.Sprintf("mechanisms/ridge/lambda=%g", lambda), func() (any, error) {
		return solvers.Ridge(train.X, train.Y, lambda)
	})
	if err != nil {
		return nil, err
	}
	m := &Linear{Theta: append([]float64(nil), v.([]float64)...)}
	if err := checkLinear("ridge", m); err != nil {
		return nil, err
	}
	return &Release{Model: m, Event: accounting.NonPrivate{}}, nil
}

// EventShapes implements Mechanism.
func (*Ridge) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.NonPrivate{}}, nil
}
