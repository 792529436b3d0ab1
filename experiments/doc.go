// Package experiments reads experiment specs and runs them: strict TOML
// decoding with errors naming file, line and key (spec.go, validate.go),
// grid expansion into content-addressed cells (expand.go), the concurrent,
// resumable runner (runner.go, data.go, tuning.go), analytic curves
// (curves*.go) and the rendering of figures and tables from stored trials
// (render*.go). The spec reference is experiments/README.md.
//
// # Invariants
//
//   - A trial's randomness comes only from rngs streams seeded by
//     (spec seed, cell key, trial index): results do not depend on -j or on
//     the order trials finish.
//   - A cell key hashes everything that determines its trials and nothing
//     cosmetic; a stored trial is rerun only when its cell's content changes
//     (or with --force).
//   - The ε recorded for a trial is its ledger (Release.Event, wrapped for
//     tuning) evaluated by the spec's accountant, never a number copied from
//     the budget. Oracle tuning is charged one run and labelled "non-private
//     tuning" wherever it is shown.
//   - Only the trial boundary recovers panics; a panicking trial becomes a
//     failed record and the run exits non-zero.
//   - Finished trials are appended to the store as they finish; an interrupted
//     run loses only the trials in flight.
//
// # References
//
//	[PS22] N. Papernot, T. Steinke. Hyperparameter tuning with Rényi
//	       differential privacy. ICLR 2022, arXiv:2110.03620v2 (private
//	       tuning: repeat-and-select with a random number of runs).
//	[Moreau19] T. Moreau et al. Benchopt (the seed-hashing and resumable
//	       cache patterns; benchopt/benchopt@f6de3e2).
package experiments
