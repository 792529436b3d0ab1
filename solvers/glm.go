package solvers

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Losses of a GLM, named in GLMConfig.Loss and DPSGDConfig.Loss.
const (
	// LossLogistic is f(u; y) = log(1 + eᵘ) − y·u, labels y ∈ {0, 1}.
	LossLogistic = "logistic"
	// LossSquared is f(u; y) = ½(u − y)², real targets y.
	LossSquared = "squared"
)

// GLMConfig selects the loss and variant of a GLM.
type GLMConfig struct {
	// Loss is LossLogistic ("" means it) or LossSquared.
	Loss string
	// Bias appends a constant feature 1 to every row: x̃ᵢ = [xᵢ; 1], and the
	// intercept is the last coordinate of θ. False: x̃ᵢ = xᵢ.
	Bias bool
	// Clip > 0 replaces every example's loss by its clipped-gradient loss
	// ℓ_C with threshold C = Clip (see GLM). 0 means no clipping.
	Clip float64
}

// glmLoss is the per-example function f of a GLM.
type glmLoss int

const (
	logisticLoss glmLoss = iota
	squaredLoss
)

// parseLoss returns the loss named s ("" is logistic).
func parseLoss(s string) (glmLoss, error) {
	switch s {
	case "", LossLogistic:
		return logisticLoss, nil
	case LossSquared:
		return squaredLoss, nil
	}
	return 0, fmt.Errorf("solvers: loss %q, want %q or %q", s, LossLogistic, LossSquared)
}

// valueDeriv returns f(u; y) and f'(u; y).
func (k glmLoss) valueDeriv(u, y float64) (v, g float64) {
	if k == squaredLoss {
		r := u - y
		return 0.5 * r * r, r
	}
	return logisticValueDeriv(u, y)
}

// deriv returns f'(u; y).
func (k glmLoss) deriv(u, y float64) float64 {
	if k == squaredLoss {
		return u - y
	}
	return logisticDeriv(u, y)
}

// rowDerivs sets r[k] = f'(u[k] + b; y[k]) for k < len(u), with deriv's
// bits: logistic lanes eight at a time by logisticDerivsAVX512 where
// haveDerivsKernel (the lanes it leaves, lane by lane), else four at a time
// by logisticRows4; r and u must not overlap. For
// logisticRows4 the margins u[k] + b are written to r first, in one pass,
// and the kernel then reads its four lanes from r and y in place: four
// values just stored one by one cannot be forwarded to one wide load,
// which would wait for the stores to reach the cache.
func (k glmLoss) rowDerivs(r, u []float64, b float64, y []float64) {
	r, y = r[:len(u)], y[:len(u)]
	if k == logisticLoss && haveDerivsKernel && len(u) > 0 {
		if logisticDerivsAVX512(&r[0], &u[0], &y[0], len(u), b) > 0 {
			for j, v := range u {
				if z := v + b; !kernelMargin(z) {
					r[j] = k.deriv(z, y[j])
				}
			}
		}
		return
	}
	for j, v := range u {
		r[j] = v + b
	}
	j := 0
	if k == logisticLoss {
		for ; j+4 <= len(u); j += 4 {
			z := (*[4]float64)(r[j : j+4])
			logisticRows4(nil, z, z, (*[4]float64)(y[j:j+4]))
		}
	}
	for ; j < len(u); j++ {
		r[j] = k.deriv(r[j], y[j])
	}
}

// curvature returns f″(u; y).
func (k glmLoss) curvature(u float64) float64 {
	if k == squaredLoss {
		return 1
	}
	return logisticCurvature(u)
}

// clipRange returns the thresholds u_L < u_H outside which |f'(u; y)| > a,
// where the clipped-gradient loss becomes linear (−∞ or +∞ where f' never
// passes −a or +a): logistic, f' = sigmoid(u) − y ∈ (−1, 1), u_L =
// logit(y − a) if y − a ∈ (0, 1) and u_H = logit(y + a) if y + a ∈ (0, 1);
// squared, f' = u − y, u_L = y − a and u_H = y + a.
func (k glmLoss) clipRange(y, a float64) (lo, hi float64) {
	if k == squaredLoss {
		return y - a, y + a
	}
	lo, hi = math.Inf(-1), math.Inf(1)
	if p := y - a; p > 0 && p < 1 {
		lo = math.Log(p / (1 - p))
	}
	if p := y + a; p > 0 && p < 1 {
		hi = math.Log(p / (1 - p))
	}
	return lo, hi
}

// checkTargets returns an error for a label the loss does not accept:
// logistic labels must be 0 or 1, squared-loss targets finite.
func (k glmLoss) checkTargets(y []float64) error {
	if k == squaredLoss {
		return checkFinite("targets y", y)
	}
	return checkLabels(y)
}

// GLM is the loss of a generalized linear model, summed (not averaged) over
// the examples:
//
//	L(θ) = Σᵢ f(x̃ᵢᵀθ; yᵢ),   ∇L(θ) = Σᵢ f'(uᵢ) x̃ᵢ = X̃ᵀr,   ∇²L(θ) = X̃ᵀ diag(f″(uᵢ)) X̃,
//
// with uᵢ = x̃ᵢᵀθ and f one of
//
//	logistic (labels yᵢ ∈ {0, 1}):  f(u; y) = log(1 + eᵘ) − y·u,  f' = sigmoid(u) − y,  f″ = sigmoid(u)(1 − sigmoid(u)) ≤ 1/4
//	squared (real yᵢ):              f(u; y) = ½(u − y)²,           f' = u − y,           f″ = 1
//
// log(1 + eᵘ) is evaluated as max(u, 0) + log1p(e^−|u|), which neither
// overflows nor loses digits.
//
// With GLMConfig.Clip = C > 0, each example's loss becomes the convex
// clipped-gradient loss ℓ_C whose gradient is ∇ℓ·min(1, C/‖∇ℓ‖). With
// a = C/‖x̃ᵢ‖ and u_L, u_H the points where f' = −a and +a (glmLoss.clipRange),
// it is linear outside [u_L, u_H]:
//
//	f_C(u) = −a(u − u_L) + f(u_L)   u < u_L
//	f_C(u) = f(u)                   u_L ≤ u ≤ u_H
//	f_C(u) =  a(u − u_H) + f(u_H)   u > u_H
//
// For the squared loss, u_L = y − a, u_H = y + a and f_C is the Huber loss
// with threshold a. f_C″ ∈ {f″, 0}: clipping keeps the smoothness β
// ([RKW23] Thm F.3).
//
// Ref: [RKW23] §4 and App. F.2 (Thm F.2, from [SCS20] Lemma 5.1; the
// squared-loss thresholds: objpert.md §1.4).
// Paper: f_C omits the constants +f(u_L) and +f(u_H); corrected: they are
// added because without them f_C is discontinuous, which breaks line
// searches (gradients are unchanged; the released code has them).
// For the logistic loss |f'| < 1, so clipping at C ≥ ‖x̃ᵢ‖ changes nothing
// (for unit-norm rows with bias, C = √2 is a no-op, [RKW23] §5).
//
// Symbols: X̃ = [X, 1] with Bias, θ = [w; w₀], r = (f'(uᵢ))ᵢ.
//
// A GLM does not change after NewGLM: it is safe for concurrent use.
type GLM struct {
	loss glmLoss
	x    *mat.Dense
	y    []float64
	d    int // columns of X
	bias bool
	// sparse holds X's non-zero entries when at most glmSparseMaxDensity
	// of them are non-zero and the AVX kernels run (ValueGrad then reads
	// them instead of the dense rows, with the same bits); nil otherwise.
	sparse *sparseRows
	// packed is a copy of X's rows in blocks of eight (packedRows8), which
	// ValueGrad reads instead of the rows in place when X is dense with
	// fewer than dot8MinCols columns, a multiple of four, and the AVX
	// kernels run (same bits); nil otherwise.
	packed *packedRows8

	// Clipping, per example: thresholds u_L, u_H (±Inf where inactive),
	// the losses f(u_L), f(u_H) and the slope a = C/‖x̃ᵢ‖. Nil without
	// clipping.
	lo, hi, flo, fhi, slope []float64
}

// NewGLM returns the summed loss cfg.Loss on the rows of X with targets y.
// It keeps X and y (not copies; a dense X of fewer than dot8MinCols
// columns is also copied once in the layout of packedRows8): do not modify
// them while the loss is in use. It returns an error for an unknown loss, a logistic label that is
// not 0 or 1, a non-finite squared-loss target, a NaN or infinity in X, or
// a negative or non-finite cfg.Clip. It panics if len(y) differs from the
// number of rows of X.
func NewGLM(X *mat.Dense, y []float64, cfg GLMConfig) (*GLM, error) {
	n, d := X.Dims()
	if len(y) != n {
		panic(badShape)
	}
	loss, err := parseLoss(cfg.Loss)
	if err != nil {
		return nil, err
	}
	if err := loss.checkTargets(y); err != nil {
		return nil, err
	}
	if err := checkFiniteMatrix("X", X); err != nil {
		return nil, err
	}
	if !(cfg.Clip >= 0) || math.IsInf(cfg.Clip, 1) {
		return nil, fmt.Errorf("solvers: clipping threshold C = %v must be finite and ≥ 0", cfg.Clip)
	}
	l := &GLM{loss: loss, x: X, y: y, d: d, bias: cfg.Bias}
	if haveRowKernels {
		l.sparse = newSparseRows(X, glmSparseMaxDensity)
	}
	if l.sparse == nil && d < dot8MinCols {
		l.packed = newPackedRows8(X)
	}
	if cfg.Clip > 0 {
		l.setClip(cfg.Clip)
	}
	return l, nil
}

// setClip precomputes the per-example clipping thresholds for C.
func (l *GLM) setClip(c float64) {
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
		l.lo[i], l.hi[i] = l.loss.clipRange(y, a)
		if !math.IsInf(l.lo[i], -1) {
			l.flo[i], _ = l.loss.valueDeriv(l.lo[i], y)
		}
		if !math.IsInf(l.hi[i], 1) {
			l.fhi[i], _ = l.loss.valueDeriv(l.hi[i], y)
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
func (l *GLM) Dim() int {
	if l.bias {
		return l.d + 1
	}
	return l.d
}

// ValueGrad implements Function. It makes one pass over X, computing for
// each row uᵢ = x̃ᵢᵀθ, f(uᵢ) and f'(uᵢ) and accumulating f'(uᵢ)·x̃ᵢ into the
// gradient, so X is read from memory once per evaluation. Dense rows of at
// least dot8MinCols columns go eight at a time through dotRows8 (the last
// 4–7 through dotRows4); shorter rows eight at a time from their packed copy
// (packedRows8, when their count is a multiple of 4), the rest one after
// another through floats.Dot; then four at a time through logisticRows4
// (unclipped logistic loss) and axpyRows4 (packedRows8.addScaled for a
// packed block). All return the bits of floats.Dot,
// valueDeriv and floats.AddScaled row by row: the result does not depend on
// the blocking. (On the 2-core development machine splitting the pass over
// two goroutines gave no speed-up.) On a sparse X (glmSparseMaxDensity) the
// sums and updates run over the non-zero entries only, with the same bits
// (sparseRows.dotLanes and addScaled: a zero entry adds ±0).
//
// A row with f'(uᵢ) = 0 adds nothing to the gradient, and leaving its
// (finite) term out changes no bit: the gradient starts at +0, a rounded
// sum is −0 only when both terms are −0, so no coordinate is ever −0, and
// adding ±0 to a coordinate that is not −0 leaves it unchanged.
func (l *GLM) ValueGrad(grad, theta []float64) float64 {
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
	// add adds a row's loss v to f and its derivative g to gb, in row order.
	add := func(v, g float64) {
		f += v
		if gw != nil && g != 0 {
			gb += g
		}
	}
	i := 0
	var u, z, v, g [4]float64
	// Eight rows per turn (from the packed copy, or in place from
	// dot8MinCols columns): their dot products at once, then each half as
	// below, in row order, then their gradient terms, rows 0 to 7 in turn.
	end8 := 0
	switch {
	case l.packed != nil:
		end8 = 8 * l.packed.blocks
	case l.sparse == nil && l.d >= dot8MinCols:
		end8 = raw.Rows &^ 7
	}
	var u8, g8 [8]float64
	var off8 [8]int
	for ; i < end8; i += 8 {
		if l.packed != nil {
			l.packed.dot(&u8, i/8, w)
		} else {
			for k := range off8 {
				off8[k] = (i + k) * raw.Stride
			}
			pf := 0
			if i+16 <= raw.Rows {
				pf = 8 * raw.Stride * 8 // bytes to the next eight rows
			}
			dotRows8(&u8, raw.Data, &off8, pf, w)
		}
		for h := 0; h < 8; h += 4 {
			for k := range z {
				z[k] = u8[h+k] + b
			}
			l.rows4(&v, &g, &z, i+h)
			for k := range v {
				add(v[k], g[k])
			}
			copy(g8[h:h+4], g[:])
		}
		switch {
		case gw == nil:
		case l.packed != nil:
			l.packed.addScaled(gw, &g8, i/8)
		default:
			axpyRows4(gw, (*[4]float64)(g8[:4]), raw.Data, (*[4]int)(off8[:4]))
			axpyRows4(gw, (*[4]float64)(g8[4:]), raw.Data, (*[4]int)(off8[4:]))
		}
	}
	for ; i+4 <= raw.Rows; i += 4 {
		off, next := stridedRows4(i, raw.Stride, raw.Rows)
		switch {
		case l.sparse != nil:
			for k := range u {
				u[k] = l.sparse.dotLanes(i+k, w)
			}
		case l.d < dot8MinCols:
			for k, o := range off {
				u[k] = floats.Dot(raw.Data[o:o+l.d], w)
			}
		default:
			dotRows4(&u, raw.Data, &off, &next, w)
		}
		for k := range u {
			z[k] = u[k] + b
		}
		l.rows4(&v, &g, &z, i)
		for k := range v {
			add(v[k], g[k])
		}
		switch {
		case gw == nil:
		case l.sparse != nil:
			for k, gk := range g {
				if gk != 0 {
					l.sparse.addScaled(gw, gk, i+k)
				}
			}
		default:
			axpyRows4(gw, &g, raw.Data, &off)
		}
	}
	for ; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+l.d]
		var u float64
		if l.sparse != nil {
			u = l.sparse.dotLanes(i, w)
		} else {
			u = floats.Dot(row, w)
		}
		v, g := l.rowValueDeriv(i, u+b)
		add(v, g)
		if gw != nil && g != 0 {
			floats.AddScaled(gw, g, row)
		}
	}
	if grad != nil && l.bias {
		grad[l.d] = gb
	}
	return f
}

// dot8MinCols is the fewest columns for which ValueGrad's dense pass takes
// the dot products of eight rows at once in place (dotRows8); shorter rows
// are read in address order: eight at a time from a packed copy
// (packedRows8) when their count is a multiple of 4, else one after
// another. In place against one by one, by thread CPU time per
// pass (medians of 30, load1 14–23): on 12,000 × 128 (gaussmix_fig3's
// shape) 1.47 ms eight at a time against 0.79 ms one by one, on 36,000 ×
// 104 4.46 against 2.37 ms, on 8,000 × 256 1.69 against 0.94 ms; a tie on
// 6,000 × 384; eight at a time wins from 512 columns (5,000 × 512 1.60
// against 1.79 ms, 2,000 × 2,000 2.53 against 2.99 ms).
const dot8MinCols = 384

// rows4 sets v[k], g[k] = rowValueDeriv(i+k, z[k]) for k < 4, with the
// same bits: a logistic loss's lanes go through logisticRows4 (the AVX2
// kernel where it applies) and only its clipped lanes, on the linear
// pieces, through rowValueDeriv; a clipped lane's place in the kernel holds
// 1, so that the others stay on the kernel.
func (l *GLM) rows4(v, g, z *[4]float64, i int) {
	if l.loss != logisticLoss {
		for k, zv := range z {
			v[k], g[k] = l.rowValueDeriv(i+k, zv)
		}
		return
	}
	zk := *z
	var clipped [4]bool
	if l.slope != nil {
		for k, zv := range z {
			if zv < l.lo[i+k] || zv > l.hi[i+k] {
				zk[k], clipped[k] = 1, true
			}
		}
	}
	logisticRows4(v, g, &zk, (*[4]float64)(l.y[i:i+4]))
	for k, c := range clipped {
		if c {
			v[k], g[k] = l.rowValueDeriv(i+k, z[k])
		}
	}
}

// rowValueDeriv returns f(u) and f'(u) for example i, or the clipped
// f_C(u) and f_C'(u) when the GLM clips.
func (l *GLM) rowValueDeriv(i int, u float64) (v, g float64) {
	switch {
	case l.slope == nil:
		return l.loss.valueDeriv(u, l.y[i])
	case u < l.lo[i]:
		return -l.slope[i]*(u-l.lo[i]) + l.flo[i], -l.slope[i]
	case u > l.hi[i]:
		return l.slope[i]*(u-l.hi[i]) + l.fhi[i], l.slope[i]
	}
	return l.loss.valueDeriv(u, l.y[i])
}

// hessianChunk is the number of rows per symmetric rank-k update in Hessian.
const hessianChunk = 256

// Hessian implements Function: X̃ᵀ diag(f″(uᵢ)) X̃, accumulated over blocks of
// rows √f″(uᵢ)·x̃ᵢ by symmetric rank-k updates (syrkUpperAdd, with dsyrk's
// bits; 256-row blocks stay in cache). f″ = 0 where clipping makes f_C
// linear.
func (l *GLM) Hessian(hess *mat.SymDense, theta []float64) {
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
				s = math.Sqrt(l.loss.curvature(u))
			}
			dst := chunk[k*dim : (k+1)*dim]
			floats.ScaleTo(dst[:l.d], s, row)
			if l.bias {
				dst[l.d] = s
			}
		}
		blk := blas64.General{Rows: rows, Cols: dim, Stride: dim, Data: chunk[:rows*dim]}
		syrkUpperAdd(h, blk)
	}
}
