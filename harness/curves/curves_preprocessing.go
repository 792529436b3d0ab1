package curves

import (
	"fmt"
	"math"
	"slices"

	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Analytic curves of [HSS24] (Hu, Sanyal & Schölkopf, arXiv:2403.13041v1):
// the overall privacy of a DP mechanism run on data pre-processed by a
// non-private π (Figure 2, Table 2, the all-modes comparison of
// preprocessing.md §2.8), Theorem 7 and Proposition 8 (Propose-Test-Release
// for PCA + DP-GD), the base-ε inversion for PCA + DP-GD, and Lemma 2.
// Every number comes from accounting.Preprocessed and its companions; the
// pre-processors' sensitivities are those of the paper's Table 2
// (preprocessing.md §2.5) in paper mode, computed here from the curve's
// parameters (the datasets/preprocess package implements the
// pre-processors themselves, with paper and safe modes).
//
// Parameters (numbers only): p (Δ∞: max missing rows, or twice the largest
// good cluster), eta (η), n, delta_min (δ_min, the smallest eigengap),
// delta (δ), alpha (α), eps (the mechanism's base ε, default 1: σ = Δ_f/ε
// with Δ_f = L = L_F = 1 as in Table 2 and Figure 2), eps_total (a target),
// beta (β), and the optional switches group_size_offset (default 1: g =
// min(Δ∞ + 1, n); 0 reproduces the paper's unstated g = Δ∞, not a
// guarantee), conversion (0, default: Lemma M, the paper's; 1: dplab's RDP
// accountant), constant (PCA: 0, default, the paper's 12.2; 1: the exact
// 4(3n+2)/((n−1)δ_min)), safe (quantization: 1 uses Δ₂ = 2η, erratum 17).
// The analysis is part of the curve's name.

// hssAnalyses maps a curve-name suffix to an accounting analysis ("best":
// the pointwise minimum of the default set, the number dplab records).
var hssAnalyses = []struct{ suffix, analysis string }{
	{"paper", accounting.AnalysisPaper},
	{"exact-factor", accounting.AnalysisExactFactor},
	{"tight-pq", accounting.AnalysisTightPQ},
	{"tight-pq-min", accounting.AnalysisTightPQMin},
	{"frobenius", accounting.AnalysisFrobenius},
	{"group", accounting.AnalysisGroup},
	{"best", ""},
}

// hssPre is one of Table 2's pre-processors: its parameters and its
// sensitivities (Δ∞, Δ₂) in paper mode, with n the dataset size when the
// pre-processor has one (0 otherwise).
type hssPre struct {
	name, ref string
	params    []string
	optional  []string
	sens      func(p CurveParams) (dInf int, d2 float64, n int, err error)
}

// intParam returns the parameter key as an integer, or an error when it is
// not one or is below min.
func intParam(p CurveParams, key string, min int) (int, error) {
	v := p.Get(key)
	if v != math.Trunc(v) || v < float64(min) || v > 1e9 {
		return 0, fmt.Errorf("%s = %g, want an integer ≥ %d", key, v, min)
	}
	return int(v), nil
}

var hssPres = []hssPre{
	{"dedup", "[HSS24] Prop. 3: Δ∞ = p (2 × the largest good cluster), Δ₂ = 1", []string{"p"}, nil,
		func(p CurveParams) (int, float64, int, error) {
			k, err := intParam(p, "p", 0)
			return k, 1, 0, err
		}},
	{"quantization", "[HSS24] Prop. 3: Δ∞ = p, Δ₂ = η (safe = 1: 2η, preprocessing.md §2.2, erratum 17)", []string{"eta", "p"}, []string{"safe"},
		func(p CurveParams) (int, float64, int, error) {
			k, err := intParam(p, "p", 0)
			eta := p.Get("eta")
			if !(eta >= 0) || math.IsInf(eta, 0) {
				return 0, 0, 0, fmt.Errorf("eta = %g, want a finite value ≥ 0", eta)
			}
			if p.Get("safe") != 0 {
				eta *= 2
			}
			return k, eta, 0, err
		}},
	{"mean-imputation", "[HSS24] Cor. 4: Δ∞ = p missing rows, Δ₂ = 2/(n − p) (safe = 1: (2 + √((n−1)/(n−p−1)))/(n−p−1), erratum 18)", []string{"p", "n"}, []string{"safe"},
		func(p CurveParams) (int, float64, int, error) {
			k, err := intParam(p, "p", 0)
			if err != nil {
				return 0, 0, 0, err
			}
			n, err := intParam(p, "n", k+1)
			if err != nil {
				return 0, 0, 0, fmt.Errorf("%v (n > p)", err)
			}
			if p.Get("safe") != 0 {
				// The safe bound when the neighbour's missingness differs
				// (the probes refute 2/(n − p)): datasets/preprocess's.
				s, err := preprocess.MeanImputer{}.Sensitivity(preprocess.Collection{N: n, MaxMissingRows: k}, preprocess.Safe)
				return k, s.Delta2, n, err
			}
			return k, 2 / float64(n-k), n, nil
		}},
	{"pca-rank", "[HSS24] Prop. 5: Δ∞ = n, Δ₂ = 12.2/(n δ_min) (n ≥ 101; constant = 1: 4(3n+2)/(n(n−1)δ_min))", []string{"n", "delta_min"}, []string{"constant"},
		func(p CurveParams) (int, float64, int, error) {
			n, err := intParam(p, "n", 2)
			if err != nil {
				return 0, 0, 0, err
			}
			dm := p.Get("delta_min")
			if !(dm > 0) || math.IsInf(dm, 0) {
				return 0, 0, 0, fmt.Errorf("delta_min = %g, want a finite value > 0", dm)
			}
			nf := float64(n)
			if p.Get("constant") != 0 {
				return n, 4 * (3*nf + 2) / (nf * (nf - 1) * dm), n, nil
			}
			if n < 101 {
				return 0, 0, 0, fmt.Errorf("n = %d: the constant 12.2 needs n ≥ 101 (use constant = 1)", n)
			}
			return n, 12.2 / (nf * dm), n, nil
		}},
}

// baseEps returns the optional base ε (default 1).
func baseEps(p CurveParams) (float64, error) {
	e, ok := p["eps"]
	if !ok {
		return 1, nil
	}
	if !(e > 0) || math.IsInf(e, 0) {
		return 0, fmt.Errorf("eps = %g, want a finite value > 0", e)
	}
	return e, nil
}

// gaussianPipeline returns the Gaussian mechanism of Figure 2 (σ = 1/ε,
// Δ_f = L12 = LF = 1) behind pre-processor pre, restricted to analysis a
// ("" for the default set).
func gaussianPipeline(pre hssPre, a string, p CurveParams) (accounting.Preprocessed, error) {
	eps, err := baseEps(p)
	if err != nil {
		return accounting.Preprocessed{}, err
	}
	dInf, d2, n, err := pre.sens(p)
	if err != nil {
		return accounting.Preprocessed{}, err
	}
	s := 1 / eps
	e := accounting.Preprocessed{
		Event:    accounting.Gaussian{Sigma: s, Sensitivity: 1},
		SRDP:     &accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: s, Sensitivity: 1, L12: 1, LF: 1},
		DeltaInf: dInf, Delta2: d2, N: n,
	}
	if a != "" {
		e.Analyses = []string{a}
	}
	if off, ok := p["group_size_offset"]; ok {
		switch {
		case off == 0 && a == accounting.AnalysisGroup:
			// The paper's g = Δ∞ (reproduction only): g = min(Δ∞ − 1 + 1, n).
			if e.DeltaInf == 0 {
				return e, fmt.Errorf("group_size_offset = 0 with p = 0: a group of 0 rows")
			}
			e.DeltaInf--
		case off == 0:
		case off >= 1 && off == math.Trunc(off) && off < 1e6:
			e.GroupSizeOffset = int(off)
		default:
			return e, fmt.Errorf("group_size_offset = %g, want 0 or an integer ≥ 1", off)
		}
	}
	return e, e.Validate()
}

// convert returns the (ε, δ) of e: Lemma M (conversion = 0) or the RDP
// accountant (conversion = 1).
func convert(e accounting.Event, p CurveParams) (float64, error) {
	switch p.Get("conversion") {
	case 0:
		eps, _, err := accounting.LemmaMEpsilon(accounting.Config{}, e, p.Get("delta"))
		return eps, err
	case 1:
		g, err := accounting.Config{}.Epsilon(e, p.Get("delta"))
		return g.Epsilon, err
	}
	return 0, fmt.Errorf("conversion = %g, want 0 (Lemma M) or 1 (RDP accountant)", p.Get("conversion"))
}

// table2Mechanisms are Table 2's rows: the mechanism's event and SRDP at
// base ε (Table 2's normalisation L = μ = Δ = 1; DP-GD with T = 1 and
// σ = L√T/(εn), n = nGD, which the cells do not depend on).
var table2Mechanisms = []struct {
	name string
	pres []string
	make func(eps float64) (accounting.Event, accounting.SRDP)
}{
	{"gaussian", nil, func(eps float64) (accounting.Event, accounting.SRDP) {
		return accounting.Gaussian{Sigma: 1 / eps, Sensitivity: 1},
			accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: 1 / eps, Sensitivity: 1, L12: 1}
	}},
	{"dp-gd", nil, func(eps float64) (accounting.Event, accounting.SRDP) {
		s := 1 / (eps * nGD)
		return accounting.Gaussian{Sigma: s, Sensitivity: 2.0 / nGD},
			accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: s, N: nGD, Lipschitz: 1, MuX: 1, Steps: 1}
	}},
	{"laplace", nil, func(eps float64) (accounting.Event, accounting.SRDP) {
		return accounting.Laplace{Scale: 1 / eps, Sensitivity: 1},
			accounting.SRDP{Mechanism: accounting.SRDPLaplace, Scale: 1 / eps, Sensitivity: 1, L12: 1}
	}},
	{"exponential", nil, func(eps float64) (accounting.Event, accounting.SRDP) {
		return accounting.PureDP{Epsilon: eps},
			accounting.SRDP{Mechanism: accounting.SRDPExponential, Epsilon: eps, Sensitivity: 1, L12: 1}
	}},
}

// nGD is the dataset size behind Table 2's DP-GD normalisation (any n
// gives the same cells: RDP 2αε², SRDP αμ²τ²ε²/(2L²)).
const nGD = 1000

// table2Cell returns a Table 2 cell, [HSS24]'s pipeline RDP at alpha (the
// paper analysis, Eq. 43; pure form for Laplace and exponential).
func table2Cell(mech string, pre hssPre, p CurveParams) (float64, error) {
	eps, err := baseEps(p)
	if err != nil {
		return 0, err
	}
	dInf, d2, n, err := pre.sens(p)
	if err != nil {
		return 0, err
	}
	tau := d2 * float64(dInf)
	alpha := p.Get("alpha")
	if !(alpha >= 11) || math.IsInf(alpha, 0) {
		return 0, fmt.Errorf("alpha = %g: Table 2 holds for α ≥ 11", alpha)
	}
	switch mech {
	case "sgd-samp":
		// γ = 1 (PCA, Thm 16(iii)); the paper's RDP α²ε²/2 is display only.
		s := accounting.SRDP{Mechanism: accounting.SRDPDPSGDSamp, Sigma: 1 / (eps * nGD), N: nGD, Lipschitz: 1, MuX: 1, Steps: 1, Gamma: 1}
		r, err := s.PaperRDP(2 * alpha)
		if err != nil {
			return 0, err
		}
		sr, err := s.At(2*alpha, tau, accounting.MetricL12)
		return 1.05 * (sr + r), err
	case "sgd-iter":
		// As printed: 1.1αε²(1 + τ² n log(n−p)/((n−p) log n)) with p = Δ∞
		// (= κ_τ). Theorem 2 with Table 1's curves gives the smaller
		// 1.05αε²(1 + τ² n log(n−p+2)/((n−p+1) log n)); both are outside
		// Thm 14's own condition L√(2α(α−1)) ≤ σ unless ε ≲ 1/α.
		nn := float64(n)
		if n == 0 {
			nn = p.Get("n")
		}
		pp := float64(dInf)
		if !(nn > pp+1) {
			return 0, fmt.Errorf("n = %g, want n > p + 1", nn)
		}
		return 1.1 * alpha * eps * eps * (1 + tau*tau*nn*math.Log(nn-pp)/((nn-pp)*math.Log(nn))), nil
	}
	for _, m := range table2Mechanisms {
		if m.name != mech {
			continue
		}
		ev, s := m.make(eps)
		e := accounting.Preprocessed{Event: ev, SRDP: &s, DeltaInf: dInf, Delta2: d2, N: n, Analyses: []string{accounting.AnalysisPaper}}
		at, err := accounting.PreprocessedAnalyses(accounting.Config{}, e, alpha)
		return at.RDP, err
	}
	return 0, fmt.Errorf("unknown mechanism %q", mech)
}

// dpgdPCA returns PCA rank reduction (Δ∞ = n, Δ₂ = 12.2/(nδ_min)) in front of
// DP-GD with T = 1 (σ on the averaged gradient; L = μ = 1), restricted to
// analysis a ("" for the default set), or DP-GD alone when deltaMin = 0.
func dpgdPCA(sigma float64, n int, deltaMin float64, a string) accounting.Event {
	ev := accounting.Gaussian{Sigma: sigma, Sensitivity: 2 / float64(n)}
	if deltaMin == 0 {
		return ev
	}
	e := accounting.Preprocessed{
		Event:    ev,
		SRDP:     &accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: sigma, N: n, Lipschitz: 1, MuX: 1, Steps: 1},
		DeltaInf: n, Delta2: 12.2 / (float64(n) * deltaMin), N: n,
	}
	if a != "" {
		e.Analyses = []string{a}
	}
	return e
}

// gdRows returns the optional parameter n (≥ 101, Prop. 5's range), nGD
// when it is absent.
func gdRows(p CurveParams) (int, error) {
	if _, ok := p["n"]; !ok {
		return nGD, nil
	}
	return intParam(p, "n", 101)
}

// invertPCADPGD returns the base ε = 1/(σn) that PCA + DP-GD (or DP-GD alone,
// deltaMin = 0) needs for overall (epsTotal, δ): the smallest σ meeting the
// target, by Lemma M (conversion = 0, preprocessing.md §2.6 step 5;
// accounting.LemmaMCalibrate) or by dplab's Calibrator (conversion = 1).
func invertPCADPGD(p CurveParams, a string, deltaMin float64) (float64, error) {
	n, err := gdRows(p)
	if err != nil {
		return 0, err
	}
	target, delta := p.Get("eps_total"), p.Get("delta")
	event := func(sigma float64) accounting.Event { return dpgdPCA(sigma, n, deltaMin, a) }
	var sigma float64
	switch p.Get("conversion") {
	case 0:
		sigma, err = accounting.LemmaMCalibrate(accounting.Config{}, event, accounting.Target{Epsilon: target, Delta: delta})
	case 1:
		sigma, err = accounting.NewCalibrator(accounting.Config{}).Calibrate(event, accounting.Target{Epsilon: target, Delta: delta}, accounting.Bracket{})
	default:
		return 0, fmt.Errorf("conversion = %g, want 0 (Lemma M) or 1 (RDP accountant)", p.Get("conversion"))
	}
	if err != nil {
		return 0, err
	}
	return 1 / (sigma * float64(n)), nil
}

// table2Formulas is [HSS24] Table 2 as printed (the pipeline RDP with
// L = μ = Δ = 1, α ≥ 11; p the L∞ sensitivity, δ^k_min the eigengap).
var table2Formulas = map[string]map[string]string{
	"gaussian": {"dedup": "1.05αε²(1 + p²)", "quantization": "1.05αε²(1 + η²p²)",
		"mean-imputation": "1.05αε²(1 + 4p²/(n−p)²)", "pca-rank": "1.05αε²(1 + 12.2²/(δ^k_min)²)"},
	"dp-gd": {"dedup": "1.05αε²(4 + p²)", "quantization": "1.05αε²(4 + η²p²)",
		"mean-imputation": "4.2αε²(1 + p²/(n−p)²)", "pca-rank": "1.05αε²(4 + 12.2²/(δ^k_min)²)"},
	"laplace":     {"dedup": "ε(1 + p)", "quantization": "ε(1 + ηp)", "mean-imputation": "ε(1 + 2p/(n−p))", "pca-rank": "ε(1 + 12.2/δ^k_min)"},
	"exponential": {"dedup": "ε(1 + p)", "quantization": "ε(1 + ηp)", "mean-imputation": "ε(1 + 2p/(n−p))", "pca-rank": "ε(1 + 12.2/δ^k_min)"},
	"sgd-samp":    {"pca-rank": "1.05αε²(2α + 12.2²/(δ^k_min)²)"},
	"sgd-iter": {"dedup": "1.1αε²(1 + p²n log(n−p)/((n−p) log n))", "quantization": "1.1αε²(1 + η²p²n log(n−p)/((n−p) log n))",
		"mean-imputation": "1.1αε²(1 + 4p²n log(n−p)/((n−p)³ log n))"},
}

func init() {
	common := []string{"eps", "group_size_offset", "conversion"}
	RegisterCurve(CurveInfo{
		Name: "hss24-gaussian-standalone", Title: "Gaussian mechanism, no pre-processing",
		Ref:    "[HSS24] Figure 2 reference: σ = 1/ε, Δ_f = 1; Lemma M (conversion = 1: RDP accountant)",
		Params: []string{"delta"}, Optional: []string{"eps", "conversion"},
	}, func(p CurveParams) (float64, error) {
		eps, err := baseEps(p)
		if err != nil {
			return 0, err
		}
		return convert(accounting.Gaussian{Sigma: 1 / eps, Sensitivity: 1}, p)
	})
	for _, pre := range hssPres {
		for _, an := range hssAnalyses {
			title := "ε(δ) of the pre-processed Gaussian mechanism, " + pre.name + ", analysis " + an.suffix
			if an.analysis == "" {
				title = "ε(δ) of the pre-processed Gaussian mechanism, " + pre.name + ", minimum over exact_factor, tight_pq, tight_pq_min, frobenius, group"
			}
			RegisterCurve(CurveInfo{
				Name: "hss24-gaussian-" + pre.name + "-" + an.suffix, Title: title,
				Ref: "[HSS24] Theorem 2 / Table 2 row M_G / Figure 2 (preprocessing.md §2.8, §4.4); " + pre.ref +
					"; Lemma M (conversion = 1: RDP accountant)",
				Params: append(append([]string(nil), pre.params...), "delta"), Optional: append(append([]string(nil), pre.optional...), common...),
			}, func(p CurveParams) (float64, error) {
				e, err := gaussianPipeline(pre, an.analysis, p)
				if err != nil {
					return 0, err
				}
				return convert(e, p)
			})
		}
	}
	// Table 2 cells.
	for _, m := range []string{"gaussian", "dp-gd", "laplace", "exponential", "sgd-samp", "sgd-iter"} {
		for _, pre := range hssPres {
			switch {
			case m == "sgd-samp" && pre.name != "pca-rank", m == "sgd-iter" && pre.name == "pca-rank":
				continue // Table 2's "–" cells
			}
			params := append(append([]string(nil), pre.params...), "alpha")
			if m == "sgd-iter" && !slices.Contains(params, "n") {
				params = append(params, "n")
			}
			ref := "[HSS24] Table 2 (Theorem 16), paper analysis 1.05(ε~(2α, τ) + ε(2α)) (pure: ε(1 + τ)); " + pre.ref
			if m == "sgd-iter" {
				ref = "[HSS24] Table 2 as printed: 1.1αε²(1 + τ²n log(n−p)/((n−p) log n)); " + pre.ref
			}
			RegisterCurve(CurveInfo{
				Name: "hss24-table2-" + m + "-" + pre.name, Title: "Table 2: " + m + " after " + pre.name + ": " + table2Formulas[m][pre.name],
				Ref: ref, Params: params, Optional: append([]string{"eps"}, pre.optional...),
			}, func(p CurveParams) (float64, error) { return table2Cell(m, pre, p) })
		}
	}
	// Theorem 7 and Proposition 8.
	thm := []string{"eps", "beta", "delta"}
	lmu := func(p CurveParams) (float64, float64) {
		l, mu := 1.0, 1.0
		if v, ok := p["lipschitz"]; ok {
			l = v
		}
		if v, ok := p["mu"]; ok {
			mu = v
		}
		return l, mu
	}
	for _, c := range []struct {
		name, title string
		get         func(accounting.Theorem7) float64
	}{
		{"hss24-thm7-eps-hat", "Theorem 7: ε^ = 3ε√(1.05(1 + 12.2²μ²/(L²β²)) log(1/δ))", func(t accounting.Theorem7) float64 { return t.EpsHat }},
		{"hss24-thm7-eps-total", "Theorem 7: ε^ + ε", func(t accounting.Theorem7) float64 { return t.EpsTotal }},
		{"hss24-thm7-alpha-star", "Theorem 7: α* = 1 + √(log(1/δ)/ρ)", func(t accounting.Theorem7) float64 { return t.AlphaStar }},
		{"hss24-thm7-condition", "Theorem 7: 1 when δ ≤ exp(−ρ) (the theorem applies), else 0", func(t accounting.Theorem7) float64 { return b2f(t.Condition) }},
		{"hss24-thm7-alpha11", "Theorem 7: 1 when α* ≥ 11 (the factor 1.05 is justified), else 0", func(t accounting.Theorem7) float64 { return b2f(t.Alpha11) }},
	} {
		RegisterCurve(CurveInfo{Name: c.name, Title: c.title, Ref: "[HSS24] Theorem 7 (erratum 21: ε squared); optional lipschitz, mu (default 1)",
			Params: thm, Optional: []string{"lipschitz", "mu"}}, func(p CurveParams) (float64, error) {
			l, mu := lmu(p)
			t, err := accounting.PTRTheorem7(p.Get("eps"), p.Get("beta"), p.Get("delta"), l, mu)
			return c.get(t), err
		})
	}
	RegisterCurve(CurveInfo{Name: "hss24-thm7-exact-factor-total", Title: "Theorem 7 with the exact factor: ε^ + ε, Lemma M over every order",
		Ref: "[HSS24] Theorem 7's RDP curve with (2α−1)/(2(α−1)) for 1.05 (preprocessing.md §2.9); no condition on δ", Params: thm, Optional: []string{"lipschitz", "mu"}},
		func(p CurveParams) (float64, error) {
			l, mu := lmu(p)
			_, tot, _, err := accounting.PTRExactFactor(p.Get("eps"), p.Get("beta"), p.Get("delta"), l, mu)
			return tot, err
		})
	RegisterCurve(CurveInfo{Name: "hss24-ptr-ledger-epsilon", Title: "Algorithm 1's ledger (Laplace test, pass bound, PCA + DP-GD), RDP accountant",
		Ref:    "[HSS24] Algorithm 1 accounted by accounting.PTREvent: DP-GD with σ = 2L√T/(εn) (T = 1, L = μ = 1), PCA with Prop. 5's exact Δ₂ at δ_min = β; default n = 1000",
		Params: thm, Optional: []string{"n"}}, func(p CurveParams) (float64, error) {
		n, err := gdRows(p)
		if err != nil {
			return 0, err
		}
		eps, beta, delta := p.Get("eps"), p.Get("beta"), p.Get("delta")
		if !(eps > 0) || !(beta > 0) {
			return 0, fmt.Errorf("eps = %g, beta = %g: want both > 0", eps, beta)
		}
		sigma, nf := 2/(eps*float64(n)), float64(n)
		pipe := accounting.Preprocessed{
			Event:    accounting.Gaussian{Sigma: sigma, Sensitivity: 2 / nf},
			SRDP:     &accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: sigma, N: n, Lipschitz: 1, MuX: 1, Steps: 1},
			DeltaInf: n, Delta2: 4 * (3*nf + 2) / (nf * (nf - 1) * beta), N: n,
		}
		ev, err := accounting.PTREvent(eps, delta, pipe)
		if err != nil {
			return 0, err
		}
		g, err := accounting.Config{}.Epsilon(ev, delta)
		return g.Epsilon, err
	})
	RegisterCurve(CurveInfo{Name: "hss24-prop8-failure", Title: "Proposition 8: probability that Algorithm 1 outputs ⊥",
		Ref:    "[HSS24] Prop. 8: γ = exp(−(δ_k − β)nε/12.2)/(2δ), capped at 1; algorithm1 = 1: the exact probability with Algorithm 1's threshold log(2/δ)/ε (erratum 22)",
		Params: []string{"delta_k", "beta", "n", "eps", "delta"}, Optional: []string{"algorithm1"}}, func(p CurveParams) (float64, error) {
		n, err := intParam(p, "n", 101)
		if err != nil {
			return 0, err
		}
		paper, alg, err := accounting.PTRFailure(p.Get("delta_k"), p.Get("beta"), n, p.Get("eps"), p.Get("delta"))
		if p.Get("algorithm1") != 0 {
			return alg, err
		}
		return paper, err
	})
	// Inversion: the base ε PCA + DP-GD needs for a target.
	for _, an := range []struct{ suffix, analysis string }{
		{"paper", accounting.AnalysisPaper}, {"exact-factor", accounting.AnalysisExactFactor},
		{"tight-pq", accounting.AnalysisTightPQ}, {"tight-pq-min", accounting.AnalysisTightPQMin}, {"best", ""},
	} {
		RegisterCurve(CurveInfo{Name: "hss24-inversion-pca-dpgd-" + an.suffix,
			Title:  "base ε of DP-GD behind PCA rank reduction for a target (ε_total, δ), analysis " + an.suffix,
			Ref:    "[HSS24] Table 2 row A_GD (PCA, constant 12.2, L = μ = 1), inverted (preprocessing.md §2.6 step 5, §2.8); default n = 1000; conversion = 1: dplab's Calibrator",
			Params: []string{"eps_total", "delta", "delta_min"}, Optional: []string{"n", "conversion"}}, func(p CurveParams) (float64, error) {
			dm := p.Get("delta_min")
			if !(dm > 0) || math.IsInf(dm, 0) {
				return 0, fmt.Errorf("delta_min = %g, want a finite value > 0", dm)
			}
			return invertPCADPGD(p, an.analysis, dm)
		})
	}
	RegisterCurve(CurveInfo{Name: "hss24-inversion-dpgd-none", Title: "base ε of DP-GD alone for a target (ε_total, δ)",
		Ref:    "[HSS24] Thm 12: RDP 2αε² (erratum 2), inverted; conversion = 1: dplab's Calibrator",
		Params: []string{"eps_total", "delta"}, Optional: []string{"n", "conversion"}}, func(p CurveParams) (float64, error) {
		return invertPCADPGD(p, "", 0)
	})
	RegisterCurve(CurveInfo{Name: "hss24-lemma2-gaussian", Title: "Lemma 2: subsampled SRDP of the Gaussian mechanism",
		Ref:    "[HSS24] Lemma 2 (B rows with replacement, minimum over k) on ε~(α, τ) = ατ²ε²/2 (σ = 1/ε, L = 1); needs ε~ ≤ 1/(α−1)",
		Params: []string{"alpha", "tau", "n", "b"}, Optional: []string{"eps"}}, func(p CurveParams) (float64, error) {
		eps, err := baseEps(p)
		if err != nil {
			return 0, err
		}
		n, err := intParam(p, "n", 2)
		if err != nil {
			return 0, err
		}
		b, err := intParam(p, "b", 1)
		if err != nil {
			return 0, err
		}
		s := accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: 1 / eps, Sensitivity: 1, L12: 1}
		v, _, err := accounting.SRDPSubsampled(func(a, t float64) (float64, error) { return s.At(a, t, accounting.MetricL12) },
			p.Get("alpha"), p.Get("tau"), n, b)
		return v, err
	})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
