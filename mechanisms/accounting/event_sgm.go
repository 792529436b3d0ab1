package accounting

import (
	"errors"
	"fmt"
	"math"
)

// PoissonSampledGaussian is one DP-SGD step: every record is included
// independently with probability Q, the per-record contributions (clipped to
// L2 norm C) are summed and N(0, (NoiseMultiplier·C)² I) is added. Relation:
// add/remove (the Poisson-subsampling analysis of [MTZ19] is for add/remove
// neighbours). RDP: sgmRDP ([MTZ19]); PLD: sgmLoss, both directions.
type PoissonSampledGaussian struct {
	Q               float64 `json:"q"`                // sampling rate, in [0, 1]
	NoiseMultiplier float64 `json:"noise_multiplier"` // σ/C, ≥ 0
}

func init() {
	registerLeaf(PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1.1})
	registerForm("poisson_sampled_gaussian", form{
		name: "sgm", rank: 3, calibrated: "sigma",
		required: []string{"q", "sigma"}, optional: []string{"n", "batch-size", "epochs"},
		usage: `  sgm      --q Q --sigma S                    one DP-SGD step: Poisson rate Q, noise multiplier S
  sgm      --n N --batch-size B --epochs E --sigma S
                                              DP-SGD as Opacus and TF Privacy users give it: q = B/N
                                              and T = ⌈E·N/B⌉ steps (TF Privacy's compute_dp_sgd_privacy;
                                              Opacus counts ⌊E/q⌋, the same when B divides E·N); the
                                              derived q and T are printed
`,
		build: func(r *Request, c calibration) (Event, error) {
			return PoissonSampledGaussian{Q: r.float("q"), NoiseMultiplier: c.pick(r.float("sigma"))}, nil
		},
		derive: sgmInDatasetTerms, derives: []string{"batch-size", "epochs"},
	})
}

// sgmInDatasetTerms turns "sgm --n N --batch-size B --epochs E" into --q
// and --steps: q = B/N, T = ⌈E·N/B⌉, TF Privacy's compute_dp_sgd_privacy
// count (Opacus' accountants count ⌊E/q⌋ steps, the same when B divides
// E·N). It returns the sentence saying so ("" when the flags are not used).
func sgmInDatasetTerms(r *Request) (string, error) {
	if !r.given("batch-size") && !r.given("epochs") && !r.given("n") {
		return "", nil
	}
	n, b, epochs := r.int("n"), r.int("batch-size"), r.float("epochs")
	switch {
	case !r.given("n") || !r.given("batch-size") || !r.given("epochs"):
		return "", errors.New("sgm in dataset terms needs all of --n, --batch-size and --epochs (or give --q and --steps)")
	case r.given("q") || r.given("steps"):
		return "", errors.New("give either --n, --batch-size and --epochs or --q and --steps, not both")
	case n < 1:
		return "", fmt.Errorf("--n %d: want ≥ 1", n)
	case b < 1 || b > n:
		return "", fmt.Errorf("--batch-size %d: want 1 ≤ B ≤ n = %d", b, n)
	case !(epochs > 0) || math.IsInf(epochs, 0):
		return "", fmt.Errorf("--epochs %g: want a finite E > 0", epochs)
	}
	q := float64(b) / float64(n)
	steps := math.Ceil(epochs * float64(n) / float64(b))
	if steps > math.MaxInt32 {
		return "", fmt.Errorf("--epochs %g with n = %d, B = %d gives %g steps; too many", epochs, n, b, steps)
	}
	*r.floats["q"], *r.ints["steps"] = q, int(steps)
	r.set["q"], r.set["steps"] = true, true
	for _, name := range []string{"n", "batch-size", "epochs"} {
		delete(r.set, name)
	}
	return fmt.Sprintf("(from --n %d --batch-size %d --epochs %g: sampling rate q = B/n = %.6g, steps T = ⌈E·n/B⌉ = %d)",
		n, b, epochs, q, int(steps)), nil
}

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
	return rdpTerm{costly: true, at: newSGMSeries(e.Q, e.NoiseMultiplier, o.sgmExact).rdp}, nil
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
