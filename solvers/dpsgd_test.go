package solvers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dplab/dplab/internal/rngs"
)

// chiSquareOK reports whether a χ² statistic with k degrees of freedom is
// within the central 99.8% of its distribution (a two-sided test at level
// 0.002; deterministic at the tests' fixed seeds).
func chiSquareOK(stat float64, k int) bool {
	p := distuv.ChiSquared{K: float64(k), Src: newTestRand()}.CDF(stat)
	return p > 0.001 && p < 0.999
}

func TestPoissonSamplerBatchSize(t *testing.T) {
	t.Parallel()
	const n, q, m = 1000, 0.05, 20000
	s, err := NewPoissonSampler(n, q, newTestRand())
	if err != nil {
		t.Fatal(err)
	}
	sizes := make([]float64, m)
	counts := make([]float64, n)
	seen := make([]int, n)
	for k := range sizes {
		b := s.Next()
		sizes[k] = float64(len(b))
		for _, i := range b {
			if i < 0 || i >= n || seen[i] == k+1 {
				t.Fatalf("batch %d: index %d out of range or repeated", k, i)
			}
			seen[i] = k + 1
			counts[i]++
		}
	}
	mean, variance := stat.MeanVariance(sizes, nil)
	// Binomial(n, q): mean nq = 50, variance nq(1 − q) = 47.5. Tolerances:
	// 5 standard errors of the sample mean (√(47.5/m) ≈ 0.049) and of the
	// sample variance (≈ 47.5·√(2/m) ≈ 0.475, normal approximation).
	if math.Abs(mean-n*q) > 5*math.Sqrt(n*q*(1-q)/m) {
		t.Errorf("mean batch size %v, want %v", mean, n*q)
	}
	if math.Abs(variance-n*q*(1-q)) > 5*n*q*(1-q)*math.Sqrt(2.0/m) {
		t.Errorf("batch size variance %v, want %v", variance, n*q*(1-q))
	}
	// Each index is included independently in each batch: its count is
	// Binomial(m, q), so Σ (cᵢ − mq)²/(mq(1 − q)) ~ χ²(n) approximately.
	var chi float64
	for _, c := range counts {
		chi += (c - m*q) * (c - m*q) / (m * q * (1 - q))
	}
	if !chiSquareOK(chi, n) {
		t.Errorf("inclusion counts: χ² = %v with %d degrees of freedom", chi, n)
	}
}

// TestPoissonSamplerSubsets checks the joint law: every subset S of 5
// indices must appear with probability q^|S| (1 − q)^(5 − |S|).
func TestPoissonSamplerSubsets(t *testing.T) {
	t.Parallel()
	const n, q, m = 5, 0.3, 50000
	s, err := NewPoissonSampler(n, q, newTestRand())
	if err != nil {
		t.Fatal(err)
	}
	var freq [1 << n]float64
	for range m {
		mask := 0
		for _, i := range s.Next() {
			mask |= 1 << i
		}
		freq[mask]++
	}
	var chi float64
	for mask, f := range freq {
		k := 0
		for i := range n {
			k += mask >> i & 1
		}
		e := m * math.Pow(q, float64(k)) * math.Pow(1-q, float64(n-k))
		chi += (f - e) * (f - e) / e
	}
	if !chiSquareOK(chi, 1<<n-1) {
		t.Fatalf("subset frequencies: χ² = %v with %d degrees of freedom", chi, 1<<n-1)
	}
}

// TestPoissonSamplerSwapOrder: Next draws its swap positions before it
// swaps (to prefetch them), so its batches must equal, in order, those of
// the partial Fisher–Yates shuffle written as one loop that draws and swaps
// in turn, from the same stream — the same bits DP-SGD had before.
func TestPoissonSamplerSwapOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n int
		q float64
	}{{1, 0.5}, {7, 1}, {50, 0.3}, {1000, 0.01}, {36177, 256.0 / 36177}} {
		s, err := NewPoissonSampler(tc.n, tc.q, newTestRand())
		if err != nil {
			t.Fatal(err)
		}
		r := newTestRand()
		bin := distuv.Binomial{N: float64(tc.n), P: tc.q, Src: r}
		perm := make([]int, tc.n)
		for i := range perm {
			perm[i] = i
		}
		for batch := range 40 {
			b := tc.n
			if tc.q < 1 {
				b = int(bin.Rand())
			}
			for j := 0; j < b; j++ {
				k := j + r.IntN(tc.n-j)
				perm[j], perm[k] = perm[k], perm[j]
			}
			if got := s.Next(); !slices.Equal(got, perm[:b]) {
				t.Fatalf("n = %d, q = %v, batch %d: %v, want %v", tc.n, tc.q, batch, got, perm[:b])
			}
		}
	}
}

// TestPrefetch: prefetch reads nothing a program can see and never faults:
// empty and nil slices, one element at either end of a slice, and spans
// that start anywhere in a cache line and cross several leave the slice as
// it was.
func TestPrefetch(t *testing.T) {
	t.Parallel()
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i)
	}
	want := slices.Clone(x)
	prefetch[float64](nil)
	prefetch(x[:0])
	prefetch(x[999:])
	prefetch(x[:1])
	for lo := range 16 {
		for n := 1; lo+n <= len(x); n += 37 {
			prefetch(x[lo : lo+n])
		}
	}
	prefetch([]int32{1, 2})
	if !slices.Equal(x, want) {
		t.Fatal("prefetch changed the slice")
	}
}

func TestPoissonSamplerErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n int
		q float64
	}{{0, 0.5}, {10, 0}, {10, 1.5}, {10, math.NaN()}} {
		if _, err := NewPoissonSampler(tc.n, tc.q, newTestRand()); err == nil {
			t.Errorf("n = %d, q = %v: no error", tc.n, tc.q)
		}
	}
	s, _ := NewPoissonSampler(7, 1, newTestRand())
	if b := slices.Sorted(slices.Values(s.Next())); !slices.Equal(b, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Fatalf("q = 1: batch %v, want every index", b)
	}
}

// TestStreamSamplerMatchesRand: the sampler DP-SGD uses (newStreamSampler,
// the swap positions drawn from the stream's source by rngs.IntN) gives, bit
// for bit, the batches of NewPoissonSampler on the same stream (its draws
// through rand.Rand.IntN, the oracle), and leaves the stream in the same
// state, at Adult's size and rates from sparse to q = 1; n = 1 and tiny
// batches included.
func TestStreamSamplerMatchesRand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n int
		q float64
	}{{32561, 256.0 / 32561}, {1000, 0.05}, {1000, 0.9}, {64, 1}, {1, 0.5}, {5000, 0.0005}} {
		name := fmt.Sprint(tc.n, "/", tc.q)
		got, want := rngs.New(rngs.Derive("sampler", name)), rngs.New(rngs.Derive("sampler", name))
		a, err := newStreamSampler(tc.n, tc.q, got, "sampling")
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewPoissonSampler(tc.n, tc.q, want.Get("sampling"))
		if err != nil {
			t.Fatal(err)
		}
		for k := range 300 {
			if x, y := a.Next(), b.Next(); !slices.Equal(x, y) {
				t.Fatalf("%s, batch %d: %v, want %v", name, k, x, y)
			}
		}
		if x, y := got.Get("sampling").Uint64(), want.Get("sampling").Uint64(); x != y {
			t.Fatalf("%s: the stream's next draw %v, want %v", name, x, y)
		}
	}
}

// TestAdam compares three steps with [KB15] Algorithm 1 written out:
// m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ), θ ← θ − η m̂/(√v̂ + ε).
func TestAdam(t *testing.T) {
	t.Parallel()
	const lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
	a := NewAdam(2, lr)
	theta := []float64{1, -3}
	want := slices.Clone(theta)
	m, v := make([]float64, 2), make([]float64, 2)
	for step, g := range [][]float64{{1, 1e-9}, {-2, 0}, {0.5, 3}} {
		a.Step(theta, g)
		tt := float64(step + 1)
		for i := range g {
			m[i] = b1*m[i] + (1-b1)*g[i]
			v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
			mh, vh := m[i]/(1-math.Pow(b1, tt)), v[i]/(1-math.Pow(b2, tt))
			want[i] -= lr * mh / (math.Sqrt(vh) + eps)
		}
		// Tolerance: the two forms differ only in rounding (~1e-16).
		if d := maxAbsDiff(theta, want); d > 1e-14 {
			t.Fatalf("step %d: θ = %v, want %v", step+1, theta, want)
		}
	}
}

func TestLinearInit(t *testing.T) {
	t.Parallel()
	const d = 20000
	theta := LinearInit(d, true, newTestRand())
	if len(theta) != d+1 {
		t.Fatalf("len = %d, want %d", len(theta), d+1)
	}
	bound := 1 / math.Sqrt(d)
	for _, v := range theta {
		if math.Abs(v) > bound {
			t.Fatalf("%v outside ±%v", v, bound)
		}
	}
	// U(−b, b): mean 0, variance b²/3. Tolerances: 5 standard errors
	// (b/√(3N) for the mean, ≈ (b²/3)·√(0.8/N) for the variance, using the
	// uniform's excess kurtosis −1.2).
	mean, variance := stat.MeanVariance(theta, nil)
	nn := float64(len(theta))
	if math.Abs(mean) > 5*bound/math.Sqrt(3*nn) || math.Abs(variance-bound*bound/3) > 5*bound*bound/3*math.Sqrt(0.8/nn) {
		t.Fatalf("mean %v, variance %v; want 0, %v", mean, variance, bound*bound/3)
	}
}

func TestDPSGDSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, batch, epochs, steps int
		q                       float64
		wantSteps               int
	}{
		// Adult in [RKW23]: ceil(36176/256) = 142 batches, 60 epochs.
		{36176, 256, 60, 0, 1.0 / 142, 8520},
		{256, 256, 3, 0, 1, 3},
		{257, 256, 3, 0, 0.5, 6},
		{1000, 10, 5, 17, 0.01, 17}, // Steps overrides Epochs
	}
	for _, tc := range tests {
		cfg := DPSGDConfig{LearningRate: 0.1, ExpectedBatch: tc.batch, Epochs: tc.epochs, Steps: tc.steps}
		q, steps, err := cfg.Schedule(tc.n)
		if err != nil || q != tc.q || steps != tc.wantSteps {
			t.Errorf("n = %d, B = %d: q, T = %v, %d (%v); want %v, %d", tc.n, tc.batch, q, steps, err, tc.q, tc.wantSteps)
		}
	}
}

func TestDPSGDConfigErrors(t *testing.T) {
	t.Parallel()
	ok := DPSGDConfig{NoiseMultiplier: 1, Clip: 1, LearningRate: 0.1, Epochs: 1, ExpectedBatch: 8}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, mod := range []func(*DPSGDConfig){
		func(c *DPSGDConfig) { c.NoiseMultiplier = -1 },
		func(c *DPSGDConfig) { c.NoiseMultiplier = math.NaN() },
		func(c *DPSGDConfig) { c.Clip = 0 },
		func(c *DPSGDConfig) { c.Clip = math.Inf(1) },
		func(c *DPSGDConfig) { c.LearningRate = 0 },
		func(c *DPSGDConfig) { c.Epochs = 0 },
		func(c *DPSGDConfig) { c.Steps = -1 },
		func(c *DPSGDConfig) { c.ExpectedBatch = 0 },
		func(c *DPSGDConfig) { c.Optimizer = "rmsprop" },
		func(c *DPSGDConfig) { c.Loss = "hinge" },
	} {
		c := ok
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	x := mat.NewDense(2, 1, []float64{1, 2})
	if _, err := DPSGD(context.Background(), x, []float64{0, 2}, ok, rngs.New(rngs.Derive("t"))); err == nil {
		t.Error("label 2: no error")
	}
}

// TestDPSGDNoiseScale: with all-zero features the weight gradients are pure
// noise, so after T SGD steps of rate η each weight has moved by
// −η Σₜ σ_mult·C·zₜ/int(q·n) with zₜ ~ N(0, 1): variance T(ησ_mult C/int(qn))².
func TestDPSGDNoiseScale(t *testing.T) {
	t.Parallel()
	const n, d, steps = 100, 5000, 10
	cfg := DPSGDConfig{NoiseMultiplier: 2, Clip: 1.5, LearningRate: 0.5, Steps: steps, ExpectedBatch: 10,
		Optimizer: OptimizerSGD, Bias: true}
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % 2)
	}
	seed := rngs.Derive("noise scale")
	res, err := DPSGD(context.Background(), mat.NewDense(n, d, nil), y, cfg, rngs.New(seed))
	if err != nil {
		t.Fatal(err)
	}
	if res.Divisor != 10 || res.SampleRate != 0.1 || res.Clipped != 0 {
		t.Fatalf("divisor %v, q %v, clipped %d; want 10, 0.1, 0", res.Divisor, res.SampleRate, res.Clipped)
	}
	theta0 := LinearInit(d, true, rngs.New(seed).Get("init"))
	moves := make([]float64, d)
	floats.SubTo(moves, res.Theta[:d], theta0[:d])
	want := steps * math.Pow(cfg.LearningRate*cfg.NoiseMultiplier*cfg.Clip/res.Divisor, 2)
	_, variance := stat.MeanVariance(moves, nil)
	// Tolerance: 5 standard errors of a normal sample variance, √(2/d).
	if math.Abs(variance/want-1) > 5*math.Sqrt(2.0/d) {
		t.Fatalf("weight noise variance %v, want %v", variance, want)
	}
}

// TestDPSGDClipping: one full-batch (q = 1) SGD step with rate 1 and no
// noise moves θ by −Σᵢ gᵢ·min(1, C/(‖gᵢ‖ + 10⁻⁶))/n (Opacus' factor), with
// gᵢ = f'(x̃ᵢᵀθ; yᵢ)·x̃ᵢ for each loss, and every clipped gradient has norm < C.
func TestDPSGDClipping(t *testing.T) {
	t.Parallel()
	x := mat.NewDense(3, 2, []float64{10, 0, 0.1, 0.2, -3, 4})
	for _, tc := range []struct {
		loss  string
		y     []float64
		deriv func(u, y float64) float64 // f'(u; y), written out
	}{
		{LossLogistic, []float64{1, 0, 1}, func(u, y float64) float64 { return 1/(1+math.Exp(-u)) - y }},
		{LossSquared, []float64{2.5, -0.3, 7}, func(u, y float64) float64 { return u - y }},
	} {
		cfg := DPSGDConfig{Clip: 0.5, LearningRate: 1, Steps: 1, ExpectedBatch: 3, Optimizer: OptimizerSGD, Bias: true, Loss: tc.loss}
		seed := rngs.Derive("clipping")
		res, err := DPSGD(context.Background(), x, tc.y, cfg, rngs.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		theta := LinearInit(2, true, rngs.New(seed).Get("init"))
		want := slices.Clone(theta)
		clipped := 0
		for i := 0; i < 3; i++ {
			xt := []float64{x.At(i, 0), x.At(i, 1), 1}
			g := make([]float64, 3)
			floats.AddScaled(g, tc.deriv(floats.Dot(xt, theta), tc.y[i]), xt)
			if f := cfg.Clip / (floats.Norm(g, 2) + 1e-6); f < 1 {
				floats.Scale(f, g)
				clipped++
				if floats.Norm(g, 2) >= cfg.Clip {
					t.Fatalf("%s: clipped norm %v ≥ C", tc.loss, floats.Norm(g, 2))
				}
			}
			floats.AddScaled(want, -1.0/3, g)
		}
		// Tolerance: rounding of three O(1) terms.
		if d := maxAbsDiff(res.Theta, want); d > 1e-14 || res.Clipped != clipped || clipped == 0 {
			t.Fatalf("%s: θ = %v (clipped %d), want %v (clipped %d)", tc.loss, res.Theta, res.Clipped, want, clipped)
		}
	}
}

func TestDPSGDDeterministic(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 300, 4, 2)
	cfg := DPSGDConfig{NoiseMultiplier: 1.1, Clip: 1, LearningRate: 0.05, Epochs: 3, ExpectedBatch: 32, Bias: true}
	run := func(seed string) []float64 {
		res, err := DPSGD(context.Background(), x, y, cfg, rngs.New(rngs.Derive(seed)))
		if err != nil {
			t.Fatal(err)
		}
		return res.Theta
	}
	a, b, c := run("s"), run("s"), run("other")
	if !slices.Equal(a, b) {
		t.Fatalf("same streams, different bits: %v vs %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same model")
	}
}

func TestDPSGDCancelled(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 50, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := DPSGDConfig{LearningRate: 0.1, Epochs: 1000, ExpectedBatch: 5}
	if _, err := DPSGD(ctx, x, y, cfg, rngs.New(rngs.Derive("c"))); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestDPSGDNonPrivate: without noise or clipping and with enough epochs,
// the loop reaches the training accuracy and (nearly) the loss of the exact
// non-private minimiser.
func TestDPSGDNonPrivate(t *testing.T) {
	t.Parallel()
	x, y := logisticData(newTestRand(), 2000, 5, 4)
	loss, err := NewGLM(x, y, GLMConfig{Bias: true})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := Minimize(Objective{Loss: loss}, make([]float64, 6), &Settings{GradTol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	for _, optimizer := range []string{OptimizerAdam, OptimizerSGD} {
		lr := map[string]float64{OptimizerAdam: 0.02, OptimizerSGD: 0.5}[optimizer]
		cfg := DPSGDConfig{LearningRate: lr, Epochs: 40, ExpectedBatch: 64, Optimizer: optimizer, Bias: true}
		res, err := DPSGD(context.Background(), x, y, cfg, rngs.New(rngs.Derive("np")))
		if err != nil {
			t.Fatal(err)
		}
		// Tolerances: SGD noise from sampling leaves the iterate in a
		// neighbourhood of the optimum: within 0.5% of the optimal summed
		// loss and 1 percentage point of its training accuracy.
		if got, best := loss.ValueGrad(nil, res.Theta), opt.F; got > best*1.005 {
			t.Errorf("%s: loss %v, optimum %v", optimizer, got, best)
		}
		if a, b := accuracy(x, y, res.Theta), accuracy(x, y, opt.X); a < b-0.01 {
			t.Errorf("%s: accuracy %v, optimum's %v", optimizer, a, b)
		}
	}
}

// accuracy is the fraction of rows with [x̃ᵀθ > 0] = y (θ with bias).
func accuracy(x *mat.Dense, y, theta []float64) float64 {
	n, d := x.Dims()
	var hit float64
	for i := 0; i < n; i++ {
		u := floats.Dot(x.RawRowView(i), theta[:d]) + theta[d]
		if (u > 0) == (y[i] == 1) {
			hit++
		}
	}
	return hit / float64(n)
}

// TestDPSGDSparseRows: on one-hot-like data (density 0.2, below
// sparseMaxDensity) the compressed-sparse-row loops give the dense loops'
// model up to rounding (the sums are reordered; 1e-9 allows for its growth
// over 40 Adam steps), with the same sampling, clipping and noise.
func TestDPSGDSparseRows(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	x := mat.NewDense(500, 10, nil)
	for i := 0; i < 500; i++ {
		x.Set(i, r.IntN(5), 0.6)               // a one-hot block
		x.Set(i, 5+r.IntN(5), 0.8*r.Float64()) // one continuous value among five
	}
	y := make([]float64, 500)
	for i := range y {
		y[i] = float64(r.IntN(2))
	}
	if newSharedRows(x, y, sparseMaxDensity) == nil {
		t.Fatal("density 0.2 not read as sparse rows")
	}
	cfg := DPSGDConfig{NoiseMultiplier: 0.7, Clip: 0.5, LearningRate: 0.05, Epochs: 4, ExpectedBatch: 50, Bias: true}
	seed := rngs.Derive("sparse")
	sp, err := dpsgd(context.Background(), NewDesign(x, y), cfg, rngs.New(seed), false)
	if err != nil {
		t.Fatal(err)
	}
	de, err := dpsgd(context.Background(), NewDesign(x, y), cfg, rngs.New(seed), true)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(sp.Theta, de.Theta); d > 1e-9 || sp.Clipped != de.Clipped || sp.Examples != de.Examples {
		t.Fatalf("sparse and dense differ by %v (clipped %d vs %d)", d, sp.Clipped, de.Clipped)
	}
	if dense := newSharedRows(mat.NewDense(2, 2, []float64{1, 2, 0, 3}), []float64{0, 1}, sparseMaxDensity); dense != nil {
		t.Error("density 0.75 read as sparse rows")
	}
}

// TestDPSGDOnSharedDesign: runs on one Design, concurrent and in sequence,
// give exactly DPSGD's bits on a fresh X (the design's data are computed
// once and only read); a non-finite X is an error on every run.
func TestDPSGDOnSharedDesign(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	x := mat.NewDense(400, 12, nil)
	y := make([]float64, 400)
	for i := 0; i < 400; i++ {
		x.Set(i, r.IntN(6), 0.5)
		x.Set(i, 6+r.IntN(6), r.Float64()-0.5)
		y[i] = float64(r.IntN(2))
	}
	design := NewDesign(x, y)
	for _, bias := range []bool{true, false, true} {
		cfg := DPSGDConfig{NoiseMultiplier: 0.9, Clip: 0.7, LearningRate: 0.05, Epochs: 3, ExpectedBatch: 40, Bias: bias}
		seed := rngs.Derive("design", fmt.Sprint(bias))
		want, err := DPSGD(context.Background(), x, y, cfg, rngs.New(seed))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got := make([]DPSGDResult, 4)
		errs := make([]error, 4)
		for k := range got {
			wg.Go(func() { got[k], errs[k] = DPSGDOn(context.Background(), design, cfg, rngs.New(seed)) })
		}
		wg.Wait()
		for k := range got {
			if errs[k] != nil {
				t.Fatal(errs[k])
			}
			if !slices.Equal(got[k].Theta, want.Theta) || got[k].Clipped != want.Clipped {
				t.Fatalf("bias %v, run %d on the shared design: θ %v, DPSGD gives %v", bias, k, got[k].Theta, want.Theta)
			}
		}
	}
	x.Set(3, 2, math.NaN())
	bad := NewDesign(x, y)
	for range 2 {
		if _, err := DPSGDOn(context.Background(), bad, DPSGDConfig{NoiseMultiplier: 1, Clip: 1, LearningRate: 0.1, Epochs: 1, ExpectedBatch: 40}, rngs.New(rngs.Derive("nan"))); err == nil || !strings.Contains(err.Error(), "not finite") {
			t.Fatalf("NaN in X: %v, want a not-finite error", err)
		}
	}
}

// sharedTestData returns n random rows of d columns, each entry non-zero
// with probability density and then, by a coin flip, the row's shared
// value or a value of its own (about one row in ten left empty when
// empty), and targets for loss: labels in {0, 1}, or 3·N(0, 1) for the
// squared loss.
func sharedTestData(r *rand.Rand, n, d int, density float64, loss glmLoss, empty bool) (*mat.Dense, []float64) {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		if empty && r.IntN(10) == 0 {
			continue
		}
		shared := r.NormFloat64()
		for j := range d {
			if r.Float64() < density {
				if r.IntN(2) == 0 {
					x.Set(i, j, shared)
				} else {
					x.Set(i, j, r.NormFloat64())
				}
			}
		}
	}
	y := make([]float64, n)
	for i := range y {
		if y[i] = float64(r.IntN(2)); loss == squaredLoss {
			y[i] = 3 * r.NormFloat64()
		}
	}
	return x, y
}

// TestSparseBatchGradNaive: on random sparse data (densities 0.05–0.5,
// d = 1–105 and 250–300 (8- and 16-bit columns), about half the entries of
// a row sharing one value, batches of 0–70 rows in random order with
// repeats allowed), sparseBatchGrad with DP-SGD's clipped derivatives gives the gradient sum
// Σᵢ f'ᵢ·min(1, C/(|f'ᵢ|·‖x̃ᵢ‖ + 10⁻⁶))·xᵢ, its intercept part and the
// count of clipped rows of a naive per-example loop over the dense rows
// (closed-form sigmoid(u) − y, written −sigmoid(−u) for y = 1 to avoid
// cancellation; its own norms), within 1e-12 relative to each
// coordinate's sum of absolute terms, for both losses, with and without
// clipping and intercept.
func TestSparseBatchGradNaive(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	for rep := range 200 {
		n, d := 30+r.IntN(50), 1+r.IntN(105)
		if rep%5 == 0 {
			d = 250 + r.IntN(51)
		}
		loss := glmLoss(rep % 2)
		x, y := sharedTestData(r, n, d, 0.05+0.45*r.Float64(), loss, false)
		w := make([]float64, d)
		for j := range w {
			w[j] = r.NormFloat64()
		}
		bias, clip := rep%3 != 0, 0.0
		if rep%4 != 0 {
			clip = 0.05 + 2*r.Float64()
		}
		b := 0.0
		if bias {
			b = r.NormFloat64()
		}
		batch := make([]int, r.IntN(71))
		for k := range batch {
			batch[k] = r.IntN(n)
		}

		got := make([]float64, d)
		dv := batchDerivs{loss: loss, clip: clip, b: b}
		sparseBatchGrad(got, sharedRowsOf(sparseRowsOf(x.RawMatrix(), 0), y, d), batch, w, &dv, bias)

		want, mass := make([]float64, d), make([]float64, d)
		var wantB, massB float64
		wantClipped := 0
		for _, i := range batch {
			row := x.RawRowView(i)
			u, sq := b, 0.0
			for j, v := range row {
				u += v * w[j]
				sq += v * v
			}
			g := u - y[i]
			if loss == logisticLoss { // sigmoid(u) − y, as −sigmoid(−u) for y = 1
				g = 1 / (1 + math.Exp(-u))
				if y[i] == 1 {
					g = -1 / (1 + math.Exp(u))
				}
			}
			if bias {
				sq++
			}
			if clip > 0 {
				if f := clip / (math.Abs(g)*math.Sqrt(sq) + 1e-6); f < 1 {
					g *= f
					wantClipped++
				}
			}
			for j, v := range row {
				want[j] += g * v
				mass[j] += math.Abs(g * v)
			}
			wantB += g
			massB += math.Abs(g)
		}
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-12*mass[j] {
				t.Fatalf("rep %d (n %d, d %d, loss %d, clip %v, batch %d): gradient[%d] = %v, naive %v", rep, n, d, loss, clip, len(batch), j, got[j], want[j])
			}
		}
		if math.Abs(dv.gb-wantB) > 1e-12*massB || dv.clipped != wantClipped {
			t.Fatalf("rep %d: intercept gradient %v and %d clipped, naive %v and %d", rep, dv.gb, dv.clipped, wantB, wantClipped)
		}
	}
}

// TestDenseBatchGradRowByRow: denseBatchGrad, which takes rows of at least
// dot8MinCols entries eight at a time (denseBatchGrad8) and shorter ones
// four at a time, gives the gradient sum, intercept gradient and clipped
// count of the row-by-row pass (floats.Dot for each margin, the derivatives
// set on runs of four rows and then one by one, floats.AddScaled for each
// row in batch order) bit for bit: on d = 3, 41, 383 (four at a time) and
// 384, 390, 2001 (eight, then four, then one by one), batches of 0–45 rows
// with repeats, both losses, with and without clipping and intercept, and
// leaves the coordinate past the gradient alone. It fails when the
// eight-row path drops a row's term or dots a row with a fused
// multiply–add.
func TestDenseBatchGradRowByRow(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	for rep := range 120 {
		n, d := 20+r.IntN(20), []int{3, 41, 383, 384, 390, 2001}[rep%6]
		loss := glmLoss(rep % 2)
		x, y := logisticData(r, n, d, 4)
		if loss == squaredLoss {
			for i := range y {
				y[i] = r.NormFloat64()
			}
		}
		w := randomVec(r, d, 3)
		var norms []float64
		clip := 0.0
		if rep%4 != 0 {
			clip = 0.05 + 2*r.Float64()
			norms = rowNorms(x, rep%3 != 0)
		}
		batch := make([]int, r.IntN(46))
		for k := range batch {
			batch[k] = r.IntN(n)
		}
		raw := x.RawMatrix()
		b := r.NormFloat64()

		got := make([]float64, d+1)
		got[d] = 7
		dv := batchDerivs{loss: loss, clip: clip, b: b}
		denseBatchGrad(got[:d], raw, batch, w, &dv, y, norms)

		want := make([]float64, d)
		dvWant := batchDerivs{loss: loss, clip: clip, b: b}
		var u, a, yv, nv [4]float64
		for k := 0; k < len(batch); {
			m := 1
			if k+4 <= len(batch) {
				m = 4
			}
			for q := range m {
				i := batch[k+q]
				u[q], yv[q] = floats.Dot(x.RawRowView(i), w), y[i]
				if norms != nil {
					nv[q] = norms[i]
				}
			}
			dvWant.set(u[:m], yv[:m], nv[:m], a[:m])
			for q := range m {
				floats.AddScaled(want, a[q], x.RawRowView(batch[k+q]))
			}
			k += m
		}
		for j, v := range want {
			if !sameBits(got[j], v) {
				t.Fatalf("rep %d (d = %d, %d rows, loss %d, clip %v): gradient[%d] = %v, row by row %v", rep, d, len(batch), loss, clip, j, got[j], v)
			}
		}
		if got[d] != 7 {
			t.Fatalf("rep %d: the coordinate past the gradient changed to %v", rep, got[d])
		}
		if !sameBits(dv.gb, dvWant.gb) || dv.clipped != dvWant.clipped {
			t.Fatalf("rep %d: intercept %v, clipped %d; row by row %v, %d", rep, dv.gb, dv.clipped, dvWant.gb, dvWant.clipped)
		}
	}
}

// TestSharedBatchGrad8MatchesGeneric: on random sparse data with one-byte
// columns (d = 1–256, densities 0.05–0.6, about half a row's entries
// sharing one value, some rows empty), batches of 0–90 rows with repeats,
// both losses, with and without clipping and intercept, the one-byte
// kernels (sharedBatchGrad8, which sparseBatchGrad runs where
// haveSharedKernels) give the gradient sum, intercept gradient and clipped
// count of the generic sharedBatchGrad[uint8] bit for bit, and leave the
// other coordinates of a longer gradient alone. Rows of 0 to 256 own and
// shared columns take every remainder of the kernels' four-column turns.
// It fails when sharedDotsRows sums the shared columns before the own ones
// or sharedAddsRows rounds r·shared differently.
func TestSharedBatchGrad8MatchesGeneric(t *testing.T) {
	t.Parallel()
	if !haveSharedKernels {
		t.Skip("no one-byte kernels in this build")
	}
	r := newTestRand()
	for rep := range 300 {
		n, d := 20+r.IntN(60), 1+r.IntN(256)
		loss := glmLoss(rep % 2)
		x, y := sharedTestData(r, n, d, 0.05+0.55*r.Float64(), loss, true)
		s := sharedRowsOf(sparseRowsOf(x.RawMatrix(), 0), y, d)
		if s.colBytes != 1 {
			t.Fatalf("d = %d: %d-byte columns, want 1", d, s.colBytes)
		}
		w := make([]float64, d)
		for j := range w {
			w[j] = r.NormFloat64()
		}
		batch := make([]int, r.IntN(91))
		for k := range batch {
			batch[k] = r.IntN(n)
		}
		nk, clip, b := rep%3, 0.0, r.NormFloat64()
		nk %= 2
		if rep%4 != 0 {
			clip = 0.05 + 2*r.Float64()
		}
		want, got := make([]float64, d+1), make([]float64, d+1)
		want[d], got[d] = 7, 7
		dvWant := batchDerivs{loss: loss, clip: clip, b: b}
		dvGot := dvWant
		sharedBatchGrad[uint8](want[:d], s, batch, w, &dvWant, nk)
		sharedBatchGrad8(got[:d], s, batch, w, &dvGot, nk)
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("rep %d (d = %d, %d rows): gradient[%d] = %v, want %v", rep, d, len(batch), j, got[j], want[j])
			}
		}
		if math.Float64bits(dvGot.gb) != math.Float64bits(dvWant.gb) || dvGot.clipped != dvWant.clipped {
			t.Fatalf("rep %d: intercept %v, clipped %d; want %v, %d", rep, dvGot.gb, dvGot.clipped, dvWant.gb, dvWant.clipped)
		}
	}
}

// TestAdamKernelMatchesScalar: Adam.Step (with the AVX kernel where
// haveAdamKernel) gives, over 50 steps of random gradients of 1–13
// coordinates (gradient scales 1e-6–1e3), the iterates of a plain loop of
// [KB15] Algorithm 1 as PyTorch writes it, bit for bit. It fails when the
// kernel fuses a multiply–add or divides by bc2 in another order.
func TestAdamKernelMatchesScalar(t *testing.T) {
	t.Parallel()
	r := newTestRand()
	b1, b2, eps := 0.9, 0.999, 1e-8 // variables: 1 − b1 rounds at run time, as in Step
	for dim := 1; dim <= 13; dim++ {
		a := NewAdam(dim, 0.01*float64(dim))
		theta, want := make([]float64, dim), make([]float64, dim)
		m, v := make([]float64, dim), make([]float64, dim)
		for j := range theta {
			theta[j] = r.NormFloat64()
			want[j] = theta[j]
		}
		for step := 1; step <= 50; step++ {
			g := make([]float64, dim)
			for j := range g {
				g[j] = r.NormFloat64() * math.Pow(10, float64(r.IntN(10)-6))
			}
			a.Step(theta, g)
			bc1 := 1 - math.Pow(b1, float64(step))
			bc2 := math.Sqrt(1 - math.Pow(b2, float64(step)))
			for j, gj := range g {
				m[j] += (1 - b1) * (gj - m[j])
				v[j] = b2*v[j] + (1-b2)*gj*gj
				want[j] -= (a.LR / bc1) * m[j] / (math.Sqrt(v[j])/bc2 + eps)
			}
			for j := range want {
				if math.Float64bits(theta[j]) != math.Float64bits(want[j]) {
					t.Fatalf("dim %d step %d: θ[%d] = %v, want %v", dim, step, j, theta[j], want[j])
				}
			}
		}
	}
}

// BenchmarkPoissonSampler times one batch of Adult's size (n = 32,561,
// expected batch 256) drawn through rand.Rand.IntN (NewPoissonSampler) and
// from the stream's source directly (newStreamSampler, DP-SGD's).
func BenchmarkPoissonSampler(b *testing.B) {
	const n, q = 32561, 256.0 / 32561
	for _, direct := range []bool{false, true} {
		b.Run(fmt.Sprint("direct=", direct), func(b *testing.B) {
			rs := rngs.New(rngs.Derive("bench-sampler"))
			s, err := NewPoissonSampler(n, q, rs.Get("sampling"))
			if direct {
				s, err = newStreamSampler(n, q, rs, "sampling")
			}
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s.Next()
			}
		})
	}
}

// TestClipSumKernel: clipSumAVX512 (where haveClipKernel) scales and sums
// like clipSum, bit for bit, with the same count: runs of 0–40 lanes
// (every tail length) of derivatives from 1e-9 to 10 in magnitude, zeros,
// ±Inf and NaN, norms from 0 to 3 (NaN among them), clip bounds from 1e-7
// to 5 and lanes set exactly at x = C, starting sums random. It fails when
// the kernel fuses |r|·norm + 10⁻⁶, adds the lanes out of order, or scales
// a lane whose factor is not below 1.
func TestClipSumKernel(t *testing.T) {
	t.Parallel()
	if !haveClipKernel {
		t.Skip("no AVX-512 clipping kernel in this build or on this CPU")
	}
	r := newTestRand()
	for rep := range 20000 {
		n := r.IntN(41)
		clip := 1e-7 * math.Pow(5e7, r.Float64())
		rv, norm := make([]float64, n), make([]float64, n)
		for k := range rv {
			rv[k] = math.Copysign(1e-9*math.Pow(1e10, r.Float64()), r.Float64()-0.5)
			norm[k] = 3 * r.Float64()
			switch r.IntN(40) {
			case 0:
				rv[k] = 0
			case 1:
				rv[k] = math.Inf(1 - 2*r.IntN(2))
			case 2:
				rv[k] = math.NaN()
			case 3:
				norm[k] = math.NaN()
			case 4, 5, 6:
				// x = |r|·norm + 10⁻⁶ at C or one step either side.
				norm[k] = 1
				rv[k] = math.Copysign(clip-clipSlack, r.Float64()-0.5)
				if c := r.IntN(3); c < 2 {
					rv[k] = math.Nextafter(rv[k], math.Inf(2*c-1))
				}
			}
		}
		sum0 := r.NormFloat64()
		want, got := append([]float64(nil), rv...), append([]float64(nil), rv...)
		wantSum, gotSum := sum0, sum0
		wantN := clipSum(want, norm, clip, &wantSum)
		gotN := 0
		if n > 0 {
			gotN = clipSumAVX512(&got[0], &norm[0], n, clip, &gotSum)
		}
		for k := range want {
			if !sameBits(got[k], want[k]) {
				t.Fatalf("rep %d, lane %d of %d (r = %v, norm = %v, C = %v): %v, want %v", rep, k, n, rv[k], norm[k], clip, got[k], want[k])
			}
		}
		if !sameBits(gotSum, wantSum) || gotN != wantN {
			t.Fatalf("rep %d (%d lanes): sum %v, clipped %d; want %v, %d", rep, n, gotSum, gotN, wantSum, wantN)
		}
	}
}
