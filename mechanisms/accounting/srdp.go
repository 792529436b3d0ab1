package accounting

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Smooth Rényi DP ([HSS24] Def. 3): A is (α, ε~(α, τ))-SRDP when
//
//	sup_{S, S' : d(S, S') ≤ τ}  D_α(A(S) ‖ A(S')) ≤ ε~(α, τ)
//
// over equal-size, index-aligned datasets that may differ in every row, with
// d the L12 distance d₁₂(S, S') = Σᵢ ‖Sᵢ − S'ᵢ‖₂ (the paper's) or, where the
// mechanism's proof goes through it, the Frobenius distance ‖S − S'‖_F
// ([HSS24] footnote 3; the Thm 9–11 proofs bound ‖f(S) − f(S')‖ by
// L‖S − S'‖_F before using ‖·‖_F ≤ d₁₂). Theorem 2 combines a mechanism's
// RDP curve with its SRDP curve at τ = Δ₂·Δ∞ (L12) or τ_F = Δ₂·√Δ∞
// (Frobenius) to bound the privacy of the mechanism run on data
// pre-processed by a non-private, data-dependent π (Preprocessed).
//
// SRDP describes one mechanism's SRDP curve, noise-parametrised as the
// implementer's report recommends (preprocessing.md §1.6, §4.3: the noise
// standard deviation, never the paper's ε shorthand σ = Δ/ε). The paper's
// Table 1 is the special case Δ_f = L = μ = 1 with σ written through ε
// (σ = Δ_f/ε for the Gaussian mechanism, σ = L√T/(εn) for DP-GD).
type SRDP struct {
	// Mechanism is one of the SRDP* kinds below.
	Mechanism string `json:"mechanism"`

	// Sigma is the Gaussian noise standard deviation σ: of the release
	// (gaussian), of the noise on the averaged gradient (dp_gd), of the
	// noise on the one-point gradient (dp_sgd_samp, dp_sgd_iter). ≥ 0;
	// 0 means no noise (no guarantee).
	Sigma float64 `json:"sigma,omitempty"`
	// Scale is the Laplace scale b (laplace); ≥ 0.
	Scale float64 `json:"scale,omitempty"`
	// Epsilon is the exponential mechanism's parameter ε, P(w) ∝
	// exp(Q(w, S)·ε/(2Δ_Q)) (exponential); > 0.
	Epsilon float64 `json:"epsilon,omitempty"`
	// NoiseMultiplier is DP-SGD's z: the noise on the clipped-gradient sum
	// has standard deviation z·Clip (dp_sgd); ≥ 0.
	NoiseMultiplier float64 `json:"noise_multiplier,omitempty"`
	// Clip is DP-SGD's per-example clipping norm C (dp_sgd); > 0.
	Clip float64 `json:"clip,omitempty"`
	// Sensitivity is the mechanism's own sensitivity under the pipeline's
	// neighbouring relation: Δ_f in L2 (gaussian), in L1 (laplace), Δ_Q of
	// the score (exponential); > 0.
	Sensitivity float64 `json:"sensitivity,omitempty"`
	// L12 is the Lipschitz constant of the query (gaussian: L2 output
	// norm; laplace: L1 output norm; exponential: |Q(w, ·)| uniformly in
	// w) with respect to d₁₂; > 0. When LF is set, min(L12, LF) is used
	// (an LF-Lipschitz map in ‖·‖_F is LF-Lipschitz in d₁₂ ≥ ‖·‖_F).
	L12 float64 `json:"l12,omitempty"`
	// LF is the same Lipschitz constant with respect to the Frobenius
	// distance (gaussian, laplace, exponential); 0 means unknown: no
	// Frobenius analysis. For the empirical mean f(S) = (1/n)Σxᵢ:
	// Δ_f = 2/n (replace-one), L12 = 1/n, LF = 1/√n (preprocessing.md §4.3).
	LF float64 `json:"lf,omitempty"`
	// Count is the number of releases of the same query, composed
	// (gaussian, laplace, exponential); 0 means 1.
	Count int `json:"count,omitempty"`
	// Lipschitz is the loss' Lipschitz constant L in θ, the per-example
	// gradient bound (dp_gd, dp_sgd_samp, dp_sgd_iter); > 0.
	Lipschitz float64 `json:"lipschitz,omitempty"`
	// MuX is the smoothness of the per-example gradient in the data,
	// ‖∇ℓ(θ, x) − ∇ℓ(θ, x')‖ ≤ μ_x‖x − x'‖ ([HSS24] Def. 6, with its
	// x/x' typo corrected: Appendix A erratum 9); ≥ 0. Logistic loss on the
	// unit ball with ‖θ‖ ≤ R: μ_x ≤ 1 + R/4 (preprocessing.md §4.5).
	MuX float64 `json:"mu_x,omitempty"`
	// N is the dataset size n (dp_gd, dp_sgd_samp, dp_sgd_iter).
	N int `json:"n,omitempty"`
	// Steps is the number of iterations T (dp_gd, dp_sgd_samp, dp_sgd); ≥ 1.
	Steps int `json:"steps,omitempty"`
	// Q is DP-SGD's Poisson sampling rate q (dp_sgd), in [0, 1]. The SRDP
	// bound does not use it (a Poisson batch may hold every row: no
	// amplification); the mechanism's RDP (its event) does.
	Q float64 `json:"q,omitempty"`
	// Gamma is the τ-relative inverse point-wise distance γ ≥ 1 of
	// [HSS24] Def. 7, in the form the Thm 13 proof uses (Appendix A
	// erratum 12): every row of a pair at distance ≤ τ moves by ≤ γτ/n
	// (dp_sgd_samp; PCA: γ = 1).
	Gamma float64 `json:"gamma,omitempty"`
	// KappaTau is κ_τ of [HSS24] Def. 8, the largest Hamming distance of a
	// pair at d₁₂ ≤ τ (dp_sgd_iter; Δ∞ for the paper's pre-processors).
	KappaTau int `json:"kappa_tau,omitempty"`
	// Form selects dp_sgd_iter's bound: "" or "safe" (the harmonic sum,
	// preprocessing.md §1.6 [rec]) or "paper" (Table 1 × ε², larger).
	Form string `json:"form,omitempty"`
}

// SRDP kinds (SRDP.Mechanism).
const (
	// SRDPGaussian: f(S) + N(0, σ²I) ([HSS24] Thm 9).
	SRDPGaussian = "gaussian"
	// SRDPLaplace: f(S) + Lap(b) per coordinate ([HSS24] Thm 10).
	SRDPLaplace = "laplace"
	// SRDPExponential: P(w) ∝ exp(Q(w, S)ε/(2Δ_Q)) ([HSS24] Thm 11).
	SRDPExponential = "exponential"
	// SRDPDPGD: projected full-batch DP-GD with N(0, σ²I) on the averaged
	// gradient ([HSS24] Thm 12, A_GD).
	SRDPDPGD = "dp_gd"
	// SRDPDPSGDSamp: DP-SGD with one uniformly sampled point per step, as
	// the Thm 13 proof has it (A_SGD-samp, B = 1; Appendix A erratum 13).
	SRDPDPSGDSamp = "dp_sgd_samp"
	// SRDPDPSGD: DP-SGD as used in practice (Poisson rate q, per-example
	// clipping to C, noise multiplier z); SRDP derived in
	// preprocessing.md §4.3 (see dpSGDSRDP).
	SRDPDPSGD = "dp_sgd"
	// SRDPDPSGDIter: DP-SGD by iteration with a uniform stopping time
	// ([HSS24] Thm 14, A_SGD-iter); additionally conditional on the
	// differing rows being consecutive.
	SRDPDPSGDIter = "dp_sgd_iter"
)

// Metric is the dataset distance an SRDP curve is stated in.
type Metric string

// The two metrics of [HSS24]: L12 (Def. 3) and Frobenius (footnote 3).
const (
	MetricL12       Metric = "l12"
	MetricFrobenius Metric = "frobenius"
)

// srdpFields lists, per kind, the fields that must be set (required) and
// those that may be (optional); any other non-zero field is an error.
var srdpFields = map[string]struct{ required, optional []string }{
	SRDPGaussian:    {[]string{"sensitivity", "l12"}, []string{"sigma", "lf", "count"}},
	SRDPLaplace:     {[]string{"sensitivity", "l12"}, []string{"scale", "lf", "count"}},
	SRDPExponential: {[]string{"epsilon", "sensitivity", "l12"}, []string{"lf", "count"}},
	SRDPDPGD:        {[]string{"n", "lipschitz", "steps"}, []string{"sigma", "mu_x"}},
	SRDPDPSGDSamp:   {[]string{"n", "lipschitz", "steps", "gamma"}, []string{"sigma", "mu_x"}},
	SRDPDPSGD:       {[]string{"clip", "steps"}, []string{"noise_multiplier", "mu_x", "q"}},
	SRDPDPSGDIter:   {[]string{"n", "lipschitz"}, []string{"sigma", "mu_x", "kappa_tau", "form"}},
}

// srdpKinds is the kinds in documentation order.
var srdpKinds = []string{SRDPGaussian, SRDPLaplace, SRDPExponential, SRDPDPGD, SRDPDPSGDSamp, SRDPDPSGD, SRDPDPSGDIter}

// set returns the JSON names of the non-zero fields of s (Mechanism aside).
func (s SRDP) set() map[string]bool {
	m := map[string]bool{}
	for name, nz := range map[string]bool{
		"sigma": s.Sigma != 0, "scale": s.Scale != 0, "epsilon": s.Epsilon != 0,
		"noise_multiplier": s.NoiseMultiplier != 0, "clip": s.Clip != 0, "sensitivity": s.Sensitivity != 0,
		"l12": s.L12 != 0, "lf": s.LF != 0, "count": s.Count != 0, "lipschitz": s.Lipschitz != 0,
		"mu_x": s.MuX != 0, "n": s.N != 0, "steps": s.Steps != 0, "q": s.Q != 0, "gamma": s.Gamma != 0,
		"kappa_tau": s.KappaTau != 0, "form": s.Form != "",
	} {
		if nz {
			m[name] = true
		}
	}
	return m
}

func srdpErr(s SRDP, field string, v any, want string) error {
	return fmt.Errorf("accounting: srdp (%s): %s = %v, want %s", s.Mechanism, field, v, want)
}

// Validate checks the kind, that exactly its fields are set, and their
// ranges; errors name the field.
func (s SRDP) Validate() error {
	spec, ok := srdpFields[s.Mechanism]
	if !ok {
		return fmt.Errorf("accounting: srdp: mechanism = %q, want one of %s", s.Mechanism, strings.Join(srdpKinds, ", "))
	}
	set := s.set()
	allowed := map[string]bool{}
	for _, f := range append(append([]string(nil), spec.required...), spec.optional...) {
		allowed[f] = true
	}
	names := make([]string, 0, len(set))
	for f := range set {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if !allowed[f] {
			return fmt.Errorf("accounting: srdp (%s): %s does not apply to this mechanism (its fields: %s)", s.Mechanism, f, strings.Join(append(append([]string(nil), spec.required...), spec.optional...), ", "))
		}
	}
	for _, f := range spec.required {
		if !set[f] {
			return fmt.Errorf("accounting: srdp (%s): %s is required", s.Mechanism, f)
		}
	}
	nonNeg := func(field string, v float64) error {
		if !finite(v) || v < 0 {
			return srdpErr(s, field, v, "a finite value ≥ 0")
		}
		return nil
	}
	pos := func(field string, v float64) error {
		if !finite(v) || v <= 0 {
			return srdpErr(s, field, v, "a finite value > 0")
		}
		return nil
	}
	checks := []error{
		nonNeg("sigma", s.Sigma), nonNeg("scale", s.Scale), nonNeg("noise_multiplier", s.NoiseMultiplier),
		nonNeg("lf", s.LF), nonNeg("mu_x", s.MuX), nonNeg("epsilon", s.Epsilon), nonNeg("clip", s.Clip),
		nonNeg("sensitivity", s.Sensitivity), nonNeg("l12", s.L12), nonNeg("lipschitz", s.Lipschitz),
	}
	for _, f := range spec.required {
		switch f {
		case "epsilon":
			checks = append(checks, pos(f, s.Epsilon))
		case "clip":
			checks = append(checks, pos(f, s.Clip))
		case "sensitivity":
			checks = append(checks, pos(f, s.Sensitivity))
		case "l12":
			checks = append(checks, pos(f, s.L12))
		case "lipschitz":
			checks = append(checks, pos(f, s.Lipschitz))
		}
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	switch {
	case s.Count < 0:
		return srdpErr(s, "count", s.Count, "≥ 0 (0 means 1)")
	case set["steps"] && s.Steps < 1:
		return srdpErr(s, "steps", s.Steps, "≥ 1")
	case set["n"] && s.N < 1:
		return srdpErr(s, "n", s.N, "≥ 1")
	case !(s.Q >= 0 && s.Q <= 1):
		return srdpErr(s, "q", s.Q, "a sampling rate in [0, 1]")
	}
	switch s.Mechanism {
	case SRDPDPSGDSamp:
		if !finite(s.Gamma) || s.Gamma < 1 {
			return srdpErr(s, "gamma", s.Gamma, "a finite value ≥ 1 (γ = n/k with k ≤ n)")
		}
	case SRDPDPSGDIter:
		if s.N < 2 {
			return srdpErr(s, "n", s.N, "≥ 2 (the bound divides by log n)")
		}
		if s.KappaTau < 0 || s.KappaTau > s.N {
			return srdpErr(s, "kappa_tau", s.KappaTau, fmt.Sprintf("in [0, n = %d]", s.N))
		}
		if s.Form != "" && s.Form != "safe" && s.Form != "paper" {
			return srdpErr(s, "form", s.Form, `"" or "safe" (harmonic sum) or "paper" (Table 1)`)
		}
	}
	return nil
}

// count returns the number of composed releases (Count, or Steps for the
// iterative kinds).
func (s SRDP) count() float64 {
	switch s.Mechanism {
	case SRDPGaussian, SRDPLaplace, SRDPExponential:
		if s.Count == 0 {
			return 1
		}
		return float64(s.Count)
	case SRDPDPSGDIter:
		return 1
	}
	return float64(s.Steps)
}

// Pure reports whether the mechanism is pure DP (laplace, exponential):
// Theorem 2 then has the p = q = 1 form ε(∞) + ε~(∞, τ) ([HSS24] App. D,
// Eqs. 44–45).
func (s SRDP) Pure() bool { return s.Mechanism == SRDPLaplace || s.Mechanism == SRDPExponential }

// SupportsFrobenius reports whether the mechanism has an SRDP curve in the
// Frobenius metric: the Gaussian, Laplace and exponential mechanisms, whose
// proofs ([HSS24] Thms 9–11) bound the output change by L_F‖S − S'‖_F,
// when LF is given. The gradient methods need Σᵢ ‖xᵢ − x'ᵢ‖ (an L12
// quantity) and have none (preprocessing.md §2.8(c)).
func (s SRDP) SupportsFrobenius() bool {
	switch s.Mechanism {
	case SRDPGaussian, SRDPLaplace, SRDPExponential:
		return s.LF > 0
	}
	return false
}

// lipschitz returns the Lipschitz constant in metric m (L12 uses
// min(L12, LF): see SRDP.L12).
func (s SRDP) lipschitz(m Metric) float64 {
	if m == MetricFrobenius {
		return s.LF
	}
	if s.LF > 0 && s.LF < s.L12 {
		return s.LF
	}
	return s.L12
}

// checkMetric returns an error when s has no curve in metric m.
func (s SRDP) checkMetric(m Metric) error {
	switch m {
	case MetricL12:
		return nil
	case MetricFrobenius:
		if s.SupportsFrobenius() {
			return nil
		}
		if s.LF == 0 && (s.Mechanism == SRDPGaussian || s.Mechanism == SRDPLaplace || s.Mechanism == SRDPExponential) {
			return fmt.Errorf("accounting: srdp (%s): no Frobenius curve: lf (the Frobenius Lipschitz constant) is not set", s.Mechanism)
		}
		return fmt.Errorf("accounting: srdp (%s): no Frobenius curve: its SRDP proof bounds an L12 quantity ([HSS24] footnote 3 applies to the Gaussian, Laplace and exponential mechanisms only)", s.Mechanism)
	}
	return fmt.Errorf("accounting: srdp: metric %q, want %q or %q", m, MetricL12, MetricFrobenius)
}

// Sup returns the supremum of the orders at which the SRDP curve holds at
// distance τ in metric m (the curve holds on (1, Sup); +Inf for every kind
// but dp_sgd_iter, whose Thm 14 needs τ·L·√(2α(α − 1)) < σ and
// L·√(2α(α − 1)) < σ).
func (s SRDP) Sup(tau float64, m Metric) float64 {
	if s.Mechanism != SRDPDPSGDIter {
		return math.Inf(1)
	}
	return sgdIterSup(s.Sigma, s.Lipschitz*math.Max(1, tau))
}

// sgdIterSup returns the largest α with c·√(2α(α − 1)) < σ, i.e. the
// positive root of α² − α − σ²/(2c²) (+Inf when c = 0).
func sgdIterSup(sigma, c float64) float64 {
	if c == 0 {
		return math.Inf(1)
	}
	k := sigma * sigma / (2 * c * c)
	return (1 + math.Sqrt(1+4*k)) / 2
}

// At returns the SRDP ε~(α, τ) at order α > 1 for datasets at distance ≤ τ
// in metric m:
//
//	gaussian      C·α L_m² τ² / (2σ²)                    [HSS24] Thm 9 (proof; erratum 1: the
//	                                                      statement drops 1/Δ_f²; here σ, not Δ_f/ε)
//	laplace       C·ε_L(L_m τ/b; α) ≤ C·L_m τ/b           [HSS24] Thm 10 (D_∞ ≤ L τ/b); at finite α
//	                                                      the exact Laplace divergence [Mir17] Prop. 6
//	exponential   C·L_m τ ε/Δ_Q                           [HSS24] Thm 11 (pure: every order)
//	dp_gd         T·α μ_x² τ² / (2n²σ²)                   [HSS24] Thm 12 proof (averaged gradients
//	                                                      move by ≤ μ_x Σᵢdᵢ/n ≤ μ_x τ/n per step;
//	                                                      per-example clipping, a projection, keeps μ_x)
//	dp_sgd_samp   T·α μ_x² (γτ/n)² / (2σ²)                [HSS24] Thm 13 proof (the one sampled row
//	                                                      moves by ≤ γτ/n; erratum 12: τ-relative γ)
//	dp_sgd        T·α μ_x² τ² / (2z²C²)                   derived, dpSGDSRDP
//	dp_sgd_iter   4ατ²μ_x² H_m / (m σ²), m = n − κ_τ + 1   "safe": [HSS24] Lemma 3 + Lemma B averaged
//	                                                      over T, errata 6–7 (preprocessing.md §1.6 [rec])
//	              64ατ²μ_x² log(m + 1) / (m σ²)            "paper": Table 1 × ε² (erratum 4) with
//	                                                      σ = 8L√(2 log n)/(ε√n), i.e. ε² = 128L² log n/(nσ²)
//
// (C = Count, T = Steps, L_m = the Lipschitz constant in metric m). σ = 0
// (no noise) gives +Inf. dp_sgd_iter needs α < Sup(τ, m); outside it is an
// error, as is a metric the kind has no curve in.
func (s SRDP) At(alpha, tau float64, m Metric) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if err := s.checkMetric(m); err != nil {
		return 0, err
	}
	if !(alpha > 1) || math.IsNaN(alpha) {
		return 0, fmt.Errorf("accounting: srdp (%s): order α = %v, want > 1", s.Mechanism, alpha)
	}
	if !finite(tau) || tau < 0 {
		return 0, fmt.Errorf("accounting: srdp (%s): τ = %v, want a finite distance ≥ 0", s.Mechanism, tau)
	}
	if sup := s.Sup(tau, m); alpha >= sup {
		return 0, fmt.Errorf("accounting: srdp (%s): order α = %g is outside its domain (1, %g) at τ = %g: Thm 14 needs max(1, τ)·L·√(2α(α−1)) < σ", s.Mechanism, alpha, sup, tau)
	}
	return s.at(alpha, tau, m), nil
}

// at is At without the checks (s valid, m supported, α in the domain).
// Nothing that moves gives 0 even without noise; no NaN comes out (a
// distance of +Inf gives +Inf).
func (s SRDP) at(alpha, tau float64, m Metric) float64 {
	c := s.count()
	// gauss returns α·shift²/(2σ²): the Rényi divergence of two Gaussians
	// with means shift apart ([Mir17] Prop. 7).
	gauss := func(shift, sigma float64) float64 {
		switch {
		case shift == 0:
			return 0
		case sigma == 0:
			return math.Inf(1)
		}
		return alpha * shift * shift / (2 * sigma * sigma)
	}
	switch s.Mechanism {
	case SRDPGaussian:
		return c * gauss(s.lipschitz(m)*tau, s.Sigma)
	case SRDPLaplace:
		shift := s.lipschitz(m) * tau
		switch {
		case shift == 0:
			return 0
		case s.Scale == 0:
			return math.Inf(1)
		}
		return c * laplaceRDP(shift/s.Scale, alpha)
	case SRDPExponential:
		if tau == 0 {
			return 0
		}
		return c * s.lipschitz(m) * tau * s.Epsilon / s.Sensitivity
	case SRDPDPGD:
		return c * gauss(s.MuX*tau/float64(s.N), s.Sigma)
	case SRDPDPSGDSamp:
		return c * gauss(s.MuX*s.Gamma*tau/float64(s.N), s.Sigma)
	case SRDPDPSGD:
		return dpSGDSRDP(alpha, tau, s.MuX, s.NoiseMultiplier, s.Clip, c)
	case SRDPDPSGDIter:
		mm := float64(s.N - s.KappaTau + 1)
		k := 4 * harmonic(s.N-s.KappaTau+1) / mm
		if s.Form == "paper" {
			k = 64 * math.Log(mm+1) / mm
		}
		// 4ατ²μ²H_m/(mσ²) = k·α(μτ)²/σ² = 2k·gauss(μτ, σ).
		return 2 * k * gauss(s.MuX*tau, s.Sigma)
	}
	panic("accounting: srdp: unknown mechanism " + s.Mechanism) // Validate rejects it
}

// dpSGDSRDP is the SRDP of DP-SGD as used in practice, over steps steps:
//
//	ε~(α, τ) = T·α μ_x² τ² / (2 z² C²)
//
// [derived] (preprocessing.md §4.3, from the proofs of [HSS24] Thms 12–13;
// not a claim of the paper). Per step, the batch is drawn independently of
// the data, so S and S' (index-aligned, d₁₂ ≤ τ) use the same rows; clipping
// v ↦ v·min(1, C/‖v‖) is the projection onto a ball, hence 1-Lipschitz, so
// the clipped-gradient sums differ by ≤ Σ_{i∈batch} μ_x‖xᵢ − x'ᵢ‖ ≤ μ_x τ,
// and the two Gaussians N(sum, z²C²I) are at Rényi divergence ≤
// α(μ_xτ)²/(2z²C²) ([Mir17] Prop. 7). Dividing by the public expected batch
// size is post-processing. The mixture over batches is bounded by the worst
// batch because exp((α − 1)D_α) is jointly convex; a Poisson batch may hold
// every row, so there is no amplification (q does not appear). Adaptive
// composition over the T steps adds. With B = n it is A_GD's SRDP (Thm 12).
func dpSGDSRDP(alpha, tau, muX, z, clip, steps float64) float64 {
	shift := muX * tau
	if shift == 0 {
		return 0
	}
	if z == 0 {
		return math.Inf(1)
	}
	return steps * alpha * shift * shift / (2 * z * z * clip * clip)
}

// harmonic returns H_m = Σ_{j=1}^m 1/j.
func harmonic(m int) float64 {
	h := 0.0
	for j := m; j >= 1; j-- {
		h += 1 / float64(j)
	}
	return h
}

// slope returns b with ε~(α, τ) = b·α for the kinds whose SRDP is linear in
// α (every kind but laplace and exponential), and ok = false otherwise.
func (s SRDP) slope(tau float64, m Metric) (float64, bool) {
	if s.Pure() {
		return 0, false
	}
	return s.at(2, tau, m) / 2, true
}

// PureRDP returns ε(∞) of a pure-DP mechanism, the bound on its
// max-divergence between neighbours: Count·Δ_f/b (laplace) or Count·ε
// (exponential); ok is false for the other kinds.
func (s SRDP) PureRDP() (float64, bool) {
	switch s.Mechanism {
	case SRDPLaplace:
		if s.Scale == 0 {
			return math.Inf(1), true
		}
		return s.count() * s.Sensitivity / s.Scale, true
	case SRDPExponential:
		return s.count() * s.Epsilon, true
	}
	return 0, false
}

// PureSRDP returns ε~(∞, τ) of a pure-DP mechanism in metric m:
// Count·L_m τ/b (laplace, [HSS24] Thm 10) or Count·L_m τ ε/Δ_Q
// (exponential, Thm 11); ok is false for the other kinds.
func (s SRDP) PureSRDP(tau float64, m Metric) (float64, bool) {
	switch s.Mechanism {
	case SRDPLaplace:
		shift := s.lipschitz(m) * tau
		if shift == 0 {
			return 0, true
		}
		if s.Scale == 0 {
			return math.Inf(1), true
		}
		return s.count() * shift / s.Scale, true
	case SRDPExponential:
		return s.at(2, tau, m), true
	}
	return 0, false
}

// Event returns the ledger event whose RDP curve is the mechanism's own
// RDP: a Gaussian release (gaussian), a Laplace release (laplace), a pure
// ε-DP release (exponential, PureDP), T Gaussian releases of the averaged
// gradient with replace-one sensitivity 2L/n (dp_gd, [HSS24] Thm 12:
// RDP T·α(2L/n)²/(2σ²), erratum 2), or T Poisson-sampled Gaussian steps
// (dp_sgd; add/remove, [MTZ19]). dp_sgd_samp and dp_sgd_iter have no event:
// the paper's RDP for them is asymptotic (Abadi et al.'s Lemma 3 with an
// unspecified constant, erratum 13) or holds on an order domain no event
// carries (Lemma H); see PaperRDP.
func (s SRDP) Event() (Event, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var e Event
	switch s.Mechanism {
	case SRDPGaussian:
		e = Gaussian{Sigma: s.Sigma, Sensitivity: s.Sensitivity}
	case SRDPLaplace:
		e = Laplace{Scale: s.Scale, Sensitivity: s.Sensitivity}
	case SRDPExponential:
		e = PureDP{Epsilon: s.Epsilon}
	case SRDPDPGD:
		e = Gaussian{Sigma: s.Sigma, Sensitivity: 2 * s.Lipschitz / float64(s.N)}
	case SRDPDPSGD:
		e = PoissonSampledGaussian{Q: s.Q, NoiseMultiplier: s.NoiseMultiplier}
	default:
		return nil, fmt.Errorf("accounting: srdp (%s): no event carries this mechanism's RDP (the paper's is asymptotic or holds on a restricted order domain; PaperRDP gives it for display)", s.Mechanism)
	}
	if n := int(s.count()); n != 1 {
		e = SelfComposed{Event: e, Count: n}
	}
	return e, nil
}

// PaperRDP returns the mechanism's RDP ε(α) as the paper states it, for
// tables and figures:
//
//	gaussian      C·α Δ_f²/(2σ²)                          [HSS24] Thm 9 / [Mir17] Prop. 7
//	laplace       C·Δ_f/b  (pure, every α)                 Thm 10
//	exponential   C·ε      (pure, every α)                 Thm 11
//	dp_gd         T·α (2L/n)²/(2σ²) = 2αε²                 Thm 12 (erratum 2), σ = L√T/(εn)
//	dp_sgd_samp   α² ε²/2, ε = L√T/(nσ)                    Thm 13 (display only: Abadi et al.'s Lemma 3
//	                                                      with its unspecified constant c set to 1, and
//	                                                      its O(α³) term dropped; §5 D11)
//	dp_sgd_iter   4αL² log n/(nσ²) = αε²/32                 "safe": Lemma H (Feldman et al. Thm 26)
//	              64αL² log n/(nσ²) = αε²/2                 "paper": Table 1 (erratum 8: conservative)
//
// dp_sgd's RDP is numerical (its Event, the sampled Gaussian): an error.
// dp_sgd_iter holds for L√(2α(α − 1)) ≤ σ; outside it is an error.
func (s SRDP) PaperRDP(alpha float64) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if !(alpha > 1) {
		return 0, fmt.Errorf("accounting: srdp (%s): order α = %v, want > 1", s.Mechanism, alpha)
	}
	c := s.count()
	inv := func(sigma float64) float64 {
		if sigma == 0 {
			return math.Inf(1)
		}
		return 1 / (sigma * sigma)
	}
	switch s.Mechanism {
	case SRDPGaussian:
		return c * alpha * s.Sensitivity * s.Sensitivity / 2 * inv(s.Sigma), nil
	case SRDPLaplace, SRDPExponential:
		v, _ := s.PureRDP()
		return v, nil
	case SRDPDPGD:
		g := 2 * s.Lipschitz / float64(s.N)
		return c * alpha * g * g / 2 * inv(s.Sigma), nil
	case SRDPDPSGDSamp:
		e2 := s.Lipschitz * s.Lipschitz * c / float64(s.N*s.N) * inv(s.Sigma)
		return alpha * alpha * e2 / 2, nil
	case SRDPDPSGDIter:
		if alpha > sgdIterSup(s.Sigma, s.Lipschitz) {
			return 0, fmt.Errorf("accounting: srdp (%s): order α = %g is outside Lemma H's domain L√(2α(α−1)) ≤ σ", s.Mechanism, alpha)
		}
		k := 4.0
		if s.Form == "paper" {
			k = 64
		}
		return k * alpha * s.Lipschitz * s.Lipschitz * math.Log(float64(s.N)) / float64(s.N) * inv(s.Sigma), nil
	}
	return 0, fmt.Errorf("accounting: srdp (%s): the RDP is numerical (the sampled Gaussian of its Event), not a closed form", s.Mechanism)
}

// Assumptions returns what the SRDP curve rests on beyond the noise, in the
// words records carry (each a phrase).
func (s SRDP) Assumptions() []string {
	switch s.Mechanism {
	case SRDPGaussian:
		out := []string{fmt.Sprintf("query %g-Lipschitz in the L12 distance (output L2 norm)", s.lipschitz(MetricL12))}
		if s.LF > 0 {
			out = append(out, fmt.Sprintf("query %g-Lipschitz in the Frobenius distance", s.LF))
		}
		return out
	case SRDPLaplace:
		out := []string{fmt.Sprintf("query %g-Lipschitz in the L12 distance (output L1 norm)", s.lipschitz(MetricL12))}
		if s.LF > 0 {
			out = append(out, fmt.Sprintf("query %g-Lipschitz in the Frobenius distance (output L1 norm)", s.LF))
		}
		return out
	case SRDPExponential:
		return []string{fmt.Sprintf("score Q(w, ·) %g-Lipschitz in the L12 distance for every output w", s.lipschitz(MetricL12))}
	case SRDPDPGD, SRDPDPSGD:
		return []string{fmt.Sprintf("per-example gradient %g-smooth in the data (‖∇ℓ(θ,x) − ∇ℓ(θ,x')‖ ≤ μ_x‖x − x'‖)", s.MuX)}
	case SRDPDPSGDSamp:
		return []string{fmt.Sprintf("per-example gradient %g-smooth in the data", s.MuX),
			fmt.Sprintf("τ-relative inverse point-wise distance γ = %g ([HSS24] Def. 7)", s.Gamma)}
	case SRDPDPSGDIter:
		return []string{fmt.Sprintf("per-example gradient %g-smooth in the data; loss convex and L-Lipschitz", s.MuX),
			"additionally conditional on consecutive differing rows ([HSS24] Thm 14)",
			fmt.Sprintf("at most κ_τ = %d rows differ between datasets at distance ≤ τ", s.KappaTau)}
	}
	return nil
}
