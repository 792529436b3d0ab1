package results

import "math/bits"

// KeySet is a set of trial keys held as one bitset of trial indices per
// cell: a cell with 10⁶ stored trials takes 125 KB, where a map of keys
// took 83 MB (83 bytes a key, measured with one shared cell key string).
// The zero value is an empty set ready to use; it is not safe
// for concurrent use.
type KeySet struct {
	cells map[string]*trialBits
	n     int
}

// trialBits is the set of one cell's trial indices: dense holds bit t of
// the trials 0 ≤ t < 64·len(dense), far the others (negative indices, and
// indices far beyond those stored, as only a hand-edited store holds), so
// that one stray index cannot allocate a bitset up to it; a far index moves
// to dense once dense grows past it (claimFar).
type trialBits struct {
	dense []uint64
	far   map[int]struct{}
}

// farGap is how far beyond the dense bitset's end a trial index may lie and
// still extend it (doubling it at least): a run stores each cell's trials in
// increasing order, so its indices always extend the bitset.
const farGap = 1 << 16

// claimFar moves to a dense table that now has n entries (by put) the
// entries of far whose index lies below n.
func claimFar[V any](far map[int]V, n int, put func(t int, v V)) {
	for t, v := range far {
		if t >= 0 && t < n {
			put(t, v)
			delete(far, t)
		}
	}
}

// Add adds k and reports whether it was not in the set.
func (s *KeySet) Add(k Key) bool {
	if s.cells == nil {
		s.cells = map[string]*trialBits{}
	}
	b := s.cells[k.Cell]
	if b == nil {
		b = &trialBits{}
		s.cells[k.Cell] = b
	}
	if !b.add(k.Trial) {
		return false
	}
	s.n++
	return true
}

// Has reports whether k is in the set.
func (s *KeySet) Has(k Key) bool {
	b := s.cells[k.Cell]
	return b != nil && b.has(k.Trial)
}

// Len returns the number of keys in the set.
func (s *KeySet) Len() int { return s.n }

// Cells calls f with each cell that has a key in the set and its number of
// keys, in no particular order.
func (s *KeySet) Cells(f func(cell string, n int)) {
	for cell, b := range s.cells {
		f(cell, b.count(func(int) bool { return true }))
	}
}

// Count returns the number of keys of cell whose trial index t satisfies
// in(t).
func (s *KeySet) Count(cell string, in func(t int) bool) int {
	b := s.cells[cell]
	if b == nil {
		return 0
	}
	return b.count(in)
}

func (b *trialBits) has(t int) bool {
	if t >= 0 && t < 64*len(b.dense) {
		return b.dense[t/64]&(1<<(t%64)) != 0
	}
	_, ok := b.far[t]
	return ok
}

func (b *trialBits) add(t int) bool {
	if b.has(t) {
		return false
	}
	if t >= 0 && t < 64*len(b.dense)+farGap {
		if w := t / 64; w >= len(b.dense) {
			b.dense = append(b.dense, make([]uint64, max(w+1, 2*len(b.dense))-len(b.dense))...)
			claimFar(b.far, 64*len(b.dense), func(t int, _ struct{}) { b.dense[t/64] |= 1 << (t % 64) })
		}
		b.dense[t/64] |= 1 << (t % 64)
		return true
	}
	if b.far == nil {
		b.far = map[int]struct{}{}
	}
	b.far[t] = struct{}{}
	return true
}

// count returns the number of the indices t in b with in(t).
func (b *trialBits) count(in func(t int) bool) int {
	n := 0
	for w, word := range b.dense {
		for word != 0 {
			t := 64*w + bits.TrailingZeros64(word)
			word &= word - 1
			if in(t) {
				n++
			}
		}
	}
	for t := range b.far {
		if in(t) {
			n++
		}
	}
	return n
}

// each calls f with every key of the set, in no particular order.
func (s *KeySet) each(f func(Key)) {
	for cell, b := range s.cells {
		b.count(func(t int) bool { f(Key{Cell: cell, Trial: t}); return false })
	}
}
