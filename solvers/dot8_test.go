package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestDotRows8MatchesGonum: dotRows8 gives the bits of eight floats.Dot
// calls on every length 0–40 and 127–129, on consecutive rows of a strided
// matrix and on rows gathered from anywhere in x (any order, repeats, any
// start offset mod 4: the AVX loads are unaligned), with entries of many
// magnitudes, ±0, and in some cases NaN and ±Inf, and any prefetch
// distance (past the end of x too). Tolerance: none, except that a NaN may
// be any NaN. A row outside x panics. The test logs whether the AVX kernel
// ran.
func TestDotRows8MatchesGonum(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: checking the row-at-a-time path only")
	}
	r := rand.New(rand.NewPCG(18, 18))
	for _, d := range kernelLengths() {
		for rep := range 6 {
			special := rep%3 == 2
			stride := d + r.IntN(3)
			rows := 8 + r.IntN(6)
			x := make([]float64, rows*stride+d)
			for i := range x {
				x[i] = kernelEntry(r, special)
			}
			var off [8]int
			start := r.IntN(rows - 7)
			for k := range off {
				if rep < 3 {
					off[k] = (start + k) * stride
				} else {
					off[k] = r.IntN(len(x) - d + 1)
				}
			}
			theta := make([]float64, d)
			for j := range theta {
				theta[j] = kernelEntry(r, special)
			}
			pf := []int{0, 8 * stride * 8, 1 << 20, -64}[rep%4]
			var u [8]float64
			dotRows8(&u, x, &off, pf, theta)
			for k := range u {
				want := floats.Dot(x[off[k]:off[k]+d], theta)
				if !sameBits(u[k], want) {
					t.Fatalf("d = %d, rows at %v: dotRows8 row %d = %v (%#x), floats.Dot = %v (%#x)",
						d, off, k, u[k], math.Float64bits(u[k]), want, math.Float64bits(want))
				}
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a row past the end of x did not panic")
			}
		}()
		x := make([]float64, 20)
		var u [8]float64
		off := [8]int{0, 1, 2, 3, 4, 5, 6, 18}
		dotRows8(&u, x, &off, 0, make([]float64, 3))
	}()
}
