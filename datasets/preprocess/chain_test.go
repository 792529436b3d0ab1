package preprocess

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestChainFitEqualsStepByStep: mean imputation then PCA rank reduction
// equals imputing, clipping, projecting and clipping by hand; dedup then
// quantization keeps the removal mask and zero rows.
func TestChainFitEqualsStepByStep(t *testing.T) {
	x := toy()
	ch, err := NewChain(MeanImputer{}, &PCA{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ch.Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	imp, _ := MeanImputer{}.Fit(x)
	mid := ClipRows(imp.Output().X)
	pca, _ := (&PCA{K: 1}).Fit(mid)
	want := ClipRows(pca.Output().X)
	if !mat.EqualApprox(f.Output().X, want, 1e-15) {
		t.Error("chain output differs from the steps applied by hand")
	}
	if d := f.Diagnostics(); d["step0/max_missing_rows"] != 3 || d["step1/n"] != 6 {
		t.Errorf("diagnostics %v", d)
	}
	if o := f.Observed(); o.MaxMissingRows != 3 || o.GapK == 0 {
		t.Errorf("observed %+v", o)
	}
	held, err := f.Transform(mat.NewDense(1, 3, []float64{nan, 0.1, 0.2}))
	if err != nil || math.IsNaN(held.At(0, 0)) {
		t.Errorf("Transform: %v, %v", held, err)
	}

	dq, _ := NewChain(&Dedup{Eta: 0.01}, &Quantize{Eta: 0.01})
	g, err := dq.Fit(mat.NewDense(3, 1, []float64{0.5, 0.505, -0.5}))
	if err != nil {
		t.Fatal(err)
	}
	if out := g.Output(); !out.Removed[1] || out.Removed[0] || out.X.At(1, 0) != 0 || out.X.At(0, 0) != 0.5 {
		t.Errorf("dedup→quantize: removed %v, X %v", out.Removed, mat.Col(nil, 0, out.X))
	}
}

func TestChainRefuses(t *testing.T) {
	if _, err := NewChain(); err == nil {
		t.Error("empty chain accepted")
	}
	if _, err := NewChain(&PCA{K: 1}, MeanImputer{}); err == nil || !strings.Contains(err.Error(), "imputation must come first") {
		t.Errorf("imputer second: %v", err)
	}
	inner, _ := NewChain(&PCA{K: 1})
	if _, err := NewChain(inner); err == nil {
		t.Error("nested chain accepted")
	}
	ch, _ := NewChain(&Quantize{Eta: 0.1}, &PCA{K: 1})
	if _, err := ch.Sensitivity(Collection{N: 100, MaxCluster: 3, GapK: 0.2, Relation: "add_remove"}, Paper); err == nil {
		t.Error("add/remove chain accepted")
	}
	if _, err := ch.Sensitivity(Collection{N: 100, MaxCluster: 3}, Paper); err == nil || !strings.Contains(err.Error(), "gap_k") {
		t.Errorf("missing gap: %v", err)
	}
}

// TestComposeSensitivityByHand: quantization (paper: Δ_∞ = 2b = 6,
// Δ_2 = η = 0.1) then PCA rank (paper, n = 200: Δ_2 = 12.2/(200·0.5) = 0.122,
// Δ_∞ = n): g = 7, Δ_∞ = min(200, 7·200 + 6) = 200,
// Δ_2 = 6·0.122 + min(2, 0.122 + 1·0.1) = 0.954.
func TestComposeSensitivityByHand(t *testing.T) {
	ch, _ := NewChain(&Quantize{Eta: 0.1}, &PCA{K: 1})
	s, err := ch.Sensitivity(Collection{N: 200, MaxCluster: 3, GapK: 0.5}, Paper)
	if err != nil {
		t.Fatal(err)
	}
	if s.DeltaInf != 200 || math.Abs(s.Delta2-(6*0.122+0.222)) > 1e-12 || !s.Derived {
		t.Errorf("%+v", s)
	}
	// A data-independent first step (Δ_∞ = 0) leaves b's sensitivity as it is.
	a := Sensitivity{Mode: Paper, Relation: "replace_one", DeltaInf: 0, Delta2: 0}
	b := Sensitivity{Mode: Paper, Relation: "replace_one", DeltaInf: 7, Delta2: 0.3}
	c, err := ComposeSensitivity(a, b, &Dedup{Eta: 0.1}, 100)
	if err != nil || c.DeltaInf != 7 || c.Delta2 != 0.3 {
		t.Errorf("identity first step: %+v, %v", c, err)
	}
	// Dedup after a moving step: its rows jump, so the moved rows cost D_b = 2.
	a = Sensitivity{Mode: Paper, Relation: "replace_one", DeltaInf: 2, Delta2: 0.1}
	c, _ = ComposeSensitivity(a, b, &Dedup{Eta: 0.1}, 100)
	if c.DeltaInf != 23 || math.Abs(c.Delta2-(2*0.3+2)) > 1e-15 {
		t.Errorf("dedup second: %+v", c)
	}
	if _, err := ComposeSensitivity(a, Sensitivity{Mode: Safe, Relation: "replace_one"}, &Dedup{Eta: 0.1}, 100); err == nil {
		t.Error("mixed modes accepted")
	}
}

// TestChainRowsMovedByFirstStep shows why ComposeSensitivity adds the
// moved rows' Δ_2 that preprocessing.md §4.7 leaves out: quantization moves
// an isolated row x by up to 2η (both swapped records are its kept centre,
// x ± 0.999η·e₁), and PCA rank reduction (n = 4001, top-2 subspace holding
// e₁) keeps that difference, ≈ 2η = 0.1; §4.7's g·Δ_2^b with the paper's
// bounds on the pair's own collection is smaller, ComposeSensitivity is not.
func TestChainRowsMovedByFirstStep(t *testing.T) {
	t.Parallel()
	const n, eta = 4001, 0.05
	r := rand.New(rand.NewPCG(3, 3))
	s := mat.NewDense(n-1, 3, nil)
	for i := 0; i < n-2; i++ {
		s.SetRow(i, clipVec([]float64{0.6 * r.NormFloat64(), 0.55 * r.NormFloat64(), 0.03 * r.NormFloat64()}))
	}
	x := []float64{0, 0, 0.9}
	s.SetRow(n-2, x)
	w := Swap{Target: "hand", S: s, Z1: []float64{0.999 * eta, 0, 0.9}, Z2: []float64{-0.999 * eta, 0, 0.9}, Index: 0}
	q, pca := &Quantize{Eta: eta}, &PCA{K: 2}
	ch, _ := NewChain(q, pca)
	m, _, err := MeasureSwap(ch, w)
	if err != nil {
		t.Fatal(err)
	}
	// The pair's own collection, step by step (PCA sees the quantized rows);
	// quantization's is what MeasureSwap(q, w) returns, from the same fits.
	s1, s2 := w.Neighbours()
	f1, err := q.Fit(s1)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := q.Fit(s2)
	if err != nil {
		t.Fatal(err)
	}
	cq := Merge(f1.Observed(), f2.Observed())
	cq.N, cq.Relation = n, accounting.RelationReplaceOne
	g1, _ := pca.Fit(ClipRows(f1.Output().X))
	g2, _ := pca.Fit(ClipRows(f2.Output().X))
	cp := Merge(g1.Observed(), g2.Observed())
	sa, _ := q.Sensitivity(cq, Paper)
	sb, _ := pca.Sensitivity(cp, Paper)
	literal := float64(sa.DeltaInf+1) * sb.Delta2
	comp, err := ComposeSensitivity(sa, sb, pca, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Δ_2 observed %.4f; §4.7 literal g·Δ_2^b = %d·%.4f = %.4f; ComposeSensitivity %.4f", m.Delta2, sa.DeltaInf+1, sb.Delta2, literal, comp.Delta2)
	if !(m.Delta2 > literal) || m.Delta2 > comp.Delta2 || m.Row != n-2 {
		t.Errorf("Δ_2 = %v at row %d: want above §4.7's %v at row x, within ComposeSensitivity's %v", m.Delta2, m.Row, literal, comp.Delta2)
	}
	if d := floats.Norm(x, 2); d > 1 {
		t.Fatal("x outside the ball")
	}
}
