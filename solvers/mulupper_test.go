package solvers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestMulTransUpperMatchesDgemm: MulTransUpper leaves c's whole Data with
// the bits gonum's dgemm on the whole of r leaves (blas64.Gemm(blas.Trans,
// blas.NoTrans, 1, gt, r, 0, c)), padding untouched, on every shape with
// p = 1–40 and k = 0–41, on sizes spanning several row blocks (p = 129,
// 300, 513, 515), with strided gt, r and c, Gaussian entries or entries of
// many magnitudes and zeros in gt (which dgemm skips), and, on the dgemm
// fallback, NaN or ±Inf. Tolerance: none, except that a NaN may be any NaN.
func TestMulTransUpperMatchesDgemm(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: MulTransUpper is dgemm itself")
	}
	rng := rand.New(rand.NewPCG(5, 7))
	type shape struct{ p, k int }
	var shapes []shape
	for p := 1; p <= 40; p++ {
		for k := 0; k <= 41; k += 1 + k/5 {
			shapes = append(shapes, shape{p, k})
		}
	}
	small := len(shapes)
	shapes = append(shapes, shape{129, 37}, shape{300, 21}, shape{513, 66}, shape{515, 9})
	for n, sh := range shapes {
		special := n%9 == 4 // NaN/Inf: the fallback
		// Plain Gaussian entries on the large shapes and every third small
		// one: with kernelEntry's spread of magnitudes a missing term is
		// often too small to change a sum's bits.
		entry := func() float64 { return kernelEntry(rng, special) }
		if n >= small || n%3 == 1 {
			entry = rng.NormFloat64
		}
		fill := func(rows, cols, stride int, upper bool) blas64.General {
			m := blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: make([]float64, max(rows*stride, 1))}
			for i := range m.Data {
				row, col := i/stride, i%stride
				switch {
				case col >= cols:
					m.Data[i] = math.NaN() // padding is never read
				case upper && col < row:
					m.Data[i] = 0
				default:
					m.Data[i] = entry()
				}
			}
			return m
		}
		gt := fill(sh.p, sh.k, max(sh.k+n%3, 1), false)
		r := fill(sh.p, sh.p, sh.p+n%2, true)
		ldc := sh.p + n%4
		want := blas64.General{Rows: sh.k, Cols: sh.p, Stride: ldc, Data: make([]float64, max(sh.k*ldc, 1))}
		for i := range want.Data {
			want.Data[i] = rng.NormFloat64() * 1e10 // overwritten, except the padding
		}
		start := append([]float64(nil), want.Data...)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, gt, r, 0, want)
		check := func(how string, mul func(c blas64.General)) {
			got := want
			got.Data = append([]float64(nil), start...)
			mul(got)
			for i := range want.Data {
				w, g := want.Data[i], got.Data[i]
				if math.Float64bits(w) != math.Float64bits(g) && !(math.IsNaN(w) && math.IsNaN(g)) {
					t.Fatalf("%s, p = %d, k = %d (special %v): c[%d, %d] = %v, want %v (dgemm)", how, sh.p, sh.k, special, i/ldc, i%ldc, g, w)
				}
			}
		}
		check("MulTransUpper", func(c blas64.General) { MulTransUpper(c, gt, r) })
		// Small blocks of rows, so that block boundaries fall everywhere
		// (in a panel, in the last 1–3 rows) on the small shapes.
		if haveRowKernels && !special && sh.p >= 8 && sh.k > 0 && n < small {
			for _, rb := range []int{1, 3, 5, 8} {
				check(fmt.Sprintf("blocks of %d rows", rb), func(c blas64.General) { mulTransUpperRows(c, gt, r, rb) })
			}
		}
	}
}
