package solvers

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/stat/distuv"
)

// PoissonSampler draws Poisson-subsampled batches of the indices 0, …, n−1:
// each index joins a batch independently with probability q, the sampling
// that the subsampled-Gaussian accountant assumes ([ACG+16] §3.1 "lots",
// [MTZ19]; Opacus' DPDataLoader).
//
// A batch is drawn in two steps with the same distribution: its size
// B ~ Binomial(n, q) (the number of successes of n independent Bernoulli(q)
// trials), then B distinct indices uniformly at random — given its size, a
// Poisson sample is a uniform subset. The indices come from a partial
// Fisher–Yates shuffle of a persistent permutation ([Knu97] §3.4.2,
// Algorithm P stopped after B swaps), which yields a uniform random B-subset
// whatever the permutation's current order. Cost O(B) per batch, not n
// uniforms.
type PoissonSampler struct {
	q    float64
	r    *rand.Rand
	c    *rngs.ChaCha8 // r's source, drawn from directly when not nil
	bin  distuv.Binomial
	perm []int
	// swaps holds the positions of the current batch's swaps.
	swaps []int
}

// NewPoissonSampler returns a sampler of batches of [0, n) at rate q that
// draws from r. It returns an error unless n ≥ 1 and 0 < q ≤ 1.
func NewPoissonSampler(n int, q float64, r *rand.Rand) (*PoissonSampler, error) {
	if n < 1 {
		return nil, fmt.Errorf("solvers: Poisson sampler needs n ≥ 1 examples, got %d", n)
	}
	if !(q > 0 && q <= 1) {
		return nil, fmt.Errorf("solvers: Poisson sampling rate q = %v must be in (0, 1]", q)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	return &PoissonSampler{q: q, r: r, bin: distuv.Binomial{N: float64(n), P: q, Src: r}, perm: perm}, nil
}

// newStreamSampler is NewPoissonSampler(n, q, rs.Get(name)), the same
// batches, that draws the swap positions from the stream's ChaCha8 source
// directly (rngs.Swaps: Rand.IntN's draws and values, eight per call,
// without a call through rand.Source per draw).
func newStreamSampler(n int, q float64, rs rngs.Streams, name string) (*PoissonSampler, error) {
	s, err := NewPoissonSampler(n, q, rs.Get(name))
	if err != nil {
		return nil, err
	}
	s.c = rs.Source(name)
	return s, nil
}

// Next returns the next batch, in random order. The slice is valid until
// the next call; the batch may be empty.
func (s *PoissonSampler) Next() []int {
	n := len(s.perm)
	b := n
	if s.q < 1 {
		b = int(s.bin.Rand())
	}
	// The swap positions do not depend on the permutation, so they are
	// drawn first (the same draws in the same order), eight at a time, and
	// the entries of each eight fetched while the next are drawn.
	s.swaps = slices.Grow(s.swaps[:0], b)[:b]
	for j0 := 0; j0 < b; j0 += 8 {
		part := s.swaps[j0:min(j0+8, b)]
		if s.c != nil {
			rngs.Swaps(s.c, part, j0, n)
		} else {
			for i := range part {
				part[i] = j0 + i + s.r.IntN(n-j0-i)
			}
		}
		prefetchIndexed(&s.perm[0], &part[0], len(part))
	}
	for j, k := range s.swaps {
		s.perm[j], s.perm[k] = s.perm[k], s.perm[j]
	}
	return s.perm[:b]
}
