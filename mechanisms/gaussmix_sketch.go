package mechanisms

import (
	"errors"
	"fmt"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The Gaussian mixing mechanism's sketch of the joint matrix Z = [X, y]
// ([LSS+25] eq. (6): one secret S for both halves):
//
//	M = S Z + s·Ξ,   S ~ N(0, 1)^{k×n} (unscaled, never released),   Ξ ~ N(0, 1)^{k×p},
//
// p = d + 1. Its rows are i.i.d. N(0, ZᵀZ + s²I_p) ([LSS+25] App. B,
// eqs. (16)–(17)): row i is sᵢᵀZ + s·ξᵢ with sᵢ ~ N(0, I_n), and sᵢᵀZ ~
// N(0, ZᵀZ). Two samplers draw M:
//
//   - "explicit" forms S·Z (O(k·n·p) flops and k·n normal draws), as the
//     paper's algorithms are written;
//   - "exact" draws G·R + s·Ξ with G ~ N(0, 1)^{k×p} and R the p × p upper
//     triangular factor of ZᵀZ = RᵀR (QR of Z, once per training set): rows
//     gᵢᵀR ~ N(0, RᵀR) = N(0, ZᵀZ), independent across rows, plus the same
//     independent s·ξᵢ. The output has exactly the explicit sampler's
//     distribution, so the privacy analysis (which depends on the output
//     distribution only, Lemma 1's proof) applies unchanged; the cost is
//     O(k·p²/2) flops and 2·k·p draws, and the noise level s may change
//     per trial without refactoring.
//
// S (or G) comes from the trial's "sketch" stream and Ξ from its "noise"
// stream. R from QR, not a Cholesky factor of ZᵀZ, because ZᵀZ is singular
// for rank-deficient data (the paper's Gaussian and Uniform sets have rank 4).

// Sampler names.
const (
	samplerExact    = "exact"
	samplerExplicit = "explicit"
)

// jointStats are the data-only statistics of Z = [X, y] that the GaussMix
// family uses, computed once per training set.
type jointStats struct {
	z      *mat.Dense // n × p: the rows [xᵢ, yᵢ]
	r      *mat.Dense // p × p upper triangular with RᵀR = ZᵀZ; nil when n < p
	lamMin float64    // λ_min(ZᵀZ)
}

// joint returns the statistics of [X, y] for train, memoised on it. With pm
// (binary tasks) the response is tᵢ = 2yᵢ − 1 ∈ {−1, +1} ([LSS+25] §5:
// labels relabelled to ±1).
func joint(train *datasets.Dataset, pm bool) (*jointStats, error) {
	key := "mechanisms/gaussmix/joint"
	if pm {
		key += "-pm1"
	}
	v, err := train.Memo(key, func() (any, error) {
		n, d := train.X.Dims()
		p := d + 1
		z := mat.NewDense(n, p, nil)
		for i := 0; i < n; i++ {
			row := z.RawRowView(i)
			copy(row, train.X.RawRowView(i))
			row[d] = train.Y[i]
			if pm {
				row[d] = 2*train.Y[i] - 1
			}
		}
		lamMin, err := solvers.LambdaMin(solvers.Gram(z))
		if err != nil {
			return nil, err
		}
		js := &jointStats{z: z, lamMin: lamMin}
		if n >= p {
			var qr mat.QR
			qr.Factorize(z)
			var r mat.Dense
			qr.RTo(&r) // n × p; its first p rows hold R
			js.r = mat.DenseCopyOf(r.Slice(0, p, 0, p))
		}
		return js, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*jointStats), nil
}

// sketchTheta draws a sketch (sketchTo) and returns the least squares on
// it (sketchOLS), in memory reused between calls: a fit keeps only θ.
func (j *jointStats) sketchTheta(sampler string, k int, noiseStd float64, sk, nz rngs.Normals) ([]float64, error) {
	_, p := j.z.Dims()
	buf := getScratch(k * p)
	defer scratch.Put(buf)
	m := mat.NewDense(k, p, (*buf)[:k*p])
	j.sketchTo(m, sampler, noiseStd, sk, nz)
	return sketchOLS(m)
}

// sketchTo draws M = S·Z + noiseStd·Ξ (k × p) into m (overwritten) with
// the named sampler. A zero noiseStd adds no noise and draws nothing from
// nz (Sheffet's no-noise branch). The draws are those of the streams'
// Rand.NormFloat64 in row order (rngs.Normals).
func (j *jointStats) sketchTo(m *mat.Dense, sampler string, noiseStd float64, sk, nz rngs.Normals) {
	if sampler == samplerExplicit || j.r == nil {
		// With n < p rows, S·Z (k·n·p flops) is cheaper than any p × p
		// factor, and it is the same law.
		sketchExplicit(m, j.z, sk)
	} else {
		sketchExact(m, j.r, sk)
	}
	if noiseStd > 0 {
		raw := m.RawMatrix()
		xb := getScratch(raw.Cols)
		defer scratch.Put(xb)
		xi := (*xb)[:raw.Cols]
		for i := 0; i < raw.Rows; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
			nz.Fill(xi)
			for c := range row {
				row[c] += noiseStd * xi[c]
			}
		}
	}
}

// scratch holds float64 buffers reused between sketches (every entry is
// overwritten before it is read).
var scratch sync.Pool

// getScratch returns a buffer of at least n entries from scratch.
func getScratch(n int) *[]float64 {
	b, _ := scratch.Get().(*[]float64)
	if b == nil || cap(*b) < n {
		s := make([]float64, n)
		b = &s
	}
	return b
}

// explicitBlock bounds the entries of S held at once by the explicit sampler
// (32 MiB): S is drawn and multiplied in blocks of rows, in row order, so
// the draws are those of the whole k × n matrix.
const explicitBlock = 1 << 22

// sketchExplicit sets m (k × p) to S·Z with S ~ N(0, 1)^{k×n} from r.
func sketchExplicit(m, z *mat.Dense, r rngs.Normals) {
	n, p := z.Dims()
	k, _ := m.Dims()
	rows := max(1, min(k, explicitBlock/max(n, 1)))
	buf := make([]float64, rows*n)
	for i0 := 0; i0 < k; i0 += rows {
		i1 := min(i0+rows, k)
		s := buf[:(i1-i0)*n]
		r.Fill(s)
		blk := m.Slice(i0, i1, 0, p).(*mat.Dense)
		blk.Mul(mat.NewDense(i1-i0, n, s), z)
	}
}

// triBlock is the most columns of R for which sketchExact multiplies by
// mulUpper (pure Go); wider ones go to solvers.MulTransUpper (AVX kernels).
const triBlock = 64

// sketchExact sets m (k × p) to G·R with G ~ N(0, 1)^{k×p} from r (drawn
// row by row, as a k × p matrix) and R upper triangular, with the bits of
// gonum's dgemm on the whole of R: by mulUpper up to triBlock columns, and
// above by solvers.MulTransUpper, for which G is stored transposed as it is
// drawn (the same draws in the same order).
func sketchExact(m, rr *mat.Dense, r rngs.Normals) {
	p, _ := rr.Dims()
	k, _ := m.Dims()
	gp := getScratch(k * p)
	defer scratch.Put(gp)
	g := (*gp)[:k*p]
	rm, mm := rr.RawMatrix(), m.RawMatrix()
	if p <= triBlock {
		r.Fill(g)
		mulUpper(blas64.General{Rows: k, Cols: p, Stride: p, Data: g}, rm, mm)
		return
	}
	rb := getScratch(p)
	defer scratch.Put(rb)
	row := (*rb)[:p]
	for i := range k {
		r.Fill(row)
		for l, v := range row {
			g[l*k+i] = v
		}
	}
	solvers.MulTransUpper(mm, blas64.General{Rows: p, Cols: k, Stride: k, Data: g}, rm)
}

// mulUpper sets c = g·r for r upper triangular (its lower triangle is
// zero), overwriting c, with the bits of gonum's dgemm on the whole of r
// (for r within one 64-wide block, as sketchExact calls it): each cᵢⱼ sums
// gᵢₗrₗⱼ from +0 in order l, each product rounded on its own (the explicit
// conversion: the Go spec lets a compiler fuse x*y + z otherwise), and a
// zero gᵢₗ is skipped as dgemm skips it (TestMulUpperMatchesGemm). Such a
// sum is never −0, so the lower triangle's products, ±0, change none: the
// loops skip them where they can, and add them inside a 4-column block's
// own triangle. Two rows × four columns are summed at once in registers —
// eight independent chains, each row of r loaded once for both rows, c
// written once: for Boston's k = 32, p = 14, 2.2 against 3.8 µs for adding
// each gᵢₗ·(row l of r) into c in turn (BenchmarkMulUpper), which had
// itself beaten dgemm's 4.1 µs by skipping the lower triangle.
func mulUpper(g, r, c blas64.General) {
	p := r.Cols
	i := 0
	for ; i+2 <= g.Rows; i += 2 {
		mulUpperRows2(g.Data[i*g.Stride:i*g.Stride+p], g.Data[(i+1)*g.Stride:(i+1)*g.Stride+p], r,
			c.Data[i*c.Stride:i*c.Stride+p], c.Data[(i+1)*c.Stride:(i+1)*c.Stride+p])
	}
	if i < g.Rows {
		gi := g.Data[i*g.Stride : i*g.Stride+p]
		ci := c.Data[i*c.Stride : i*c.Stride+p]
		for j := range p {
			var a float64
			for l, t := range gi[:j+1] {
				if t != 0 {
					a += float64(t * r.Data[l*r.Stride+j])
				}
			}
			ci[j] = a
		}
	}
}

// mulUpperRows2 sets rows c and d of mulUpper's product from rows g and h
// of its left factor: 2 × 4 sums at a time.
func mulUpperRows2(g, h []float64, r blas64.General, c, d []float64) {
	p := len(c)
	h, c, d = h[:p], c[:p], d[:p]
	j0 := 0
	for ; j0+4 <= p; j0 += 4 {
		var a0, a1, a2, a3, b0, b1, b2, b3 float64
		for l := 0; l < j0+4; l++ {
			rl := r.Data[l*r.Stride+j0 : l*r.Stride+j0+4] // zeros left of the diagonal
			if t := g[l]; t != 0 {
				a0 += float64(t * rl[0])
				a1 += float64(t * rl[1])
				a2 += float64(t * rl[2])
				a3 += float64(t * rl[3])
			}
			if t := h[l]; t != 0 {
				b0 += float64(t * rl[0])
				b1 += float64(t * rl[1])
				b2 += float64(t * rl[2])
				b3 += float64(t * rl[3])
			}
		}
		c[j0], c[j0+1], c[j0+2], c[j0+3] = a0, a1, a2, a3
		d[j0], d[j0+1], d[j0+2], d[j0+3] = b0, b1, b2, b3
	}
	for j := j0; j < p; j++ {
		var a, b float64
		for l := 0; l <= j; l++ {
			v := r.Data[l*r.Stride+j]
			if t := g[l]; t != 0 {
				a += float64(t * v)
			}
			if t := h[l]; t != 0 {
				b += float64(t * v)
			}
		}
		c[j], d[j] = a, b
	}
}

// sketchOLS returns the least-squares solution on the sketch M = [X̃, Ỹ],
//
//	θ = (X̃ᵀX̃)⁻¹ X̃ᵀỸ,
//
// ([LSS+25] Alg. 2 line 4, Alg. 4 lines 6 and 9) from the Gram matrix MᵀM,
// by Cholesky with an LU fallback (solvers.SolveRegularized at λ = 0; the
// authors' code uses an explicit inverse, gaussmix.md §7 item 19).
func sketchOLS(m *mat.Dense) ([]float64, error) {
	_, p := m.Dims()
	d := p - 1
	gb := getScratch(p * p)
	defer scratch.Put(gb)
	gram := mat.NewSymDense(p, (*gb)[:p*p])
	solvers.GramTo(gram, m)
	// X̃ᵀX̃ is the leading d × d block of MᵀM (a view: SolveRegularized
	// copies what it factorizes), X̃ᵀỸ its last column.
	a := gram.SliceSym(0, d).(*mat.SymDense)
	b := make([]float64, d)
	for i := 0; i < d; i++ {
		b[i] = gram.At(i, d)
	}
	theta, err := solvers.SolveRegularized(a, b, 0)
	if err != nil {
		return nil, fmt.Errorf("least squares on the sketch: %w", err)
	}
	return theta, nil
}

// sketchSize returns k: k itself when > 0, else int(kOverD·d) (0 means 2.5,
// the authors' paper-era rule k = int(2.5d), gaussmix.md §6.3).
func sketchSize(k int, kOverD float64, d int) int {
	if k > 0 {
		return k
	}
	if kOverD == 0 {
		kOverD = 2.5
	}
	return max(1, int(kOverD*float64(d)))
}

var errSketchTooSmall = errors.New("the sketch has fewer rows than features (k < d): X̃ᵀX̃ is singular")

// sketchInput is what the GaussMix-family mechanisms need before sketching:
// the sketch size, C² = C_X² + C_Y² and the joint statistics of [X, y].
type sketchInput struct {
	k  int
	c2 float64
	js *jointStats
}

// prepareSketch checks the data bounds (|y| is not checked for a binary task,
// whose ±1 targets are built from the labels) and the sketch size k, and
// returns the sketch's inputs for train. pm selects the ±1 targets of the
// binary surrogate.
func prepareSketch(name string, train *datasets.Dataset, cx, cy float64, kOf func(d int) int, pm bool) (*sketchInput, error) {
	boundY := cy
	if pm {
		boundY = 0
	}
	if err := checkBounds(name, train, cx, boundY); err != nil {
		return nil, err
	}
	d := train.Cols()
	k := kOf(d)
	if err := checkSketchSize(name, k, d); err != nil {
		return nil, err
	}
	js, err := joint(train, pm)
	if err != nil {
		return nil, err
	}
	return &sketchInput{k: k, c2: cx*cx + cy*cy, js: js}, nil
}
