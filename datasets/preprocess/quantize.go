package preprocess

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Quantize is η-quantization π^q_η ([HSS24] §4.1): the good clusters of
// deduplication (Dedup), processed in the same order, and every row of a good
// cluster replaced by the cluster's kept centre — a data point, not the
// arithmetic mean, which can lie up to 2η from a member (preprocessing.md D5).
// Nothing is removed. Cost O(n²d).
type Quantize struct{ Eta float64 }

// NewQuantize returns η-quantization; η must be finite and > 0.
func NewQuantize(eta float64) (*Quantize, error) {
	if err := checkEta("quantize", eta); err != nil {
		return nil, err
	}
	return &Quantize{Eta: eta}, nil
}

// Name implements Preprocessor.
func (p *Quantize) Name() string { return "quantize" }

// String implements Preprocessor.
func (p *Quantize) String() string { return fmt.Sprintf("quantize[eta=%g]", p.Eta) }

// RowLipschitz implements Preprocessor: a row jumps to its centre.
func (p *Quantize) RowLipschitz() float64 { return math.Inf(1) }

// OutputDiameter implements Preprocessor: outputs are rows of the unit ball.
func (p *Quantize) OutputDiameter() float64 { return 2 }

// Fit implements Preprocessor.
func (p *Quantize) Fit(x *mat.Dense) (Fitted, error) {
	if err := checkEta("quantize", p.Eta); err != nil {
		return nil, err
	}
	if err := checkRows(p.String(), x, false); err != nil {
		return nil, err
	}
	g := findGoodClusters(x, p.Eta)
	n, _ := x.Dims()
	out := &Output{X: mat.DenseCopyOf(x)}
	for _, c := range g.clusters {
		centre := x.RawRowView(c.rep)
		for _, j := range c.members {
			copy(out.X.RawRowView(j), centre)
		}
	}
	return &clusterFit{fitBase: g.base(p.String(), n, out)}, nil
}

// Sensitivity implements Preprocessor.
//
// Paper mode, [HSS24] Prop. 3 and footnote 4:
//
//	Δ_2 = η,  Δ_∞ = 2b (replace-one), b (add/remove)
//
// Safe mode: Δ_2 = min(2η, 2) — preprocessing.md §2.2 erratum 17: the proof
// bounds ‖π(x) − x‖ ≤ η, but a common row x within η of both swapped records,
// each the kept centre of its dataset (smallest index), maps to z₁ in S₁ and
// z₂ in S₂, up to 2η apart (the "both-centres" probe reaches 1.998η); any two
// images of x lie within η of x, so 2η holds. Δ_∞ as Dedup's safe mode (the
// corrected count, Dedup.Sensitivity).
func (p *Quantize) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	return clusterSensitivity(p.String(), p.Eta, c, m, true)
}
