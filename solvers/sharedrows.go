package solvers

import (
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// sharedRows holds a sparse X and its targets y for DP-SGD, laid out so
// that a row read in random order costs few cache lines and no dependent
// load: row i's record is rec[i·stride : (i+1)·stride], records 64-byte
// aligned and of one size (the longest row's, rounded up to whole cache
// lines), so its address follows from i alone. A record holds a rowHead
// (the row's target, shared value, norms and counts), the values of its
// first own columns, then all n of its columns as integers of colBytes =
// 1, 2 or 4 bytes (the fewest that hold every column index), packed into
// the words that follow. The columns are in increasing order among the
// own-valued ones and among the rest, which all carry the row's shared
// value: its most frequent non-zero value when that occurs twice or more.
// One-hot data scaled to unit rows, such as Adult (up to 13 non-zeros in
// 104 columns, its 8 one-hot entries all equal to 1/‖xᵢ‖), then takes two
// cache lines per row, fetched together, and one product for its one-hot
// entries rather than one each: a DP-SGD step's time goes mostly to
// fetching the rows of its batch. A row has at most d non-zeros, whose
// values and columns take at most 12 bytes each, so the records take at
// most 1.5 times X's d·8 bytes per row plus 104 (head and padding),
// however unequal the rows' lengths.
type sharedRows struct {
	rec      []float64
	stride   int // words per record, a multiple of 8
	colBytes int
}

// rowHead is the head of a sharedRows record.
type rowHead struct {
	y      float64    // the row's target
	shared float64    // the value of the columns past the own ones
	norm   [2]float64 // √(0 + ‖xᵢ‖²) and √(1 + ‖xᵢ‖²): ‖x̃ᵢ‖₂ without and with the intercept's 1
	own, n uint16     // own-valued columns and all columns
	_      uint32
}

// headWords is the number of words of a record's rowHead.
const headWords = int(unsafe.Sizeof(rowHead{}) / 8)

// colIndex is the integer type of sharedRows' columns.
type colIndex interface{ uint8 | uint16 | uint32 }

// newSharedRows returns X and y as sharedRows, or nil when more than
// maxDensity of X's entries are non-zero or a row has 2¹⁶ non-zeros or
// more: the dense loops then run.
func newSharedRows(X *mat.Dense, y []float64, maxDensity float64) *sharedRows {
	s := newSparseRows(X, maxDensity)
	if s == nil {
		return nil
	}
	_, cols := X.Dims()
	return sharedRowsOf(s, y, cols)
}

// sharedRowsOf returns s, with targets y and cols columns, as sharedRows,
// or nil where newSharedRows says.
func sharedRowsOf(s *sparseRows, y []float64, cols int) *sharedRows {
	f := &sharedRows{colBytes: 1}
	for f.colBytes < 4 && cols > 1<<(8*f.colBytes) {
		f.colBytes *= 2
	}
	// The records' size: a head, the own values and the columns of the
	// longest row, in whole cache lines.
	heads := make([]rowHead, len(y))
	var sorted []float64
	for i := range heads {
		val, _ := s.row(i)
		if len(val) > math.MaxUint16 {
			return nil
		}
		sorted = append(sorted[:0], val...)
		slices.Sort(sorted)
		shared, best := 0.0, 1
		for a := 0; a < len(sorted); {
			b := a + 1
			for b < len(sorted) && sorted[b] == sorted[a] {
				b++
			}
			if b-a > best {
				shared, best = sorted[a], b-a
			}
			a = b
		}
		h := rowHead{y: y[i], n: uint16(len(val)), own: uint16(len(val))}
		if best > 1 {
			h.shared, h.own = shared, uint16(len(val)-best)
		}
		var sq float64 // Σⱼ x_ij², summed in column order
		for _, v := range val {
			sq += v * v
		}
		h.norm = [2]float64{math.Sqrt(0 + sq), math.Sqrt(1 + sq)}
		heads[i] = h
		f.stride = max(f.stride, headWords+int(h.own)+(int(h.n)*f.colBytes+7)/8)
	}
	f.stride = (f.stride + 7) &^ 7
	f.rec = alignedWords(len(y) * f.stride)
	order := make([]int32, 0, cols)
	for i, h := range heads {
		val, col := s.row(i)
		r := f.rec[i*f.stride : (i+1)*f.stride]
		*(*rowHead)(unsafe.Pointer(&r[0])) = h
		own := r[headWords : headWords+int(h.own)]
		order = order[:0]
		for k, v := range val {
			if h.own == h.n || v != h.shared {
				own[len(order)] = v
				order = append(order, col[k])
			}
		}
		for k, c := range col {
			if h.own < h.n && val[k] == h.shared {
				order = append(order, c)
			}
		}
		words := r[headWords+int(h.own):]
		for k, c := range order {
			switch f.colBytes {
			case 1:
				recCols[uint8](words, len(order))[k] = uint8(c)
			case 2:
				recCols[uint16](words, len(order))[k] = uint16(c)
			default:
				recCols[uint32](words, len(order))[k] = uint32(c)
			}
		}
	}
	return f
}

// alignedWords returns n zero words starting on a 64-byte boundary.
func alignedWords(n int) []float64 {
	w := make([]float64, n+7)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(w))) % 64 / 8)
	return w[skip : skip+n : skip+n]
}

// recCols returns the n columns packed into the words of a record.
func recCols[T colIndex](words []float64, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(words))), n)[:n:n]
}

// record returns row i's head, own values and columns.
func record[T colIndex](s *sharedRows, i int) (h *rowHead, own []float64, cols []T) {
	r := s.rec[i*s.stride : (i+1)*s.stride]
	h = (*rowHead)(unsafe.Pointer(&r[0]))
	return h, r[headWords : headWords+int(h.own)], recCols[T](r[headWords+int(h.own):], int(h.n))
}

// sharedDot returns xᵀw for the row of head h, own values own and columns
// cols: the own-valued products summed in column order, plus the shared
// value times the sum of w over the other columns.
func sharedDot[T colIndex](h *rowHead, own []float64, cols []T, w []float64) float64 {
	var u, us float64
	for k, c := range cols[:len(own)] {
		u += own[k] * w[c]
	}
	for _, c := range cols[len(own):] {
		us += w[c]
	}
	return u + h.shared*us
}

// sharedAddScaled adds r·x to dst for the row of sharedDot: r·v for each
// own value v, and the one product r·shared to every other column.
func sharedAddScaled[T colIndex](dst []float64, r float64, h *rowHead, own []float64, cols []T) {
	for k, c := range cols[:len(own)] {
		dst[c] += r * own[k]
	}
	rs := r * h.shared
	for _, c := range cols[len(own):] {
		dst[c] += rs
	}
}

// prefetchList collects the cache lines to ask for in one prefetchAddrs
// call.
type prefetchList struct {
	p [32]uintptr
	n int
}

// prefetchAdd adds the addresses of the cache lines of s to l, as many as
// fit.
func prefetchAdd[T any](l *prefetchList, s []T) {
	if len(s) == 0 {
		return
	}
	a := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	end := a + uintptr(len(s))*unsafe.Sizeof(s[0])
	for a &^= 63; a < end && l.n < len(l.p); a += 64 {
		l.p[l.n] = a
		l.n++
	}
}

// flush asks for l's lines and empties it.
func (l *prefetchList) flush() {
	if l.n > 0 {
		prefetchAddrs(&l.p[0], l.n)
	}
	l.n = 0
}
