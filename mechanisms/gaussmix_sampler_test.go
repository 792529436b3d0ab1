package mechanisms

import (
	"fmt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// sketch returns a fresh sketch drawn by sketchTo (tests keep the matrix;
// fits use sketchTheta's reused memory).
func (j *jointStats) sketch(sampler string, k int, noiseStd float64, sk, nz *rand.Rand) *mat.Dense {
	_, p := j.z.Dims()
	m := mat.NewDense(k, p, nil)
	j.sketchTo(m, sampler, noiseStd, rngs.NormalsOf(sk), rngs.NormalsOf(nz))
	return m
}

// samplerData is a small fixed dataset whose joint Gram matrix is far from
// a multiple of the identity (correlated columns of different scales), so a
// wrong factor would show in the covariance.
func samplerData() *datasets.Dataset {
	r := rand.New(rand.NewPCG(1, 1))
	const n, d = 40, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := r.NormFloat64(), r.NormFloat64()
		x.SetRow(i, []float64{a, 0.5*a + 0.2*b, 0.1 * r.NormFloat64()})
		y[i] = 0.3*a - b + 0.05*r.NormFloat64()
	}
	return &datasets.Dataset{Name: "sampler", Task: datasets.Regression, X: x, Y: y}
}

// draws returns the rows of reps sketches (k rows each) from sampler.
func draws(js *jointStats, sampler string, k, reps int, noiseStd float64, seed uint64) *mat.Dense {
	sk := rand.New(rand.NewPCG(seed, 1))
	nz := rand.New(rand.NewPCG(seed, 2))
	_, p := js.z.Dims()
	out := mat.NewDense(k*reps, p, nil)
	for t := 0; t < reps; t++ {
		m := js.sketch(sampler, k, noiseStd, sk, nz)
		out.Slice(t*k, (t+1)*k, 0, p).(*mat.Dense).Copy(m)
	}
	return out
}

// ksPValue is the asymptotic p-value of the two-sample Kolmogorov–Smirnov
// statistic D for sample sizes n and m (Numerical Recipes §14.3.3,
// probks with λ = (√nₑ + 0.12 + 0.11/√nₑ)·D, nₑ = nm/(n+m)).
func ksPValue(d float64, n, m int) float64 {
	ne := float64(n) * float64(m) / float64(n+m)
	lam := (math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d
	sum, sign := 0.0, 1.0
	for j := 1; j <= 100; j++ {
		term := sign * 2 * math.Exp(-2*float64(j*j)*lam*lam)
		sum += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return math.Min(1, math.Max(0, sum))
}

func ksTwoSample(a, b []float64) float64 {
	a, b = append([]float64(nil), a...), append([]float64(nil), b...)
	sort.Float64s(a)
	sort.Float64s(b)
	return ksPValue(stat.KolmogorovSmirnov(a, nil, b, nil), len(a), len(b))
}

// TestSamplersAgreeInDistribution: the exact sampler G·R + s·Ξ and the
// explicit S·Z + s·Ξ draw rows from the same law N(0, ZᵀZ + s²I):
//
//  1. each sampler's empirical row covariance matches ZᵀZ + s²I within 5
//     standard errors per entry (SE of a Gaussian covariance entry from N
//     rows: √((Σᵢⱼ² + ΣᵢᵢΣⱼⱼ)/N));
//  2. rows of one sketch are uncorrelated (cross-row covariance ≈ 0, same
//     bound);
//  3. a two-sample KS test on the projections uᵀm (fixed random u) does not
//     reject at 1e-3, and one-sample KS tests against N(0, uᵀΣu) do not
//     either — while a 5% variance error (the negative control) is rejected
//     by the same test.
//
// Fixed seeds make the test deterministic.
func TestSamplersAgreeInDistribution(t *testing.T) {
	js, err := joint(samplerData(), false)
	if err != nil {
		t.Fatal(err)
	}
	const k, reps, s = 50, 4000, 0.7
	n := k * reps
	_, p := js.z.Dims()
	sigma := mat.NewSymDense(p, nil)
	sigma.SymOuterK(1, js.z.T())
	for i := 0; i < p; i++ {
		sigma.SetSym(i, i, sigma.At(i, i)+s*s)
	}
	u := []float64{0.3, -0.5, 0.7, 0.2}
	floats.Scale(1/floats.Norm(u, 2), u)
	var su mat.VecDense
	su.MulVec(sigma, mat.NewVecDense(p, u))
	projSD := math.Sqrt(floats.Dot(u, su.RawVector().Data))

	proj := map[string][]float64{}
	for _, sampler := range []string{samplerExact, samplerExplicit} {
		rows := draws(js, sampler, k, reps, s, 7)
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, rows, nil)
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				se := math.Sqrt((sigma.At(i, j)*sigma.At(i, j) + sigma.At(i, i)*sigma.At(j, j)) / float64(n))
				if math.Abs(cov.At(i, j)-sigma.At(i, j)) > 5*se {
					t.Errorf("%s: cov[%d][%d] = %.4f, want %.4f ± %.4f", sampler, i, j, cov.At(i, j), sigma.At(i, j), 5*se)
				}
			}
		}
		// Cross-row covariance of rows 2t and 2t+1 of each sketch, column 0.
		var c float64
		for t0 := 0; t0 < reps; t0++ {
			for r := 0; r+1 < k; r += 2 {
				c += rows.At(t0*k+r, 0) * rows.At(t0*k+r+1, 0)
			}
		}
		c /= float64(reps * (k / 2))
		if se := sigma.At(0, 0) / math.Sqrt(float64(reps*(k/2))); math.Abs(c) > 5*se {
			t.Errorf("%s: cross-row covariance %.4f, want 0 ± %.4f", sampler, c, 5*se)
		}
		pr := make([]float64, n)
		for i := range pr {
			pr[i] = floats.Dot(rows.RawRowView(i), u)
		}
		proj[sampler] = pr
		norm := distuv.Normal{Mu: 0, Sigma: projSD}
		sorted := append([]float64(nil), pr...)
		sort.Float64s(sorted)
		var dmax float64
		for i, v := range sorted {
			f := norm.CDF(v)
			dmax = math.Max(dmax, math.Max(math.Abs(f-float64(i)/float64(n)), math.Abs(float64(i+1)/float64(n)-f)))
		}
		pv := ksPValue(dmax, n, 1<<40)
		t.Logf("%s: one-sample KS p = %.3g", sampler, pv)
		if pv < 1e-3 {
			t.Errorf("%s: one-sample KS against N(0, uᵀΣu): D = %.4g, p = %.3g", sampler, dmax, pv)
		}
	}
	pv := ksTwoSample(proj[samplerExact], proj[samplerExplicit])
	t.Logf("two-sample KS exact vs explicit: p = %.3g", pv)
	if pv < 1e-3 {
		t.Errorf("two-sample KS exact vs explicit: p = %.3g", pv)
	}
	// Negative control: a 5% error in the variance is detected.
	wrong := make([]float64, n)
	for i, v := range proj[samplerExact] {
		wrong[i] = v * math.Sqrt(1.05)
	}
	pv = ksTwoSample(wrong, proj[samplerExplicit])
	t.Logf("negative control (5%% variance error): p = %.3g", pv)
	if pv > 1e-3 {
		t.Errorf("negative control: KS does not detect a 5%% variance error (p = %.3g)", pv)
	}
}

// TestExactFactor: R from the QR of Z satisfies RᵀR = ZᵀZ (to rounding,
// 1e-12 relative to ‖ZᵀZ‖) and is upper triangular, also for rank-deficient
// Z (the paper's Gaussian set has rank 4).
func TestExactFactor(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, d, rank = 60, 8, 3
	b := mat.NewDense(n, rank, nil)
	c := mat.NewDense(rank, d, nil)
	for _, m := range []*mat.Dense{b, c} {
		raw := m.RawMatrix()
		for i := range raw.Data {
			raw.Data[i] = r.NormFloat64()
		}
	}
	x := mat.NewDense(n, d, nil)
	x.Mul(b, c)
	y := make([]float64, n)
	for i := range y {
		y[i] = x.At(i, 0) - x.At(i, 1)
	}
	ds := &datasets.Dataset{Name: "lowrank", X: x, Y: y}
	js, err := joint(ds, false)
	if err != nil {
		t.Fatal(err)
	}
	var rtr, ztz mat.Dense
	rtr.Mul(js.r.T(), js.r)
	ztz.Mul(js.z.T(), js.z)
	if !mat.EqualApprox(&rtr, &ztz, 1e-12*mat.Norm(&ztz, math.Inf(1))) {
		t.Error("RᵀR ≠ ZᵀZ")
	}
	p := d + 1
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			if js.r.At(i, j) != 0 {
				t.Fatalf("R[%d][%d] = %v below the diagonal", i, j, js.r.At(i, j))
			}
		}
	}
	if math.Abs(js.lamMin) > 1e-10*mat.Norm(&ztz, 2) {
		t.Errorf("λ_min of a rank-%d Gram = %v, want ≈ 0", rank, js.lamMin)
	}
}

// gemmOfDraws returns G·R by gonum's dgemm, for G (k × p, p = R's size)
// drawn row by row by Rand.NormFloat64 from PCG(seed, 1): the oracle of
// the exact sampler's product.
func gemmOfDraws(seed uint64, k int, up *mat.Dense) *mat.Dense {
	p, _ := up.Dims()
	draws := rand.New(rand.NewPCG(seed, 1))
	g := mat.NewDense(k, p, nil)
	for i := range g.RawMatrix().Data {
		g.RawMatrix().Data[i] = draws.NormFloat64()
	}
	want := mat.NewDense(k, p, nil)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g.RawMatrix(), up.RawMatrix(), 0, want.RawMatrix())
	return want
}

// TestSketchExactPaddedMatchesGemm: sketchExactPadded's G·R has the bits
// of gonum's dgemm on G drawn row by row from the same stream (the same
// draws in the same order) and the whole of R, for every p up to triBlock,
// R of mixed scales with exact zeros on and above its diagonal; with an
// infinity or a NaN in R (dgemm's fallback, where AVX sums would differ)
// too; and the padding of c ends zero.
func TestSketchExactPaddedMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, p := range []int{1, 2, 5, 13, 14, 16, 19, 33, triBlock} {
		for _, k := range []int{1, 7, 57, 64} {
			for _, special := range []float64{0, math.Inf(-1), math.NaN()} {
				up := mat.NewDense(p, p, nil)
				for i := 0; i < p; i++ {
					for j := i; j < p; j++ {
						if r.IntN(5) > 0 {
							up.Set(i, j, r.NormFloat64()*math.Exp(4*r.NormFloat64()))
						}
					}
				}
				if special != 0 {
					up.Set(r.IntN(p), p-1, special)
				}
				seed := r.Uint64()
				k4, p4 := padTo4(k), padTo4(p)
				c := make([]float64, k4*p4)
				for i := range c {
					c[i] = 7 // overwritten
				}
				sketchExactPadded(c, k, up, rngs.NormalsOf(rand.New(rand.NewPCG(seed, 1))))
				want := gemmOfDraws(seed, k, up)
				for i := 0; i < k4; i++ {
					for j := 0; j < p4; j++ {
						got := c[i*p4+j]
						if i >= k || j >= p {
							if special == 0 && got != 0 {
								t.Fatalf("p=%d k=%d: padding c[%d,%d] = %v, want 0", p, k, i, j, got)
							}
							continue
						}
						if w := want.At(i, j); math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
							t.Fatalf("p=%d k=%d R special %v: (G·R)[%d,%d] = %v, dgemm %v", p, k, special, i, j, got, w)
						}
					}
				}
			}
		}
	}
}

// TestSketchThetaMatchesBLAS: sketchTheta's θ (the padded sketch, its Gram
// matrix by gramPadded, the solve) has the bits of the same computation by
// gonum's BLAS written out here — G and Ξ drawn by Rand.NormFloat64 row by
// row from the two streams, M = dgemm(G, R) + s·Ξ, MᵀM by dsyrk, θ by
// solvers.SolveRegularized — at Boston's shape (k = 57, p = 14) and others,
// with noise and without (Sheffet's branch).
func TestSketchThetaMatchesBLAS(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, sh := range []struct{ n, d, k int }{{404, 13, 57}, {60, 3, 9}, {200, 7, 20}, {300, 15, 40}, {500, 40, 100}} {
		x := mat.NewDense(sh.n, sh.d, nil)
		y := make([]float64, sh.n)
		for i := range sh.n {
			for j := range sh.d {
				x.Set(i, j, r.NormFloat64()/math.Sqrt(float64(2*sh.d)))
			}
			y[i] = r.Float64() - 0.5
		}
		js, err := joint(&datasets.Dataset{Name: "t", Task: datasets.Regression, X: x, Y: y}, false)
		if err != nil {
			t.Fatal(err)
		}
		p := sh.d + 1
		for _, noise := range []float64{0, 0.37} {
			seed := r.Uint64()
			fast := rngs.New(rngs.Derive("theta", fmt.Sprint(seed)))
			got, err := js.sketchTheta(samplerExact, sh.k, noise, fast.Normals("sketch"), fast.Normals("noise"))
			if err != nil {
				t.Fatal(err)
			}
			ref := rngs.New(rngs.Derive("theta", fmt.Sprint(seed)))
			sk, nz := ref.Get("sketch"), ref.Get("noise")
			g := mat.NewDense(sh.k, p, nil)
			for i := range g.RawMatrix().Data {
				g.RawMatrix().Data[i] = sk.NormFloat64()
			}
			m := mat.NewDense(sh.k, p, nil)
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g.RawMatrix(), js.r.RawMatrix(), 0, m.RawMatrix())
			if noise > 0 {
				for i := range sh.k {
					for j := range p {
						m.Set(i, j, m.At(i, j)+noise*nz.NormFloat64())
					}
				}
			}
			gram := mat.NewSymDense(p, nil)
			blas64.Syrk(blas.Trans, 1, m.RawMatrix(), 0, gram.RawSymmetric())
			b := make([]float64, p-1)
			for i := range b {
				b[i] = gram.At(i, p-1)
			}
			want, err := solvers.SolveRegularized(gram.SliceSym(0, p-1).(*mat.SymDense), b, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d d=%d k=%d noise %v: θ[%d] = %v, BLAS %v", sh.n, sh.d, sh.k, noise, i, got[i], want[i])
				}
			}
		}
	}
}

// TestSketchExactMatchesGemm: sketchExact's G·R, for every p (up to
// triBlock by sketchExactPadded, above by solvers.MulTransUpper with G drawn
// transposed), has the bits of gonum's dgemm on G drawn row by row from
// the same stream and the whole upper-triangular R: the same draws in the
// same order, and the same sums.
func TestSketchExactMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, p := range []int{14, triBlock, triBlock + 1, 130} {
		for _, k := range []int{1, 7, 57} {
			up := mat.NewDense(p, p, nil)
			for i := 0; i < p; i++ {
				for j := i; j < p; j++ {
					up.Set(i, j, r.NormFloat64()*math.Exp(4*r.NormFloat64()))
				}
			}
			seed := r.Uint64()
			got := mat.NewDense(k, p, nil)
			sketchExact(got, up, rngs.NormalsOf(rand.New(rand.NewPCG(seed, 1))))
			want := gemmOfDraws(seed, k, up)
			for i := 0; i < k; i++ {
				for j := 0; j < p; j++ {
					if a, b := got.At(i, j), want.At(i, j); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("p=%d k=%d: (G·R)[%d,%d] = %v, dgemm %v", p, k, i, j, a, b)
					}
				}
			}
		}
	}
}

// TestSketchOLS: the Cholesky solve of the sketch's normal equations equals
// gonum's QR least squares on [X̃, Ỹ] (tolerance 1e-10 relative: a
// well-conditioned 200 × 6 problem), and a rank-deficient X̃ is an error.
func TestSketchOLS(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	const k, p = 200, 7
	m := mat.NewDense(k, p, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < p; j++ {
			m.Set(i, j, r.NormFloat64())
		}
	}
	got, err := sketchOLS(m)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	if err := want.SolveVec(m.Slice(0, k, 0, p-1), m.ColView(p-1)); err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if math.Abs(g-want.AtVec(i)) > 1e-10*math.Abs(want.AtVec(i))+1e-14 {
			t.Errorf("θ[%d] = %.15g, QR %.15g", i, g, want.AtVec(i))
		}
	}
	for i := 0; i < k; i++ {
		m.Set(i, 1, 2*m.At(i, 0)) // column 1 = 2 × column 0
	}
	if _, err := sketchOLS(m); err == nil {
		t.Error("a rank-deficient sketch solved")
	}
}

// TestSketchFewRows: with fewer rows than columns (n < p) the exact sampler
// falls back to S·Z, which is the same law and cheaper; the draw is then
// identical to the explicit sampler's from the same stream.
func TestSketchFewRows(t *testing.T) {
	d := samplerData().Subset([]int{0, 1, 2})
	js, err := joint(d, false)
	if err != nil {
		t.Fatal(err)
	}
	if js.r != nil {
		t.Fatal("a factor R for n < p")
	}
	a := js.sketch(samplerExact, 5, 0.3, rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 2)))
	b := js.sketch(samplerExplicit, 5, 0.3, rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 2)))
	if !mat.Equal(a, b) {
		t.Error("n < p: exact and explicit differ on the same streams")
	}
}

// wishartData is a dataset of n rows and d correlated columns of different
// scales (p = d + 1 ≥ 8 reaches MulTransUpper's AVX path).
func wishartData(n, d int) *datasets.Dataset {
	r := rand.New(rand.NewPCG(2, 2))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		a := r.NormFloat64()
		for j := range d {
			x.Set(i, j, (0.5*a+r.NormFloat64())/float64(j+1))
		}
		y[i] = 0.3*a + 0.1*r.NormFloat64()
	}
	return &datasets.Dataset{Name: "wishart", Task: datasets.Regression, X: x, Y: y}
}

// TestWishartSamplerAgreesInDistribution: the Gram matrix MᵀM that the
// wishart sampler draws has the law of the exact sampler's (G·R + s·Ξ, the
// explicit sampler's law, TestSamplersAgreeInDistribution), a
// Wishart_p(k, Σ) with Σ = ZᵀZ + s²I, with noise and without, at p = 4
// (samplerData) and p = 12:
//
//  1. over 4,000 draws every entry's mean is kΣᵢⱼ and its variance
//     k(Σᵢⱼ² + ΣᵢᵢΣⱼⱼ) (MᵀM sums k independent products xᵢxⱼ of a row
//     x ~ N(0, Σ), whose variance is Σᵢⱼ² + ΣᵢᵢΣⱼⱼ by Isserlis' theorem),
//     within 5 standard errors (the variance's SE estimated from the
//     sample's fourth moments);
//  2. a two-sample KS test of uᵀ(MᵀM)u and of θ₀ (the fit's first
//     coefficient) against as many exact-sampler draws does not reject at
//     1e-3;
//  3. negative control: the Bartlett factor with one degree of freedom too
//     many (k + 1), a 1/k error in the mean, fails check 1.
func TestWishartSamplerAgreesInDistribution(t *testing.T) {
	const reps = 4000
	for _, c := range []struct {
		data *datasets.Dataset
		k    int
		s    float64
	}{{samplerData(), 50, 0.7}, {samplerData(), 50, 0}, {wishartData(80, 11), 40, 0.4}, {wishartData(80, 11), 30, 0}} {
		js, err := joint(c.data, false)
		if err != nil {
			t.Fatal(err)
		}
		_, p := js.z.Dims()
		sigma := mat.NewSymDense(p, nil)
		sigma.SymOuterK(1, js.z.T())
		for i := range p {
			sigma.SetSym(i, i, sigma.At(i, i)+c.s*c.s)
		}
		u := make([]float64, p)
		for i := range u {
			u[i] = math.Sin(float64(i + 1))
		}
		floats.Scale(1/floats.Norm(u, 2), u)
		name := fmt.Sprintf("p = %d, k = %d, s = %g", p, c.k, c.s)
		streams := rngs.New(rngs.Derive("wishart-test", name))
		// moments reports the entries of the reps draws' mean and variance
		// that are more than 5 SE from the Wishart's.
		moments := func(k int) (bad []string, quad []float64) {
			sk := streams.Normals(fmt.Sprintf("sketch k=%d", k))
			sum := make([]float64, p*p)
			sum2 := make([]float64, p*p)
			sum4 := make([]float64, p*p)
			quad = make([]float64, reps)
			gram := mat.NewSymDense(p, nil)
			var draws [][]float64
			for r := range reps {
				if !js.sketchGramWishart(gram, k, c.s, sk) {
					t.Fatalf("%s: no draw", name)
				}
				g := make([]float64, p*p)
				for i := range p {
					for j := range p {
						g[i*p+j] = gram.At(i, j)
					}
				}
				draws = append(draws, g)
				var gu mat.VecDense
				gu.MulVec(gram, mat.NewVecDense(p, u))
				quad[r] = floats.Dot(u, gu.RawVector().Data)
				for e, v := range g {
					sum[e] += v
				}
			}
			for _, g := range draws {
				for e, v := range g {
					dv := v - sum[e]/reps
					sum2[e] += dv * dv
					sum4[e] += dv * dv * dv * dv
				}
			}
			for i := range p {
				for j := i; j < p; j++ {
					e := i*p + j
					mean, v := sum[e]/reps, sum2[e]/(reps-1)
					sij, sii, sjj := sigma.At(i, j), sigma.At(i, i), sigma.At(j, j)
					wantV := float64(c.k) * (sij*sij + sii*sjj)
					if se := math.Sqrt(wantV / reps); math.Abs(mean-float64(c.k)*sij) > 5*se {
						bad = append(bad, fmt.Sprintf("mean[%d][%d] = %.5g, want %.5g ± %.3g", i, j, mean, float64(c.k)*sij, 5*se))
					}
					if se := math.Sqrt((sum4[e]/reps - v*v) / reps); math.Abs(v-wantV) > 5*se {
						bad = append(bad, fmt.Sprintf("var[%d][%d] = %.5g, want %.5g ± %.3g", i, j, v, wantV, 5*se))
					}
				}
			}
			return bad, quad
		}
		bad, quad := moments(c.k)
		for _, b := range bad {
			t.Errorf("%s: %s", name, b)
		}
		if control, _ := moments(c.k + 1); len(control) == 0 {
			t.Errorf("%s: negative control (k + 1 degrees of freedom) passes the moment checks", name)
		}
		// The exact sampler's MᵀM and θ, and the wishart sampler's θ.
		ex, ws := rngs.New(rngs.Derive("wishart-test exact", name)), rngs.New(rngs.Derive("wishart-test theta", name))
		sk, nz := ex.Normals("sketch"), ex.Normals("noise")
		quadExact, thetaExact, thetaWishart := make([]float64, reps), make([]float64, reps), make([]float64, reps)
		for r := range reps {
			m := mat.NewDense(c.k, p, nil)
			js.sketchTo(m, samplerExact, c.s, sk, nz)
			var mu mat.VecDense
			mu.MulVec(m, mat.NewVecDense(p, u))
			quadExact[r] = floats.Dot(mu.RawVector().Data, mu.RawVector().Data)
			th, err := sketchOLS(m)
			if err != nil {
				t.Fatal(err)
			}
			thetaExact[r] = th[0]
			th, err = js.sketchTheta(samplerWishart, c.k, c.s, ws.Normals("sketch"), ws.Normals("noise"))
			if err != nil {
				t.Fatal(err)
			}
			thetaWishart[r] = th[0]
		}
		pq, pt := ksTwoSample(quad, quadExact), ksTwoSample(thetaWishart, thetaExact)
		t.Logf("%s: two-sample KS wishart vs exact: uᵀ(MᵀM)u p = %.3g, θ₀ p = %.3g", name, pq, pt)
		if pq < 1e-3 {
			t.Errorf("%s: two-sample KS of uᵀ(MᵀM)u, wishart vs exact: p = %.3g", name, pq)
		}
		if pt < 1e-3 {
			t.Errorf("%s: two-sample KS of θ₀, wishart vs exact: p = %.3g", name, pt)
		}
	}
}

// TestWishartSamplerFallsBack: with k < p the wishart sampler draws
// nothing of its own and gives the exact sampler's θ from the same streams,
// bit for bit.
func TestWishartSamplerFallsBack(t *testing.T) {
	js, err := joint(wishartData(80, 11), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k int
		s float64
	}{{11, 0.4}, {11, 0}} {
		a, b := rngs.New(rngs.Derive("fallback")), rngs.New(rngs.Derive("fallback"))
		got, err := js.sketchTheta(samplerWishart, c.k, c.s, a.Normals("sketch"), a.Normals("noise"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := js.sketchTheta(samplerExact, c.k, c.s, b.Normals("sketch"), b.Normals("noise"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("k = %d, s = %g: θ[%d] = %v, exact sampler %v", c.k, c.s, i, got[i], want[i])
			}
		}
	}
}
