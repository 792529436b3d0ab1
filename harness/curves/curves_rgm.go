package curves

import (
	"fmt"
	"math"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// Analytic curves of the relative Gaussian mechanism paper ([HMB23],
// Hendrikx, Mangold & Bellet, arXiv:2308.15250v2 and its v1): Theorem 1 in
// both versions against the exact Rényi divergence of Lemma 2 (the v1 bound
// fails near its order limit, rgm.md §2.3), and the (ε, δ) conversions of
// Corollary 1.

// rgmEvent builds the RGM event of a curve point: η, γ, d, and v1 = 1 for
// the first version's bound; count > 1 composes it.
func rgmEvent(p CurveParams) (accounting.Event, accounting.RGM, error) {
	e := accounting.RGM{Eta: p.Get("eta"), Gamma: p.Get("gamma"), D: int(p.Get("d")), V1: p.Get("v1") != 0}
	if float64(e.D) != p.Get("d") {
		return nil, e, fmt.Errorf("d = %g is not an integer", p.Get("d"))
	}
	if err := e.Validate(); err != nil {
		return nil, e, err
	}
	var ev accounting.Event = e
	if n := int(p.Get("count")); n > 1 {
		ev = accounting.SelfComposed{Event: e, Count: n}
	}
	return ev, e, nil
}

// rgmExactPair is Lemma 2's exact D_α(RGM(x) ‖ RGM(y)) on the admissible
// pair R(x) = (1+η)e₁, R(y) = e₁ with R_rel = 0 and σ² = sigma2 (default
// 1e-12), rgm.md §2.3.
func rgmExactPair(p CurveParams) float64 {
	eta, g, s2 := p.Get("eta"), p.Get("gamma"), p.Get("sigma2")
	if s2 == 0 {
		s2 = 1e-12
	}
	nx := (1 + eta) * (1 + eta)
	return accounting.RenyiIsotropicGaussians(p.Get("alpha"), eta*eta, g*nx+s2, g+s2, int(p.Get("d")))
}

func init() {
	thm := []string{"eta", "alpha", "gamma", "d"}
	conv := []string{"eta", "gamma", "d", "delta"}
	RegisterCurve(CurveInfo{
		Name: "rgm-bound-over-exact", Title: "Theorem 1 bound / exact D_α",
		Ref: "Hendrikx et al. Thm 1 (v2; v1 = 1 for v1) over Lemma 2's exact divergence on the pair of " +
			"rgm-exact-divergence: below 1 the bound is violated",
		Params: thm, Optional: []string{"v1", "sigma2"},
	}, func(p CurveParams) (float64, error) {
		_, e, err := rgmEvent(p)
		if err != nil {
			return 0, err
		}
		b, err := accounting.RGMEpsilon(e, p.Get("alpha"))
		if err != nil {
			return 0, err
		}
		return b / rgmExactPair(p), nil
	})
	RegisterCurve(CurveInfo{
		Name: "rgm-exact-divergence", Title: "exact D_α (Lemma 2)",
		Ref: "Hendrikx et al. Lemma 2 on the pair R(x) = (1+η)e₁, R(y) = e₁, R_rel = 0, σ² = sigma2 (default 1e-12): " +
			"admissible since ‖R(x) − R(y)‖ = η ≤ η·min‖R‖ (rgm.md §2.3)",
		Params: thm, Optional: []string{"sigma2"},
	}, func(p CurveParams) (float64, error) { return rgmExactPair(p), nil })
	for _, v := range []struct {
		name, title, ref string
		v1               float64
	}{
		{"rgm-rdp", "Theorem 1 (v2)", "Hendrikx et al. v2 Thm 1, Eq. (5)", 0},
		{"rgm-rdp-v1", "Theorem 1 (v1, not a valid bound)", "Hendrikx et al. v1 Thm 1, Eq. (5): its log-term step drops 1/(1 + α(r−1)) (rgm.md §2.3)", 1},
	} {
		RegisterCurve(CurveInfo{Name: v.name, Title: v.title, Ref: v.ref, Params: thm}, func(p CurveParams) (float64, error) {
			p["v1"] = v.v1
			_, e, err := rgmEvent(p)
			if err != nil {
				return 0, err
			}
			return accounting.RGMEpsilon(e, p.Get("alpha"))
		})
	}
	RegisterCurve(CurveInfo{
		Name: "rgm-corollary1", Title: "Corollary 1 closed form",
		Ref: "Hendrikx et al. Cor. 1: ε = χ + 2√(χ log(1/δ)) (v1 = 1: v1's χ); a point whose condition fails is " +
			"undefined (not a guarantee)",
		Params: conv, Optional: []string{"v1", "count"},
	}, func(p CurveParams) (float64, error) {
		_, e, err := rgmEvent(p)
		if err != nil {
			return 0, err
		}
		n := max(1, int(p.Get("count")))
		eps, ok, err := accounting.RGMCorollary1(e, n, p.Get("delta"))
		if err == nil && !ok {
			err = fmt.Errorf("Corollary 1's condition does not hold (η = %g, γ = %g, d = %d, δ = %g)", e.Eta, e.Gamma, e.D, p.Get("delta"))
		}
		return eps, err
	})
	RegisterCurve(CurveInfo{
		Name: "rgm-epsilon-numeric", Title: "numeric optimum over α (the paper's conversion)",
		Ref:    "Hendrikx et al. App. A.5: min over α of ε_RDP(α) + log(1/δ)/(α − 1) (Mironov 2017 Prop. 3)",
		Params: conv, Optional: []string{"v1", "count"},
	}, func(p CurveParams) (float64, error) {
		_, e, err := rgmEvent(p)
		if err != nil {
			return 0, err
		}
		eps, _, err := accounting.RGMEpsilonMironov(e, max(1, int(p.Get("count"))), p.Get("delta"))
		return eps, err
	})
	RegisterCurve(CurveInfo{
		Name: "rgm-epsilon", Title: "RDP accountant (Balle et al. conversion)",
		Ref:    "Hendrikx et al. Thm 1 (v2; v1 = 1 for v1), converted by Balle et al. 2020 Thm 21 over continuous α",
		Params: conv, Optional: []string{"v1", "count"},
	}, func(p CurveParams) (float64, error) {
		ev, _, err := rgmEvent(p)
		if err != nil {
			return 0, err
		}
		g, err := accounting.Config{}.Epsilon(ev, p.Get("delta"))
		return g.Epsilon, err
	})
}

// rgmOrthogonal is max_i ‖X_i‖² X_iᵀA⁻²X_i, the quantity [HMB23] §5.2
// ("Orthogonal data", App. B.3) bounds by 2d, on a balanced orthogonal
// dataset: d directions e_k, each at its own scale a_k = 10^((k mod 5) − 2)
// and in equal proportion (two rows each), A = XᵀX/n + μI. It is computed
// from the rows, by solving with A; its closed form, a⁴/(a²/d + μ)²
// maximised over the scales (d² for μ = 0), is the test's oracle.
func rgmOrthogonal(p CurveParams) (float64, error) {
	d, mu := int(p.Get("d")), p.Get("mu")
	if float64(d) != p.Get("d") || d < 1 || d > 1000 {
		return 0, fmt.Errorf("d = %g: want an integer in [1, 1000]", p.Get("d"))
	}
	if !(mu >= 0) || math.IsInf(mu, 0) {
		return 0, fmt.Errorf("mu = %g: want a finite μ ≥ 0", mu)
	}
	const perDir = 2
	n := perDir * d
	x := mat.NewDense(n, d, nil)
	for k := 0; k < d; k++ {
		for r := 0; r < perDir; r++ {
			x.Set(k*perDir+r, k, math.Pow(10, float64(k%5-2)))
		}
	}
	var a mat.SymDense
	a.SymOuterK(1/float64(n), x.T())
	for k := 0; k < d; k++ {
		a.SetSym(k, k, a.At(k, k)+mu)
	}
	var chol mat.Cholesky
	if !chol.Factorize(&a) {
		return 0, fmt.Errorf("A is not positive definite")
	}
	best := 0.0
	var sol mat.VecDense
	for i := 0; i < n; i++ {
		row := mat.VecDenseCopyOf(x.RowView(i))
		if err := chol.SolveVecTo(&sol, row); err != nil {
			return 0, err
		}
		nx, na := mat.Norm(row, 2), mat.Norm(&sol, 2)
		best = math.Max(best, nx*nx*na*na)
	}
	return best, nil
}

func init() {
	RegisterCurve(CurveInfo{
		Name: "rgm-orthogonal", Title: "‖x‖²xᵀA⁻²x on balanced orthogonal data",
		Ref: "Hendrikx et al. v2 §5.2 'Orthogonal data' (App. B.3), which bounds it by 2d: the largest ‖X_i‖²X_iᵀA⁻²X_i " +
			"of d orthogonal directions at scales 10^((k mod 5) − 2), two rows each, A = XᵀX/n + μI (μ: mu, default 0)",
		Params: []string{"d"}, Optional: []string{"mu"},
	}, rgmOrthogonal)
}
