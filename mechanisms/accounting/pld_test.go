package accounting

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestNextFastLen: every length up to 2^23 (and a sample beyond) is covered
// by a transform size ≥ it that gonum's FFTPACK accepts, at most 25% above
// it for sizes ≥ 1000 (the 2-3-5-smooth numbers are dense).
func TestNextFastLen(t *testing.T) {
	for _, m := range []int{1, 2, 7, 1000, 50001, 104729, 1 << 20, 3188646, 3188647, 1 << 23, 9999991} {
		n := nextFastLen(m)
		if n < m || (m >= 1000 && float64(n) > 1.25*float64(m)) {
			t.Errorf("nextFastLen(%d) = %d", m, n)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("FFT of length %d (for %d) panics: %v", n, m, r)
				}
			}()
			fourier.NewFFT(n)
		}()
	}
}

// TestFFTConvolveExact: the FFT convolution and power agree with direct
// summation (1e-14 absolute on probability vectors).
func TestFFTConvolveExact(t *testing.T) {
	a := []float64{0.1, 0.2, 0.3, 0.4}
	b := []float64{0.5, 0.25, 0.25}
	got := fftConvolve(a, b)
	for k := range got {
		want := 0.0
		for i := range a {
			if j := k - i; j >= 0 && j < len(b) {
				want += a[i] * b[j]
			}
		}
		if math.Abs(got[k]-want) > 1e-14 {
			t.Errorf("conv[%d] = %v, want %v", k, got[k], want)
		}
	}
	// a⁵ by repeated direct convolution vs fftPower on a window that holds it all
	want := []float64{1}
	for i := 0; i < 5; i++ {
		next := make([]float64, len(want)+len(a)-1)
		for x, u := range want {
			for y, v := range a {
				next[x+y] += u * v
			}
		}
		want = next
	}
	p := fftPower(a, nextFastLen(len(want)), 5)
	for k, w := range want {
		if math.Abs(p[k]-w) > 1e-14 {
			t.Errorf("power[%d] = %v, want %v", k, p[k], w)
		}
	}
}

// TestPMFQueries: δ(ε) and ε(δ) of a hand-made PLD against direct sums, and
// ε(δ(ε)) ≈ ε (the two queries invert each other on the loss grid).
func TestPMFQueries(t *testing.T) {
	p := &pmf{h: 0.5, lower: -2, probs: []float64{0.1, 0.2, 0.3, 0.2, 0.1, 0.05}, inf: 0.05}
	for _, eps := range []float64{0, 0.25, 0.7, 1.4} {
		want := p.inf
		for i, pr := range p.probs {
			if l := float64(p.lower+i) * p.h; l > eps {
				want += pr * (1 - math.Exp(eps-l))
			}
		}
		if got := p.delta(eps); math.Abs(got-want) > 1e-15 {
			t.Errorf("δ(%g) = %v, want %v", eps, got, want)
		}
		if e := p.epsilon(p.delta(eps)); math.Abs(e-eps) > 1e-12 {
			t.Errorf("ε(δ(%g)) = %v", eps, e)
		}
	}
	if e := p.epsilon(0.01); !math.IsInf(e, 1) {
		t.Errorf("ε(δ < inf mass) = %v, want +Inf", e)
	}
}
