package mechanisms

import (
	"context"
	"errors"
	"fmt"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// LogReg is non-private logistic regression, the reference line of the
// classification figures: θ minimises the summed logistic loss plus
// (λ/2)‖θ‖² (with an intercept unless no_bias), to a gradient-norm tolerance
// by L-BFGS with a Newton fallback.
type LogReg struct{ p LogRegParams }

// LogRegParams is the params table of "logreg".
type LogRegParams struct {
	// Lambda is the L2 penalty λ ≥ 0 on the summed loss; 0 means 1e-6 (the
	// papers' unregularised baseline, kept strictly convex).
	Lambda float64 `toml:"lambda" default:"1e-6" range:"> 0"`
	// NoBias drops the intercept (default: fit one, as [RKW23] §5 and
	// scikit-learn do).
	NoBias bool `toml:"no_bias" default:"false"`
	// Tol is the gradient-norm tolerance; 0 means 1e-6.
	Tol float64 `toml:"tol" default:"1e-6" range:"> 0"`
}

// Validate implements Params.
func (p LogRegParams) Validate() error {
	if err := checkNonNegative("lambda", p.Lambda); err != nil {
		return err
	}
	return checkNonNegative("tol", p.Tol)
}

func init() {
	Register(Info{Name: "logreg", Title: "Non-private logistic regression", Ref: "RKW23", Tasks: []datasets.Task{datasets.Binary}, Private: false, Version: 1, Events: []string{"non_private"}},
		func(p LogRegParams) (Mechanism, error) { return &LogReg{p: p}, nil }, LogRegParams{})
}

// Fit implements Mechanism.
func (l *LogReg) Fit(ctx context.Context, train *datasets.Dataset, _ Budget, _ rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	loss, err := sharedGLM(train, solvers.GLMConfig{Bias: !l.p.NoBias})
	if err != nil {
		return nil, err
	}
	// Deterministic in the data: fitted once per training set and params
	// (the trials of a fixed split share it). The shared fit ignores
	// cancellation, so that a cancelled trial never stores a context error
	// for the others; it stops at its iteration limits.
	lambda, tol := orDefault(l.p.Lambda, 1e-6), orDefault(l.p.Tol, 1e-6)
	type fit struct {
		res solvers.Result
		err error
	}
	key := fmt.Sprintf("mechanisms/logreg/lambda=%g,tol=%g,bias=%v", lambda, tol, !l.p.NoBias)
	v, err := train.Memo(key, func() (any, error) {
		obj := solvers.Objective{Loss: loss, L2: lambda}
		res, err := solvers.MinimizeContext(context.WithoutCancel(ctx), obj, make([]float64, obj.Dim()), &solvers.Settings{GradTol: tol})
		return fit{res, err}, nil
	})
	if err != nil {
		return nil, err
	}
	res, err := v.(fit).res, v.(fit).err
	var nc *solvers.NotConvergedError
	if err != nil && !errors.As(err, &nc) {
		return nil, err
	}
	model := linearFromTheta(res.X, !l.p.NoBias)
	if err := checkLinear("logreg", model); err != nil {
		return nil, err
	}
	converged := 0.0
	if res.Converged {
		converged = 1
	}
	return &Release{Model: model, Event: accounting.NonPrivate{},
		Stats: map[string]float64{"iterations": float64(res.Iterations), "passes": float64(res.GradEvals),
			"grad_evals": float64(res.GradEvals) * float64(train.Rows()),
			"grad_norm":  res.GradNorm, "converged": converged}}, nil
}

// EventShapes implements Mechanism.
func (*LogReg) EventShapes(Budget) ([]accounting.Event, error) {
	return []accounting.Event{accounting.NonPrivate{}}, nil
}

// linearFromTheta splits θ = [w; w₀] (bias last, solvers' layout) into a
// Linear model.
func linearFromTheta(theta []float64, bias bool) *Linear {
	if !bias {
		return &Linear{Theta: append([]float64(nil), theta...)}
	}
	d := len(theta) - 1
	return &Linear{Theta: append([]float64(nil), theta[:d]...), Intercept: theta[d]}
}
