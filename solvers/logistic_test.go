package solvers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func TestLogisticValueDeriv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		u, y    float64
		v, g    float64 // oracle value and derivative
		relTol  float64
		comment string
	}{
		// Direct formulas log(1+eᵘ) − yu and 1/(1+e⁻ᵘ) − y, safe for |u| ≤ 5.
		{0, 0, math.Log(2), 0.5, 1e-15, "u = 0"},
		{2.5, 1, math.Log(1+math.Exp(2.5)) - 2.5, 1/(1+math.Exp(-2.5)) - 1, 1e-14, "direct"},
		{-3, 0, math.Log(1 + math.Exp(-3)), 1 / (1 + math.Exp(3)), 1e-14, "direct"},
		// Asymptotics where the direct formula overflows or cancels:
		// log(1+eᵘ) = u + e⁻ᵘ + O(e⁻²ᵘ), sigmoid(u) − 1 = −e⁻ᵘ + O(e⁻²ᵘ).
		{800, 0, 800, 1, 1e-15, "u = 800, y = 0: f = u"},
		{40, 1, math.Exp(-40), -math.Exp(-40), 1e-15, "u = 40, y = 1: no cancellation"},
		{-40, 0, math.Exp(-40), math.Exp(-40), 1e-15, "u = −40, y = 0"},
		{-800, 1, 800, -1, 1e-15, "u = −800, y = 1: f = −u"},
	}
	for _, tc := range tests {
		v, g := logisticValueDeriv(tc.u, tc.y)
		if math.Abs(v-tc.v) > tc.relTol*math.Abs(tc.v) || math.Abs(g-tc.g) > tc.relTol*math.Abs(tc.g) {
			t.Errorf("%s: f, f' = %v, %v; want %v, %v", tc.comment, v, g, tc.v, tc.g)
		}
	}
	// f'' against a central difference of f' (step 1e-5: error ~1e-10).
	for _, u := range []float64{-7, -1, 0, 0.3, 4} {
		_, gp := logisticValueDeriv(u+1e-5, 0)
		_, gm := logisticValueDeriv(u-1e-5, 0)
		if want := (gp - gm) / 2e-5; math.Abs(logisticCurvature(u)-want) > 1e-9 {
			t.Errorf("f''(%v) = %v, want %v", u, logisticCurvature(u), want)
		}
	}
}

// checkDerivatives compares f's gradient and Hessian at x with gonum's
// central finite differences.
func checkDerivatives(t *testing.T, f Function, x []float64, gradTol, hessTol float64) {
	t.Helper()
	d := f.Dim()
	grad := make([]float64, d)
	f.ValueGrad(grad, x)
	value := func(x []float64) float64 { return f.ValueGrad(nil, x) }
	want := fd.Gradient(nil, value, x, &fd.Settings{Formula: fd.Central})
	if e := maxAbsDiff(grad, want); e > gradTol*math.Max(1, floats.Norm(want, math.Inf(1))) {
		t.Fatalf("gradient differs from finite differences by %g\n got %v\nwant %v", e, grad, want)
	}
	hess := mat.NewSymDense(d, nil)
	f.Hessian(hess, x)
	// Finite differences of the exact gradient (second-order accurate).
	for j := 0; j < d; j++ {
		col := fd.Gradient(nil, func(x []float64) float64 {
			g := make([]float64, d)
			f.ValueGrad(g, x)
			return g[j]
		}, x, &fd.Settings{Formula: fd.Central})
		for i := 0; i < d; i++ {
			if e := math.Abs(hess.At(i, j) - col[i]); e > hessTol*math.Max(1, math.Abs(col[i])) {
				t.Fatalf("Hessian[%d,%d] = %v, finite differences %v", i, j, hess.At(i, j), col[i])
			}
		}
	}
	// And the full second-difference Hessian of the value.
	fdh := mat.NewSymDense(d, nil)
	fd.Hessian(fdh, value, x, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if e := math.Abs(hess.At(i, j) - fdh.At(i, j)); e > 1e3*hessTol*math.Max(1, math.Abs(fdh.At(i, j))) {
				t.Fatalf("Hessian[%d,%d] = %v, fd.Hessian %v", i, j, hess.At(i, j), fdh.At(i, j))
			}
		}
	}
}

// TestGLMDerivatives: both losses' gradients and Hessians, plain and
// clipped, against finite differences (checkDerivatives).
func TestGLMDerivatives(t *testing.T) {
	t.Parallel()
	lx, ly := logisticData(newTestRand(), 60, 4, 3)
	rx, ry := regressionData(newTestRand(), 60, 4, 1)
	sq := func(cfg GLMConfig) GLMConfig { cfg.Loss = LossSquared; return cfg }
	tests := []struct {
		name string
		cfg  GLMConfig
		// Coordinates of θ; scaled large enough that clipping binds for
		// some examples (logistic margins up to ~±8).
		scale float64
	}{
		{"no bias", GLMConfig{}, 1},
		{"bias", GLMConfig{Bias: true}, 1},
		{"bias, clip 0.3", GLMConfig{Bias: true, Clip: 0.3}, 4},
		{"clip 0.05", GLMConfig{Clip: 0.05}, 4},
		{"squared, no bias", sq(GLMConfig{}), 1},
		{"squared, bias", sq(GLMConfig{Bias: true}), 1},
		{"squared, bias, clip 0.3", sq(GLMConfig{Bias: true, Clip: 0.3}), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, y := lx, ly
			if tc.cfg.Loss == LossSquared {
				x, y = rx, ry
			}
			l, err := NewGLM(x, y, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := newTestRand()
			theta := randomVec(r, l.Dim(), tc.scale)
			// Tolerances: central differences with gonum's default step have
			// truncation+rounding error ~1e-7 relative on sums of 60 terms of
			// size ≤ 10; the clipped losses have kinks (the Huber loss's
			// included), which the random θ avoids by a margin far above
			// the step.
			checkDerivatives(t, l, theta, 1e-6, 1e-5)
			obj := Objective{Loss: l, L2: 1.7, Linear: randomVec(r, l.Dim(), 2)}
			checkDerivatives(t, obj, theta, 1e-6, 1e-5)
		})
	}
}

// TestLogisticNaive compares the summed loss and gradient with a direct
// row-by-row evaluation of the textbook formulas.
func TestLogisticNaive(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 50, 3, 2)
	l, err := NewGLM(x, y, GLMConfig{Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.5, -1, 2, 0.25}
	var f float64
	g := make([]float64, 4)
	for i := 0; i < 50; i++ {
		xt := append(mat.Row(nil, i, x), 1)
		u := floats.Dot(xt, theta)
		f += math.Log(1+math.Exp(u)) - y[i]*u
		floats.AddScaled(g, 1/(1+math.Exp(-u))-y[i], xt)
	}
	grad := make([]float64, 4)
	got := l.ValueGrad(grad, theta)
	// Tolerance: 50 terms of size ≤ 4, rounding ~1e-15 each.
	if math.Abs(got-f) > 1e-12 || maxAbsDiff(grad, g) > 1e-12 {
		t.Fatalf("ValueGrad = %v, %v; want %v, %v", got, grad, f, g)
	}
}

func TestLogisticClipping(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 40, 3, 2)
	t.Run("per-example gradient norm ≤ C", func(t *testing.T) {
		const c = 0.4
		r := newTestRand()
		for i := 0; i < 40; i++ {
			// One example at a time: ∇ℓ_C(θ; zᵢ).
			l, err := NewGLM(x.Slice(i, i+1, 0, 3).(*mat.Dense), y[i:i+1], GLMConfig{Bias: true, Clip: c})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 20; k++ {
				grad := make([]float64, 4)
				l.ValueGrad(grad, randomVec(r, 4, 5))
				// Tolerance: rounding of a product of O(1) numbers.
				if n := floats.Norm(grad, 2); n > c*(1+1e-14) {
					t.Fatalf("example %d: ‖∇ℓ_C‖ = %v > C = %v", i, n, c)
				}
			}
		}
	})
	t.Run("C = √2 is a no-op for unit rows with bias", func(t *testing.T) {
		plain, _ := NewGLM(x, y, GLMConfig{Bias: true})
		clipped, _ := NewGLM(x, y, GLMConfig{Bias: true, Clip: math.Sqrt2})
		// a = √2/‖x̃ᵢ‖ is 1 up to rounding, so a kink, if any, lies where
		// |1 − a| ≈ 1e-16 = sigmoid(−|u|), i.e. |u| > 36: check every
		// threshold is there, and compare the losses on margins |u| < 36.
		for i := range y {
			if clipped.lo[i] > -36 || clipped.hi[i] < 36 {
				t.Fatalf("example %d: thresholds %v, %v inside ±36", i, clipped.lo[i], clipped.hi[i])
			}
		}
		r := newTestRand()
		compared := 0
		for k := 0; k < 20; k++ {
			theta := randomVec(r, 4, 10)
			if floats.Norm(theta, 2)*math.Sqrt2 >= 36 { // |u| ≤ ‖θ‖·‖x̃ᵢ‖
				continue
			}
			compared++
			g1, g2 := make([]float64, 4), make([]float64, 4)
			if f1, f2 := plain.ValueGrad(g1, theta), clipped.ValueGrad(g2, theta); f1 != f2 || maxAbsDiff(g1, g2) != 0 {
				t.Fatalf("clipping at √2 changed the loss: %v vs %v", f1, f2)
			}
		}
		if compared < 10 {
			t.Fatalf("only %d of 20 draws compared", compared)
		}
	})
	t.Run("f_C is continuous at u_L and u_H", func(t *testing.T) {
		l, _ := NewGLM(x, y, GLMConfig{Bias: true, Clip: 0.3})
		for i := range y {
			for _, u0 := range []float64{l.lo[i], l.hi[i]} {
				if math.IsInf(u0, 0) {
					continue
				}
				// Tolerance: |f_C'| ≤ 1, so a jump-free f_C changes by
				// ≤ 2e-9 across [u0 − 1e-9, u0 + 1e-9].
				vm, _ := l.rowValueDeriv(i, u0-1e-9)
				vp, _ := l.rowValueDeriv(i, u0+1e-9)
				if math.Abs(vp-vm) > 2.1e-9 {
					t.Fatalf("example %d: jump %g at %v", i, vp-vm, u0)
				}
			}
		}
	})
}

func TestNewLogisticErrors(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(2, 1, []float64{1, 2})
	tests := []struct {
		name string
		x    *mat.Dense
		y    []float64
		cfg  GLMConfig
	}{
		{"label −1", x, []float64{-1, 1}, GLMConfig{}},
		{"label 0.5", x, []float64{0, 0.5}, GLMConfig{}},
		{"NaN feature", mat.NewDense(2, 1, []float64{1, math.NaN()}), []float64{0, 1}, GLMConfig{}},
		{"negative clip", x, []float64{0, 1}, GLMConfig{Clip: -1}},
		{"infinite clip", x, []float64{0, 1}, GLMConfig{Clip: math.Inf(1)}},
	}
	for _, tc := range tests {
		if _, err := NewGLM(tc.x, tc.y, tc.cfg); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestObjectiveValidate(t *testing.T) {
	t.Parallel()
	l, err := NewGLM(mat.NewDense(2, 1, []float64{1, 2}), []float64{0, 1}, GLMConfig{Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Objective
		ok   bool
	}{
		{"valid", Objective{Loss: l, L2: 1, Linear: []float64{1, 2}}, true},
		{"nil linear", Objective{Loss: l}, true},
		{"no loss", Objective{L2: 1}, false},
		{"negative L2", Objective{Loss: l, L2: -1}, false},
		{"short linear", Objective{Loss: l, Linear: []float64{1}}, false},
		{"NaN linear", Objective{Loss: l, Linear: []float64{1, math.NaN()}}, false},
	}
	for _, tc := range tests {
		if err := tc.o.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
}

// BenchmarkLogisticValueGrad: one value and gradient of the summed
// logistic loss — the evaluation objective perturbation's L-BFGS repeats —
// on Adult-sized data (36,000 unit-norm rows, 104 features + bias) and on
// the Fashion-MNIST features of gaussmix_fig3 (12,000 rows, 128 features,
// no bias); and of the clipped loss DP-GD descends (C = 1) on the shape of
// preprocessing_fig3's data (5,000 rows, 200 features).
func BenchmarkLogisticValueGrad(b *testing.B) {
	for _, sh := range []struct {
		n, d int
		bias bool
		clip float64
	}{{36000, 104, true, 0}, {12000, 128, false, 0}, {5000, 200, false, 1}} {
		x, y := logisticData(newTestRand(), sh.n, sh.d, 4)
		l, err := NewGLM(x, y, GLMConfig{Bias: sh.bias, Clip: sh.clip})
		if err != nil {
			b.Fatal(err)
		}
		theta := randomVec(newTestRand(), l.Dim(), 1)
		grad := make([]float64, l.Dim())
		b.Run(fmt.Sprintf("n=%d,d=%d,clip=%g", sh.n, l.Dim(), sh.clip), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.ValueGrad(grad, theta)
			}
		})
	}
}

// TestLogisticRows4MatchesScalar: the four-lane logistic loss returns the
// bits of logisticValueDeriv lane by lane. Margins cover [1e-4, 20] in
// magnitude (log-uniform and uniform), the points where log1p changes
// branch (e^−|z| = √2 − 1, u's mantissa against √2's), the points where
// exp's k = round(x·log₂e) changes, the kernel's range ends, and lanes
// outside it (0, ±Inf, NaN, huge) that send the block lane by lane. Labels
// are 0, 1 and fractions. The derivatives alone (nil v) are checked too.
// Blocks within range are also given to the kernel directly, so a fallback
// cannot hide a wrong kernel.
func TestLogisticRows4MatchesScalar(t *testing.T) {
	t.Parallel()
	if !haveLogisticKernel {
		t.Log("no AVX2 and FMA kernel on this build or CPU: checking the lane-by-lane path only")
	}
	r := newTestRand()
	margins, labels := logisticTestMargins(r)
	var kernelBlocks int
	for i := 0; i < len(margins); i += 4 {
		z, y := (*[4]float64)(margins[i:i+4]), (*[4]float64)(labels[i:i+4])
		var v, g [4]float64
		logisticRows4(&v, &g, z, y)
		var dg [4]float64
		logisticRows4(nil, &dg, z, y)
		inRange := kernelMargin(z[0]) && kernelMargin(z[1]) && kernelMargin(z[2]) && kernelMargin(z[3])
		var kv, kg [4]float64
		if haveLogisticKernel && inRange {
			logisticRows4AVX2(&kv, &kg, z, y)
			kernelBlocks++
		}
		for k := range z {
			wv, wg := logisticValueDeriv(z[k], y[k])
			if !sameBits(v[k], wv) || !sameBits(g[k], wg) {
				t.Fatalf("z = %v (%#x), y = %v: logisticRows4 %v, %v; scalar %v, %v", z[k], math.Float64bits(z[k]), y[k], v[k], g[k], wv, wg)
			}
			if haveLogisticKernel && inRange && (!sameBits(kv[k], wv) || !sameBits(kg[k], wg)) {
				t.Fatalf("z = %v (%#x), y = %v: kernel %v, %v; scalar %v, %v", z[k], math.Float64bits(z[k]), y[k], kv[k], kg[k], wv, wg)
			}
			if !sameBits(dg[k], wg) {
				t.Fatalf("z = %v (%#x), y = %v: derivatives only %v; scalar %v", z[k], math.Float64bits(z[k]), y[k], dg[k], wg)
			}
		}
	}
	if haveLogisticKernel && kernelBlocks < len(margins)/8 {
		t.Fatalf("only %d of %d blocks went to the kernel", kernelBlocks, len(margins)/4)
	}
}

// logisticTestMargins returns the margins and labels of
// TestLogisticRows4MatchesScalar (a multiple of four, shuffled): margins
// over [1e-4, 20] in magnitude, the points where exp's and log1p's
// branches change, the kernels' range ends and lanes outside it; labels 0,
// 1 and fractions.
func logisticTestMargins(r *rand.Rand) (margins, labels []float64) {
	for range 400000 {
		switch r.IntN(3) {
		case 0:
			margins = append(margins, 40*r.Float64()-20)
		default:
			margins = append(margins, math.Copysign(1e-4*math.Pow(2e5, r.Float64()), r.Float64()-0.5))
		}
	}
	near := func(z float64, ulps int) {
		for k := -ulps; k <= ulps; k++ {
			v := z
			for range max(k, -k) {
				if k > 0 {
					v = math.Nextafter(v, math.Inf(1))
				} else {
					v = math.Nextafter(v, math.Inf(-1))
				}
			}
			margins = append(margins, v, -v)
		}
	}
	near(-math.Log(math.Sqrt2-1), 300) // e = √2 − 1: both log1p branch points
	for n := range 30 {
		near((float64(n)+0.5)*math.Ln2, 20) // x·log₂e at a half-integer
		near(float64(n)*math.Ln2, 20)
	}
	near(1e-4, 5)
	near(20, 5)
	margins = append(margins, 0, math.Copysign(0, -1), 1e-5, 25, 700, 800, math.Inf(1), math.Inf(-1), math.NaN())
	for len(margins)%4 != 0 {
		margins = append(margins, 1)
	}
	// Shuffle so that out-of-range lanes share blocks with in-range ones.
	r.Shuffle(len(margins), func(i, j int) { margins[i], margins[j] = margins[j], margins[i] })
	labels = make([]float64, len(margins))
	for i := range labels {
		switch r.IntN(5) {
		case 0:
			labels[i] = r.Float64()
		default:
			labels[i] = float64(r.IntN(2))
		}
	}
	return margins, labels
}

// TestLogisticDerivsKernel: rowDerivs on the logistic loss (through
// logisticDerivsAVX512 where haveDerivsKernel) gives logisticDeriv(u + b,
// y) lane by lane, bit for bit, on the margins of
// TestLogisticRows4MatchesScalar cut into runs of 0–40 lanes (every tail
// length) with intercepts 0, ±0.5 and ±3. The kernel is also called
// directly: it must set exactly the lanes in range (the others keep a
// sentinel) and count the others. It fails when the kernel's exp fuses a
// step that exp_amd64.s rounds apart, or when a mask drops a lane.
func TestLogisticDerivsKernel(t *testing.T) {
	t.Parallel()
	if !haveDerivsKernel {
		t.Log("no AVX-512 kernel on this build or CPU: checking rowDerivs' other path only")
	}
	r := newTestRand()
	margins, labels := logisticTestMargins(r)
	sentinel := math.Float64frombits(0x7ff8dead0000beef)
	var kernelLanes int
	for i := 0; i < len(margins); {
		n := min(r.IntN(41), len(margins)-i)
		b := []float64{0, 0.5, -0.5, 3, -3}[r.IntN(5)]
		u, y := margins[i:i+n], labels[i:i+n]
		i += max(n, 1)
		u0 := make([]float64, n) // margins u with u + b = z: u = z − b
		for k := range u {
			u0[k] = u[k] - b
		}
		got := make([]float64, n)
		logisticLoss.rowDerivs(got, u0, b, y)
		direct := make([]float64, n)
		for k := range direct {
			direct[k] = sentinel
		}
		var skipped int
		if haveDerivsKernel && n > 0 {
			skipped = logisticDerivsAVX512(&direct[0], &u0[0], &y[0], n, b)
		}
		var out int
		for k := range u0 {
			z := u0[k] + b
			want := logisticDeriv(z, y[k])
			if !sameBits(got[k], want) {
				t.Fatalf("z = %v (%#x), y = %v: rowDerivs %v, scalar %v", z, math.Float64bits(z), y[k], got[k], want)
			}
			if !haveDerivsKernel {
				continue
			}
			if kernelMargin(z) {
				kernelLanes++
				if !sameBits(direct[k], want) {
					t.Fatalf("z = %v (%#x), y = %v, lane %d of %d: kernel %v, scalar %v", z, math.Float64bits(z), y[k], k, n, direct[k], want)
				}
			} else {
				out++
				if math.Float64bits(direct[k]) != math.Float64bits(sentinel) {
					t.Fatalf("z = %v out of range, lane %d of %d: kernel wrote %v", z, k, n, direct[k])
				}
			}
		}
		if skipped != out {
			t.Fatalf("kernel skipped %d lanes of %d, want %d", skipped, n, out)
		}
	}
	if haveDerivsKernel && kernelLanes < len(margins)/2 {
		t.Fatalf("only %d of %d lanes went to the kernel", kernelLanes, len(margins))
	}
}
