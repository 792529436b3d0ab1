package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/floatbuf"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
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
//     per trial without refactoring;
//   - "wishart" draws MᵀM, all that the fits read of M, from its own law
//     (sketchGramWishart): p³ flops and p²/2 draws instead of the exact
//     sampler's k·p² and 2·k·p, for k ≥ p (below, it draws as "exact"
//     does).
//
// S (or G) comes from the trial's "sketch" stream and Ξ from its "noise"
// stream. R from QR, not a Cholesky factor of ZᵀZ, because ZᵀZ is singular
// for rank-deficient data (the paper's Gaussian and Uniform sets have rank 4).

// Sampler names.
const (
	samplerExact    = "exact"
	samplerExplicit = "explicit"
	samplerWishart  = "wishart"
)

// jointStats are the data-only statistics of Z = [X, y] that the GaussMix
// family uses, computed once per training set.
type jointStats struct {
	z      *mat.Dense    // n × p: the rows [xᵢ, yᵢ]
	r      *mat.Dense    // p × p upper triangular with RᵀR = ZᵀZ; nil when n < p
	gram   *mat.SymDense // ZᵀZ
	lamMin float64       // λ_min(ZᵀZ)
	spec   struct {      // ZᵀZ's eigendecomposition (spectrum), for the wishart sampler
		once    sync.Once
		values  []float64
		vectors *mat.Dense
		err     error
	}
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
		gram := solvers.Gram(z)
		lamMin, err := solvers.LambdaMin(gram)
		if err != nil {
			return nil, err
		}
		js := &jointStats{z: z, gram: gram, lamMin: lamMin}
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
// it (sketchOLS), in memory reused between calls: a fit keeps only θ. The
// sketch is held padded (padTo4 rows and columns, the padding zero), so
// that the exact sampler's product and the Gram matrix run on
// solvers.AddTransMul4's four-row, four-column blocks (sketchExactPadded,
// gramPadded) without copies.
func (j *jointStats) sketchTheta(sampler string, k int, noiseStd float64, sk, nz rngs.Normals) ([]float64, error) {
	_, p := j.z.Dims()
	if sampler == samplerWishart {
		gb := floatbuf.Get(p * p)
		defer floatbuf.Put(gb)
		gram := mat.NewSymDense(p, (*gb)[:p*p])
		if j.sketchGramWishart(gram, k, noiseStd, sk) {
			return gramOLS(gram)
		}
	}
	k4, p4 := padTo4(k), padTo4(p)
	buf := floatbuf.Get(k4 * p4)
	defer floatbuf.Put(buf)
	data := (*buf)[:k4*p4]
	if sampler != samplerExplicit && j.r != nil && p <= triBlock {
		sketchExactPadded(data, k, j.r, sk)
	} else {
		clear(data)
		sketchExplicitOrExact(mat.NewDense(k4, p4, data).Slice(0, k, 0, p).(*mat.Dense), sampler, j, sk)
	}
	m := mat.NewDense(k4, p4, data).Slice(0, k, 0, p).(*mat.Dense)
	addNoise(m, noiseStd, nz)
	return sketchOLS(m)
}

// padTo4 returns n rounded up to a multiple of 4.
func padTo4(n int) int { return (n + 3) &^ 3 }

// sketchTo draws M = S·Z + noiseStd·Ξ (k × p) into m (overwritten) with
// the named sampler. A zero noiseStd adds no noise and draws nothing from
// nz (Sheffet's no-noise branch). The draws are those of the streams'
// Rand.NormFloat64 in row order (rngs.Normals).
func (j *jointStats) sketchTo(m *mat.Dense, sampler string, noiseStd float64, sk, nz rngs.Normals) {
	sketchExplicitOrExact(m, sampler, j, sk)
	addNoise(m, noiseStd, nz)
}

// sketchExplicitOrExact sets m (k × p) to S·Z by the named sampler.
func sketchExplicitOrExact(m *mat.Dense, sampler string, j *jointStats, sk rngs.Normals) {
	if sampler == samplerExplicit || j.r == nil {
		// With n < p rows, S·Z (k·n·p flops) is cheaper than any p × p
		// factor, and it is the same law.
		sketchExplicit(m, j.z, sk)
	} else {
		sketchExact(m, j.r, sk)
	}
}

// addNoise adds noiseStd·Ξ to m, Ξ ~ N(0, 1) drawn from nz row by row;
// nothing, and no draw, when noiseStd is 0.
func addNoise(m *mat.Dense, noiseStd float64, nz rngs.Normals) {
	if !(noiseStd > 0) {
		return
	}
	raw := m.RawMatrix()
	xb := floatbuf.Get(raw.Cols)
	defer floatbuf.Put(xb)
	xi := (*xb)[:raw.Cols]
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		nz.Fill(xi)
		for c := range row {
			row[c] += noiseStd * xi[c]
		}
	}
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
// sketchExactPadded; wider ones go to solvers.MulTransUpper (which packs
// blocks of R for the cache).
const triBlock = 64

// sketchExact sets m (k × p) to G·R with G ~ N(0, 1)^{k×p} from r (drawn
// row by row, as a k × p matrix) and R upper triangular, with the bits of
// gonum's dgemm on the whole of R: by sketchExactPadded up to triBlock
// columns, and above by solvers.MulTransUpper; both store G transposed as
// it is drawn (the same draws in the same order).
func sketchExact(m, rr *mat.Dense, r rngs.Normals) {
	p, _ := rr.Dims()
	k, _ := m.Dims()
	if p <= triBlock {
		k4, p4 := padTo4(k), padTo4(p)
		cb := floatbuf.Get(k4 * p4)
		defer floatbuf.Put(cb)
		c := (*cb)[:k4*p4]
		sketchExactPadded(c, k, rr, r)
		m.Copy(mat.NewDense(k4, p4, c).Slice(0, k, 0, p))
		return
	}
	gp := floatbuf.Get(k * p)
	defer floatbuf.Put(gp)
	g := (*gp)[:k*p]
	rm, mm := rr.RawMatrix(), m.RawMatrix()
	rb := floatbuf.Get(p)
	defer floatbuf.Put(rb)
	row := (*rb)[:p]
	for i := range k {
		r.Fill(row)
		for l, v := range row {
			g[l*k+i] = v
		}
	}
	solvers.MulTransUpper(mm, blas64.General{Rows: p, Cols: k, Stride: k, Data: g}, rm)
}

// sketchExactPadded sets c, a padTo4(k) × padTo4(p) matrix (row-major,
// overwritten), to G·R as sketchExact does, for R (p × p, upper
// triangular, finite) and G drawn from r as a k × p matrix row by row; the
// padding rows and columns of c end zero. G is stored transposed and
// padded (p × padTo4(k)) and R padded (p × padTo4(p)) with zeros, so that
// solvers.AddTransMul4 sums four rows of c × eight (or four) columns at a
// time; the panel of columns j0 … j0+7 sums only R's rows l < j0 + 8,
// below which R is zero. Each cᵢⱼ sums gᵢₗrₗⱼ from +0 in order l, each
// product rounded: dgemm's bits (the products of R's zero lower triangle
// that a panel adds, and of G's zeros that dgemm skips, are ±0 and change
// no sum from +0, which is never −0). If R holds a NaN or an infinity, for
// which that argument fails, dgemm itself runs.
func sketchExactPadded(c []float64, k int, rr *mat.Dense, r rngs.Normals) {
	p, _ := rr.Dims()
	k4, p4 := padTo4(k), padTo4(p)
	gp := floatbuf.Get(p*k4 + p4*p)
	defer floatbuf.Put(gp)
	gt, rp := (*gp)[:p*k4], (*gp)[p*k4:p*k4+p*p4]
	for i := range k {
		row := c[i*p4 : i*p4+p] // c is overwritten below: a row's buffer
		r.Fill(row)
		for l, v := range row {
			gt[l*k4+i] = v
		}
	}
	for l := range p {
		clear(gt[l*k4+k : (l+1)*k4])
	}
	clear(rp)
	finite := true
	rm := rr.RawMatrix()
	for l := range p {
		for j := l; j < p; j++ {
			v := rm.Data[l*rm.Stride+j]
			rp[l*p4+j] = v
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
	}
	clear(c)
	if !finite {
		cm := blas64.General{Rows: k, Cols: p, Stride: p4, Data: c}
		g := blas64.General{Rows: p, Cols: k, Stride: k4, Data: gt}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, g, rm, 0, cm)
		return
	}
	for i := 0; i < k4; i += 4 {
		for j0 := 0; j0 < p4; j0 += 8 {
			w := min(8, p4-j0)
			solvers.AddTransMul4(c[i*p4+j0:], p4, gt[i:], k4, rp[j0:], p4, min(j0+w, p), w)
		}
	}
}

// sketchGramWishart sets gram (p × p) to MᵀM for a sketch M = S·Z + s·Ξ
// (k × p, s = noiseStd) drawn from the law of MᵀM, without M, and reports
// whether it did: it needs k ≥ p and the spectrum of ZᵀZ, and draws
// nothing otherwise.
//
// The rows of M are i.i.d. N(0, Σ), Σ = ZᵀZ + s²I (see above), so MᵀM ~
// Wishart_p(k, Σ). With ZᵀZ = V·diag(λ)·Vᵀ (jointStats.spectrum) and
// F = V·diag(√(λ + s²))·J (J reverses the order of the columns), FFᵀ = Σ,
// and for any Ũ with W = ŨŨᵀ ~ Wishart_p(k, I), (FŨ)(FŨ)ᵀ = FWFᵀ ~
// Wishart_p(k, FFᵀ) (the law of FWFᵀ: Anderson, "An Introduction to
// Multivariate Statistical Analysis", 3rd ed., §7.3). Bartlett's
// decomposition (Bartlett 1933; Anderson §7.2; Smith & Hocking 1972,
// Applied Statistics algorithm AS 53) — W(k, I) = TTᵀ for T lower
// triangular with independent entries T_bb = √χ²_{k−b} and T_ab ~ N(0, 1)
// below the diagonal — written in the reverse order of the coordinates
// (Ũ = J·T·J, and JWJ has W's law) gives Ũ upper triangular with
//
//	Ũ_aa = √χ²_{k−p+1+a}  (a = 0 … p−1),   Ũ_ab ~ N(0, 1)  (a < b),
//
// all independent. The p χ² draws (gonum's distuv.ChiSquared) and then Ũ's
// rows above the diagonal, in order, come from sk. C = FŨ is
// solvers.MulTransUpper's product of a dense and an upper triangular
// matrix (p³/2 flops) and CCᵀ solvers.GramTo's of Cᵀ (p³/2): p³ in all
// against the exact sampler's k·p² (k = 2.5d by default), and p²/2 normal
// draws against 2·k·p; the noise level s may change per trial (F is
// rebuilt, p² work). The output θ has the exact and explicit samplers'
// law, so the privacy analysis applies unchanged.
func (j *jointStats) sketchGramWishart(gram *mat.SymDense, k int, noiseStd float64, sk rngs.Normals) bool {
	_, p := j.z.Dims()
	if k < p {
		return false
	}
	lam, vecs, err := j.spectrum()
	if err != nil {
		return false
	}
	bp := floatbuf.Get(4 * p * p)
	defer floatbuf.Put(bp)
	buf := (*bp)[:4*p*p]
	ft, ut, c, x := buf[:p*p], buf[p*p:2*p*p], buf[2*p*p:3*p*p], buf[3*p*p:]
	// ft = Fᵀ: row l is √(λ + s²)·(V's column p−1−l)ᵀ.
	s2 := noiseStd * noiseStd
	v := vecs.RawMatrix()
	for l := range p {
		col := p - 1 - l
		scale := math.Sqrt(lam[col] + s2)
		row := ft[l*p : (l+1)*p]
		for i := range p {
			row[i] = scale * v.Data[i*v.Stride+col]
		}
	}
	clear(ut)
	chi := distuv.ChiSquared{Src: sk.Rand()}
	for a := range p {
		chi.K = float64(k - p + 1 + a)
		ut[a*p+a] = math.Sqrt(chi.Rand())
	}
	for a := range p {
		sk.Fill(ut[a*p+a+1 : (a+1)*p])
	}
	square := func(d []float64) blas64.General { return blas64.General{Rows: p, Cols: p, Stride: p, Data: d} }
	solvers.MulTransUpper(square(c), square(ft), square(ut))
	for i := range p {
		for l := range p {
			x[i*p+l] = c[l*p+i]
		}
	}
	solvers.GramTo(gram, mat.NewDense(p, p, x))
	return true
}

// spectrum returns the eigenvalues λ (ascending, those below 0 from
// rounding set to 0) and eigenvectors V (columns) of ZᵀZ, computed on
// first use and kept.
func (j *jointStats) spectrum() ([]float64, *mat.Dense, error) {
	j.spec.once.Do(func() {
		var eig mat.EigenSym
		if !eig.Factorize(j.gram, true) {
			j.spec.err = errors.New("eigendecomposition of ZᵀZ did not converge")
			return
		}
		j.spec.values = eig.Values(nil)
		for i, l := range j.spec.values {
			j.spec.values[i] = math.Max(l, 0)
		}
		j.spec.vectors = new(mat.Dense)
		eig.VectorsTo(j.spec.vectors)
	})
	return j.spec.values, j.spec.vectors, j.spec.err
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
	p4 := padTo4(p)
	gb := floatbuf.Get(p4 * p4)
	defer floatbuf.Put(gb)
	gram := new(mat.SymDense)
	if g := (*gb)[:p4*p4]; gramPadded(g, m) {
		gram.SetRawSymmetric(blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p4, Data: g})
	} else {
		gram = mat.NewSymDense(p, g[:p*p])
		solvers.GramTo(gram, m)
	}
	return gramOLS(gram)
}

// gramOLS returns sketchOLS's θ from the sketch's Gram matrix MᵀM (p × p,
// p = d + 1).
func gramOLS(gram *mat.SymDense) ([]float64, error) {
	d := gram.SymmetricDim() - 1
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

// gramPadded sets the upper triangle of g (padTo4(p) × padTo4(p), row-major)
// to MᵀM for m (k × p) with the bits of solvers.GramTo (dsyrk's), and
// reports whether it did: it runs when p ≤ triBlock and m's rows are padded
// (stride and backing array reaching padTo4(p) columns on every row, as
// sketchTheta's are), summing blocks of four rows × eight (or four) columns
// of g from +0 over m's rows in order with solvers.AddTransMul4 (the
// padding columns only reach g's padding). Each entry is then dsyrk's sum:
// dsyrk skips a zero mₗᵢ, whose products are ±0 and change no sum from +0
// when m is finite; when an entry comes out NaN or infinite (m was not
// finite), gramPadded reports false and GramTo decides.
func gramPadded(g []float64, m *mat.Dense) bool {
	raw := m.RawMatrix()
	k, p, ld := raw.Rows, raw.Cols, raw.Stride
	p4 := padTo4(p)
	if p > triBlock || k == 0 || ld < p4 || cap(raw.Data) < (k-1)*ld+p4 {
		return false
	}
	data := raw.Data[:cap(raw.Data)]
	clear(g)
	for i := 0; i < p4; i += 4 {
		for j0 := i; j0 < p4; j0 += 8 {
			w := min(8, p4-j0)
			solvers.AddTransMul4(g[i*p4+j0:], p4, data[i:], ld, data[j0:], ld, k, w)
		}
	}
	for i := range p {
		for _, v := range g[i*p4+i : i*p4+p] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
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
