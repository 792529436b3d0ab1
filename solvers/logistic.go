package solvers

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LogisticConfig selects the variant of the logistic loss.
type LogisticConfig struct {
	// Bias appends a constant feature 1 to every row: x̃ᵢ = [xᵢ; 1], and the
	// intercept is the last coordinate of θ. False: x̃ᵢ = xᵢ.
	Bias bool
	// Clip > 0 replaces every example's loss by its clipped-gradient loss
	// ℓ_C with threshold C = Clip (see Logistic). 0 means no clipping.
	Clip float64
}

// Logistic is the logistic loss of a linear model, summed (not averaged) over
// the examples, with labels yᵢ ∈ {0, 1}:
//
//	L(θ) = Σᵢ f(x̃ᵢᵀθ; yᵢ),     f(u; y) = log(1 + eᵘ) − y·u,
//	f'(u; y) = sigmoid(u) − y,   f″(u) = sigmoid(u)(1 − sigmoid(u)),
//	∇L(θ) = Σᵢ f'(uᵢ) x̃ᵢ = X̃ᵀr,   ∇²L(θ) = X̃ᵀ diag(f″(uᵢ)) X̃,
//
// with uᵢ = x̃ᵢᵀθ. log(1 + eᵘ) is evaluated as max(u, 0) + log1p(e^−|u|), which
// neither overflows nor loses digits.
//
// With LogisticConfig.Clip = C > 0, each example's loss becomes the convex
// clipped-gradient loss ℓ_C whose gradient is ∇ℓ·min(1, C/‖∇ℓ‖). For a GLM
// with a = C/‖x̃ᵢ‖ < 1 it is linear outside [u_L, u_H]:
//
//	f_C(u) = −a(u − u_L) + f(u_L)   u < u_L,   u_L = logit(y − a) if y − a ∈ (0, 1), else −∞
//	f_C(u) = f(u)                   u_L ≤ u ≤ u_H
//	f_C(u) =  a(u − u_H) + f(u_H)   u > u_H,   u_H = logit(y + a) if y + a ∈ (0, 1), else +∞
//
// Ref: [RKW23] §4 and App. F.2 (Thm F.2, from [SCS20] Lemma 5.1).
// Paper: f_C omits the constants +f(u_L) and +f(u_H); corrected: they are
// added because without them f_C is discontinuous, which breaks line
// searches (gradients are unchanged; the released code has them).
// Since |f'| < 1, clipping at C ≥ ‖x̃ᵢ‖ changes nothing (for unit-norm rows
// with bias, C = √2 is a no-op, [RKW23] §5).
//
// Symbols: X̃ = [X, 1] with Bias, θ = [w; w₀], r = (f'(uᵢ))ᵢ.
//
// A Logistic does not change after NewLogistic: it is safe for concurrent
// use.
type Logistic struct {
	x    *mat.Dense
	y    []float64
	d    int // columns of X
	bias bool

	// Clipping, per example: thresholds u_L, u_H (±Inf where inactive),
	// the losses f(u_L), f(u_H) and the slope a = C/‖x̃ᵢ‖. Nil without
	// clipping.
	lo, hi, flo, fhi, slope []float64
}

// NewLogistic returns the summed logistic loss on the rows of X with labels
// y ∈ {0, 1}. It keeps X and y (not copies): do not modify them while the
// loss is in use. It returns an error if a label is not 0 or 1, if X holds
// a NaN or an infinity, or if cfg.Clip is negative or not finite. It panics
// if len(y) differs from the number of rows of X.
func NewLogistic(X *mat.Dense, y []float64, cfg LogisticConfig) (*Logistic, error) {
	n, d := X.Dims()
	if len(y) != n {
		panic(badShape)
	}
	if err := checkLabels(y); err != nil {
		return nil, err
	}
	if err := checkFiniteMatrix("X", X); err != nil {
		return nil, err
	}
	if !(cfg.Clip >= 0) || math.IsInf(cfg.Clip, 1) {
		return nil, fmt.Errorf("solvers: logistic clipping threshold C = %v must be finite and ≥ 0", cfg.Clip)
	}
	l := &Logistic{x: X, y: y, d: d, bias: cfg.Bias}
	if cfg.Clip > 0 {
		l.setClip(cfg.Clip)
	}
	return l, nil
}

// setClip precomputes the per-example clipping thresholds for C.
func (l *Logistic) setClip(c float64) {
	n := len(l.y)
	l.lo, l.hi = make([]float64, n), make([]float64, n)
	l.flo, l.fhi = make([]float64, n), make([]float64, n)
	l.slope = make([]float64, n)
	norms := rowNorms(l.x, l.bias)
	for i, y := range l.y {
		l.lo[i], l.hi[i] = math.Inf(-1), math.Inf(1)
		if norms[i] == 0 {
			continue // ∇ℓ = 0: nothing to clip
		}
		a := c / norms[i]
		l.slope[i] = a
		if p := y - a; p > 0 && p < 1 {
			l.lo[i] = math.Log(p / (1 - p))
			l.flo[i], _ = logisticValueDeriv(l.lo[i], y)
		}
		if p := y + a; p > 0 && p < 1 {
			l.hi[i] = math.Log(p / (1 - p))
			l.fhi[i], _ = logisticValueDeriv(l.hi[i], y)
		}
	}
}

// rowNorms returns ‖x̃ᵢ‖₂ for every row, x̃ᵢ = [xᵢ; 1] when bias is set.
func rowNorms(X *mat.Dense, bias bool) []float64 {
	raw := X.RawMatrix()
	out := make([]float64, raw.Rows)
	extra := 0.0
	if bias {
		extra = 1
	}
	for i := range out {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		s := extra
		for _, v := range row {
			s += v * v
		}
		out[i] = math.Sqrt(s)
	}
	return out
}

// Dim implements Function: the number of features, plus one with Bias.
func (l *Logistic) Dim() int {
	if l.bias {
		return l.d + 1
	}
	return l.d
}

// ValueGrad implements Function. It makes one pass over X, computing for
// each row uᵢ = x̃ᵢᵀθ, f(uᵢ) and f'(uᵢ) and accumulating f'(uᵢ)·x̃ᵢ into the
// gradient, so X is read from memory once per evaluation. (The pass is
// memory-bound: on the 2-core development machine splitting it over two
// goroutines gave no speed-up.)
func (l *Logistic) ValueGrad(grad, theta []float64) float64 {
	dim := l.Dim()
	if len(theta) != dim || (grad != nil && len(grad) != dim) {
		panic(badShape)
	}
	raw := l.x.RawMatrix()
	w := theta[:l.d]
	var b float64
	if l.bias {
		b = theta[l.d]
	}
	var gw []float64
	if grad != nil {
		clear(grad)
		gw = grad[:l.d]
	}
	var f, gb float64
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+l.d]
		u := floats.Dot(row, w) + b
		var v, g float64
		if l.slope == nil {
			v, g = logisticValueDeriv(u, l.y[i])
		} else {
			v, g = l.clippedValueDeriv(i, u)
		}
		f += v
		if gw != nil && g != 0 {
			floats.AddScaled(gw, g, row)
			gb += g
		}
	}
	if grad != nil && l.bias {
		grad[l.d] = gb
	}
	return f
}

// clippedValueDeriv returns f_C(u) and f_C'(u) for example i.
func (l *Logistic) clippedValueDeriv(i int, u float64) (v, g float64) {
	switch {
	case u < l.lo[i]:
		return -l.slope[i]*(u-l.lo[i]) + l.flo[i], -l.slope[i]
	case u > l.hi[i]:
		return l.slope[i]*(u-l.hi[i]) + l.fhi[i], l.slope[i]
	}
	return logisticValueDeriv(u, l.y[i])
}

// hessianChunk is the number of rows per symmetric rank-k update in Hessian.
const hessianChunk = 256

// Hessian implements Function: X̃ᵀ diag(f″(uᵢ)) X̃, accumulated over blocks of
// rows √f″(uᵢ)·x̃ᵢ by symmetric rank-k updates (256-row blocks stay in
// cache). f″ = 0 where clipping makes f_C linear.
func (l *Logistic) Hessian(hess *mat.SymDense, theta []float64) {
	dim := l.Dim()
	if len(theta) != dim || hess.SymmetricDim() != dim {
		panic(badShape)
	}
	h := hess.RawSymmetric()
	for i := 0; i < h.N; i++ {
		clear(h.Data[i*h.Stride+i : i*h.Stride+h.N])
	}
	raw := l.x.RawMatrix()
	w := theta[:l.d]
	var b float64
	if l.bias {
		b = theta[l.d]
	}
	chunk := make([]float64, min(hessianChunk, raw.Rows)*dim)
	for start := 0; start < raw.Rows; start += hessianChunk {
		rows := min(hessianChunk, raw.Rows-start)
		for k := 0; k < rows; k++ {
			i := start + k
			row := raw.Data[i*raw.Stride : i*raw.Stride+l.d]
			u := floats.Dot(row, w) + b
			var s float64
			if l.slope == nil || (u >= l.lo[i] && u <= l.hi[i]) {
				s = math.Sqrt(logisticCurvature(u))
			}
			dst := chunk[k*dim : (k+1)*dim]
			floats.ScaleTo(dst[:l.d], s, row)
			if l.bias {
				dst[l.d] = s
			}
		}
		blk := blas64.General{Rows: rows, Cols: dim, Stride: dim, Data: chunk[:rows*dim]}
		blas64.Syrk(blas.Trans, 1, blk, 1, h)
	}
}

// logisticValueDeriv returns f(u; y) = log(1 + eᵘ) − y·u and f'(u; y) =
// sigmoid(u) − y for y ∈ {0, 1}, from one exponential e = e^−|u| ≤ 1:
//
//	log(1 + eᵘ) − y·u = (max(u, 0) − y·u) + log1p(e)
//	f'(u; y) = (1 − y)·sigmoid(u) − y·(1 − sigmoid(u)),
//
// the last form avoiding the cancellation in sigmoid(u) − 1 for large u.
func logisticValueDeriv(u, y float64) (v, g float64) {
	e := math.Exp(-math.Abs(u))
	p, q := sigmoidPair(u, e)
	// max(u, 0) − y·u is exact for y ∈ {0, 1}; adding log1p(e) last keeps
	// its digits when the rest cancels to 0.
	return (math.Max(u, 0) - y*u) + math.Log1p(e), (1-y)*p - y*q
}

// logisticDeriv returns f'(u; y) = sigmoid(u) − y as logisticValueDeriv does,
// without the logarithm.
func logisticDeriv(u, y float64) float64 {
	p, q := sigmoidPair(u, math.Exp(-math.Abs(u)))
	return (1-y)*p - y*q
}

// sigmoidPair returns sigmoid(u) and 1 − sigmoid(u), each to full relative
// precision, from e = e^−|u|: 1/(1 + e) and e/(1 + e), swapped for u < 0.
func sigmoidPair(u, e float64) (p, q float64) {
	inv := 1 / (1 + e)
	if u < 0 {
		return e * inv, inv
	}
	return inv, e * inv
}

// logisticCurvature returns f″(u) = sigmoid(u)(1 − sigmoid(u)) =
// e/(1 + e)² with e = e^−|u| (the same for u and −u).
func logisticCurvature(u float64) float64 {
	e := math.Exp(-math.Abs(u))
	return e / ((1 + e) * (1 + e))
}
