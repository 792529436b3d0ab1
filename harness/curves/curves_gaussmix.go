package curves

import (
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Analytic curves of the Gaussian mixing paper ([LSS+25] Lev et al.,
// arXiv:2505.24603, Figure 1).

// gaussMixCurveEpsilon is ε(δ) of GaussMix with k rows and γ by Lemma 1,
// eq. (4), converted by Prop. 1 ([CKS20] Prop. 12) with a continuous
// minimisation over α ∈ (1, γ) (the RDP accountant's default orders).
func gaussMixCurveEpsilon(p CurveParams) (float64, error) {
	g, err := accounting.Config{}.Epsilon(accounting.GaussMix{K: int(p.Get("k")), Gamma: p.Get("gamma")}, p.Get("delta"))
	return g.Epsilon, err
}

func init() {
	params := []string{"k", "gamma", "delta"}
	RegisterCurve(CurveInfo{
		Name: "gaussmix-epsilon", Title: "Gaussian Mixing: RDP (ours), converted via Prop. 1",
		Ref:    "Lev et al. 2025 Lemma 1 + Prop. 1 (Canonne et al. 2020 Prop. 12), continuous α",
		Params: params,
	}, gaussMixCurveEpsilon)
	RegisterCurve(CurveInfo{
		Name: "sheffet19-epsilon", Title: "Sheffet '19, Theorem 2",
		Ref:    "Sheffet 2019 Thm 2: ε = 2√(2k log(4/δ))/γ + 2 log(4/δ)/γ",
		Params: params,
	}, func(p CurveParams) (float64, error) {
		return accounting.Sheffet2019Epsilon(int(p.Get("k")), p.Get("gamma"), p.Get("delta")), nil
	})
	RegisterCurve(CurveInfo{
		Name: "gaussmix-sheffet19-ratio", Title: "ε Sheffet '19 / ε GaussMix",
		Ref:    "Lev et al. 2025 Fig. 1(b): Sheffet 2019 Thm 2 over Lemma 1 + Prop. 1",
		Params: params,
	}, func(p CurveParams) (float64, error) {
		ours, err := gaussMixCurveEpsilon(p)
		if err != nil {
			return 0, err
		}
		return accounting.Sheffet2019Epsilon(int(p.Get("k")), p.Get("gamma"), p.Get("delta")) / ours, nil
	})
}
