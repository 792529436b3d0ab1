package accounting

import (
	"errors"
	"math"
	"testing"
)

// TestReplaceByRemoveAddGaussian: on a Gaussian release the conversion is
// the closed form (α − ½)/(α − 1)·ε(2α) + ε(2α − 1) with ε(α) = αΔ²/(2σ²)
// ([Mir17] Props. 7 and 11), never below the exact replace-one curve
// α(2Δ)²/(2σ²) of the same sum, and within 12.5% of it from α = 2 on.
func TestReplaceByRemoveAddGaussian(t *testing.T) {
	const sigma, sens = 3.0, 1.0
	e := ReplaceByRemoveAdd{Event: Gaussian{Sigma: sigma, Sensitivity: sens}}
	eps := func(a float64) float64 { return a * sens * sens / (2 * sigma * sigma) }
	for _, a := range []float64{1.5, 2, 4, 10, 64} {
		got, err := Config{}.RDP(e, a)
		want := (a-0.5)/(a-1)*eps(2*a) + eps(2*a-1)
		if err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("α = %g: RDP %v (%v), want %v", a, got, err, want)
		}
		exact := a * 4 * sens * sens / (2 * sigma * sigma)
		if got < exact || (a >= 2 && got > 1.125*exact*(1+1e-12)) {
			t.Errorf("α = %g: %v against the exact replace-one %v: want within [1, 1.125]×", a, got, exact)
		}
	}
	if rel, err := LedgerRelation(e); err != nil || rel != RelationReplaceOne {
		t.Errorf("relation %q (%v), want replace_one", rel, err)
	}
}

// mixtureRenyi returns D_α(P‖R) at each order α of alphas for
// P = (1−q)N(0, σ²) + qN(1, σ²) and R = (1−q)N(0, σ²) + qN(−1, σ²) by the
// trapezoid rule in log space on [−1 − 40σ, 1 + 40σ] (both tails are below
// e^{−800}). The log densities of P and R at the nodes do not depend on α
// and are computed once for all orders (the same floating-point
// operations as order by order).
func mixtureRenyi(q, sigma float64, alphas []float64) []float64 {
	// The constants and the (1−q)N(0, σ²) term shared by both mixtures are
	// computed once (the same floating-point operations as term by term:
	// 12 transcendental calls a point become 7).
	norm, twoVar := math.Log(sigma*math.Sqrt(2*math.Pi)), 2*sigma*sigma
	logN := func(x, mu float64) float64 { return -(x-mu)*(x-mu)/twoVar - norm }
	logOneMinusQ, logQ := math.Log1p(-q), math.Log(q)
	logMix := func(a, x, mu float64) float64 {
		b := logQ + logN(x, mu)
		m := math.Max(a, b)
		return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
	}
	const steps = 400000
	lo, hi := -1-40*sigma, 1+40*sigma
	h := (hi - lo) / steps
	logP, logR := make([]float64, steps+1), make([]float64, steps+1)
	for i := range logP {
		x := lo + float64(i)*h
		a := logOneMinusQ + logN(x, 0)
		logP[i], logR[i] = logMix(a, x, 1), logMix(a, x, -1)
	}
	out := make([]float64, len(alphas))
	logs := make([]float64, steps+1)
	for k, alpha := range alphas {
		top := math.Inf(-1)
		for i := range logs {
			logs[i] = alpha*logP[i] + (1-alpha)*logR[i]
			top = math.Max(top, logs[i])
		}
		sum := 0.0
		for i, l := range logs {
			w := 1.0
			if i == 0 || i == steps {
				w = 0.5
			}
			sum += w * math.Exp(l-top)
		}
		out[k] = (top + math.Log(sum*h)) / (alpha - 1)
	}
	return out
}

// TestReplaceByRemoveAddSampledGaussian: the converted curve of one DP-SGD
// step bounds the Rényi divergence of a replace-one pair realised by the
// Poisson-sampled Gaussian (the swapped record at +1 in one dataset and at
// −1 in the other, clip 1: the two mixtures above, integrated numerically)
// — a guarantee never below a divergence it must cover.
func TestReplaceByRemoveAddSampledGaussian(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, sigma float64 }{{0.01, 1.1}, {0.1, 1}, {0.5, 2}, {1, 4}} {
		e := ReplaceByRemoveAdd{Event: PoissonSampledGaussian{Q: c.q, NoiseMultiplier: c.sigma}}
		alphas := []float64{1.5, 2, 3, 8}
		divs := mixtureRenyi(c.q, c.sigma, alphas)
		for k, a := range alphas {
			got, err := Config{}.RDP(e, a)
			if err != nil {
				t.Fatal(err)
			}
			div := divs[k]
			if got < div*(1-1e-6) {
				t.Errorf("q = %g, σ = %g, α = %g: bound %v below the realised divergence %v", c.q, c.sigma, a, got, div)
			}
		}
	}
}

// TestReplaceByRemoveAddRefusesOtherRelations: only an add/remove ledger
// converts; a replace-one one inside is refused by name, as is an (ε, δ)
// part (no RDP curve).
func TestReplaceByRemoveAddRefusesOtherRelations(t *testing.T) {
	inner := WithRelation{Event: Gaussian{Sigma: 1, Sensitivity: 2}, Relation: RelationReplaceOne}
	if err := (ReplaceByRemoveAdd{Event: inner}).Validate(); err == nil {
		t.Error("a replace-one ledger converted again validated")
	}
	if err := (ReplaceByRemoveAdd{}).Validate(); err == nil {
		t.Error("a missing event validated")
	}
	var u *UnsupportedError
	_, err := Config{}.Epsilon(ReplaceByRemoveAdd{Event: NewComposed(Gaussian{Sigma: 1, Sensitivity: 1}, ApproxDP{Epsilon: 0.1, Delta: 1e-6})}, 1e-5)
	if !errors.As(err, &u) {
		t.Errorf("an (ε, δ) part inside: %v, want an *UnsupportedError", err)
	}
}
