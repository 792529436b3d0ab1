// Package rngs derives trial seeds and named random streams.
//
// Every random draw in dplab comes from a stream obtained here. A trial's seed is
// a SHA-256 hash of the spec's base seed, the cell key and the trial index (the
// benchopt pattern), so a trial's output does not depend on how many trials run
// in parallel or in which order they finish. Within a trial, Streams.Get(name)
// returns an independent ChaCha8 generator per name ("noise", "sketch",
// "sampling", "init", ...), so adding a draw to one stream never shifts another.
//
// # Invariants
//
//   - Derive and Streams.Get are pure functions of their inputs: same inputs,
//     same bits, on every platform.
//   - A Streams value belongs to one goroutine (one trial); it is not safe for
//     concurrent use.
//   - No other dplab package imports math/rand (v1) or uses math/rand/v2's
//     top-level functions (make lint checks this).
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package rngs
