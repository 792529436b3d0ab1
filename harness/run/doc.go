// Package run runs an expanded spec: every trial of every cell not yet in
// the result directory's store, on a bounded number of goroutines; data
// loaded and split once per run; the mechanism's fit, with hyperparameter
// tuning (non-private oracle or Papernot–Steinke private selection); the
// accounting of what each trial spent, tuning included; its metrics and the
// assumptions its guarantee rests on; and one record per trial, appended to
// the store (results.Store) as it finishes. Run keeps no record: it hands
// each stored one to Options.Records (harness/report's Collector
// aggregates them for the figures and tables), so its memory is bounded by
// cells, not trials.
//
// docs/ARCHITECTURE.md §3.5 describes the contracts.
//
// # Invariants
//
//   - A trial's output depends only on its cell, its index and the spec
//     seed (internal/rngs), never on -j or on the order trials finish in.
//   - A record's spent ε is the accountant's, over the whole ledger (tuning
//     included), never smaller than what the trial spent; a calibrated
//     trial whose spent ε exceeds its target fails instead of being stored
//     as a success — unless the release states a target scope (its ε was a
//     target for something else, e.g. a per-step RDP ε), which the record
//     keeps as privacy.target_scope.
//   - A mechanism behind non-private pre-processing (a spec's preprocess,
//     pipeline.go) is charged accounting.Preprocessed around its event,
//     inside any tuning wrap, with sensitivities over the declared
//     collection at the training size; data that violate the collection
//     fail the trial or fall back to group privacy over all n rows. The
//     record states which (privacy.pipeline, privacy.assumptions).
//   - Traces (per-iteration values) and diagnostics are copied from the
//     release as computed from the training data without noise; they are
//     never part of what ε covers.
//   - Cancelling the context stops scheduling; finished trials stay stored
//     and a rerun resumes. A panicking fit becomes a failed record with its
//     stack; it never stops the run.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package run
