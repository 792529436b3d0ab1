package rngs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
)

// Seed is a 256-bit seed.
type Seed [32]byte

// Derive hashes its parts into a seed. Each part is length-prefixed, so
// ("ab", "c") and ("a", "bc") give different seeds.
func Derive(parts ...string) Seed {
	// SHA-256 of len(p₁) p₁ len(p₂) p₂ …, lengths as 8 little-endian bytes,
	// hashed in one call from a buffer that is on the stack for the usual
	// short parts (a trial seed is derived once per trial).
	size := 0
	for _, p := range parts {
		size += 8 + len(p)
	}
	var stack [256]byte
	buf := stack[:0]
	if size > len(stack) {
		buf = make([]byte, 0, size)
	}
	for _, p := range parts {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(p)))
		buf = append(buf, p...)
	}
	return sha256.Sum256(buf)
}

// TrialSeed is the seed of trial index trial of the cell with key cellKey in an
// experiment whose base seed is base.
func TrialSeed(base uint64, cellKey string, trial int) Seed {
	var b, t [20]byte
	return Derive("dplab/trial", string(strconv.AppendUint(b[:0], base, 10)), cellKey, string(strconv.AppendInt(t[:0], int64(trial), 10)))
}

// Hex returns the seed as 64 hexadecimal digits.
func (s Seed) Hex() string { return hex.EncodeToString(s[:]) }

// Rand returns a ChaCha8 generator seeded with s itself (the draws of
// rand.New(rand.NewChaCha8(s))).
func (s Seed) Rand() *rand.Rand { return rand.New(NewChaCha8(s)) }

// Streams hands out named random streams derived from one seed.
// The zero value is not usable; call New.
type Streams struct {
	seed    Seed
	streams map[string]*rand.Rand
	sources map[string]*ChaCha8 // each stream's source (Normals)
}

// New returns the streams of seed.
func New(seed Seed) Streams {
	return Streams{seed: seed, streams: make(map[string]*rand.Rand), sources: make(map[string]*ChaCha8)}
}

// Seed returns the seed the streams derive from.
func (s Streams) Seed() Seed { return s.seed }

// Get returns the stream called name. The first call creates it from
// SHA-256(seed, name); later calls return the same generator, which continues
// where it stopped. Its source is a ChaCha8: the draws of
// rand.NewChaCha8(SHA-256(seed, name)).
func (s Streams) Get(name string) *rand.Rand {
	if s.streams == nil {
		panic("rngs: Streams used without New")
	}
	if r, ok := s.streams[name]; ok {
		return r
	}
	c := NewChaCha8(Derive("dplab/stream", string(s.seed[:]), name))
	r := rand.New(c)
	s.streams[name], s.sources[name] = r, c
	return r
}

// Sub returns new streams whose seed is derived from s's seed and name, for a
// component that needs its own family of named streams (one run inside a tuned
// trial, say). Sub(name) is independent of Get(name).
func (s Streams) Sub(name string) Streams {
	return New(Derive("dplab/sub", string(s.seed[:]), name))
}
