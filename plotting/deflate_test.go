package plotting

import (
	"bytes"
	"cmp"
	"compress/flate"
	"container/heap"
	"fmt"
	"hash/adler32"
	"io"
	"maps"
	"math/big"
	"slices"
	"testing"

	"github.com/dplab/dplab/internal/rngs"
)

// deflateInputs returns named byte strings for the deflate tests: empty,
// one byte, runs of every length around the match limits (2, 3, 258, 259,
// 260, 261, 516, …) of random bytes, Up-filtered-like zeros with sparse
// bytes, words of a small vocabulary (repeats at many distances and
// lengths), random bytes repeated from exactly 32,768 bytes back (the
// longest distance) and from 32,769, noise longer than a block and than
// the Adler-32 reduction interval (2²⁰ literals).
func deflateInputs(t *testing.T) map[string][]byte {
	t.Helper()
	r := rngs.Derive("test", "png-deflate").Rand()
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	in := map[string][]byte{"empty": {}, "one byte": {7}, "one zero": {0}, "two equal": {9, 9}}
	var runs []byte
	for _, n := range []int{1, 2, 3, 4, 257, 258, 259, 260, 261, 262, 516, 517, 1000, 5, 2, 1, 3} {
		runs = append(runs, bytes.Repeat([]byte{byte(r.IntN(4))}, n)...)
	}
	in["runs"] = runs
	in["zeros"] = make([]byte, 100000)
	sparse := make([]byte, 300000)
	for i := range sparse {
		if r.IntN(20) == 0 {
			sparse[i] = byte(r.IntN(256))
		}
	}
	in["sparse"] = sparse
	var vocab [][]byte
	for range 40 {
		vocab = append(vocab, random(3+r.IntN(10)))
	}
	var words []byte
	for len(words) < 200000 {
		words = append(words, vocab[r.IntN(len(vocab))]...)
		if r.IntN(5) == 0 {
			words = append(words, bytes.Repeat([]byte{0}, r.IntN(300))...)
		}
	}
	in["words"] = words
	for _, back := range []int{maxDist, maxDist + 1} {
		b := random(back)
		in[fmt.Sprintf("repeat from %d back", back)] = append(b, b[:300]...)
	}
	in["noise"] = random(1<<20 + 3*blockSymbols + 17)
	return in
}

// TestPNGDeflateInflates: what pngDeflater writes inflates, with
// compress/flate's reader (an independent inflater, which rejects
// distances beyond 32 KiB and incomplete codes), to the input, and the
// Adler-32 it returns is hash/adler32's; several streams, all but the last
// not final, inflate as one to the concatenated inputs (how encodePNG
// joins its stripes).
func TestPNGDeflateInflates(t *testing.T) {
	in := deflateInputs(t)
	names := slices.Sorted(maps.Keys(in))
	var d pngDeflater
	for _, name := range names {
		data := in[name]
		d.out = d.out[:0]
		adler := d.deflate(data, true)
		if want := adler32.Checksum(data); adler != want {
			t.Errorf("%s: Adler-32 %08x, want %08x", name, adler, want)
		}
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(d.out)))
		if err != nil {
			t.Fatalf("%s: inflate: %v", name, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: inflates to %d bytes differing from the %d encoded", name, len(got), len(data))
		}
		t.Logf("%s: %d bytes → %d", name, len(data), len(d.out))
		if name == fmt.Sprintf("repeat from %d back", maxDist) && d.distLens[numDist-1] == 0 {
			// Code 29 (24,577–32,768, §3.2.5) in the last block: the
			// repeat was found at the longest distance.
			t.Errorf("%s: distance code 29 unused", name)
		}
	}
	// Joined streams: every input once, the last one final.
	var joined, want []byte
	for i, name := range names {
		d.out = d.out[:0]
		d.deflate(in[name], i == len(names)-1)
		joined = append(joined, d.out...)
		want = append(want, in[name]...)
	}
	got, err := io.ReadAll(flate.NewReader(bytes.NewReader(joined)))
	if err != nil {
		t.Fatalf("joined: inflate: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("joined: inflates to %d bytes differing from the %d encoded", len(got), len(want))
	}
}

// TestPNGDeflateLengthLimit writes one block of literals whose counts are
// Fibonacci numbers (2, 3, 5, …, F(19)): with the end-of-block symbol's
// count of 1, Huffman's tree is a chain 17 deep, so the 15-bit limit
// (RFC 1951 §3.2.7) must apply; compress/flate's reader inflates the block
// to the literals.
func TestPNGDeflateLengthLimit(t *testing.T) {
	count := []int{2, 3}
	for len(count) < 17 {
		count = append(count, count[len(count)-1]+count[len(count)-2])
	}
	var d pngDeflater
	var want []byte
	for c, n := range count {
		for range n {
			d.literal(byte(c))
			want = append(want, byte(c))
		}
	}
	d.writeBlock(true)
	d.align()
	if longest := slices.Max(d.litLens[:]); longest != maxCodeBits {
		t.Errorf("longest literal code %d bits, want %d", longest, maxCodeBits)
	}
	got, err := io.ReadAll(flate.NewReader(bytes.NewReader(d.out)))
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("inflates to %d bytes differing from the %d encoded", len(got), len(want))
	}
}

// TestPNGDeflateMatches: runs become matches — a mebibyte of zeros
// deflates to less than a byte per 258 — and so do repeats: 200 kB of
// words from a vocabulary of 40 random ones, a fifth of them followed by a
// zero run, deflate to less than a tenth, 20 kB, while the words' bytes
// alone, random bytes written as literals, would take about 40 kB.
func TestPNGDeflateMatches(t *testing.T) {
	var d pngDeflater
	d.deflate(make([]byte, 1<<20), true)
	if len(d.out) > (1<<20)/258 {
		t.Errorf("1 MiB of zeros deflates to %d bytes", len(d.out))
	}
	words := deflateInputs(t)["words"]
	d.out = d.out[:0]
	d.deflate(words, true)
	if len(d.out) > len(words)/10 {
		t.Errorf("%d bytes of words deflate to %d bytes", len(words), len(d.out))
	}
}

// TestDistCode checks distCode and distExtra on every distance against
// the table of RFC 1951 §3.2.5: code i covers distances distBase[i] to
// distBase[i]+2^extra−1, with extra = 0 for codes 0–3 and ⌊i/2⌋−1 above.
func TestDistCode(t *testing.T) {
	distBase := []int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	for dist := 1; dist <= maxDist; dist++ {
		c := distCode(dist)
		e, v := distExtra(dist)
		wantE := uint(0)
		if c >= 4 {
			wantE = uint(c/2 - 1)
		}
		if c < 0 || c >= numDist || dist < distBase[c] || dist >= distBase[c]+1<<wantE || e != wantE || v != uint64(dist-distBase[c]) {
			t.Fatalf("distance %d: code %d, %d extra bits %d", dist, c, e, v)
		}
	}
}

// TestEqualPrefix compares equalPrefix with a byte-by-byte count, with the
// first differing byte at every position of strings up to 80 bytes.
func TestEqualPrefix(t *testing.T) {
	for n := 0; n <= 80; n++ {
		for diff := 0; diff <= n; diff++ {
			s := bytes.Repeat([]byte{0xa5}, n)
			if diff < n {
				s[diff] = 0xa4
			}
			for _, c := range []byte{0xa5, 0} {
				want := 0
				for want < len(s) && s[want] == c {
					want++
				}
				if got := equalPrefix(s, c); got != want {
					t.Fatalf("n %d, differing at %d, byte %#x: %d, want %d", n, diff, c, got, want)
				}
			}
		}
	}
}

// TestHuffmanLengths checks lengths on random and Fibonacci-skewed counts:
// no code over the limit, a code exactly for the used symbols, a complete
// code (Kraft sum exactly 1), and the least cost Σ freq·len — equal to
// Huffman's (computed here by merging the two lightest weights with a
// heap: the cost is the sum of the merged weights) when that fits the
// limit, and for small alphabets equal to the least cost of an exhaustive
// search over all length assignments within the limit.
func TestHuffmanLengths(t *testing.T) {
	r := rngs.Derive("test", "huffman-lengths").Rand()
	var h huffmanScratch
	fib := []uint32{1, 1}
	for len(fib) < 30 {
		fib = append(fib, fib[len(fib)-1]+fib[len(fib)-2])
	}
	type tc struct {
		freq    []uint32
		maxBits int
	}
	var cases []tc
	for _, n := range []int{2, 3, 5, 8, 9, 19, 286} {
		for _, maxBits := range []int{4, 7, 15} {
			if n > 1<<maxBits {
				continue
			}
			cases = append(cases, tc{slices.Clone(fib[:min(n, len(fib))]), maxBits})
			for range 20 {
				f := make([]uint32, n)
				for i := range f {
					if r.IntN(4) > 0 {
						f[i] = uint32(1 + r.IntN(1<<r.IntN(16)))
					}
				}
				cases = append(cases, tc{f, maxBits})
			}
		}
	}
	limited := 0
	for _, c := range cases {
		name := fmt.Sprintf("%d symbols, limit %d, counts %v", len(c.freq), c.maxBits, c.freq[:min(8, len(c.freq))])
		lens := make([]uint8, len(c.freq))
		h.lengths(c.freq, c.maxBits, lens)
		used := 0
		for _, f := range c.freq {
			if f > 0 {
				used++
			}
		}
		if used < 2 {
			// Two one-bit codes, one of them the used symbol's if any.
			ones := 0
			for s, l := range lens {
				if l == 1 {
					ones++
				} else if l != 0 || c.freq[s] > 0 {
					ones = -1
					break
				}
			}
			if ones != 2 {
				t.Fatalf("%s: lengths %v", name, lens)
			}
			continue
		}
		kraft := new(big.Rat)
		cost := uint64(0)
		for s, l := range lens {
			if int(l) > c.maxBits || (c.freq[s] > 0) != (l > 0) {
				t.Fatalf("%s: symbol %d (count %d) has length %d", name, s, c.freq[s], l)
			}
			kraft.Add(kraft, big.NewRat(1, int64(1)<<l))
			kraft.Sub(kraft, big.NewRat(1, 1)) // 2^-0 for each unused symbol
			if l > 0 {
				kraft.Add(kraft, big.NewRat(1, 1))
			}
			cost += uint64(c.freq[s]) * uint64(l)
		}
		if kraft.Cmp(big.NewRat(1, 1)) != 0 {
			t.Fatalf("%s: Kraft sum %v", name, kraft)
		}
		hcost, depth := huffmanCost(c.freq)
		if depth <= c.maxBits && cost != hcost {
			t.Errorf("%s: cost %d, Huffman's %d", name, cost, hcost)
		}
		if depth > c.maxBits {
			limited++
		}
		if used <= 9 && c.maxBits < 15 {
			if best := bestLimitedCost(c.freq, c.maxBits); cost != best {
				t.Errorf("%s: cost %d, the least within the limit %d", name, cost, best)
			}
		}
	}
	if limited < 3 {
		t.Errorf("only %d cases needed the length limit", limited)
	}
}

// weightHeap is a min-heap of weights with each subtree's depth.
type weightHeap [][2]uint64

func (h weightHeap) Len() int           { return len(h) }
func (h weightHeap) Less(i, j int) bool { return h[i][0] < h[j][0] }
func (h weightHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *weightHeap) Push(x any)        { *h = append(*h, x.([2]uint64)) }
func (h *weightHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// huffmanCost returns the cost of a Huffman code for the non-zero counts
// (the sum of the weights formed by merging) and the depth of its tree.
func huffmanCost(freq []uint32) (uint64, int) {
	h := &weightHeap{}
	for _, f := range freq {
		if f > 0 {
			heap.Push(h, [2]uint64{uint64(f), 0})
		}
	}
	cost, depth := uint64(0), 0
	for h.Len() > 1 {
		a, b := heap.Pop(h).([2]uint64), heap.Pop(h).([2]uint64)
		d := max(a[1], b[1]) + 1
		cost += a[0] + b[0]
		depth = max(depth, int(d))
		heap.Push(h, [2]uint64{a[0] + b[0], d})
	}
	return cost, depth
}

// bestLimitedCost returns the least Σ freq·len over prefix codes for the
// non-zero counts with lengths 1 to maxBits, by trying every assignment of
// lengths that do not decrease as the counts do (an optimal code has one)
// and satisfy Kraft's inequality.
func bestLimitedCost(freq []uint32, maxBits int) uint64 {
	var w []uint64
	for _, f := range freq {
		if f > 0 {
			w = append(w, uint64(f))
		}
	}
	slices.SortFunc(w, func(a, b uint64) int { return cmp.Compare(b, a) })
	best := ^uint64(0)
	// room is the unused Kraft sum, in units of 2^-maxBits.
	var try func(i, minLen int, room, cost uint64)
	try = func(i, minLen int, room, cost uint64) {
		if cost >= best {
			return
		}
		if i == len(w) {
			best = cost
			return
		}
		for l := minLen; l <= maxBits; l++ {
			if share := uint64(1) << (maxBits - l); share <= room {
				try(i+1, l, room-share, cost+w[i]*uint64(l))
			}
		}
	}
	try(0, 1, 1<<maxBits, 0)
	return best
}
