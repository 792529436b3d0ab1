package curves

import (
	"fmt"
	"math"
	"slices"

	"github.com/dplab/dplab/mechanisms/accounting"
)

// [HSS24] Tables 1 and 3 as curves: each curve's title is the formula it
// evaluates (the paper's symbolic table, with its errata applied where
// noted), so a curves table with formulas = true prints the symbolic table
// beside the numbers. Table 1 is in the paper's normalisation (Lipschitz
// and smoothness constants L = μ = 1, global sensitivity Δ = 1 unless given)
// with the noise written through ε as the paper does: σ = Δ/ε (Gaussian),
// b = Δ/ε (Laplace), σ = L√T/(εn) (DP-GD), σ = L√T/(εn) (DP-SGD-samp,
// c = 1), σ = √(2 log n / n)·8L/ε (DP-SGD-iter).

// table1SRDP returns the SRDP of Table 1's mechanism m in the paper's
// normalisation at ε (and n, T, γ, κ_τ where they enter).
func table1SRDP(m string, p CurveParams) (accounting.SRDP, error) {
	eps := p.Get("eps")
	if !(eps > 0) {
		return accounting.SRDP{}, fmt.Errorf("eps = %g, want > 0", eps)
	}
	n, T := int(p.Get("n")), int(p.Get("steps"))
	switch m {
	case "gaussian":
		return accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: 1 / eps, Sensitivity: 1, L12: 1}, nil
	case "laplace":
		return accounting.SRDP{Mechanism: accounting.SRDPLaplace, Scale: 1 / eps, Sensitivity: 1, L12: 1}, nil
	case "exponential":
		return accounting.SRDP{Mechanism: accounting.SRDPExponential, Epsilon: eps, Sensitivity: 1, L12: 1}, nil
	case "dp-gd":
		return accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: math.Sqrt(float64(T)) / (eps * float64(n)), N: n, Lipschitz: 1, Steps: T, MuX: 1}, nil
	case "sgd-samp":
		return accounting.SRDP{Mechanism: accounting.SRDPDPSGDSamp, Sigma: math.Sqrt(float64(T)) / (eps * float64(n)), N: n, Lipschitz: 1, Steps: T, MuX: 1, Gamma: 1}, nil
	case "sgd-iter":
		sigma := math.Sqrt(2*math.Log(float64(n))/float64(n)) * 8 / eps
		return accounting.SRDP{Mechanism: accounting.SRDPDPSGDIter, Sigma: sigma, N: n, Lipschitz: 1, MuX: 1, KappaTau: int(p.Get("kappa_tau"))}, nil
	}
	return accounting.SRDP{}, fmt.Errorf("unknown mechanism %q", m)
}

// table1Optional lists the Table 1 parameters a mechanism does not use
// (accepted, so one block of parameters serves every row of the table).
func table1Optional(used []string) []string {
	var out []string
	for _, k := range []string{"n", "steps", "kappa_tau", "tau"} {
		if !slices.Contains(used, k) {
			out = append(out, k)
		}
	}
	return out
}

func init() {
	t1 := []struct {
		m, rdp, srdp string
		extra        []string
	}{
		{"gaussian", "M_G: ε(α) = αε²/2", "M_G: ε~(α, τ) = αL²τ²ε²/(2Δ_f²) (Thm 9; erratum 1: /Δ_f²)", nil},
		{"laplace", "M_L: ε(α) = ε", "M_L: ε~(α, τ) = Lτε/Δ_f (Thm 10)", nil},
		{"exponential", "M_E: ε(α) = ε", "M_E: ε~(α, τ) = Lτε/Δ_Q (Thm 11)", nil},
		{"dp-gd", "A_GD: ε(α) = 2αε² (erratum 2)", "A_GD: ε~(α, τ) = αμ²τ²ε²/(2L²) (Thm 12)", []string{"n", "steps"}},
		{"sgd-samp", "A_SGD-samp: ε(α) = α²ε²/2 (Abadi et al. Lemma 3, leading term)", "A_SGD-samp: ε~(α, τ) = αμ²τ²ε²γ²/(2L²) (Thm 13)", []string{"n", "steps"}},
		{"sgd-iter", "A_SGD-iter: ε(α) = αε²/2 (Table 1; Lemma H gives αε²/32)", "A_SGD-iter: ε~(α, τ) = ατ²μ²ε²·n log(n−κ_τ+2)/(2(n−κ_τ+1)L² log n) (paper); safe: 4ατ²μ²H_{n−κ_τ+1}/((n−κ_τ+1)σ²)", []string{"n", "kappa_tau"}},
	}
	for _, c := range t1 {
		RegisterCurve(CurveInfo{Name: "hss24-table1-" + c.m + "-rdp", Title: c.rdp,
			Ref:    "[HSS24] Table 1 (L = μ = Δ = 1, noise through ε as the paper writes it)",
			Params: append([]string{"alpha", "eps"}, c.extra...), Optional: table1Optional(c.extra)}, func(p CurveParams) (float64, error) {
			s, err := table1SRDP(c.m, p)
			if err != nil {
				return 0, err
			}
			if c.m == "sgd-iter" {
				// Table 1 prints αε²/2 (a bound above Lemma H's αε²/32).
				return p.Get("alpha") * p.Get("eps") * p.Get("eps") / 2, nil
			}
			return s.PaperRDP(p.Get("alpha"))
		})
		RegisterCurve(CurveInfo{Name: "hss24-table1-" + c.m + "-srdp", Title: c.srdp,
			Ref:    "[HSS24] Table 1 and Thms 9–14 (L12 metric; L = μ = Δ = 1)",
			Params: append([]string{"alpha", "tau", "eps"}, c.extra...), Optional: table1Optional(c.extra)}, func(p CurveParams) (float64, error) {
			s, err := table1SRDP(c.m, p)
			if err != nil {
				return 0, err
			}
			if c.m == "sgd-iter" {
				// The paper's Table 1 form (with the ε² Table 2 implies, erratum 4).
				n, k := p.Get("n"), p.Get("kappa_tau")
				a, tau, eps := p.Get("alpha"), p.Get("tau"), p.Get("eps")
				return a * tau * tau * eps * eps * n * math.Log(n-k+2) / (2 * (n - k + 1) * math.Log(n)), nil
			}
			if c.m == "laplace" || c.m == "exponential" {
				// The table's pure-DP form (the α → ∞ bound; dplab's
				// finite-order Laplace curve is smaller).
				v, _ := s.PureSRDP(p.Get("tau"), accounting.MetricL12)
				return v, nil
			}
			return s.At(p.Get("alpha"), p.Get("tau"), accounting.MetricL12)
		})
	}
	// Table 3: the L2 sensitivity Δ₂ of imputation models (paper and safe).
	t3 := []struct {
		name, title, ref string
		params           []string
		fn               func(p CurveParams) (float64, error)
	}{
		{"mean", "Mean: Δ₂ = 2/(n − p)", "[HSS24] Table 3, Cor. 4 (same missingness pattern assumed)", []string{"n", "p"},
			func(p CurveParams) (float64, error) { return 2 / (p.Get("n") - p.Get("p")), nil }},
		{"mean-safe", "Mean (safe): Δ₂ = (2 + √((n−1)/(n−p−1)))/(n − p − 1)", "preprocessing.md §2.3 (differing missingness; datasets/preprocess's probes confirm it)", []string{"n", "p"},
			func(p CurveParams) (float64, error) {
				n, k := p.Get("n"), p.Get("p")
				return (2 + math.Sqrt((n-1)/(n-k-1))) / (n - k - 1), nil
			}},
		{"median", "Median: Δ₂ = x^max_((n+1)/2) − x^min_(n/2) (per feature; safe: × √m_feat)", "[HSS24] Table 3; preprocessing.md §2.3", []string{"band"},
			func(p CurveParams) (float64, error) {
				return p.Get("band") * math.Max(1, math.Sqrt(p.Get("m_feat"))), nil
			}},
		{"trimmed", "m-trimmed mean: Δ₂ = (x^max_(n−m) − x^min_(m+1))/(n − 2m − p) (corrected order statistics; safe: × √m_feat)", "[HSS24] Table 3, erratum 19", []string{"band", "n", "m", "p"},
			func(p CurveParams) (float64, error) {
				return p.Get("band") / (p.Get("n") - 2*p.Get("m") - p.Get("p")) * math.Max(1, math.Sqrt(p.Get("m_feat"))), nil
			}},
		{"linreg", "Linear regression: Δ₂ = λ_max²/((λ_max + 1)λ_min²) + 1/λ_min", "[HSS24] Table 3 (Prop. 15 via Sherman–Morrison)", []string{"lambda_max", "lambda_min"},
			func(p CurveParams) (float64, error) {
				lmax, lmin := p.Get("lambda_max"), p.Get("lambda_min")
				return lmax*lmax/((lmax+1)*lmin*lmin) + 1/lmin, nil
			}},
	}
	for _, c := range t3 {
		RegisterCurve(CurveInfo{Name: "hss24-table3-" + c.name, Title: c.title, Ref: c.ref, Params: c.params, Optional: []string{"m_feat"}}, c.fn)
	}
}
