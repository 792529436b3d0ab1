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

// newSparseRows returns X as compressed sparse rows, or nil when more than
// sparseMaxDensity of its entries are non-zero.
func newSparseRows(X *mat.Dense) *sparseRows {
	raw := X.RawMatrix()
	nnz := 0
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				nnz++
			}
		}
	}
	if float64(nnz) > sparseMaxDensity*float64(raw.Rows)*float64(raw.Cols) {
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

// addScaled adds r·x_i to dst.
func (s *sparseRows) addScaled(dst []float64, r float64, i int) {
	for _, e := range s.ent[s.start[i]:s.start[i+1]] {
		dst[e.col] += r * e.val
	}
}
