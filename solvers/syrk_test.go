package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestSyrkUpperAddMatchesDsyrk: syrkUpperAdd leaves c's whole Data — upper
// triangle, lower triangle, padding — with the bits gonum's dsyrk
// (blas64.Syrk(blas.Trans, 1, a, 1, c)) leaves, on every shape up to 40 rows
// × 1–40 columns and on 300 × 129, with strided a and c, entries of many
// magnitudes and zeros (which dsyrk skips), a c that starts at +0 or holds
// other values, and — on the dsyrk fallback — NaN or ±Inf in a and −0 in c.
// Tolerance: none, except that a NaN may be any NaN.
func TestSyrkUpperAddMatchesDsyrk(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: syrkUpperAdd is dsyrk itself")
	}
	r := rand.New(rand.NewPCG(9, 9))
	type shape struct{ rows, cols int }
	var shapes []shape
	for rows := 0; rows <= 40; rows += 1 + rows/6 {
		for cols := 1; cols <= 40; cols++ {
			shapes = append(shapes, shape{rows, cols})
		}
	}
	shapes = append(shapes, shape{300, 129}, shape{257, 128})
	for n, sh := range shapes {
		special := n%7 == 3 // NaN/Inf in a: the fallback
		negZero := n%7 == 5 // −0 in c: the fallback
		lda := sh.cols + n%3
		a := blas64.General{Rows: sh.rows, Cols: sh.cols, Stride: lda, Data: make([]float64, max(sh.rows*lda, 1))}
		for i := range a.Data {
			a.Data[i] = kernelEntry(r, special)
			if i%lda >= sh.cols {
				a.Data[i] = math.NaN() // padding is never read
			}
		}
		ldc := sh.cols + n%2
		cdata := make([]float64, sh.cols*ldc)
		for i := range cdata {
			if n%2 == 0 {
				cdata[i] = r.NormFloat64() // a c that already holds values
			}
			if i%ldc >= sh.cols || i%ldc < i/ldc {
				cdata[i] = r.NormFloat64() * 1e10 // lower triangle and padding: never written
			}
		}
		if negZero {
			cdata[r.IntN(sh.cols)*(ldc+1)] = math.Copysign(0, -1)
		}
		want := blas64.Symmetric{Uplo: blas.Upper, N: sh.cols, Stride: ldc, Data: append([]float64(nil), cdata...)}
		got := want
		got.Data = cdata
		blas64.Syrk(blas.Trans, 1, a, 1, want)
		syrkUpperAdd(got, a)
		for i := range got.Data {
			if !sameBits(got.Data[i], want.Data[i]) {
				t.Fatalf("%d × %d (lda %d, ldc %d): c.Data[%d] (row %d, column %d) = %v, dsyrk %v",
					sh.rows, sh.cols, lda, ldc, i, i/ldc, i%ldc, got.Data[i], want.Data[i])
			}
		}
	}
}
