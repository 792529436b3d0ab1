package solvers

import (
	"context"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/internal/rngs"
)

// Optimisers named in DPSGDConfig.Optimizer.
const (
	OptimizerAdam = "adam"
	OptimizerSGD  = "sgd"
)

// DPSGDConfig configures DPSGD. Zero values mean the defaults stated on the
// fields; Validate checks it.
type DPSGDConfig struct {
	// NoiseMultiplier σ_mult ≥ 0: each step adds N(0, (σ_mult·Clip)² I) to
	// the sum of clipped per-example gradients. 0 means no noise (the
	// non-private baseline, then typically with Clip = 0).
	NoiseMultiplier float64
	// Clip C ≥ 0: each per-example gradient gᵢ is scaled by
	// min(1, C/(‖gᵢ‖₂ + 10⁻⁶)) as in Opacus, so ‖clipped gᵢ‖₂ < C.
	// 0 means no clipping, allowed only without noise.
	Clip float64
	// LearningRate η > 0.
	LearningRate float64
	// Epochs: the run takes Epochs·ceil(n/ExpectedBatch) steps. Ignored
	// when Steps > 0.
	Epochs int
	// Steps, if > 0, is the number of steps T.
	Steps int
	// ExpectedBatch B ≥ 1 sets the sampling rate q = 1/ceil(n/B)
	// (Opacus: sample_rate = 1/len(data_loader)).
	ExpectedBatch int
	// Optimizer is OptimizerAdam ("" means it) or OptimizerSGD.
	Optimizer string
	// Bias fits an intercept: features x̃ = [x; 1], intercept last in θ.
	Bias bool
	// Loss is LossLogistic ("" means it; labels y ∈ {0, 1}) or LossSquared
	// (real targets: linear regression).
	Loss string
	// Radius R > 0 projects θ (intercept included) onto the ball ‖θ‖₂ ≤ R
	// after every step; 0 means no projection. A bounded θ bounds the
	// gradient's smoothness in the data (what a smooth-RDP analysis needs,
	// [HSS24] Def. 6).
	Radius float64
}

// Validate returns an error naming the first invalid field.
func (c DPSGDConfig) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(c.NoiseMultiplier) || c.NoiseMultiplier < 0:
		return fmt.Errorf("solvers: DP-SGD NoiseMultiplier = %v must be finite and ≥ 0", c.NoiseMultiplier)
	case !finite(c.Clip) || c.Clip < 0:
		return fmt.Errorf("solvers: DP-SGD Clip = %v must be finite and ≥ 0", c.Clip)
	case c.NoiseMultiplier > 0 && c.Clip == 0:
		return fmt.Errorf("solvers: DP-SGD NoiseMultiplier = %v needs Clip > 0 (the noise std is NoiseMultiplier·Clip)", c.NoiseMultiplier)
	case !finite(c.LearningRate) || c.LearningRate <= 0:
		return fmt.Errorf("solvers: DP-SGD LearningRate = %v must be finite and > 0", c.LearningRate)
	case c.Epochs < 0 || c.Steps < 0 || (c.Epochs == 0 && c.Steps == 0):
		return fmt.Errorf("solvers: DP-SGD needs Epochs > 0 or Steps > 0 (got %d, %d)", c.Epochs, c.Steps)
	case c.ExpectedBatch < 1:
		return fmt.Errorf("solvers: DP-SGD ExpectedBatch = %d must be ≥ 1", c.ExpectedBatch)
	case !finite(c.Radius) || c.Radius < 0:
		return fmt.Errorf("solvers: DP-SGD Radius = %v must be finite and ≥ 0", c.Radius)
	case c.Optimizer != "" && c.Optimizer != OptimizerAdam && c.Optimizer != OptimizerSGD:
		return fmt.Errorf("solvers: DP-SGD Optimizer = %q, want %q or %q", c.Optimizer, OptimizerAdam, OptimizerSGD)
	}
	if _, err := parseLoss(c.Loss); err != nil {
		return fmt.Errorf("solvers: DP-SGD Loss: %w", err)
	}
	return nil
}

// Schedule returns the Poisson sampling rate q and the number of steps T
// that DPSGD uses on n examples — the values a mechanism must give the
// accountant (PoissonSampledGaussian{Q: q, NoiseMultiplier} composed T
// times):
//
//	q = 1/ceil(n/B),   T = Steps, or Epochs·ceil(n/B)
//
// Ref: shared/research/objpert.md §4 and §6 item 16 (Opacus' DPDataLoader,
// [RKW23]'s 60 epochs at expected batch 256).
func (c DPSGDConfig) Schedule(n int) (q float64, steps int, err error) {
	if err := c.Validate(); err != nil {
		return 0, 0, err
	}
	if n < 1 {
		return 0, 0, fmt.Errorf("solvers: DP-SGD needs n ≥ 1 examples, got %d", n)
	}
	batches := (n + c.ExpectedBatch - 1) / c.ExpectedBatch
	q = 1 / float64(batches)
	steps = c.Steps
	if steps == 0 {
		steps = c.Epochs * batches
	}
	return q, steps, nil
}

// DPSGDResult is the outcome of DPSGD.
type DPSGDResult struct {
	// Theta is the final model [w; w₀] (w₀ with Bias).
	Theta []float64
	// SampleRate is q and Steps is T (as Schedule returns them).
	SampleRate float64
	Steps      int
	// Divisor is the expected batch size the noisy sum is divided by:
	// int(n·q), as Opacus computes it.
	Divisor float64
	// Examples is the total of the batch sizes drawn; Clipped counts the
	// per-example gradients that clipping scaled down.
	Examples, Clipped int
}

// ctxCheckSteps is the number of DP-SGD steps between context checks.
const ctxCheckSteps = 256

// clipSlack is Opacus' 1e-6 in the clipping factor min(1, C/(‖gᵢ‖ + 1e-6))
// (DPOptimizer.clip_and_accumulate); it also keeps every clipped norm
// strictly below C despite rounding, so the sensitivity C the accountant
// assumes holds exactly.
const clipSlack = 1e-6

// DPSGD trains a linear model on the rows of X by differentially private
// stochastic gradient descent on the GLM loss cfg.Loss: logistic regression
// (labels y ∈ {0, 1}) or least squares (real y). Each step t:
//
//	Bₜ    Poisson sample of the rows at rate q (PoissonSampler)
//	gᵢ   = f'(x̃ᵢᵀθ; yᵢ)·x̃ᵢ                                per-example gradient (closed form)
//	Gₜ   = ( Σ_{i∈Bₜ} gᵢ·min(1, C/(‖gᵢ‖₂ + 10⁻⁶)) + N(0, σ_mult²C² I) ) / int(q·n)
//	θ    ← Adam or SGD step on Gₜ
//
// with f' = sigmoid(u) − y (logistic) or u − y (squared, f = ½(u − y)²) and
// ‖gᵢ‖₂ = |f'|·‖x̃ᵢ‖₂. Clipping bounds each example's contribution by C
// whatever the loss, so the privacy analysis is the same for both. An
// empty batch gives a step on pure noise. The initial θ is
// LinearInit(d, Bias, ·).
//
// Ref: [ACG+16] Alg. 1 (per-example clipping, noise on the sum); [RKW23]
// §2.2 and §5, shared/research/objpert.md §4 (Poisson sampling, expected
// batch 256, Adam, division by the expected batch size as Opacus'
// DPOptimizer does with loss_reduction = "mean"). Symbols: σ_mult =
// NoiseMultiplier, C = Clip, q = SampleRate.
// Two details follow Opacus, which [RKW23] used, rather than the formulas
// in objpert.md §4: the divisor is Opacus' expected_batch_size =
// int(len(dataset)·sample_rate), an integer (254 instead of q·n = 254.76
// on Adult), and the clipping factor has Opacus' 10⁻⁶ in its denominator.
//
// X with at most half its entries non-zero (one-hot data such as Adult) is
// read as sparse rows with each row's most frequent value factored out
// (sharedRows), which gives the same sums up to rounding at a fraction of
// the cost.
//
// Randomness: rs.Get("init") for θ₀, rs.Get("sampling") for the batches,
// rs.Normals("noise") for the Gaussian noise (the draws of
// rs.Get("noise").NormFloat64, in order), so the same streams give the same
// bits. ctx is checked every 256 steps; a cancelled run returns ctx.Err().
//
// It returns an error for an invalid cfg, logistic labels outside {0, 1},
// non-finite squared-loss targets or non-finite X, and panics if len(y) differs from the number of rows of X.
func DPSGD(ctx context.Context, X *mat.Dense, y []float64, cfg DPSGDConfig, rs rngs.Streams) (DPSGDResult, error) {
	return dpsgd(ctx, NewDesign(X, y), cfg, rs, false)
}

// DPSGDOn is DPSGD on a prepared design: what DPSGD derives from X and y
// alone (X's finiteness check, row norms, sparse rows) is computed once
// per Design and shared by every run on it, rather than once per run.
func DPSGDOn(ctx context.Context, design *Design, cfg DPSGDConfig, rs rngs.Streams) (DPSGDResult, error) {
	return dpsgd(ctx, design, cfg, rs, false)
}

// Design is a design matrix X and its targets y prepared for repeated
// DP-SGD runs. Its derived data are computed on first use, once, and then
// only read, so a Design may be shared by concurrent runs; X and y must
// not change after NewDesign.
type Design struct {
	x *mat.Dense
	y []float64

	finite     sync.Once
	finiteErr  error
	sparseOnce sync.Once
	sparse     *sharedRows
	norms      [2]struct { // without and with the intercept's constant 1
		once sync.Once
		v    []float64
	}
}

// NewDesign returns X and y prepared for DPSGDOn; nothing is computed yet.
// It panics if len(y) differs from the number of rows of X.
func NewDesign(X *mat.Dense, y []float64) *Design {
	if n, _ := X.Dims(); len(y) != n {
		panic(badShape)
	}
	return &Design{x: X, y: y}
}

// checkFinite returns checkFiniteMatrix's error for X, computed once.
func (g *Design) checkFinite() error {
	g.finite.Do(func() { g.finiteErr = checkFiniteMatrix("X", g.x) })
	return g.finiteErr
}

// sparseRows returns X and y as sharedRows (nil when X is dense), computed
// once.
func (g *Design) sparseRows() *sharedRows {
	g.sparseOnce.Do(func() { g.sparse = newSharedRows(g.x, g.y, sparseMaxDensity) })
	return g.sparse
}

// rowNorms returns rowNorms(X, bias), computed once per bias.
func (g *Design) rowNorms(bias bool) []float64 {
	k := 0
	if bias {
		k = 1
	}
	c := &g.norms[k]
	c.once.Do(func() { c.v = rowNorms(g.x, bias) })
	return c.v
}

// dpsgd is DPSGD; dense forces the dense loops whatever X's density.
func dpsgd(ctx context.Context, design *Design, cfg DPSGDConfig, rs rngs.Streams, dense bool) (DPSGDResult, error) {
	X, y := design.x, design.y
	n, d := X.Dims()
	q, steps, err := cfg.Schedule(n)
	if err != nil {
		return DPSGDResult{}, err
	}
	loss, _ := parseLoss(cfg.Loss) // checked by Schedule
	if err := loss.checkTargets(y); err != nil {
		return DPSGDResult{}, err
	}
	if err := design.checkFinite(); err != nil {
		return DPSGDResult{}, err
	}
	res := DPSGDResult{SampleRate: q, Steps: steps, Divisor: math.Max(1, float64(int(float64(n)*q)))}
	res.Theta = LinearInit(d, cfg.Bias, rs.Get("init"))
	sampler, err := newStreamSampler(n, q, rs, "sampling")
	if err != nil {
		return DPSGDResult{}, err
	}
	noise := rs.Normals("noise")
	var opt interface{ Step(theta, grad []float64) } = sgd{lr: cfg.LearningRate}
	if cfg.Optimizer != OptimizerSGD {
		opt = NewAdam(len(res.Theta), cfg.LearningRate)
	}
	raw := X.RawMatrix()
	var sparse *sharedRows
	if !dense {
		sparse = design.sparseRows()
	}
	var norms []float64
	if cfg.Clip > 0 && sparse == nil {
		norms = design.rowNorms(cfg.Bias)
	}
	theta := res.Theta
	w := theta[:d]
	grad := make([]float64, len(theta))
	z := make([]float64, len(theta)) // a step's standard normal draws
	noiseStd := cfg.NoiseMultiplier * cfg.Clip
	dv := batchDerivs{loss: loss, clip: cfg.Clip}
	for t := 0; t < steps; t++ {
		if t%ctxCheckSteps == 0 {
			if err := ctx.Err(); err != nil {
				return DPSGDResult{}, err
			}
		}
		dv.b, dv.gb = 0, 0
		if cfg.Bias {
			dv.b = theta[d]
		}
		clear(grad)
		batch := sampler.Next()
		res.Examples += len(batch)
		if sparse != nil {
			sparseBatchGrad(grad[:d], sparse, batch, w, &dv, cfg.Bias)
		} else {
			denseBatchGrad(grad[:d], raw, batch, w, &dv, y, norms)
		}
		if cfg.Bias {
			grad[d] = dv.gb
		}
		if noiseStd > 0 {
			noise.Fill(z)
			for j, v := range z {
				grad[j] += noiseStd * v
			}
		}
		floats.Scale(1/res.Divisor, grad)
		opt.Step(theta, grad)
		if cfg.Radius > 0 {
			ProjectBall(theta, cfg.Radius)
		}
	}
	res.Clipped = dv.clipped
	return res, nil
}

// batchDerivs computes the clipped loss derivatives of a step's rows.
type batchDerivs struct {
	loss glmLoss
	clip float64 // C; 0 means no clipping
	// b is the step's intercept; gb sums the derivatives set (the
	// intercept's gradient) and clipped counts the rows clipping scaled.
	b, gb   float64
	clipped int
	// wide is sharedBatchGrad8's θ and gradient, indexed by a column byte,
	// and rows its margins, targets and norms of a batch's rows.
	wide *[2][256]float64
	rows *[4][sharedChunk]float64
}

// set sets r[k] to the loss derivative f'(u[k] + b; y[k]) of the row with
// margin u[k], target y[k] and norm ‖x̃‖₂ = norm[k], times
// min(1, C/(|f'|·norm[k] + 10⁻⁶)) when clipping, and adds them to gb, in
// order (clipSum, or clipSumAVX512 with its bits where haveClipKernel). It
// is called on consecutive runs of a batch.
func (v *batchDerivs) set(u, y, norm, r []float64) {
	v.loss.rowDerivs(r, u, v.b, y)
	if haveClipKernel && v.clip > 0 && len(r) > 0 {
		v.clipped += clipSumAVX512(&r[0], &norm[0], len(r), v.clip, &v.gb)
	} else {
		v.clipped += clipSum(r, norm, v.clip, &v.gb)
	}
}

// clipSum scales r[k] by f = C/x, x = |r[k]|·norm[k] + 10⁻⁶, where C = clip
// > 0 and f < 1, and adds r[k] to *sum, for k < len(r) in order; it returns
// the number of r[k] scaled. It is Opacus' clipping factor min(1, C/(‖gᵢ‖₂
// + 10⁻⁶)) (see clipSlack) with ‖gᵢ‖₂ = |r[k]|·norm[k].
func clipSum(r, norm []float64, clip float64, sum *float64) (clipped int) {
	s := *sum
	for k := range r {
		// C/x < 1 needs x > C (else C/x ≥ 1 before and after rounding):
		// the division is skipped where it cannot clip.
		if x := math.Abs(r[k])*norm[k] + clipSlack; clip > 0 && x > clip {
			if f := clip / x; f < 1 {
				r[k] *= f
				clipped++
			}
		}
		s += r[k]
	}
	*sum = s
	return clipped
}

// prefetchRows is how far ahead in a batch DPSGD asks for sparse rows: the
// fastest of 4, 8 and 16 on Adult (BenchmarkDPSGDAdult; 4 and 8 tie).
const prefetchRows = 8

// densePrefetchMax is the longest dense row (entries) that denseBatchGrad
// prefetches whole, prefetchRows ahead: 1 KiB. Longer rows are read as long
// sequential runs, which the processor fetches ahead by itself, and asking
// for eight of them at once was slower (BenchmarkDPSGD, d = 2001: +20%).
const densePrefetchMax = 128

// denseBatchGrad adds r_i·x_i to grad for the rows i of batch of a dense X,
// in batch order, where r_i is set by dv from u_i = x_iᵀw, the target y_i
// and the norm norms[i] (nil: no clipping): four rows at a time, each
// summed by dotRows4 (the bits of floats.Dot) while the next four are
// fetched, and added by axpyRows4 (the bits of one floats.AddScaled call
// per row; a zero r_i adds nothing, as X is finite) while they are in
// cache. dv.set is called on consecutive runs of batch, in order. The rows
// prefetchRows ahead are asked for whole (up to densePrefetchMax entries),
// and their entries of y and norms 2·prefetchRows ahead: the rows of a
// batch are scattered, and each of these was a cache miss. Rows of at
// least dot8MinCols entries go eight at a time first (denseBatchGrad8).
func denseBatchGrad(grad []float64, raw blas64.General, batch []int, w []float64, dv *batchDerivs, y, norms []float64) {
	d := len(w)
	k := 0
	if haveRowKernels && d >= dot8MinCols {
		k = denseBatchGrad8(grad, raw, batch, w, dv, y, norms)
	}
	var off, next [4]int
	var u, a, yv, nv [4]float64
	// The rows prefetchRows ahead are asked for by one prefetchRecords call
	// per four rows: (d·8 − 1)/64 + 2 lines from each row's start cover the
	// row wherever in a line it starts. Their entries of y and norms,
	// 2·prefetchRows ahead, by one prefetchIndexed call each.
	rowBase, rowStride, rowLines := unsafe.Pointer(unsafe.SliceData(raw.Data)), uintptr(raw.Stride)*8, (d*8-1)/64+2
	for ; k+4 <= len(batch); k += 4 {
		if ahead := batch[min(k+prefetchRows, len(batch)):min(k+prefetchRows+4, len(batch))]; len(ahead) > 0 && d <= densePrefetchMax {
			prefetchRecords(rowBase, rowStride, &ahead[0], len(ahead), rowLines)
		}
		if ahead := batch[min(k+2*prefetchRows, len(batch)):min(k+2*prefetchRows+4, len(batch))]; len(ahead) > 0 {
			prefetchIndexed((*int)(unsafe.Pointer(unsafe.SliceData(y))), &ahead[0], len(ahead))
			if norms != nil {
				prefetchIndexed((*int)(unsafe.Pointer(unsafe.SliceData(norms))), &ahead[0], len(ahead))
			}
		}
		for r := range off {
			i := batch[k+r]
			off[r] = i * raw.Stride
			next[r] = off[r]
			yv[r] = y[i]
			if norms != nil {
				nv[r] = norms[i]
			}
			if k+4+r < len(batch) {
				next[r] = batch[k+4+r] * raw.Stride
			}
		}
		dotRows4(&u, raw.Data, &off, &next, w)
		dv.set(u[:], yv[:], nv[:], a[:])
		axpyRows4(grad, &a, raw.Data, &off)
	}
	for ; k < len(batch); k++ {
		i := batch[k]
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		u[0], yv[0] = floats.Dot(row, w), y[i]
		if norms != nil {
			nv[0] = norms[i]
		}
		dv.set(u[:1], yv[:1], nv[:1], a[:1])
		floats.AddScaled(grad, a[0], row)
	}
}

// dense8Ahead is how far ahead within a row, in bytes, denseBatchGrad8's
// dot products ask for the row's lines (dotRows8's pf): 8 lines. On
// Synthetic-H's shape (1,600 rows of 2,000 entries, 16 KB each, read from
// beyond the caches) 512 and 1,024 were the fastest of 0–2,048 on a quiet
// host, and 512 stayed so at load 5 where 1,024 and 1,536 were slower.
const dense8Ahead = 512

// dense8Start is how many entries at the start of each of the next eight
// rows denseBatchGrad8 asks for while it sums the current eight: the
// processor's own prefetching picks up a row only once it is being read.
const dense8Start = 64

// denseBatchGrad8 is denseBatchGrad eight rows at a time, for rows long
// enough (dot8MinCols) that one row is many cache lines: the margins of
// eight rows by dotRows8 (the bits of floats.Dot, eight dependency chains
// in flight, each row's lines dense8Ahead bytes ahead asked for), their
// derivatives by dv.set in one run of eight (two runs of four for the
// logistic kernel, as before), then the rows added by axpyRows8 (the bits
// of axpyRows4 on rows 0–3 and then 4–7), in batch order: the bits of
// denseBatchGrad's four-row turns. It returns the number of batch rows done, a multiple of 8; the
// caller does the rest.
func denseBatchGrad8(grad []float64, raw blas64.General, batch []int, w []float64, dv *batchDerivs, y, norms []float64) int {
	d := len(w)
	var off [8]int
	var u, a, yv, nv [8]float64
	k := 0
	for ; k+8 <= len(batch); k += 8 {
		for r := range off {
			i := batch[k+r]
			off[r] = i * raw.Stride
			yv[r] = y[i]
			if norms != nil {
				nv[r] = norms[i]
			}
			if k+8+r < len(batch) {
				o := batch[k+8+r] * raw.Stride
				prefetch(raw.Data[o : o+min(d, dense8Start)])
			}
			if k+16+r < len(batch) {
				j := batch[k+16+r]
				prefetch(y[j : j+1])
				if norms != nil {
					prefetch(norms[j : j+1])
				}
			}
		}
		dotRows8(&u, raw.Data, &off, dense8Ahead, w)
		dv.set(u[:], yv[:], nv[:], a[:])
		axpyRows8(grad, &a, raw.Data, &off)
	}
	return k
}

// sparseBatchGrad is denseBatchGrad on sharedRows: it adds r_i·x_i to
// grad for the rows i of batch, in batch order, with r_i set by dv from
// u_i = x_iᵀw, the row's target and its norm ‖x̃ᵢ‖₂ (with the intercept's
// 1 when bias), in one pass over each row's entries: four rows are summed,
// their derivatives set, and the rows added while still in cache. dv.set
// is called on runs of four rows, then on the 0–3 left. The records of the
// rows prefetchRows ahead are asked for in one call per four rows. One-byte
// columns (d ≤ 256, as Adult's) run through assembly kernels with the same
// bits where haveSharedKernels (sharedBatchGrad8).
func sparseBatchGrad(grad []float64, s *sharedRows, batch []int, w []float64, dv *batchDerivs, bias bool) {
	nk := 0
	if bias {
		nk = 1
	}
	switch {
	case s.colBytes == 1 && haveSharedKernels:
		sharedBatchGrad8(grad, s, batch, w, dv, nk)
	case s.colBytes == 1:
		sharedBatchGrad[uint8](grad, s, batch, w, dv, nk)
	case s.colBytes == 2:
		sharedBatchGrad[uint16](grad, s, batch, w, dv, nk)
	default:
		sharedBatchGrad[uint32](grad, s, batch, w, dv, nk)
	}
}

// prefetchWords is the most of a record sharedBatchGrad asks for ahead:
// eight cache lines, so that four rows' fit in one prefetchList.
const prefetchWords = 64

// sharedBatchGrad is sparseBatchGrad for columns of type T, with the
// rows' norms rowHead.norm[nk].
func sharedBatchGrad[T colIndex](grad []float64, s *sharedRows, batch []int, w []float64, dv *batchDerivs, nk int) {
	var u, a, yv, nv [4]float64
	var heads [4]*rowHead
	var owns [4][]float64
	var cols [4][]T
	var lines prefetchList
	ahead := min(s.stride, prefetchWords)
	for k := 0; k < len(batch); k += 4 {
		for _, i := range batch[min(k+prefetchRows, len(batch)):min(k+prefetchRows+4, len(batch))] {
			prefetchAdd(&lines, s.rec[i*s.stride:i*s.stride+ahead])
		}
		lines.flush()
		rows := batch[k:min(k+4, len(batch))]
		for r, i := range rows {
			h, own, col := record[T](s, i)
			heads[r], owns[r], cols[r] = h, own, col
			u[r], yv[r], nv[r] = sharedDot(h, own, col, w), h.y, h.norm[nk]
		}
		m := len(rows)
		dv.set(u[:m], yv[:m], nv[:m], a[:m])
		for r := range rows {
			sharedAddScaled(grad, a[r], heads[r], owns[r], cols[r])
		}
	}
}

// sharedBatchGrad8 is sharedBatchGrad for one-byte columns by the assembly
// kernels sharedDotsRows and sharedAddsRows, with the same sums in the same
// order, so the same bits (TestSharedBatchGrad8MatchesGeneric), in passes
// over runs of sharedChunk rows: the run's margins, then its derivatives
// (one dv.set call: the logistic kernel's lanes follow each other without
// waiting for rows), then its rows added. The records of the batch's first
// prefetchAhead rows are asked for at once, then each prefetchAhead rows
// ahead of the margins. The kernels index θ and the gradient by a column
// byte, without bounds checks: w is copied into dv.wide[0], zeros after
// it, and grad is summed in dv.wide[1].
func sharedBatchGrad8(grad []float64, s *sharedRows, batch []int, w []float64, dv *batchDerivs, nk int) {
	if dv.wide == nil {
		dv.wide = new([2][256]float64)
		dv.rows = new([4][sharedChunk]float64)
	}
	wp, gp := &dv.wide[0], &dv.wide[1]
	copy(wp[:], w)
	clear(wp[len(w):])
	copy(gp[:], grad)
	u, yv, nv, a := &dv.rows[0], &dv.rows[1], &dv.rows[2], &dv.rows[3]
	base, stride := unsafe.Pointer(unsafe.SliceData(s.rec)), uintptr(s.stride)*8 // records are 64-byte aligned
	lines := min(s.stride, prefetchWords) / 8
	if len(batch) > 0 {
		prefetchRecords(base, stride, &batch[0], min(len(batch), prefetchAhead), lines)
	}
	for k := 0; k < len(batch); k += sharedChunk {
		m := min(sharedChunk, len(batch)-k)
		sharedDotsRows(&u[0], &yv[0], &nv[0], base, stride, &batch[k], m, len(batch)-k, nk, lines, wp)
		dv.set(u[:m], yv[:m], nv[:m], a[:m])
		sharedAddsRows(gp, &a[0], base, stride, &batch[k], m)
	}
	copy(grad, gp[:len(grad)])
}

// sharedChunk is the number of rows of a batch sharedBatchGrad8 takes per
// pass: 16 was faster than 8 and 32 on Adult (BenchmarkDPSGDAdult).
const sharedChunk = 16

// prefetchAhead is how many rows ahead sharedBatchGrad8 asks for records
// (aheadRows in sharedrows_amd64.s): 16 was faster than 32.
const prefetchAhead = 16
