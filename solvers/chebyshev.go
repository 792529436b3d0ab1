package solvers

import (
	"fmt"
	"math"
)

// Chebyshev returns the coefficients c₀, …, c_{n−1} of the Chebyshev
// interpolant of f on [a, b] through the n Chebyshev nodes, in Numerical
// Recipes' convention:
//
//	f(x) ≈ Σ_{j<n} cⱼ Tⱼ(y) − c₀/2,   y = (2x − a − b)/(b − a) ∈ [−1, 1],
//	cⱼ = (2/n) Σ_{k<n} f(xₖ) cos(πj(k + ½)/n),   xₖ = ((b − a)/2)·cos(π(k + ½)/n) + (a + b)/2.
//
// The polynomial has degree n − 1 and equals f at the n nodes.
//
// Ref: [PTVF92] §5.8, routine chebft. GaussMix's code calls the same construction
// Chebyshev(a, b, n, f) ([LSS+25] code, shared/research/reference-code.md §6
// G4). It returns an error unless n ≥ 1 and a < b are finite.
func Chebyshev(f func(float64) float64, a, b float64, n int) ([]float64, error) {
	if n < 1 {
		return nil, fmt.Errorf("solvers: Chebyshev needs n ≥ 1 nodes, got %d", n)
	}
	if !(a < b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil, fmt.Errorf("solvers: Chebyshev interval [%v, %v] must be finite with a < b", a, b)
	}
	half, mid := (b-a)/2, (a+b)/2
	fk := make([]float64, n)
	for k := range fk {
		fk[k] = f(half*math.Cos(math.Pi*(float64(k)+0.5)/float64(n)) + mid)
	}
	c := make([]float64, n)
	for j := range c {
		var s float64
		for k, v := range fk {
			s += v * math.Cos(math.Pi*float64(j)*(float64(k)+0.5)/float64(n))
		}
		c[j] = 2 * s / float64(n)
	}
	return c, nil
}

// ChebyshevMonomial converts Chebyshev coefficients c on [a, b] (the
// convention of Chebyshev) to monomial coefficients p: the same polynomial
// is Σₖ pₖ xᵏ. It expands Σ cⱼTⱼ(y) − c₀/2 in powers of y with the recurrence
// T_{j+1}(y) = 2y·Tⱼ(y) − T_{j−1}(y), then substitutes
// y = (2x − a − b)/(b − a) by Horner's rule.
//
// Ref: [PTVF92] §5.10 (chebpc, pcshft).
func ChebyshevMonomial(c []float64, a, b float64) []float64 {
	n := len(c)
	if n == 0 {
		return nil
	}
	// py: the polynomial in y; tPrev, tCur: T_{j−1}, T_j in powers of y.
	py := make([]float64, n)
	tPrev, tCur := make([]float64, n), make([]float64, n)
	tCur[0] = 1 // T₀
	py[0] = c[0] / 2
	for j := 1; j < n; j++ {
		tNext := make([]float64, n)
		if j == 1 {
			tNext[1] = 1 // T₁ = y
		} else {
			for k := 1; k < n; k++ {
				tNext[k] = 2 * tCur[k-1]
			}
			for k := range tNext {
				tNext[k] -= tPrev[k]
			}
		}
		tPrev, tCur = tCur, tNext
		for k, v := range tCur {
			py[k] += c[j] * v
		}
	}
	// p(x) = py(αx + β): Horner, multiplying by the linear factor αx + β.
	alpha, beta := 2/(b-a), -(a+b)/(b-a)
	p := make([]float64, n)
	for k := n - 1; k >= 0; k-- {
		for i := n - 1; i >= 1; i-- {
			p[i] = p[i]*beta + p[i-1]*alpha
		}
		p[0] = p[0]*beta + py[k]
	}
	return p
}

// Quadratic is the polynomial q(s) = B0 + B1·s + B2·s².
type Quadratic struct{ B0, B1, B2 float64 }

// Eval returns q(s).
func (q Quadratic) Eval(s float64) float64 { return q.B0 + s*(q.B1+s*q.B2) }

// LogisticSurrogate returns, in the monomial basis, the degree-2 Chebyshev
// interpolant of the logistic log-likelihood log sigmoid(s) = −log(1 + e^−s)
// on [−Q, Q] ([LSS+25] §5.2 uses Q = 6). For Q = 6: B0 = −log 2 (to 1e-15),
// B1 = 1/2, B2 = −0.0707575 (max error 0.2379 on [−6, 6]); the Chebyshev-basis
// coefficients are c = (−3.93356, 3, −1.27363) (shared/research/
// reference-code.md §6 G4) and B = (c₀/2 − c₂, c₁/Q, 2c₂/Q²).
//
// Ref: [LSS+25] §5.2 and App. G, following [HAB17]. Symbols: (b₀, b₁, b₂) =
// (B0, B1, B2).
// preset "code": the authors' notebook uses the Chebyshev-basis c as if it
// were (b₀, b₁, b₂) (reference-code.md §8 item 7), so its response scale is
// −c₁/(2c₂) = 1.17773 instead of −b₁/(2b₂) = 3.53320; both are positive, so
// predictions sign(xᵀθ) and accuracy are unchanged. A mechanism reproducing
// that can call Chebyshev directly.
//
// It returns an error unless Q is finite and > 0.
func LogisticSurrogate(Q float64) (Quadratic, error) {
	if !(Q > 0) || math.IsInf(Q, 1) {
		return Quadratic{}, fmt.Errorf("solvers: surrogate interval half-width Q = %v must be finite and > 0", Q)
	}
	c, err := Chebyshev(func(s float64) float64 {
		v, _ := logisticValueDeriv(-s, 0) // log(1 + e^−s)
		return -v
	}, -Q, Q, 3)
	if err != nil {
		return Quadratic{}, err
	}
	p := ChebyshevMonomial(c, -Q, Q)
	return Quadratic{B0: p[0], B1: p[1], B2: p[2]}, nil
}

// ResponseScale returns −B1/(2·B2), the factor that turns ±1 labels into
// the least-squares response of the surrogate problem (see Response).
func (q Quadratic) ResponseScale() float64 { return -q.B1 / (2 * q.B2) }

// Response returns the least-squares response Ỹ whose ordinary least
// squares solution maximises the surrogate log-likelihood, for labels
// y ∈ {0, 1} mapped to tᵢ = 2yᵢ − 1 ∈ {−1, +1}:
//
//	Ỹᵢ = −(B1/(2B2))·tᵢ.
//
// Algebra ([LSS+25] §5.2, eq. (10); App. G, eqs. (65)–(67)): with sᵢ = tᵢθᵀxᵢ
// and tᵢ² = 1,
//
//	Σᵢ q(sᵢ) = n·B0 + B1·θᵀXᵀt + B2·‖Xθ‖²
//	         = n·B0 − B1²‖t‖²/(4B2) + B2·‖Ỹ − Xθ‖²,
//
// so for B2 < 0 maximising the surrogate is minimising ‖Ỹ − Xθ‖²:
// θ̃* = (XᵀX)⁻¹XᵀỸ = ResponseScale()·(XᵀX)⁻¹Xᵀt. A private least-squares
// solver (LinearMixing, [LSS+25] Alg. 2) can therefore run on (X, t), whose
// response bound is C_Y = 1, and scale its output by ResponseScale() (App. G),
// or run on (X, Ỹ) with C_Y = |ResponseScale()|.
//
// It returns an error for a label outside {0, 1} or if B2 ≥ 0 (no
// maximiser).
func (q Quadratic) Response(y []float64) ([]float64, error) {
	if err := checkLabels(y); err != nil {
		return nil, err
	}
	if !(q.B2 < 0) {
		return nil, fmt.Errorf("solvers: surrogate B2 = %v must be < 0 (concave log-likelihood)", q.B2)
	}
	s := q.ResponseScale()
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = s * (2*v - 1)
	}
	return out, nil
}
