package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// sameBits reports whether a and b are the same float64 bit for bit, except
// that a NaN may be any NaN (which of two NaN operands' payloads an x86
// instruction passes on depends on operand order).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// kernelEntry returns a test entry: mostly of widely spread magnitudes (so a
// change in summation order shows in the last bits), sometimes ±0, huge or
// tiny, and with special set also NaN or ±Inf.
func kernelEntry(r *rand.Rand, special bool) float64 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return r.NormFloat64() * 1e150
	case 3:
		return r.NormFloat64() * 1e-160
	case 4:
		if special {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
		}
	}
	return r.NormFloat64() * math.Exp(3*r.NormFloat64())
}

// TestRowKernelsMatchGonum: dotRows4 gives the bits of four floats.Dot calls
// and axpyRows4 those of four floats.AddScaled calls, on every length 0–40
// and 127–129, strides ≥ the length, every start offset mod 4 (the AVX
// loads are unaligned; gonum's dot does not depend on alignment), entries
// of many magnitudes, ±0, and in some cases NaN and ±Inf; with finite x, a
// coefficient 0 in axpyRows4 leaves g as a skipped call does. Tolerance: none, except
// that a NaN may be any NaN. The test logs whether the AVX kernels ran.
func TestRowKernelsMatchGonum(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: checking the row-at-a-time path only")
	}
	r := rand.New(rand.NewPCG(17, 17))
	var lengths []int
	for d := 0; d <= 40; d++ {
		lengths = append(lengths, d)
	}
	lengths = append(lengths, 127, 128, 129)
	cases := 0
	for _, d := range lengths {
		for offset := range 4 {
			for rep := range 3 {
				special := rep == 2
				stride := d + r.IntN(3)
				x := make([]float64, offset+3*stride+d)
				for i := range x {
					x[i] = kernelEntry(r, special)
				}
				x = x[offset:]
				theta := make([]float64, d)
				for j := range theta {
					theta[j] = kernelEntry(r, special)
				}
				var u [4]float64
				dotRows4(&u, x, stride, theta)
				for k := range u {
					want := floats.Dot(x[k*stride:k*stride+d], theta)
					if !sameBits(u[k], want) {
						t.Fatalf("d = %d, stride %d, offset %d: dotRows4 row %d = %v (%#x), floats.Dot = %v (%#x)",
							d, stride, offset, k, u[k], math.Float64bits(u[k]), want, math.Float64bits(want))
					}
				}

				// Gradients are sums of finite terms that start at +0, as in
				// ValueGrad; a holds one zero coefficient in most cases.
				g := make([]float64, d)
				for j := range g {
					if r.IntN(4) > 0 {
						g[j] = r.NormFloat64() * math.Exp(3*r.NormFloat64())
					}
				}
				a := [4]float64{r.NormFloat64(), r.NormFloat64() * 1e-8, r.NormFloat64() * 1e8, 0}
				if rep > 0 { // 0·Inf is NaN: zero coefficients only for finite x, as in ValueGrad
					a[3] = r.NormFloat64()
				}
				want := append([]float64(nil), g...)
				for k, ak := range a {
					if ak != 0 {
						floats.AddScaled(want, ak, x[k*stride:k*stride+d])
					}
				}
				axpyRows4(g, &a, x, stride)
				for j := range g {
					if !sameBits(g[j], want[j]) {
						t.Fatalf("d = %d, stride %d, offset %d, a = %v: axpyRows4 g[%d] = %v, four AddScaled calls %v",
							d, stride, offset, a, j, g[j], want[j])
					}
				}
				cases++
			}
		}
	}
	t.Logf("%d cases, AVX kernels: %v", cases, haveRowKernels)
}

// TestRowKernelsCheckShapes: a stride shorter than the row or an x too short
// for four rows panics before any memory is read.
func TestRowKernelsCheckShapes(t *testing.T) {
	t.Parallel()
	theta := make([]float64, 5)
	var u [4]float64
	var a [4]float64
	for _, tc := range []struct {
		name   string
		x      []float64
		stride int
	}{
		{"stride < d", make([]float64, 40), 4},
		{"x one short", make([]float64, 3*6+5-1), 6},
	} {
		for _, call := range []struct {
			kernel string
			run    func()
		}{
			{"dotRows4", func() { dotRows4(&u, tc.x, tc.stride, theta) }},
			{"axpyRows4", func() { axpyRows4(theta, &a, tc.x, tc.stride) }},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s, %s: no panic", call.kernel, tc.name)
					}
				}()
				call.run()
			}()
		}
	}
}
