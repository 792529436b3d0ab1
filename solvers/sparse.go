package solvers

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// sparseMaxDensity is the largest fraction of non-zero entries for which
// DPSGD reads X as compressed sparse rows. One-hot data such as Adult
// (14 non-zeros in 104 columns) then costs about a seventh of a dense pass
// per example and a seventh of the memory traffic; above it the dense
// (vectorised) loops are faster.
const sparseMaxDensity = 0.5

// sparseRows holds X in compressed sparse row form: row i's non-zero entries
// are val[start[i]:start[i+1]], in increasing column order, and their
// columns col[start[i]:start[i+1]]. The columns are 4-byte integers, so an
// entry takes 12 bytes rather than the 16 of a {float64, int} pair: DP-SGD
// reads rows in random order, and its time goes mostly to fetching them.
type sparseRows struct {
	start []int
	val   []float64
	col   []int32
}

// glmSparseMaxDensity is the largest fraction of non-zero entries for which
// a GLM reads X as compressed sparse rows when the AVX kernels run (on
// denser rows their vectorised dense loops win).
const glmSparseMaxDensity = 0.25

// newSparseRows returns X as compressed sparse rows, or nil when more than
// maxDensity of its entries are non-zero or X has more columns than an
// int32 holds. When maxDensity < 1/2 its first
// 64 rows are looked at first, so that a clearly denser X (over twice
// maxDensity there) is told at little cost.
func newSparseRows(X *mat.Dense, maxDensity float64) *sparseRows {
	raw := X.RawMatrix()
	if raw.Cols > math.MaxInt32 {
		return nil
	}
	nnz := 0
	if head := min(raw.Rows, 64); raw.Rows > 2*head && 2*maxDensity < 1 {
		for i := range head {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if v != 0 {
					nnz++
				}
			}
		}
		if float64(nnz) > 2*maxDensity*float64(head)*float64(raw.Cols) {
			return nil
		}
		nnz = 0
	}
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				nnz++
			}
		}
	}
	if float64(nnz) > maxDensity*float64(raw.Rows)*float64(raw.Cols) {
		return nil
	}
	return sparseRowsOf(raw, nnz)
}

// sparseRowsOf returns the non-zero entries of raw (fewer than 2³¹ columns)
// as compressed sparse rows; nnz is their number, or a guess.
func sparseRowsOf(raw blas64.General, nnz int) *sparseRows {
	s := &sparseRows{start: make([]int, raw.Rows+1), val: make([]float64, 0, nnz), col: make([]int32, 0, nnz)}
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				s.val = append(s.val, v)
				s.col = append(s.col, int32(j))
			}
		}
		s.start[i+1] = len(s.val)
	}
	return s
}

// row returns row i's non-zero values and their columns (slices of equal
// length, which lets the compiler drop the bounds checks on val).
func (s *sparseRows) row(i int) (val []float64, col []int32) {
	a, b := s.start[i], s.start[i+1]
	col = s.col[a:b]
	return s.val[a : a+len(col)], col
}

// addScaled adds r·x_i to dst, each product rounded before it is added
// (the explicit conversion: the Go spec lets a compiler fuse x*y + z
// otherwise): the bits of floats.AddScaled(dst, r, x_i) on the dense row,
// whose zero entries add ±0 and change no coordinate that is not −0.
func (s *sparseRows) addScaled(dst []float64, r float64, i int) {
	val, col := s.row(i)
	for k, c := range col {
		dst[c] += float64(r * val[k])
	}
}

// dotLanes returns x_iᵀw (len(w) columns) with the bits of floats.Dot on
// the dense row, as dotRows4 computes it: four partial sums sₖ over the
// columns j ≡ k mod 4 below the last multiple of 4, the 1–3 trailing
// products added to s₀, then (s₂ + s₀) + (s₃ + s₁), every product rounded
// before it is added (gonum's DotUnitary on amd64). A zero entry's product
// is ±0 and changes no partial sum: they start at +0 and are never −0.
// Only for use where haveRowKernels holds (pure-Go gonum sums in another
// order).
func (s *sparseRows) dotLanes(i int, w []float64) float64 {
	d4 := len(w) &^ 3
	var acc [4]float64
	val, col := s.row(i)
	for k, c := range col {
		lane := c & 3
		if int(c) >= d4 {
			lane = 0
		}
		acc[lane] += float64(val[k] * w[c])
	}
	return (acc[2] + acc[0]) + (acc[3] + acc[1])
}
