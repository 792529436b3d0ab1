package plotting

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// This file is a deflate encoder (RFC 1951) made for PNG scanlines filtered
// with Up, where most bytes are zeros in runs of hundreds (a figure's
// Up-filtered rows are about 94% zeros). It finds two kinds of match:
//
//   - Runs: a byte equal to the one before it starts a match at distance 1
//     covering the whole run (as zlib's Z_RLE strategy does), found with
//     one comparison per 8 bytes — 32 at a time along zero runs.
//   - Repeats elsewhere, where a run does not start: the position's 4
//     bytes are hashed into a table holding, per hash, the last such
//     position; a match of at least 4 bytes there, within 32 KiB, is
//     taken. Only these positions are looked up and entered — the few
//     bytes of text, markers and anti-aliased edges — so the hashing
//     that compress/flate does at every position of the zero runs is
//     skipped, while glyphs and marker shapes that repeat are still found.
//     A run is still preferred where it starts (see deflate).
//
// Matches are taken greedily, as found. On the 27 figures of the --quick
// specs, runs alone made files 14% larger than compress/flate at BestSpeed
// (12.87 MB in all, before this encoder); with the repeats they are 3%
// smaller (12.46 MB). The symbols are written in blocks with dynamic
// Huffman codes (§3.2.7), optimal under the 15-bit limit.

const (
	// minMatch and maxMatch bound a match's length (RFC 1951 §3.2.5:
	// lengths 3 to 258); minRepeat is the shortest match found by hash
	// (the bytes hashed).
	minMatch, maxMatch, minRepeat = 3, 258, 4
	// endOfBlock is the literal/length symbol ending a block, and
	// firstLengthSym that of the shortest match (§3.2.5).
	endOfBlock, firstLengthSym = 256, 257
	// numLitLen is the number of literal/length symbols that can occur,
	// 0 to 285 (§3.2.5; 286 and 287 are reserved).
	numLitLen = 286
	// numDist is the number of distance codes that can occur (§3.2.5:
	// 0–29; 30 and 31 are reserved), maxDist the longest distance
	// (§2: the window is 32 KiB).
	numDist, maxDist = 30, 32768
	// numCodeLen is the size of the code-length alphabet (§3.2.7: 0–15 are
	// lengths, 16–18 repeat codes).
	numCodeLen = 19
	// maxCodeBits and maxCodeLenBits are the longest codes of the
	// literal/length and distance alphabets (§3.2.7: code lengths 0–15)
	// and of the code-length alphabet (its lengths are written in 3 bits).
	maxCodeBits, maxCodeLenBits = 15, 7
	// blockSymbols is the most symbols one block holds: each block has
	// codes fitted to its own symbols but pays a header of code lengths,
	// up to about 150 bytes, which noise (a symbol per byte) feels most.
	// The sample figure (sampleFigure) takes 100,656 bytes
	// with 2¹² symbols a block, 100,270 with 2¹⁴, 100,187 with 2¹⁶.
	blockSymbols = 1 << 14
	// hashBits is the size of the repeat table's index: 2¹⁴ entries.
	hashBits = 14
)

// lengthBase and lengthExtra are the table of RFC 1951 §3.2.5: length code
// 257+i covers lengths lengthBase[i] to lengthBase[i]+2^lengthExtra[i]−1
// (code 284 stops at 257; 258 has code 285 and no extra bits).
var (
	lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
)

// lengthCode maps a match length (3–258) to its index in lengthBase.
var lengthCode = func() (t [maxMatch + 1]uint8) {
	for c := range lengthBase {
		for l := int(lengthBase[c]); l < int(lengthBase[c])+1<<lengthExtra[c] && l <= maxMatch; l++ {
			t[l] = uint8(c)
		}
	}
	return t
}()

// codeLenOrder is the order in which a dynamic block's header gives the
// code-length code's lengths (RFC 1951 §3.2.7).
var codeLenOrder = [numCodeLen]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// pngDeflater writes deflate data (RFC 1951), finding matches as this
// file's comment says. Its buffers are reused from one stream to the next.
type pngDeflater struct {
	out   []byte
	bits  uint64 // pending bits, the first to go out in the lowest (§3.1.1)
	nbits uint

	// table holds, per hash of 4 bytes, 1 + the last position with that
	// hash at which no run started (0: none yet).
	table [1 << hashBits]int32

	// The current block: its symbols (a literal byte b as b, a match of
	// length l at distance d as l<<16 | d) and their counts, of
	// literal/length symbols and of distance codes.
	syms     []uint32
	litFreq  [numLitLen]uint32
	distFreq [numDist]uint32

	// A block's codes, bit-reversed to go out lowest bit first (§3.1.1:
	// Huffman codes are packed starting with their most significant bit).
	litLens   [numLitLen]uint8
	litCodes  [numLitLen]uint16
	distLens  [numDist]uint8
	distCodes [numDist]uint16
	// lenCode/lenBits is, for each length 3–258, its length symbol's code
	// and extra bits as written.
	lenCode [maxMatch + 1]uint32
	lenBits [maxMatch + 1]uint8

	lengths huffmanScratch
}

// deflate appends to d.out the deflate encoding of data and returns data's
// Adler-32 (RFC 1950 §8.2), computed along the way: over a run in closed
// form. The last block has BFINAL set when final; otherwise the stream
// ends with an empty stored block (§3.2.4), which leaves it byte-aligned
// so that another deflate stream can follow: the concatenation inflates to
// the concatenated data, as no match reaches before data's start.
func (d *pngDeflater) deflate(data []byte, final bool) uint32 {
	d.syms = d.syms[:0]
	d.litFreq = [numLitLen]uint32{}
	d.distFreq = [numDist]uint32{}
	d.table = [1 << hashBits]int32{}
	// The Adler-32 sums, reduced modulo adlerMod after each run and at
	// least every 2^20 other bytes: far below where they could overflow.
	a, b, unreduced := uint64(1), uint64(0), 0
	for i := 0; i < len(data); {
		c := data[i]
		if i > 0 && c == data[i-1] {
			if n := equalPrefix(data[i:min(len(data), i+maxMatch)], c); n >= minMatch {
				d.match(n, 1)
				// n more bytes c: A grows by n·c, and B by the n partial
				// sums A+c, …, A+n·c.
				b = (b + uint64(n)*a + uint64(c)*uint64(n*(n+1)/2)) % adlerMod
				a = (a + uint64(n)*uint64(c)) % adlerMod
				unreduced = 0
				i += n
				continue
			}
		}
		n, dist := 1, 0
		if i+minRepeat <= len(data) {
			// Fibonacci hashing (Knuth, TAOCP vol. 3, §6.4): the top bits
			// of the product with 2³²/φ.
			h := (binary.LittleEndian.Uint32(data[i:]) * 0x9e3779b1) >> (32 - hashBits)
			if p := int(d.table[h]) - 1; p >= 0 && i-p <= maxDist {
				n, dist = matchLen(data[i:min(len(data), i+maxMatch)], data[p:]), i-p
			}
			d.table[h] = int32(i + 1)
		}
		// A repeat is taken only if it reaches beyond the literal and the
		// run after it (if any): that pair, written as a literal and a
		// distance-1 match, takes fewer bits than a match at a longer
		// distance with its extra bits. (On six of the figures of the file
		// comment, files 2.4% smaller than when always taking the repeat;
		// on sparse random bytes, 16%.)
		if n >= minRepeat && n > 1+equalPrefix(data[i+1:i+n], data[i+1]) {
			d.match(n, dist)
		} else {
			n = 1
			d.literal(c)
		}
		for _, c := range data[i : i+n] {
			a += uint64(c)
			b += a
		}
		if unreduced += n; unreduced >= 1<<20 {
			a, b, unreduced = a%adlerMod, b%adlerMod, 0
		}
		i += n
	}
	d.writeBlock(final)
	if !final {
		// An empty stored block: BFINAL 0, BTYPE 00, then, byte-aligned,
		// LEN = 0 and NLEN = ^LEN (§3.2.4).
		d.put(0, 3)
		d.align()
		d.out = append(d.out, 0, 0, 0xff, 0xff)
	} else {
		d.align()
	}
	return uint32(b%adlerMod)<<16 | uint32(a%adlerMod)
}

// literal adds a literal byte to the block.
func (d *pngDeflater) literal(c byte) {
	d.room()
	d.syms = append(d.syms, uint32(c))
	d.litFreq[c]++
}

// match adds a match of length n at distance dist to the block.
func (d *pngDeflater) match(n, dist int) {
	d.room()
	d.syms = append(d.syms, uint32(n)<<16|uint32(dist))
	d.litFreq[firstLengthSym+int(lengthCode[n])]++
	d.distFreq[distCode(dist)]++
}

// room writes the block out if it is full (not as the final block: a
// symbol follows).
func (d *pngDeflater) room() {
	if len(d.syms) == blockSymbols {
		d.writeBlock(false)
		d.syms = d.syms[:0]
		d.litFreq = [numLitLen]uint32{}
		d.distFreq = [numDist]uint32{}
	}
}

// distCode returns the code of a distance, 1–32768 (RFC 1951 §3.2.5):
// codes 0–3 are distances 1–4; above, the distances x+1 with x's highest
// bit at n−1 (n ≥ 3) have codes 2(n−1) and 2(n−1)+1, told apart by x's
// next bit, with n−2 extra bits (distExtra).
func distCode(dist int) int {
	x := dist - 1
	if x < 4 {
		return x
	}
	n := bits.Len(uint(x))
	return 2*(n-1) + (x>>(n-2))&1
}

// distExtra returns the number and value of a distance's extra bits
// (RFC 1951 §3.2.5).
func distExtra(dist int) (uint, uint64) {
	x := dist - 1
	if x < 4 {
		return 0, 0
	}
	e := uint(bits.Len(uint(x)) - 2)
	return e, uint64(x) & (1<<e - 1)
}

// matchLen returns how many of s's first bytes equal t's, comparing 8
// bytes at a time.
func matchLen(s, t []byte) int {
	le := binary.LittleEndian
	t = t[:len(s)]
	n := 0
	for ; n+8 <= len(s); n += 8 {
		if x := le.Uint64(s[n:]) ^ le.Uint64(t[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
	}
	for n < len(s) && s[n] == t[n] {
		n++
	}
	return n
}

// equalPrefix returns how many of s's first bytes equal c, comparing 32
// bytes at a time, then 8.
func equalPrefix(s []byte, c byte) int {
	le := binary.LittleEndian
	pat := uint64(c) * 0x0101010101010101
	n := 0
	for ; n+32 <= len(s); n += 32 {
		w := s[n:][:32]
		// (^ and | bind alike in Go: the parentheses are needed.)
		if (le.Uint64(w)^pat)|(le.Uint64(w[8:])^pat)|(le.Uint64(w[16:])^pat)|(le.Uint64(w[24:])^pat) != 0 {
			break
		}
	}
	for ; n+8 <= len(s); n += 8 {
		if x := le.Uint64(s[n:]) ^ pat; x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
	}
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// writeBlock writes the block's symbols as one block compressed with
// dynamic Huffman codes (RFC 1951 §3.2.7), with BFINAL set when final.
// The literal/length and distance codes are built from the block's counts
// (lengths): complete codes, as every inflater accepts — where one
// distance code or none is used, two one-bit codes (§3.2.7 allows a single
// one-bit code, but some inflaters reject that).
func (d *pngDeflater) writeBlock(final bool) {
	d.litFreq[endOfBlock] = 1
	d.lengths.lengths(d.litFreq[:], maxCodeBits, d.litLens[:])
	canonicalCodes(d.litLens[:], d.litCodes[:])
	hlit := numLitLen
	for d.litLens[hlit-1] == 0 {
		hlit--
	}
	d.lengths.lengths(d.distFreq[:], maxCodeBits, d.distLens[:])
	canonicalCodes(d.distLens[:], d.distCodes[:])
	hdist := numDist
	for d.distLens[hdist-1] == 0 {
		hdist--
	}
	distLens := d.distLens[:hdist]

	// The code lengths of both alphabets as one sequence (§3.2.7), with
	// runs written as repeat codes: 16 repeats the previous length 3–6
	// times (2 extra bits), 17 and 18 write 3–10 and 11–138 zeros (3 and
	// 7 extra bits). Each entry is symbol | extra bits value << 8.
	var clSyms [numLitLen + numDist]uint16
	var clFreq [numCodeLen]uint32
	ncl := 0
	emit := func(sym, extra uint16) {
		clSyms[ncl] = sym | extra<<8
		ncl++
		clFreq[sym]++
	}
	var allLens [numLitLen + numDist]uint8
	copy(allLens[:], d.litLens[:hlit])
	copy(allLens[hlit:], distLens)
	all := allLens[:hlit+len(distLens)]
	for i := 0; i < len(all); {
		v := all[i]
		run := 1
		for i+run < len(all) && all[i+run] == v {
			run++
		}
		i += run
		if v == 0 {
			for run >= 11 {
				n := min(run, 138)
				emit(18, uint16(n-11))
				run -= n
			}
			if run >= 3 {
				emit(17, uint16(run-3))
				run = 0
			}
		} else {
			emit(uint16(v), 0)
			run--
			for run >= 3 {
				n := min(run, 6)
				emit(16, uint16(n-3))
				run -= n
			}
		}
		for ; run > 0; run-- {
			emit(uint16(v), 0)
		}
	}
	var clLens [numCodeLen]uint8
	var clCodes [numCodeLen]uint16
	d.lengths.lengths(clFreq[:], maxCodeLenBits, clLens[:])
	canonicalCodes(clLens[:], clCodes[:])
	hclen := numCodeLen
	for clLens[codeLenOrder[hclen-1]] == 0 {
		hclen--
	}
	hclen = max(hclen, 4)

	// Header: BFINAL, BTYPE = 10 (dynamic), HLIT, HDIST, HCLEN (§3.2.3,
	// §3.2.7).
	fin := uint64(0)
	if final {
		fin = 1
	}
	d.put(fin|2<<1, 3)
	d.put(uint64(hlit-257), 5)
	d.put(uint64(len(distLens)-1), 5)
	d.put(uint64(hclen-4), 4)
	for _, s := range codeLenOrder[:hclen] {
		d.put(uint64(clLens[s]), 3)
	}
	extraBits := [numCodeLen]uint{16: 2, 17: 3, 18: 7}
	for _, e := range clSyms[:ncl] {
		s := e & 0xff
		d.put(uint64(clCodes[s]), uint(clLens[s]))
		d.put(uint64(e>>8), extraBits[s])
	}

	for l := minMatch; l <= maxMatch; l++ {
		c := lengthCode[l]
		s := firstLengthSym + int(c)
		if d.litLens[s] == 0 {
			continue
		}
		n := uint32(d.litLens[s])
		d.lenCode[l] = uint32(d.litCodes[s]) | uint32(l-int(lengthBase[c]))<<n
		d.lenBits[l] = uint8(n + uint32(lengthExtra[c]))
	}
	for _, s := range d.syms {
		if s < endOfBlock {
			d.put(uint64(d.litCodes[s]), uint(d.litLens[s]))
			continue
		}
		l, dist := s>>16, int(s&0xffff)
		d.put(uint64(d.lenCode[l]), uint(d.lenBits[l]))
		dc := distCode(dist)
		e, ev := distExtra(dist)
		d.put(uint64(d.distCodes[dc])|ev<<d.distLens[dc], uint(d.distLens[dc])+e)
	}
	d.put(uint64(d.litCodes[endOfBlock]), uint(d.litLens[endOfBlock]))
}

// put appends the n (at most 32) lowest bits of v, lowest first (RFC 1951
// §3.1.1).
func (d *pngDeflater) put(v uint64, n uint) {
	d.bits |= v << d.nbits
	d.nbits += n
	if d.nbits >= 32 {
		d.out = binary.LittleEndian.AppendUint32(d.out, uint32(d.bits))
		d.bits >>= 32
		d.nbits -= 32
	}
}

// align writes out the pending bits, padded with zeros to a whole byte.
func (d *pngDeflater) align() {
	for d.nbits > 0 {
		d.out = append(d.out, byte(d.bits))
		d.bits >>= 8
		d.nbits -= min(d.nbits, 8)
	}
	d.bits = 0
}

// canonicalCodes sets codes to the canonical Huffman code of the code
// lengths lens (RFC 1951 §3.2.2: shorter codes first, and within a length
// in symbol order), each bit-reversed to be written lowest bit first.
func canonicalCodes(lens []uint8, codes []uint16) {
	var count, next [maxCodeBits + 1]uint16
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	code := uint16(0)
	for n := 1; n <= maxCodeBits; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
	}
	for s, l := range lens {
		if l != 0 {
			codes[s] = bits.Reverse16(next[l]) >> (16 - l)
			next[l]++
		}
	}
}

// huffmanScratch holds the work space of lengths, reused between blocks.
type huffmanScratch struct {
	keys   []uint64 // the used symbols, as weight<<symBits | symbol, sorted
	weight []uint64 // Huffman's tree: leaves (as keys), then inner nodes
	parent []int32
	depth  []uint8
	items  []pmItem
	list   []int32
	next   []int32
	stack  []int32
}

// symBits is the number of bits holding the symbol in huffmanScratch.keys
// (symbols are below 2⁹).
const symBits = 9

// pmItem is a coin of the package-merge algorithm: a symbol (sym ≥ 0) or
// a package of two items of the level below (sym < 0).
type pmItem struct {
	weight      uint64
	sym         int32
	left, right int32
}

// lengths sets lens[s] to the length of symbol s's code in a prefix code
// that minimises Σ freq[s]·lens[s] with no code longer than maxBits (0 for
// unused symbols). That is Huffman's code when its longest code fits;
// otherwise package-merge finds it. The code is complete (Kraft sum 1), as
// RFC 1951 §3.2.7's inflaters require; with one symbol used, another gets
// a code too, both of one bit.
func (h *huffmanScratch) lengths(freq []uint32, maxBits int, lens []uint8) {
	clear(lens)
	h.keys = h.keys[:0]
	for s, f := range freq {
		if f > 0 {
			h.keys = append(h.keys, uint64(f)<<symBits|uint64(s))
		}
	}
	if len(h.keys) < 2 {
		// One symbol (or none): two one-bit codes, the other for symbol 0
		// or, if that is the one used, 1.
		lens[0], lens[1] = 1, 1
		if len(h.keys) == 1 && h.keys[0]&(1<<symBits-1) > 1 {
			lens[1], lens[h.keys[0]&(1<<symBits-1)] = 0, 1
		}
		return
	}
	slices.Sort(h.keys)
	if h.huffman(lens) <= maxBits {
		return
	}
	clear(lens)
	h.packageMerge(maxBits, lens)
}

// huffman sets lens to the code lengths of Huffman's code for the sorted
// keys and returns the longest. Two queues, the leaves by weight and the
// inner nodes in the order made (by weight too), give the two lightest
// nodes to join at each step (van Leeuwen, 1976).
func (h *huffmanScratch) huffman(lens []uint8) int {
	n := len(h.keys)
	h.weight = h.weight[:0]
	for _, k := range h.keys {
		h.weight = append(h.weight, k>>symBits)
	}
	h.parent = slices.Grow(h.parent[:0], 2*n-1)[:2*n-1]
	leaf, inner := 0, n
	lightest := func() int {
		if leaf < n && (inner == len(h.weight) || h.weight[leaf] <= h.weight[inner]) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for len(h.weight) < 2*n-1 {
		a, b := lightest(), lightest()
		h.parent[a], h.parent[b] = int32(len(h.weight)), int32(len(h.weight))
		h.weight = append(h.weight, h.weight[a]+h.weight[b])
	}
	// A node's depth is its parent's plus one; parents come after their
	// children, the root last.
	h.depth = slices.Grow(h.depth[:0], 2*n-1)[:2*n-1]
	h.depth[2*n-2] = 0
	longest := 0
	for i := 2*n - 3; i >= 0; i-- {
		h.depth[i] = h.depth[h.parent[i]] + 1
		if i < n {
			lens[h.keys[i]&(1<<symBits-1)] = h.depth[i]
			longest = max(longest, int(h.depth[i]))
		}
	}
	return longest
}

// packageMerge sets lens to the optimal code lengths of at most maxBits
// bits for the sorted keys, by the package-merge algorithm (Larmore and
// Hirschberg, "A fast algorithm for optimal length-limited Huffman codes",
// J. ACM 37(3), 1990): the level-maxBits list holds the symbols by weight;
// each list above merges the symbols with the pairs ("packages") of the
// list below; a symbol's length is the number of times it occurs in the
// 2n−2 lightest items of the top list. It needs n ≤ 2^maxBits.
func (h *huffmanScratch) packageMerge(maxBits int, lens []uint8) {
	n := len(h.keys)
	h.items = h.items[:0]
	h.list = h.list[:0]
	for i, k := range h.keys {
		h.items = append(h.items, pmItem{weight: k >> symBits, sym: int32(k & (1<<symBits - 1))})
		h.list = append(h.list, int32(i))
	}
	keep := 2*n - 2 // only the lightest 2n−2 items of a list are ever used
	for level := 1; level < maxBits; level++ {
		h.next = h.next[:0]
		leaf, pair := 0, 0
		for len(h.next) < keep {
			havePair := 2*pair+1 < len(h.list)
			if !havePair && leaf == n {
				break
			}
			var pw uint64
			if havePair {
				pw = h.items[h.list[2*pair]].weight + h.items[h.list[2*pair+1]].weight
			}
			if havePair && (leaf == n || pw < h.items[leaf].weight) {
				h.items = append(h.items, pmItem{weight: pw, sym: -1, left: h.list[2*pair], right: h.list[2*pair+1]})
				h.next = append(h.next, int32(len(h.items)-1))
				pair++
			} else {
				h.next = append(h.next, int32(leaf))
				leaf++
			}
		}
		h.list, h.next = h.next, h.list
	}
	h.stack = append(h.stack[:0], h.list[:keep]...)
	for len(h.stack) > 0 {
		it := h.items[h.stack[len(h.stack)-1]]
		h.stack = h.stack[:len(h.stack)-1]
		if it.sym >= 0 {
			lens[it.sym]++
		} else {
			h.stack = append(h.stack, it.left, it.right)
		}
	}
}
