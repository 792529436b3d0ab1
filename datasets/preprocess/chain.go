package preprocess

import (
	"fmt"
	"math"
	"strings"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// Chain applies its steps in order, each fitted on the previous step's
// output (preprocessing.md §4.7; not in [HSS24], which analyses one step).
// Between steps, and after the last, rows are clipped to the unit ball
// (ClipRows: data-independent and 1-Lipschitz, so no sensitivity grows)
// and rows removed by an earlier step stay removed (zero, masked; later
// steps are fitted on all n rows, removed ones as zeros, D3). Only the
// first step may be an imputer (later steps see no missing values).
//
// Its sensitivity is [derived] and loose: ComposeSensitivity, step by step.
// It is conditional on the collection holding every dataset a step sees —
// step b's parameters (gaps, cluster sizes) describe π_a's output, and every
// hybrid of π_a(S₁) and π_a(S₂) — and one Collection is read for all steps.
type Chain struct{ Steps []Preprocessor }

// NewChain returns the chain of steps, refusing an empty chain and an
// imputer after the first step.
func NewChain(steps ...Preprocessor) (*Chain, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("preprocess: chain: no steps")
	}
	for i, s := range steps {
		if s == nil {
			return nil, fmt.Errorf("preprocess: chain: step %d is nil", i)
		}
		if _, nested := s.(*Chain); nested {
			return nil, fmt.Errorf("preprocess: chain: step %d is a chain: flatten it", i)
		}
		if i > 0 && isImputer(s) {
			return nil, fmt.Errorf("preprocess: chain: step %d (%s) is an imputer: imputation must come first (later steps see no missing values)", i, s)
		}
	}
	return &Chain{Steps: steps}, nil
}

func isImputer(p Preprocessor) bool { return strings.HasPrefix(p.Name(), "impute-") }

// Name implements Preprocessor.
func (c *Chain) Name() string { return "chain" }

// String implements Preprocessor: "chain(impute-mean→pca-rank[k=5])".
func (c *Chain) String() string {
	parts := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		parts[i] = s.String()
	}
	return "chain(" + strings.Join(parts, "→") + ")"
}

// RowLipschitz implements Preprocessor: the product over the steps (clipping is 1-Lipschitz).
func (c *Chain) RowLipschitz() float64 {
	l := 1.0
	for _, s := range c.Steps {
		l *= s.RowLipschitz()
	}
	return l
}

// OutputDiameter implements Preprocessor: the chain clips its output to the unit ball.
func (c *Chain) OutputDiameter() float64 { return 2 }

// Fit implements Preprocessor.
func (c *Chain) Fit(x *mat.Dense) (Fitted, error) {
	if _, err := NewChain(c.Steps...); err != nil {
		return nil, err
	}
	cur := x
	var removed []bool
	steps := make([]Fitted, len(c.Steps))
	for i, s := range c.Steps {
		f, err := s.Fit(cur)
		if err != nil {
			return nil, fmt.Errorf("preprocess: %s: step %d: %w", c, i, err)
		}
		steps[i] = f
		out := f.Output()
		next := ClipRows(out.X)
		if out.Removed != nil {
			if removed == nil {
				removed = make([]bool, len(out.Removed))
			}
			for j, r := range out.Removed {
				removed[j] = removed[j] || r
			}
		}
		for j, r := range removed {
			if r {
				zero(next.RawRowView(j))
			}
		}
		cur = next
	}
	return &chainFit{name: c.String(), steps: steps, out: &Output{X: cur, Removed: removed}}, nil
}

// chainFit is a fitted Chain.
type chainFit struct {
	name  string
	steps []Fitted
	out   *Output
}

func (f *chainFit) Output() *Output { return f.out }

// Transform implements Fitted: each step's Transform, clipped.
func (f *chainFit) Transform(x *mat.Dense) (*mat.Dense, error) {
	cur := x
	for i, s := range f.steps {
		y, err := s.Transform(cur)
		if err != nil {
			return nil, fmt.Errorf("preprocess: %s: step %d: %w", f.name, i, err)
		}
		cur = ClipRows(y)
	}
	return cur, nil
}

// Observed implements Fitted: the steps' observations merged (each step
// measures its own fields, on its own input).
func (f *chainFit) Observed() Collection {
	var c Collection
	for _, s := range f.steps {
		c = Merge(c, s.Observed())
	}
	return c
}

// Check implements Fitted: every step's check.
func (f *chainFit) Check(c Collection) error {
	var all *ViolationError
	for _, s := range f.steps {
		if err := s.Check(c); err != nil {
			v, ok := err.(*ViolationError)
			if !ok {
				return err
			}
			if all == nil {
				all = &ViolationError{Preprocessor: f.name}
			}
			all.Violations = append(all.Violations, v.Violations...)
		}
	}
	if all != nil {
		return all
	}
	return nil
}

// Diagnostics implements Fitted: each step's, keyed "step<i>/<key>".
func (f *chainFit) Diagnostics() map[string]float64 {
	m := map[string]float64{}
	for i, s := range f.steps {
		for k, v := range s.Diagnostics() {
			m[fmt.Sprintf("step%d/%s", i, k)] = v
		}
	}
	return m
}

// Sensitivity implements Preprocessor: ComposeSensitivity folded over the
// steps, all read from c (replace-one only).
func (c *Chain) Sensitivity(col Collection, m Mode) (Sensitivity, error) {
	if _, err := NewChain(c.Steps...); err != nil {
		return Sensitivity{}, err
	}
	if col.relation() != accounting.RelationReplaceOne {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: relation %q: chains are analysed for replace-one neighbours only", c, col.Relation)
	}
	acc, err := c.Steps[0].Sensitivity(col, m)
	if err != nil {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: step 0: %w", c, err)
	}
	for i, s := range c.Steps[1:] {
		b, err := s.Sensitivity(col, m)
		if err != nil {
			return Sensitivity{}, fmt.Errorf("preprocess: %s: step %d: %w", c, i+1, err)
		}
		if acc, err = ComposeSensitivity(acc, b, s, col.N); err != nil {
			return Sensitivity{}, err
		}
	}
	acc.Preprocessor = c.String()
	return acc, nil
}

// ComposeSensitivity returns the sensitivity of π_b ∘ π_a (π_b fitted on
// π_a's output) from a's and b's, for replace-one neighbours with n rows
// [derived, preprocessing.md §4.7 corrected here]:
//
//	g   = Δ_∞^a + 1                       rows in which π_a(S₁) and π_a(S₂) differ
//	Δ_∞ = min(n, g·Δ_∞^b + Δ_∞^a)
//	Δ_2 = g·Δ_2^b                                       when Δ_∞^a = 0
//	Δ_2 = (g − 1)·Δ_2^b + min(D_b, Δ_2^b + L_b·Δ_2^a)   otherwise
//
// Walk from π_a(S₁) to π_a(S₂) by g replace-one swaps: a row π_a leaves
// unchanged is a common row at every swap, so it moves at most g·Δ_2^b and
// at most g·Δ_∞^b such rows change. A row π_a moves (at most Δ_∞^a of them)
// moves by Δ_2^b at the swaps of other rows, and at its own swap by at most
// the change of b's fitted map at a point (Δ_2^b, uniform over the ball for
// PCA and per missingness pattern for imputers) plus L_b·‖u₁ − u₂‖ ≤
// L_b·Δ_2^a, or by at most b's output diameter D_b. preprocessing.md §4.7
// states only the first line (g·Δ_2^b "plus the rows moved by π_a" in Δ_∞):
// it misses the rows π_a moves, which can move by Δ_2^a + Δ_2^b after b
// (quantization then PCA: 2η against g·Δ_2^b ≈ 0.04), so that rule is unsound
// for Δ_2 and this one replaces it. Every hybrid must lie in b's collection.
func ComposeSensitivity(a, b Sensitivity, bStep Preprocessor, n int) (Sensitivity, error) {
	if a.Mode != b.Mode {
		return Sensitivity{}, fmt.Errorf("preprocess: compose: modes %q and %q differ", a.Mode, b.Mode)
	}
	if a.Relation != accounting.RelationReplaceOne || b.Relation != accounting.RelationReplaceOne {
		return Sensitivity{}, fmt.Errorf("preprocess: compose: replace-one neighbours only (got %q, %q)", a.Relation, b.Relation)
	}
	if n < 2 || a.DeltaInf < 0 || b.DeltaInf < 0 || !(a.Delta2 >= 0) || !(b.Delta2 >= 0) {
		return Sensitivity{}, fmt.Errorf("preprocess: compose: invalid inputs (n = %d, Δ_∞ = %d, %d, Δ_2 = %v, %v)", n, a.DeltaInf, b.DeltaInf, a.Delta2, b.Delta2)
	}
	g := min(a.DeltaInf+1, n)
	s := Sensitivity{
		Preprocessor: a.Preprocessor + "→" + b.Preprocessor, Mode: a.Mode, Relation: a.Relation, Derived: true,
		DeltaInf: min(n, g*b.DeltaInf+a.DeltaInf),
		Ref:      "derived in datasets/preprocess (preprocessing.md §4.7 with the rows moved by the first step); loose: prefer group privacy when it is smaller",
	}
	if a.DeltaInf == 0 {
		s.Delta2 = float64(g) * b.Delta2
	} else {
		lip := 0.0 // L_b·Δ_2^a, with 0·∞ = 0
		if a.Delta2 > 0 {
			lip = bStep.RowLipschitz() * a.Delta2
		}
		moved := math.Min(bStep.OutputDiameter(), b.Delta2+lip)
		s.Delta2 = float64(g-1)*b.Delta2 + moved
	}
	s.Formula = fmt.Sprintf("g = Δ_∞^a + 1 = %d; Δ_∞ = min(n, gΔ_∞^b + Δ_∞^a) = %d; Δ_2 = (g−1)Δ_2^b + min(D_b, Δ_2^b + L_bΔ_2^a) = %.6g [a: %s; b: %s]",
		g, s.DeltaInf, s.Delta2, a.Formula, b.Formula)
	return s, nil
}
