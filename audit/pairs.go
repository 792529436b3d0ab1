package audit

import (
	"fmt"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// customPair is a pair and statistic built for one mechanism's released
// statistics (Setup.custom), instead of the default canary and the
// prediction along it.
type customPair struct {
	d0, d1          *datasets.Dataset
	pair, statistic string
	stat            func(r *mechanisms.Release) (float64, error)
}

// noiseValue returns r.Noise[key] (or r.Stats[key]), an error when the
// release does not report it.
func noiseValue(r *mechanisms.Release, key string) (float64, error) {
	if v, ok := r.Noise[key]; ok {
		return v, nil
	}
	if v, ok := r.Stats[key]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("the release reports no %q", key)
}

// noiseValues returns noiseValue of each key, in order.
func noiseValues(r *mechanisms.Release, keys ...string) ([]float64, error) {
	out := make([]float64, len(keys))
	for i, k := range keys {
		v, err := noiseValue(r, k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// adasspPair is AdaSSP's pair (add/remove): D₀ holds nG rows (e_d, y = 1)
// and nA rows (eᵢ, ±1, cancelling) on each other coordinate, nA ≥ nG + 2, so
// λ_min(XᵀX) = nG lies along e_d; the canary is (e_d, −1). It moves all three
// of AdaSSP's noisy statistics by their full sensitivity: λ_min by +1 (e_d
// stays the smallest direction), (XᵀX)_dd by +1 and (Xᵀy)_d by −1 ([Wang18]
// Alg. 2 lines 3, 5, 6). nG is chosen from the probe fit's noise so that
// λ̃_min exceeds the ridge constant of line 4 by 6 noise std: λ = 0, and
// θ_d = (Xᵀỹ)_d/(XᵀX̃)_dd up to second-order terms, ≈ 1 on D₀. The statistic
// λ̃_min − nG·θ_d then moves by +1 (λ̃_min) + 2nG/(nG+1) (θ_d's numerator and
// denominator, each by one sensitivity, in the same direction) against noise
// of variance 3m² (m the noise multiplier): the three releases' joint
// Gaussian test, μ = √3/m.
func adasspPair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationAddRemove {
		return nil, fmt.Errorf("adassp's pair is add/remove; the ledger's relation is %s", relation)
	}
	v, err := noiseValues(probe, "noise_multiplier", "lambda", "lambda_min_tilde")
	if err != nil {
		return nil, err
	}
	m, lam, lamTilde := v[0], v[1], v[2]
	// λ + λ̃_min bounds line 4's constant; m·√log(6/δ) is line 3's shift.
	nG := int(math.Ceil(lam + lamTilde + m*math.Sqrt(math.Log(6/b.Delta)) + 6*m))
	nA := nG + 2 + nG%2
	d := s.Dim
	rows := nG + (d-1)*nA
	build := func(canary bool) *datasets.Dataset {
		n := rows
		if canary {
			n++
		}
		x := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		i := 0
		for j := 0; j < d-1; j++ {
			for r := 0; r < nA; r++ {
				x.Set(i, j, 1)
				y[i] = float64(1 - 2*(r%2))
				i++
			}
		}
		for r := 0; r < nG; r++ {
			x.Set(i, d-1, 1)
			y[i] = 1
			i++
		}
		if canary {
			x.Set(i, d-1, 1)
			y[i] = -1
		}
		return &datasets.Dataset{Name: "audit-pair", Task: datasets.Regression, X: x, Y: y}
	}
	g := float64(nG)
	return &customPair{
		d0: build(false), d1: build(true),
		pair:      fmt.Sprintf("add/remove: D₁ = D₀ ∪ {(e_d, −1)}; D₀ holds %d rows (e_d, 1) and %d rows (eᵢ, ±1) on each other coordinate, so λ_min(XᵀX) = %d lies along e_d and the canary moves λ_min, (XᵀX)_dd and (Xᵀy)_d each by its sensitivity", nG, nA, nG),
		statistic: fmt.Sprintf("λ̃_min − %d·θ_d: the released λ̃_min (Release.Noise) plus θ_d, which is (Xᵀỹ)_d/(XᵀX̃)_dd ≈ 1 on D₀ (λ = 0)", nG),
		stat: func(r *mechanisms.Release) (float64, error) {
			lt, err := noiseValue(r, "lambda_min_tilde")
			if err != nil {
				return 0, err
			}
			theta := r.Model.(*mechanisms.Linear).Theta
			return lt - g*theta[d-1], nil
		},
	}, nil
}

// gramPair builds a zero-out pair for the Gaussian-sketch mechanisms, whose
// data-dependent release is a noisy λ_min of ZᵀZ, Z = [X, y]: D₀'s joint
// Gram matrix is a·uuᵀ plus eigenvalues ≥ a + 2 + margin on the other
// directions, u = (e_d, 1)/√2 the canary's direction, so the canary
// z = (e_d, 1) (‖z‖² = C² = 2 with the default bounds) raises λ_min(ZᵀZ) from
// a to a + 2, the release's full sensitivity. D₀ holds a zero row where D₁
// holds z.
func gramPair(s Setup, a float64) (d0, d1 *datasets.Dataset, desc string) {
	d := s.Dim
	full := int(math.Floor(a / 2)) // rows (e_d, 1), each adding 2uuᵀ
	c := math.Sqrt((a - 2*float64(full)) / 2)
	other := int(math.Ceil(a)) + 12 // rows (e_d, −1) add 2vvᵀ; rows eᵢ add eᵢeᵢᵀ
	rows := full + 1 + other/2 + (d-1)*other
	build := func(canary bool) *datasets.Dataset {
		x := mat.NewDense(rows+1, d, nil)
		y := make([]float64, rows+1)
		i := 0
		for r := 0; r < full; r++ {
			x.Set(i, d-1, 1)
			y[i] = 1
			i++
		}
		x.Set(i, d-1, c)
		y[i] = c
		i++
		for r := 0; r < other/2; r++ {
			x.Set(i, d-1, 1)
			y[i] = -1
			i++
		}
		for j := 0; j < d-1; j++ {
			for r := 0; r < other; r++ {
				x.Set(i, j, 1)
				i++
			}
		}
		if canary {
			x.Set(i, d-1, 1)
			y[i] = 1
		}
		return &datasets.Dataset{Name: "audit-pair", Task: datasets.Regression, X: x, Y: y}
	}
	desc = fmt.Sprintf("zero-out: D₁ = D₀ with its zero row replaced by z = (e_d, 1); D₀'s other %d rows make λ_min([X y]ᵀ[X y]) = %.4g along z's direction (the other eigenvalues ≥ %.4g), so z raises it by ‖z‖² = 2, its sensitivity", rows, a, a+12)
	return build(false), build(true), desc
}

// sheffetPair is Sheffet '17's pair: λ_min([X y]ᵀ[X y]) of D₁ sits at the
// centre of the mechanism's Laplace test (the threshold W plus the shift
// b·log(1/δ), as the probe fit reports them), where the test's outcome has
// its largest likelihood ratio e^{C²/b} at the largest pass probability ½
// ([She17] Alg. 1; [LSS+25] Alg. 4 line 5). The statistic is the test's
// outcome (Release.Stats no_noise_branch): the ledger charges it as a
// Laplace release, so a test on it audits that part of the claim.
func sheffetPair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationZeroOut {
		return nil, fmt.Errorf("the sketch pair is zero-out; the ledger's relation is %s", relation)
	}
	v, err := noiseValues(probe, "threshold", "laplace_scale")
	if err != nil {
		return nil, err
	}
	centre := v[0] + v[1]*math.Log(1/b.Delta) // W + b·log(1/δ)
	d0, d1, desc := gramPair(s, centre-2)
	return &customPair{d0: d0, d1: d1,
		pair:      desc + fmt.Sprintf("; D₁'s λ_min = %.4g is the Laplace test's centre W + b·log(1/δ)", centre),
		statistic: "the Laplace test's outcome (1: passed, no noise added; Release.Stats no_noise_branch)",
		stat:      func(r *mechanisms.Release) (float64, error) { return noiseValue(r, "no_noise_branch") },
	}, nil
}

// mixingPair is linear mixing's pair: λ_min([X y]ᵀ[X y]) of D₀ is 6 noise
// std above the downward shift η·C²·τ of λ̃ ([LSS+25] Alg. 1 line 5), so
// λ̃ = λ_min − η·C²·(τ − z) is never clipped at 0 and is a Gaussian release
// whose mean the canary moves by C², its sensitivity. The statistic is that
// λ̃ (Release.Noise lambda_tilde). The sketch itself shows the canary only
// as a change of (a + 2)/a in one direction's variance, negligible at this
// a, and is not read.
func mixingPair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationZeroOut {
		return nil, fmt.Errorf("the sketch pair is zero-out; the ledger's relation is %s", relation)
	}
	eta, err := noiseValue(probe, "eta_std")
	if err != nil {
		return nil, err
	}
	tau := math.Sqrt(2 * math.Log(3/b.Delta))
	a := math.Ceil(eta * (tau + 6))
	d0, d1, desc := gramPair(s, a)
	return &customPair{d0: d0, d1: d1, pair: desc,
		statistic: "λ̃, the released noisy λ_min([X y]ᵀ[X y]) (Release.Noise lambda_tilde)",
		stat:      func(r *mechanisms.Release) (float64, error) { return noiseValue(r, "lambda_tilde") },
	}, nil
}

// curvaturePair is objective perturbation's pair (add/remove, the default
// canary (e_d, label 1)) with the likelihood-ratio statistic of θ_d. The
// release is θ* = the minimiser of L(θ) + bᵀθ + (λ/2)‖θ‖², b ~ N(0, σ²I), so
// b = −∇L(θ*) − λθ*, and θ*'s density is b's density times
// |det(∇²L(θ*) + λI)| ([KST12] Thm 1's proof). D₀'s rows on the canary's
// coordinate are kiferShiftRows rows (c·e_d, label 0), c = kiferShiftFeature;
// the other rows are orthogonal to it, so the Hessian is block diagonal and,
// along e_d, with G₀(t) = m·c·s(ct) and H₀(t) = m·c²·s′(ct) the gradient and
// curvature of those m rows (s the logistic function, t = θ_d),
//
//	b₀(t) = −G₀(t) − λt,  J₀(t) = λ + H₀(t)                    (D₀)
//	b₁(t) = b₀(t) + g,     J₁(t) = J₀(t) + s′(t),  g = s(−t)    (D₁: + the canary)
//	log p₁(t)/p₀(t) = log(J₁/J₀) − (2b₀g + g²)/(2σ²).
//
// Why the shift rows: the first term, the canary's curvature, is largest near
// t = 0, where it is log(1 + s′(0)/J₀) ≤ log(1 + β/λ) (β = ¼; [RKW23] Thm
// 2.8: λ ≥ 2β/ε bounds it by ε/2); the second, the canary's gradient, is
// positive only where b₀ < −g/2. Without shift rows b₀ = −λt ≈ 0 near t = 0,
// so the two terms never reinforce: the largest log-ratio (log 3.47 = 1.25
// for the broken variant) sits in a region holding ≈ 5% of D₀'s runs. With
// them b₀(0) = −mc/2 = −S, so where the curvature term is large the gradient
// term adds ≈ (2S·½ − ¼)/(2σ²), in D₀'s tail at b₀ = −S. Their own curvature
// H₀ ≤ mc²/4 = Sc/2 lowers the first term, so c is small: S = 3 (1.4σ of
// the broken variant's σ = 2.19) with c = 0.02 (H₀ ≤ 0.03 against its
// λ = 0.101). Computed from this density by numerical integration (expected
// counts at the best threshold, Clopper–Pearson at 25,000 evaluation runs per
// side): 1.19 for the broken variant, against 1.07 without shift rows (at
// 10⁶ runs both give 1.42); for the real mechanism (σ = 10.2, λ = 0.505)
// 0.26. The statistic is this log-ratio at the fit's reported σ and λ
// (Release.Noise sigma, lambda of the probe fit), the Neyman–Pearson
// statistic of the coordinate; the output noise σ_out (≈ 10⁻³) is ignored.
func curvaturePair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationAddRemove {
		return nil, fmt.Errorf("objective perturbation's pair is add/remove; the ledger's relation is %s", relation)
	}
	v, err := noiseValues(probe, "sigma", "lambda")
	if err != nil {
		return nil, err
	}
	sigma, lambda := v[0], v[1]
	d := s.Dim
	m, c := kiferShiftRows, kiferShiftFeature
	build := func(canary bool) *datasets.Dataset {
		base := baseData(s, 0)
		n := s.Rows + m
		if canary {
			n++
		}
		x := mat.NewDense(n, d, nil)
		x.Slice(0, s.Rows, 0, d).(*mat.Dense).Copy(base.X)
		y := make([]float64, n)
		copy(y, base.Y)
		for i := s.Rows; i < s.Rows+m; i++ {
			x.Set(i, d-1, c) // label 0
		}
		if canary {
			x.Set(n-1, d-1, 1)
			y[n-1] = 1
		}
		return &datasets.Dataset{Name: "audit-pair", Task: s.Task, X: x, Y: y}
	}
	logistic := func(t float64) float64 { return 1 / (1 + math.Exp(-t)) }
	mf := float64(m)
	return &customPair{d0: build(false), d1: build(true),
		pair:      fmt.Sprintf("add/remove: D₁ = D₀ ∪ {canary (x* = e_d, y* = 1)}; D₀ holds %d rows (%g·e_d, y = 0), which shift the objective's noise by −%g on the canary's coordinate near θ_d = 0, and %d rows 0.5·eᵢ on the first %d coordinates", m, c, mf*c/2, s.Rows, d-1),
		statistic: fmt.Sprintf("log p₁(θ_d)/p₀(θ_d) at σ = %.4g, λ = %.4g: the likelihood ratio of θ along the canary (the noise's density times the Hessian's determinant, on each side)", sigma, lambda),
		stat: func(r *mechanisms.Release) (float64, error) {
			t := r.Model.(*mechanisms.Linear).Theta[d-1]
			sc := logistic(c * t)
			b0 := -mf*c*sc - lambda*t
			j0 := lambda + mf*c*c*sc*(1-sc)
			g := logistic(-t)
			return math.Log1p(g*(1-g)/j0) - (2*b0*g+g*g)/(2*sigma*sigma), nil
		},
	}, nil
}

// kiferShiftRows and kiferShiftFeature are curvaturePair's shift rows on the
// canary's coordinate: kiferShiftRows rows (kiferShiftFeature·e_d, label 0),
// S = 300·0.02/2 = 3.
const (
	kiferShiftRows    = 300
	kiferShiftFeature = 0.02
)

// projectionPair is ptr-pca-dpgd's pair (replace-one). D₀'s rows are ±e₁ and
// ±e₂ in turn (labels alternating, s.Rows in all), so the centred covariance
// has eigenvalues ≈ ½, ½, 0 along e₁, e₂, e_d: the eigengap δ₂ ≈ ½ far above
// the proposal β, and PTR's distance J = (δ₂ − β)·n/12.2 ([HSS24] Eq. 59;
// 160 at n = 4,000, β = 0.01) clears the test's threshold log(2/δ_A)/ε_T
// (129 at ε = 1) in ≈ 98% of runs. D₀'s last row is (e₁, 1), D₁'s is
// ((e₁ + e_d)/√2, 1): its covariance entry (e₁, e_d) of ≈ ½/n against the
// gap ½ between e₁'s and e_d's eigenvalues tilts the top-2 subspace
// towards e_d by ≈ 1/n, so P₁ ≠ P₀, while no other row changes. The
// statistic is |θ_d|/‖θ‖ (0 at ⊥), the release's share along e_d, the
// direction D₀'s PCA discards. A release in span(P) (θ folded through the
// non-private projector) has θ_d = 0 on D₀ and ≠ 0 on D₁: the pair exposes
// the projector. A_GD's own θ has noise along e_d on both sides, and one
// step moves it there only through the tilted gradient of one row, which
// the ledger's noise hides (docs/trust.md).
func projectionPair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationReplaceOne {
		return nil, fmt.Errorf("the PCA pair is replace-one; the ledger's relation is %s", relation)
	}
	d := s.Dim
	tilted := make([]float64, d)
	tilted[0], tilted[d-1] = math.Sqrt(0.5), math.Sqrt(0.5)
	return &customPair{d0: axesRows(s, unit(d, 0, 1)), d1: axesRows(s, tilted),
		pair:      fmt.Sprintf("replace-one: D₀ holds (e₁, 1) where D₁ holds ((e₁ + e_d)/√2, 1); the other %d rows are ±e₁, ±e₂ in turn (eigengap δ₂ ≈ ½, so PTR's test passes), none on e_d, so D₁'s row tilts the top-2 subspace towards e_d", s.Rows-1),
		statistic: "|θ_d|/‖θ‖ (0 at ⊥): the release's share along e_d, the principal direction D₀'s PCA discards",
		stat: func(r *mechanisms.Release) (float64, error) {
			t := r.Model.(*mechanisms.Linear).Theta
			if n := floats.Norm(t, 2); n > 0 {
				return math.Abs(t[d-1]) / n, nil
			}
			return 0, nil
		},
	}, nil
}

// gradientPair is ptr-pca-dpgd's second pair (replace-one), for the per-
// example gradient bound: D₀'s rows are projectionPair's, its last row
// (−e₁, 1) where D₁ holds (e₁, 1). Both sides have the same second-moment
// matrix; with s.Rows − 1 a multiple of 8 the other rows sum to 0, so the
// means ∓e₁/n differ only in sign and the centred covariances are equal:
// the PCA, its projector (onto span(e₁, e₂)) and PTR's test behave the same
// on both sides. What differs is the replaced
// row's logistic gradient at θ₀ = 0, ∓½·e₁ (inside span(P)), so one step
// moves θ₁ by η/n between the sides, or by η·2C/n once the gradient is
// clipped to C < ½. The statistic is θ₁ (0 at ⊥).
func gradientPair(s Setup, relation string, b mechanisms.Budget, probe *mechanisms.Release) (*customPair, error) {
	if relation != accounting.RelationReplaceOne {
		return nil, fmt.Errorf("the PCA pair is replace-one; the ledger's relation is %s", relation)
	}
	if (s.Rows-1)%8 != 0 {
		return nil, fmt.Errorf("the gradient pair needs rows − 1 a multiple of 8 (the other rows then sum to 0), got %d rows", s.Rows)
	}
	return &customPair{d0: axesRows(s, unit(s.Dim, 0, -1)), d1: axesRows(s, unit(s.Dim, 0, 1)),
		pair:      fmt.Sprintf("replace-one: D₀ holds (−e₁, 1) where D₁ holds (e₁, 1); the other %d rows are ±e₁, ±e₂ in turn (eigengap δ₂ ≈ ½, so PTR's test passes), none on e_d: the PCA and the test see the same covariance on both sides, and the replaced row's gradient ∓½·e₁ lies in the kept subspace", s.Rows-1),
		statistic: "θ₁ (0 at ⊥): the release along the replaced row's gradient",
		stat: func(r *mechanisms.Release) (float64, error) {
			return r.Model.(*mechanisms.Linear).Theta[0], nil
		},
	}, nil
}

// axesRows returns s.Rows binary rows: ±e₁, ±e₂ in turn (labels
// alternating) and last the row (last, 1).
func axesRows(s Setup, last []float64) *datasets.Dataset {
	n, d := s.Rows, s.Dim
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n-1; i++ {
		x.Set(i, (i/2)%2, float64(1-2*((i/4)%2)))
		y[i] = float64(i % 2)
	}
	x.SetRow(n-1, last)
	y[n-1] = 1
	return &datasets.Dataset{Name: "audit-pair", Task: s.Task, X: x, Y: y}
}

// unit returns v·e_i in d dimensions.
func unit(d, i int, v float64) []float64 {
	u := make([]float64, d)
	u[i] = v
	return u
}
