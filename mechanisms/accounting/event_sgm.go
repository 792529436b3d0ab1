package accounting

import "fmt"

// PoissonSampledGaussian is one DP-SGD step: every record is included
// independently with probability Q, the per-record contributions (clipped to
// L2 norm C) are summed and N(0, (NoiseMultiplier·C)² I) is added. Relation:
// add/remove (the Poisson-subsampling analysis of [MTZ19] is for add/remove
// neighbours). RDP: sgmRDP ([MTZ19]); PLD: sgmLoss, both directions.
type PoissonSampledGaussian struct {
	Q               float64 `json:"q"`                // sampling rate, in [0, 1]
	NoiseMultiplier float64 `json:"noise_multiplier"` // σ/C, ≥ 0
}

func init() { registerLeaf(PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1.1}) }

// Kind implements Event.
func (PoissonSampledGaussian) Kind() string { return "poisson_sampled_gaussian" }

func (PoissonSampledGaussian) isEvent() {}

// Validate checks Q ∈ [0, 1] and a finite NoiseMultiplier ≥ 0.
func (e PoissonSampledGaussian) Validate() error {
	if !(e.Q >= 0 && e.Q <= 1) {
		return fieldErr(e, "q", e.Q, "a sampling rate in [0, 1]")
	}
	if !finite(e.NoiseMultiplier) || e.NoiseMultiplier < 0 {
		return fieldErr(e, "noise_multiplier", e.NoiseMultiplier, "a finite value ≥ 0")
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e PoissonSampledGaussian) MarshalJSON() ([]byte, error) {
	type plain PoissonSampledGaussian
	return withKind(e.Kind(), plain(e))
}

func (PoissonSampledGaussian) relation() string { return RelationAddRemove }

func (e PoissonSampledGaussian) rdp(o rdpOptions) (rdpTerm, error) {
	return rdpTerm{costly: true, at: func(a float64) float64 { return sgmRDP(e.Q, e.NoiseMultiplier, a, o.sgmExact) }}, nil
}

func (e PoissonSampledGaussian) pld() pldTerm {
	switch {
	case e.Q == 0:
		return pldTerm{}
	case e.NoiseMultiplier == 0:
		return pldTerm{nonPrivate: true}
	}
	q, s := e.Q, e.NoiseMultiplier
	return pldTerm{part: &pldPart{
		key:       e,
		loss:      func(add bool, logMass float64) *lossDist { return sgmLoss(s, q, add && q < 1, logMass) },
		symmetric: q == 1,
		name:      fmt.Sprintf("sgm(q=%g, σ=%g)", q, s),
	}}
}
