package solvers

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// syrkUpperAdd adds aᵀa to the upper triangle of c with the bits of gonum's
// dsyrk, blas64.Syrk(blas.Trans, 1, a, 1, c), and writes nothing else.
//
// dsyrk adds, for each row l of a in turn and each i with aₗᵢ ≠ 0, the
// products aₗᵢ·aₗⱼ (j ≥ i), each rounded, to cᵢⱼ. With AVX, blocks of four
// rows × four or eight columns of c are summed in registers (gemmRows4AVX)
// over a block of rows of a at a time (gemmRowBlock: the block stays in
// cache while every block of c reads it), the blocks in order, so each cᵢⱼ
// still sums its products in order l; a block of c that crosses the
// diagonal or the last column is summed in a scratch block, and only its
// entries in the upper triangle are copied back. The kernel does not skip a
// zero aₗᵢ, which changes no bit when a is finite and no entry of c's upper
// triangle is −0: the product is then ±0, and adding ±0 to a number that
// is not −0 leaves it unchanged, while a sum of two numbers is −0 only
// when both are.
// Otherwise — a NaN or an infinity in a, a −0 in c, fewer than 8 columns,
// no AVX — dsyrk runs itself.
func syrkUpperAdd(c blas64.Symmetric, a blas64.General) {
	if c.Uplo != blas.Upper || c.N != a.Cols {
		panic(badShape)
	}
	if !haveRowKernels || a.Rows == 0 || a.Cols < 8 ||
		checkFiniteMatrix("a", generalMatrix(a)) != nil || upperHasNegZero(c) {
		blas64.Syrk(blas.Trans, 1, a, 1, c)
		return
	}
	if a.Stride < a.Cols || c.Stride < c.N ||
		len(a.Data) < (a.Rows-1)*a.Stride+a.Cols || len(c.Data) < (c.N-1)*c.Stride+c.N {
		panic(badShape) // gemmRows4AVX reads and writes unchecked
	}
	rb := gemmRowBlock(a.Cols)
	for l0 := 0; l0 < a.Rows; l0 += rb {
		blk := a
		blk.Rows, blk.Data = min(rb, a.Rows-l0), a.Data[l0*a.Stride:]
		syrkUpperAddRows(c, blk)
	}
}

// gemmBlockBytes bounds the bytes of a block of rows that syrkUpperAdd and
// MulTransUpper sum over at once: 256 KiB, half of a core's L2 cache on
// the development machine (AMD EPYC, 512 KiB).
const gemmBlockBytes = 1 << 18

// gemmRowBlock is the number of rows of cols entries in a block.
func gemmRowBlock(cols int) int { return max(8, gemmBlockBytes/(8*cols)) }

// syrkUpperAddRows is syrkUpperAdd's AVX path on one block of rows of a.
func syrkUpperAddRows(c blas64.Symmetric, a blas64.General) {
	n := a.Cols
	// block sums rows i … i+3 × columns j … j+3 of c in a scratch block and
	// keeps only its entries (i+r, j+m) with i+r ≥ fromRow and j+m ≥
	// max(i+r, fromCol): those of the upper triangle not summed elsewhere.
	var tmp [16]float64
	block := func(i, j, fromRow, fromCol int) {
		keep := func(r, m int) bool { return i+r >= fromRow && j+m >= max(i+r, fromCol) }
		for r := range 4 {
			for m := range 4 {
				if keep(r, m) {
					tmp[4*r+m] = c.Data[(i+r)*c.Stride+j+m]
				}
			}
		}
		gemmRows4AVX(tmp[:], 4, a.Data[i:], a.Stride, a.Data[j:], a.Stride, a.Rows, 4)
		for r := range 4 {
			for m := range 4 {
				if keep(r, m) {
					c.Data[(i+r)*c.Stride+j+m] = tmp[4*r+m]
				}
			}
		}
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		block(i, i, i, i) // the diagonal block's upper triangle
		cols := (n - i - 4) &^ 3
		if cols > 0 {
			gemmRows4AVX(c.Data[i*c.Stride+i+4:], c.Stride, a.Data[i:], a.Stride, a.Data[i+4:], a.Stride, a.Rows, cols)
		}
		if end := i + 4 + cols; end < n {
			block(i, n-4, i, end) // the last 1–3 columns
		}
	}
	if i < n {
		block(n-4, n-4, i, 0) // the last 1–3 rows' upper triangle
	}
}

// generalMatrix lets checkFiniteMatrix read a blas64.General.
type generalMatrix blas64.General

// RawMatrix implements mat.RawMatrixer.
func (g generalMatrix) RawMatrix() blas64.General { return blas64.General(g) }

// upperHasNegZero reports whether c's upper triangle holds a −0.
func upperHasNegZero(c blas64.Symmetric) bool {
	for i := range c.N {
		for _, v := range c.Data[i*c.Stride+i : i*c.Stride+c.N] {
			if v == 0 && 1/v < 0 {
				return true
			}
		}
	}
	return false
}
