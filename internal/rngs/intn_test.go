package rngs

import (
	"math"
	"testing"
)

// TestIntNMatchesStdlib: IntN from a stream's source returns, bit for bit,
// what rand.Rand.IntN returns on an identical stream, and leaves the source
// where Rand.IntN leaves it (on math/rand/v2's own ChaCha8), for bounds of every kind: small, powers of two,
// and bounds near 2⁶³ whose draws are often rejected and redrawn (the
// oracle is math/rand/v2 itself).
func TestIntNMatchesStdlib(t *testing.T) {
	t.Parallel()
	bounds := []int{1, 2, 3, 7, 8, 255, 256, 257, 1000, 32561, 1 << 31, 1<<31 + 1,
		1 << 40, 3 << 61, 1<<62 + 1, math.MaxInt64 / 3 * 2, math.MaxInt64}
	for seed := range 4 {
		name := string(rune('a' + seed))
		got := New(Derive("intn", name))
		c, r := got.Source("s"), stdlibStream(got.Seed(), "s")
		for i := range 20000 {
			n := bounds[i%len(bounds)]
			if i%3 == 0 {
				n = 1 + int(r.Uint64()>>(1+i%63)) // a varying bound, drawn by both
				c.Uint64()
			}
			if a, b := IntN(c, n), r.IntN(n); a != b {
				t.Fatalf("seed %d, draw %d: IntN(%d) = %d, Rand.IntN %d", seed, i, n, a, b)
			}
		}
		if a, b := got.Get("s").Uint64(), r.Uint64(); a != b {
			t.Fatalf("seed %d: the stream's Uint64 after IntN %v, want %v", seed, a, b)
		}
	}
}

// TestIntNPanicsOnNonPositive: IntN(c, 0) panics, as Rand.IntN(0) does.
func TestIntNPanicsOnNonPositive(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("IntN(c, 0) did not panic")
		}
	}()
	IntN(NewChaCha8([32]byte{}), 0)
}

// TestSwapsMatchesIntN: Swaps gives the positions of one IntN call per
// position, bit for bit, and leaves the source where those calls leave it,
// for runs of 0–40 positions starting anywhere in shuffles of 1–40 and of
// 36,177 entries and of 2⁶² + 1 (whose draws are often redrawn), with
// powers of two among the bounds n − j. It fails when a position is drawn
// with the bound of its neighbour.
func TestSwapsMatchesIntN(t *testing.T) {
	t.Parallel()
	got, want := New(Derive("swaps")), New(Derive("swaps"))
	c, o := got.Source("s"), want.Source("s")
	pick := New(Derive("swaps", "sizes")).Get("p")
	for rep := range 5000 {
		n := []int{1 + pick.IntN(40), 36177, 1<<62 + 1}[rep%3]
		j0 := pick.IntN(n)
		dst := make([]int, pick.IntN(min(41, n-j0+1)))
		Swaps(c, dst, j0, n)
		for i, v := range dst {
			if w := j0 + i + IntN(o, n-j0-i); v != w {
				t.Fatalf("rep %d: Swaps(…, %d, %d)[%d] = %d, want %d", rep, j0, n, i, v, w)
			}
		}
	}
	if a, b := c.Uint64(), o.Uint64(); a != b {
		t.Fatalf("the source after Swaps %v, want %v", a, b)
	}
}

// TestSwapsPanicsPastEnd: Swaps panics when its positions pass n.
func TestSwapsPanicsPastEnd(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("Swaps(c, 3 positions, 8, 10) did not panic")
		}
	}()
	Swaps(NewChaCha8([32]byte{}), make([]int, 3), 8, 10)
}
