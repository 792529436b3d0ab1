package solvers

import "gonum.org/v1/gonum/mat"

// sparseMaxDensity is the largest fraction of non-zero entries for which
// DPSGD reads X as compressed sparse rows. One-hot data such as Adult
// (14 non-zeros in 104 columns) then costs about a seventh of a dense pass
// per example and a seventh of the memory traffic; above it the dense
// (vectorised) loops are faster.
const sparseMaxDensity = 0.5

// sparseRows holds X in compressed sparse row form: row i's non-zero entries
// are ent[start[i]:start[i+1]], in increasing column order. Each entry keeps
// its column beside its value, so a row is one contiguous run of memory
// (DP-SGD reads rows in random order, and each separate array would be one
// more cache miss per row).
type sparseRows struct {
	start []int
	ent   []sparseEntry
}

// sparseEntry is one non-zero entry of a row: its value and column.
type sparseEntry struct {
	val float64
	col int
}

// glmSparseMaxDensity is the largest fraction of non-zero entries for which
// a GLM reads X as compressed sparse rows when the AVX kernels run (on
// denser rows their vectorised dense loops win).
const glmSparseMaxDensity = 0.25

// newSparseRows returns X as compressed sparse rows, or nil when more than
// maxDensity of its entries are non-zero. When maxDensity < 1/2 its first
// 64 rows are looked at first, so that a clearly denser X (over twice
// maxDensity there) is told at little cost.
func newSparseRows(X *mat.Dense, maxDensity float64) *sparseRows {
	raw := X.RawMatrix()
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
	s := &sparseRows{start: make([]int, raw.Rows+1), ent: make([]sparseEntry, 0, nnz)}
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				s.ent = append(s.ent, sparseEntry{val: v, col: j})
			}
		}
		s.start[i+1] = len(s.ent)
	}
	return s
}

// dot returns x_iᵀw.
func (s *sparseRows) dot(i int, w []float64) float64 {
	var u float64
	for _, e := range s.ent[s.start[i]:s.start[i+1]] {
		u += e.val * w[e.col]
	}
	return u
}

// prefetchRow asks for row i's entries to be fetched into cache; its
// offsets start[i:i+2] must be in cache already, or they are waited for.
func (s *sparseRows) prefetchRow(i int) { prefetch(s.ent[s.start[i]:s.start[i+1]]) }

// addScaled adds r·x_i to dst, each product rounded before it is added
// (the explicit conversion: the Go spec lets a compiler fuse x*y + z
// otherwise): the bits of floats.AddScaled(dst, r, x_i) on the dense row,
// whose zero entries add ±0 and change no coordinate that is not −0.
func (s *sparseRows) addScaled(dst []float64, r float64, i int) {
	for _, e := range s.ent[s.start[i]:s.start[i+1]] {
		dst[e.col] += float64(r * e.val)
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
	for _, e := range s.ent[s.start[i]:s.start[i+1]] {
		lane := e.col & 3
		if e.col >= d4 {
			lane = 0
		}
		acc[lane] += float64(e.val * w[e.col])
	}
	return (acc[2] + acc[0]) + (acc[3] + acc[1])
}
