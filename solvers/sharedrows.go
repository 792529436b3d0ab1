package solvers

import (
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// sharedRows holds a sparse X and its targets y for DP-SGD, laid out so
// that a row read in random order costs few cache lines: head[i] (32
// bytes, one cache line) holds row i's target, squared norm and shared
// value, and locates its record, rec[off:], which holds the values of its
// first own columns, then all n of its columns as integers of colBytes = 1,
// 2 or 4 bytes (the fewest that hold every column index), packed into the
// words that follow. The columns are in increasing order among the
// own-valued ones and among the rest, which all carry the row's shared
// value: its most frequent non-zero value when that occurs twice or more.
// One-hot data scaled to unit rows, such as Adult (up to 13 non-zeros in
// 104 columns, its 8 one-hot entries all equal to 1/‖xᵢ‖), then takes a
// head and a record of about 56 bytes per row, instead of an offset, a
// target, a norm and 12 bytes per entry in four arrays, and one product for
// its one-hot entries rather than one each: a DP-SGD step's time goes
// mostly to fetching the rows of its batch.
type sharedRows struct {
	head     []rowHead
	rec      []float64
	colBytes int
}

// rowHead describes row i of sharedRows.
type rowHead struct {
	shared float64 // the value of the columns past the own ones
	y      float64 // the row's target
	sq     float64 // Σⱼ x_ij², summed in column order
	off    int32   // the record's first word in rec
	own, n uint16  // own-valued columns and all columns
}

// colIndex is the integer type of sharedRows' columns.
type colIndex interface{ uint8 | uint16 | uint32 }

// newSharedRows returns X and y as sharedRows, or nil when more than
// maxDensity of X's entries are non-zero, or a row has 2¹⁶ non-zeros or
// more, or the records take 2³¹ words or more: the dense loops then run.
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
	f := &sharedRows{head: make([]rowHead, len(y)), colBytes: 1}
	for f.colBytes < 4 && cols > 1<<(8*f.colBytes) {
		f.colBytes *= 2
	}
	var sorted []float64
	var order []int32
	for i := range f.head {
		val, col := s.row(i)
		if len(col) > math.MaxUint16 || len(f.rec) >= math.MaxInt32-2*len(col) {
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
		h := rowHead{shared: shared, y: y[i], off: int32(len(f.rec)), n: uint16(len(col))}
		order = order[:0]
		for k, v := range val {
			h.sq += v * v
			if best == 1 || v != shared {
				f.rec = append(f.rec, v)
				order = append(order, col[k])
			}
		}
		h.own = uint16(len(order))
		for k, c := range col {
			if best > 1 && val[k] == shared {
				order = append(order, c)
			}
		}
		f.rec = append(f.rec, make([]float64, (len(order)*f.colBytes+7)/8)...)
		words := f.rec[int(h.off)+int(h.own):]
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
		f.head[i] = h
	}
	return f
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
	h = &s.head[i]
	words := s.rec[h.off : int(h.off)+int(h.own)+(int(h.n)*int(unsafe.Sizeof(T(0)))+7)/8]
	return h, words[:h.own], recCols[T](words[h.own:], int(h.n))
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
