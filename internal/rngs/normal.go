package rngs

import (
	"math"
	"math/rand/v2"
	"sync"
)

// Normals draws standard normal variates from one generator. Fill gives the
// values, in order, that the generator's rand.Rand.NormFloat64 would return
// (the same bits), so code may switch between the two; from a stream's
// generator (Streams.Normals) it is faster: it reads the words its ChaCha8
// source holds (sixteen blocks at a time), without a method call per draw, and
// settles with math/rand/v2's own ziggurat table (read off Rand.NormFloat64
// itself: zigTables) the ≈ 99% of draws that need one Uint64 and no more
// ([MT00] §2, the ziggurat method: a draw u of layer i is accepted at once
// when |j| < k_i, with value j·w_i). The other draws go to Rand.NormFloat64
// itself, handed u again first. A Normals value belongs to one goroutine.
//
// Ref: [MT00] §2.
type Normals struct {
	r  *rand.Rand // the generator
	c  *ChaCha8   // r's source when drawn from directly; nil: r.NormFloat64
	rp *replay    // the source of rr: u again, then c
	rr *rand.Rand
}

// NormalsOf returns the normals of r, drawn by r.NormFloat64.
func NormalsOf(r *rand.Rand) Normals { return Normals{r: r} }

// Normals returns the normals of the stream called name (Get(name)); its
// draws and the stream's own continue one sequence.
func (s Streams) Normals(name string) Normals {
	r := s.Get(name)
	z := zigTables()
	if !z.ok {
		return Normals{r: r}
	}
	rp := &replay{c: s.sources[name]}
	return Normals{r: r, c: rp.c, rp: rp, rr: rand.New(rp)}
}

// Rand returns the generator n draws from: its draws and n's continue one
// sequence (for other laws drawn from the same stream).
func (n Normals) Rand() *rand.Rand { return n.r }

// Fill sets every dst[i] to the next standard normal draw.
func (n Normals) Fill(dst []float64) {
	if n.c == nil {
		for i := range dst {
			dst[i] = n.r.NormFloat64()
		}
		return
	}
	n.fill(zigTables(), dst)
}

// fill is Fill from n's source with the table z, straight from the words
// the source holds.
func (n Normals) fill(z *zigTable, dst []float64) {
	c := n.c
	for len(dst) > 0 {
		words := c.buffered()
		words = words[:min(len(words), len(dst))]
		k := 0
		for _, u := range words {
			j := int32(u)
			layer := u >> 32 & 0x7f
			// |j| without a branch (j's sign is a coin toss, which a branch
			// mispredicts half the time): m is 0 or −1, and (j ^ m) − m wraps
			// to 2³¹ for j = −2³¹, as math/rand/v2 takes it.
			m := j >> 31
			a := uint64(uint32((j ^ m) - m))
			if a >= z.kn[layer] {
				break
			}
			dst[k] = float64(j) * float64(z.wn[layer])
			k++
		}
		c.i += k
		dst = dst[k:]
		if k < len(words) {
			// words[k] takes another exit: Rand.NormFloat64, handed it again.
			c.i++
			n.rp.u, n.rp.again = words[k], true
			dst[0] = n.rr.NormFloat64()
			dst = dst[1:]
		}
	}
}

// replay is a rand.Source that returns u once more, then c's draws.
type replay struct {
	c     *ChaCha8
	u     uint64
	again bool
}

func (r *replay) Uint64() uint64 {
	if r.again {
		r.again = false
		return r.u
	}
	return r.c.Uint64()
}

// zigTable is math/rand/v2 Rand.NormFloat64's table for its one-draw exits: a
// draw u with j = int32(u) and layer i = (u >> 32) & 127 returns j·wn[i]
// when |j| < kn[i]. ok is false if the probes found no such exit (then
// Normals use Rand.NormFloat64 itself).
type zigTable struct {
	kn [128]uint64
	wn [128]float32
	ok bool
}

// zigTables reads the table off rand.Rand.NormFloat64 once, by feeding it
// chosen draws: kn[i] is the least |j| for which it asks for a second draw
// (bisection: it asks for none below; 0 when it asks at j = 0, as in layer
// 1), and with j = 1 it returns wn[i].
// TestNormalsFillMatchesStdlib holds Fill to Rand.NormFloat64 bit for bit.
var zigTables = sync.OnceValue(func() *zigTable {
	src := &probe{}
	r := rand.New(src)
	draws := func(u uint64) (float64, int) {
		src.first, src.n = u, 0
		v := r.NormFloat64()
		return v, src.n
	}
	word := func(i int, a uint64) uint64 { // layer i, |j| = a ≤ 2³¹
		return uint64(i)<<32 | uint64(uint32(int32(-int64(a))))
	}
	z := &zigTable{ok: true}
	for i := range 128 {
		if _, n := draws(word(i, 0)); n != 1 {
			continue // kn[i] = 0: no one-draw exit in this layer (layer 1)
		}
		lo, hi := uint64(0), uint64(1)<<31+1 // one draw at |j| = lo; hi: two, or beyond
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if _, n := draws(word(i, mid)); n == 1 {
				lo = mid
			} else {
				hi = mid
			}
		}
		z.kn[i] = hi
		if hi < 2 {
			continue // only j = 0 exits at once, with 0 whatever wn[i]
		}
		v, _ := draws(uint64(i)<<32 | 1)
		z.wn[i] = float32(v)
		if float64(z.wn[i]) != v {
			return &zigTable{}
		}
	}
	if !z.agrees() {
		return &zigTable{}
	}
	return z
})

// agrees reports whether Fill with table z gives Rand.NormFloat64's values
// bit for bit on 2¹⁴ draws of a fixed ChaCha8 stream (about 160 of them
// past the one-draw exits): a math/rand/v2 whose ziggurat the probes read
// wrongly makes Normals fall back to Rand.NormFloat64 instead of drawing
// other values.
func (z *zigTable) agrees() bool {
	seed := [32]byte{'d', 'p', 'l', 'a', 'b'}
	want := rand.New(rand.NewChaCha8(seed))
	rp := &replay{c: NewChaCha8(seed)}
	got := make([]float64, 1<<14)
	Normals{c: rp.c, rp: rp, rr: rand.New(rp)}.fill(z, got)
	for _, v := range got {
		if w := want.NormFloat64(); math.Float64bits(v) != math.Float64bits(w) {
			return false
		}
	}
	return true
}

// probe is a rand.Source that returns first, then zeros (which end any of
// Rand.NormFloat64's further loops), counting the draws taken.
type probe struct {
	first uint64
	n     int
}

func (p *probe) Uint64() uint64 {
	p.n++
	if p.n == 1 {
		return p.first
	}
	return 0
}
