package curves

import (
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Analytic curves of [RKW23] Redberg, Koskela & Wang, arXiv:2401.00583v1
// (Figures 1, 3, 4 and 5): privacy profiles δ(ε) and their inverses ε(δ) of
// objective perturbation by four bounds, its RDP curve, and the RDP of the
// mechanisms it is compared with. Common parameters: sigma (σ, the noise of
// b), lambda (λ > β), beta (β, the smoothness of the loss), lipschitz (L,
// the gradient bound; 0 or absent means 1, the figures' unstated value,
// objpert.md §6 item 3).

// objPertParams are the parameters every objective-perturbation curve takes.
var objPertParams = []string{"sigma", "lambda", "beta"}

// objPertEvent returns the ObjectivePerturbation event of a curve point.
func objPertEvent(p CurveParams) accounting.ObjectivePerturbation {
	l := p.Get("lipschitz")
	if l == 0 {
		l = 1
	}
	return accounting.ObjectivePerturbation{Sigma: p.Get("sigma"), Lambda: p.Get("lambda"), Beta: p.Get("beta"), L: l}
}

// objPertComposed returns count (default 1) adaptive repetitions of the
// point's objective perturbation ([RKW23] App. D.3.1, Figure 4's k).
func objPertComposed(p CurveParams) accounting.Event {
	var e accounting.Event = objPertEvent(p)
	if k := int(p.Get("count")); k > 1 {
		e = accounting.SelfComposed{Event: e, Count: k}
	}
	return e
}

func init() {
	// Figure 1: δ(ε) by four bounds.
	RegisterCurve(CurveInfo{
		Name: "objpert-delta", Title: "δ(ε) of ObjPert, Thm 3.1 (hockey-stick)",
		Ref:    "RKW23 Thm 3.1, corrected as in App. D.2 (objpert.md §2.4)",
		Params: append(objPertParams, "epsilon"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.ObjPertDelta(objPertEvent(p), p.Get("epsilon"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-rdp-delta", Title: "δ(ε) of ObjPert, RDP (Thm 3.2) converted",
		Ref:    "RKW23 Thm 3.2 (× count), RDP → (ε, δ) by Balle et al. 2020 / Canonne et al. 2020 over continuous α",
		Params: append(objPertParams, "epsilon"), Optional: []string{"lipschitz", "count"},
	}, func(p CurveParams) (float64, error) {
		return accounting.Config{}.Delta(objPertComposed(p), p.Get("epsilon"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-kifer-delta", Title: "δ(ε) of ObjPert, Kifer et al. (2012)",
		Ref:    "RKW23 Thm 2.8 (Kifer, Smith & Thakurta 2012) solved for δ (objpert.md §1.3)",
		Params: append(objPertParams, "epsilon"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.KiferDelta(objPertEvent(p), p.Get("epsilon"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-gaussian-delta", Title: "δ(ε) lower bound: Gaussian mechanism (sensitivity L, noise σ)",
		Ref:    "RKW23 Lemma 3.4 with (B.1), the analytic Gaussian profile",
		Params: append(objPertParams, "epsilon"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.ObjPertLowerBoundDelta(objPertEvent(p), p.Get("epsilon"))
	})

	// The same bounds as ε(δ) (Figure 1 at fixed δ; Figure 4).
	RegisterCurve(CurveInfo{
		Name: "objpert-epsilon", Title: "ε(δ) of ObjPert, Thm 3.1 (hockey-stick)",
		Ref:    "RKW23 Thm 3.1 corrected (objpert.md §2.4), inverted by bisection",
		Params: append(objPertParams, "delta"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.ObjPertEpsilon(objPertEvent(p), p.Get("delta"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-rdp-epsilon", Title: "ε(δ) of ObjPert, RDP (Thm 3.2) converted",
		Ref:    "RKW23 Thm 3.2 (× count), RDP → (ε, δ) by Balle et al. 2020 Thm 21 over continuous α",
		Params: append(objPertParams, "delta"), Optional: []string{"lipschitz", "count"},
	}, func(p CurveParams) (float64, error) {
		g, err := accounting.Config{}.Epsilon(objPertComposed(p), p.Get("delta"))
		return g.Epsilon, err
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-pld-epsilon", Title: "ε(δ) of ObjPert, PLD of (D.11)",
		Ref:    "RKW23 Lemma D.7 / (D.11) (× count), pessimistic PLD on a grid of width interval (0: 1e-4)",
		Params: append(objPertParams, "delta"), Optional: []string{"lipschitz", "count", "interval"},
	}, func(p CurveParams) (float64, error) {
		g, err := accounting.Config{Kind: "pld", Interval: p.Get("interval")}.Epsilon(objPertComposed(p), p.Get("delta"))
		return g.Epsilon, err
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-kifer-epsilon", Title: "ε(δ) of ObjPert, Kifer et al. (2012)",
		Ref:    "RKW23 Thm 2.8 solved for ε (objpert.md §1.3)",
		Params: append(objPertParams, "delta"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.KiferEpsilon(objPertEvent(p), p.Get("delta"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-gaussian-epsilon", Title: "ε(δ) lower bound: Gaussian mechanism (sensitivity L, noise σ)",
		Ref:    "RKW23 Lemma 3.4 with (B.1), inverted",
		Params: append(objPertParams, "delta"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		e := objPertEvent(p)
		return accounting.GaussianEpsilon(e.L/e.Sigma, p.Get("delta"))
	})

	// Figures 3 and 5: RDP curves.
	RegisterCurve(CurveInfo{
		Name: "objpert-rdp", Title: "RDP of ObjPert, Thm 3.2",
		Ref:    "RKW23 Thm 3.2 closed form: −log(1−β/λ) + αL²/(2σ²) + log(2Φ((α−1)L/σ))/(α−1) (objpert.md §2.3)",
		Params: append(objPertParams, "alpha"), Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		return accounting.ObjPertRDP(objPertEvent(p), p.Get("alpha"))
	})
	RegisterCurve(CurveInfo{
		Name: "objpert-half-normal-rdp", Title: "RDP of the half-normal mechanism f(Z) + |N(0, σ²)|",
		Ref: "RKW23 App. C.2, Figure 3: Thm 3.2 without its leading term −log(1−β/λ), i.e. β = 0 " +
			"(the formula is not printed; objpert.md §5.5)",
		Params: []string{"sigma", "alpha"}, Optional: []string{"lipschitz"},
	}, func(p CurveParams) (float64, error) {
		e := objPertEvent(p)
		e.Beta, e.Lambda = 0, 1 // c₀ = −log(1 − 0/λ) = 0 for any λ > 0
		return accounting.ObjPertRDP(e, p.Get("alpha"))
	})
	RegisterCurve(CurveInfo{
		Name: "dpsgd-rdp", Title: "RDP of DP-SGD (steps of the Poisson-subsampled Gaussian)",
		Ref: "Mironov, Talwar & Zhang 2019 (integer α exact; fractional α by dp_accounting's series, an upper bound), " +
			"× steps; RKW23 App. I.1, Figure 5",
		Params: []string{"q", "sigma", "alpha"}, Optional: []string{"steps"},
	}, func(p CurveParams) (float64, error) {
		var e accounting.Event = accounting.PoissonSampledGaussian{Q: p.Get("q"), NoiseMultiplier: p.Get("sigma")}
		if k := int(p.Get("steps")); k > 1 {
			e = accounting.SelfComposed{Event: e, Count: k}
		}
		return accounting.Config{}.RDP(e, p.Get("alpha"))
	})
}
