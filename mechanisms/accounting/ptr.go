package accounting

import (
	"fmt"
	"math"
)

// Propose-Test-Release for PCA rank reduction in front of DP-GD ([HSS24]
// §5.2, Algorithm 1, Theorem 7, Proposition 8; preprocessing.md §2.9):
//
//	1  γ = J(S) + Lap(1/ε), J(S) = a distance from S to the unsafe datasets
//	2  if γ ≤ log(2/δ)/ε: return ⊥
//	5  else fit π_PCA-rank on S, run DP-GD on π(S) with σ = 2L√T/(εn)
//
// Unsafe means δ_k(S) ≤ β (erratum 23: the proof's "≤", not Algorithm 1's
// "<"). The exact distance min_{S': δ_k(S') ≤ β} d_H(S, S') is intractable;
// PTRDistance is its Eq.-59 lower bound, which PTR may use instead (it has
// sensitivity ≤ 1 and is 0 on every unsafe S: the only two properties the
// proof uses).

// ptrConstant is [HSS24]'s 12.2: 4(3n+2)/(n−1) ≤ 12.2 for n ≥ 101, which
// bounds n·|δ_k(S) − δ_k(S')| for neighbours (Eqs. 55–56, Weyl's inequality
// and ‖Σ − Σ~‖_F ≤ 6.1/n for the centred 1/(n−1) covariance of rows in the
// unit ball).
const ptrConstant = 12.2

// PTRDistance returns J(S) = max(0, (δ_k(S) − β)·n/12.2), the implementable
// distance of Algorithm 1's step 1 (preprocessing.md §2.9 [rec], from
// [HSS24] Eq. 59). n ≥ 101 (the constant 12.2 needs it).
func PTRDistance(deltaK, beta float64, n int) (float64, error) {
	if err := ptrCheck(deltaK, beta, n); err != nil {
		return 0, err
	}
	return math.Max(0, (deltaK-beta)*float64(n)/ptrConstant), nil
}

func ptrCheck(deltaK, beta float64, n int) error {
	switch {
	case !finite(deltaK) || deltaK < 0:
		return fmt.Errorf("accounting: ptr: eigengap δ_k = %v, want a finite value ≥ 0", deltaK)
	case !finite(beta) || beta <= 0:
		return fmt.Errorf("accounting: ptr: β = %v, want a finite value > 0", beta)
	case n < 101:
		return fmt.Errorf("accounting: ptr: n = %d, want ≥ 101 (the constant 12.2 of [HSS24] Eq. 56 needs it)", n)
	}
	return nil
}

// Theorem7 is [HSS24] Theorem 7's accounting of Algorithm 1.
type Theorem7 struct {
	// Rho is the RDP slope the proof takes from Table 2 (PCA row, δ_min =
	// β): ρ = 1.05 ε²(1 + 12.2²μ²/(L²β²)) (erratum 21: the proof drops the
	// square on ε). Algorithm 1 doubles DP-GD's σ, which divides the SRDP
	// term by 4 as well; the theorem keeps the undivided term, so ρ is
	// conservative (PTREvent accounts for the actual σ).
	Rho float64
	// EpsHat is ε^ = 3ε√(1.05(1 + 12.2²μ²/(L²β²)) log(1/δ)) = 3√(ρ log(1/δ)).
	EpsHat float64
	// EpsTotal is ε^ + ε, the theorem's (ε^ + ε, δ): ε^ for the release,
	// ε for the test (basic composition, Lemma N).
	EpsTotal float64
	// AlphaStar is the order the proof converts at, 1 + √(log(1/δ)/ρ).
	AlphaStar float64
	// Condition reports the theorem's hypothesis δ ≤ exp(−ρ) (log(1/δ) ≥
	// ρ, which gives 2√(ρ log(1/δ)) + ρ ≤ 3√(ρ log(1/δ))); without it the
	// theorem does not apply.
	Condition bool
	// Alpha11 reports α* ≥ 11 (log(1/δ) ≥ 100ρ), where the factor 1.05 the
	// proof uses is justified; the stated condition does not imply it
	// (erratum 21). PTRExactFactor needs neither.
	Alpha11 bool
}

// PTRTheorem7 returns [HSS24] Theorem 7 for Algorithm 1 with privacy
// parameters ε, δ, proposed eigengap bound β, and an L-Lipschitz,
// μ-smooth loss, as printed (with erratum 21's square).
func PTRTheorem7(eps, beta, delta, lipschitz, mu float64) (Theorem7, error) {
	k, err := thm7K(eps, beta, delta, lipschitz, mu)
	if err != nil {
		return Theorem7{}, err
	}
	l := logRatio(1, delta)
	rho := paperFactor * k
	t := Theorem7{Rho: rho, EpsHat: 3 * math.Sqrt(rho*l), AlphaStar: 1 + math.Sqrt(l/rho)}
	t.EpsTotal = t.EpsHat + eps
	t.Condition = l >= rho
	t.Alpha11 = t.AlphaStar >= 11
	return t, nil
}

// thm7K returns ε²(1 + 12.2²μ²/(L²β²)), Theorem 7's RDP slope before the
// factor.
func thm7K(eps, beta, delta, lipschitz, mu float64) (float64, error) {
	switch {
	case !finite(eps) || eps <= 0:
		return 0, fmt.Errorf("accounting: Theorem 7: ε = %v, want a finite value > 0", eps)
	case !finite(beta) || beta <= 0:
		return 0, fmt.Errorf("accounting: Theorem 7: β = %v, want a finite value > 0", beta)
	case !(delta > 0 && delta < 1):
		return 0, fmt.Errorf("accounting: Theorem 7: δ = %v, want a value in (0, 1)", delta)
	case !finite(lipschitz) || lipschitz <= 0:
		return 0, fmt.Errorf("accounting: Theorem 7: L = %v, want a finite value > 0", lipschitz)
	case !finite(mu) || mu < 0:
		return 0, fmt.Errorf("accounting: Theorem 7: μ = %v, want a finite value ≥ 0", mu)
	}
	r := ptrConstant * mu / (lipschitz * beta)
	return eps * eps * (1 + r*r), nil
}

// PTRExactFactor is Theorem 7 with the exact factor: the same RDP curve
// ρ(α) = (2α−1)/(2(α−1))·α·ε²(1 + 12.2²μ²/(L²β²)) in place of 1.05·α·…
// (valid at every α > 1, preprocessing.md §2.8(d)), converted by Lemma M
// over every order (LemmaMEpsilon's search) rather than at the theorem's
// α*: no condition on δ. It returns ε^, ε^ + ε and the order used.
func PTRExactFactor(eps, beta, delta, lipschitz, mu float64) (epsHat, epsTotal, alpha float64, err error) {
	k, err := thm7K(eps, beta, delta, lipschitz, mu)
	if err != nil {
		return 0, 0, 0, err
	}
	r := func(a float64) float64 { return (2*a - 1) / (2 * (a - 1)) * a * k }
	epsHat, alpha, err = lemmaM(r, math.Inf(1), logRatio(1, delta))
	return epsHat, epsHat + eps, alpha, err
}

// PTRFailure returns Proposition 8's failure probability (that Algorithm 1
// outputs ⊥ on S, whose eigengap is δ_k ≥ β) in two forms:
//
//	paper       γ = exp(−(δ_k − β)·nε/12.2)/(2δ)              [HSS24] Prop. 8 (its proof's
//	                                                         threshold log(1/δ)/ε, erratum 22)
//	algorithm1  P[J + Lap(1/ε) ≤ log(2/δ)/ε], J = PTRDistance  exactly: e^{−εJ}/δ when
//	                                                         J ≥ log(2/δ)/ε, else 1 − ½e^{ε(J − t)}
//
// both capped at 1.
func PTRFailure(deltaK, beta float64, n int, eps, delta float64) (paper, algorithm1 float64, err error) {
	if err := ptrCheck(deltaK, beta, n); err != nil {
		return 0, 0, err
	}
	if !finite(eps) || eps <= 0 || !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("accounting: ptr: ε = %v, δ = %v, want ε > 0 and δ ∈ (0, 1)", eps, delta)
	}
	paper = math.Min(1, math.Exp(-(deltaK-beta)*float64(n)*eps/ptrConstant)/(2*delta))
	j, _ := PTRDistance(deltaK, beta, n)
	t := logRatio(2, delta) / eps
	if j >= t {
		algorithm1 = math.Exp(-eps*j) / delta
	} else {
		algorithm1 = 1 - 0.5*math.Exp(eps*(j-t))
	}
	return paper, math.Min(1, algorithm1), nil
}

// PTRPassBound returns the largest probability that Algorithm 1's test
// passes on a dataset whose distance to the unsafe ones is J ≤ 1 (an unsafe
// dataset, J = 0, or a neighbour of one): P[Lap(1/ε) > t − 1] with
// t = log(2/δ)/ε, i.e. e^ε δ/4 when t ≥ 1.
func PTRPassBound(eps, delta float64) (float64, error) {
	if !finite(eps) || eps <= 0 || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("accounting: ptr: ε = %v, δ = %v, want ε > 0 and δ ∈ (0, 1)", eps, delta)
	}
	a := logRatio(2, delta)/eps - 1
	if a >= 0 {
		return 0.5 * math.Exp(-eps*a), nil
	}
	return 1 - 0.5*math.Exp(eps*a), nil
}

// PTREvent returns the ledger of Algorithm 1 (or of the generic PTR
// wrapper of preprocessing.md §2.9) around pipeline, the release of step 5:
//
//	Composed{Laplace{Scale: 1/ε, Sensitivity: 1}, ApproxDP{0, PTRPassBound(ε, δ)}, pipeline}
//
// where pipeline's sensitivities hold on the safe collection (δ_k > β,
// e.g. Preprocessed with Δ∞ = n, Δ₂ = 4(3n+2)/(n(n−1)β)) and δ is the
// algorithm's threshold parameter. The RDP accountant then reports, at a
// query δ', the composition of the test and the pipeline converted at
// δ' − δ_f plus 0, δ_f = PTRPassBound. Why this is a guarantee for every
// pair of neighbours S, S' (replace-one; the test statistic J has
// sensitivity ≤ 1, [HSS24] Eq. 56):
//
//   - both safe: the pipeline's conditional guarantee holds for the pair,
//     and the output is a post-processing of (test, release): adaptive RDP
//     composition of the Laplace test and the pipeline, (ε_c(δ' − δ_f),
//     δ' − δ_f)-close;
//   - one unsafe: its J is 0 and its neighbour's is ≤ 1, so each passes the
//     test with probability ≤ δ_f and outputs ⊥ otherwise. ⊥ is a
//     post-processing of the Laplace test, which is (ε_L(δ”), δ”)-DP for
//     its own RDP curve; so P_S(O) ≤ e^{ε_L(δ”)} P_S'(O) + δ” + δ_f. With
//     δ” = δ' − δ_f, and ε_L(δ”) ≤ ε_c(δ”) (the composed curve is
//     pointwise larger and the conversion is monotone), the pair is
//     (ε_c(δ' − δ_f), δ')-close.
//
// Both cases give the accountant's answer. (The ApproxDP adds δ_f where a
// maximum would do: a conservative δ_f.) The pipeline must not wrap the
// test itself; ε is the test's (Algorithm 1 also sets DP-GD's σ from it:
// σ = 2L√T/(εn), which pipeline's event must carry).
func PTREvent(eps, delta float64, pipeline Preprocessed) (Event, error) {
	df, err := PTRPassBound(eps, delta)
	if err != nil {
		return nil, err
	}
	if err := pipeline.Validate(); err != nil {
		return nil, err
	}
	return NewComposed(Laplace{Scale: 1 / eps, Sensitivity: 1}, ApproxDP{Epsilon: 0, Delta: df}, pipeline), nil
}
