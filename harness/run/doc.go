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
// docs/ARCHITECTURE.md places this package in the data flow.
//
// # A run
//
// Run resolves its options (Resolve: defaults and --trials on a copy of the
// spec), expands the cells and opens the store (results.Open: lock, read,
// repair; a shard opens its own file, results.OpenShard), reading every
// stored record once: into the done-set, the progress ETA's cost model and
// Options.Records. An unsharded run refuses a directory whose shard files
// hold trials not merged yet (results.UnmergedShards) or whose store holds
// another experiment (results.ExperimentCheck). It then sizes the datasets
// with trials left to run (datasetsWithPending, planData: beyond
// Options.DataMemory they are loaded one at a time, datagate.go) and loads
// them (preload) before anything in the directory changes: a dataset that
// does not load stops the run with a *spec.InputError and removes what
// opening created (created.go). A dataset with a fixed split is split as it
// is loaded, and its loaded rows dropped once no dataset of the run needs
// them (releaseLoaded), so the run holds its data once, as the splits. With Force it rewrites the store without the
// spec's cells (Store.Rewrite); it writes spec.toml, counts the pending
// trials, and runs them round-robin over the cells (schedule: every cell's
// first pending trial, then every cell's second, …) on a pool of
// Options.Jobs workers, which take short trials in batches (about a
// millisecond of them) and hand the finished ones to one writer (encoding
// and appending each, Options.Records, the counts and progress), so that
// storing trials overlaps with the next fits. When the trials are done and
// stored it starts Options.Render,
// syncs the store, writes manifest.json, waits for the render and returns;
// the store is closed (the lock released) when Run returns.
//
// An audit grid's plan (a spec with an [audit] table) runs through
// runAudits (audit.go) instead: Resolve builds every audit target first
// (CheckAudits); each cell is one trial, its audit (audit.Run on every
// worker, seeded with the trial seed), opened, resumed, stored and
// manifested through the same results.Open store; its record's metrics
// are the audit's (plan.MetricAudit*) and its privacy the target's ledger (the
// claimed ε as spent at δ). A lower bound above the claim ends the run
// with a VIOLATION error.
//
// # A trial
//
// runner.trial seeds the trial's streams (rngs.TrialSeed of the spec seed,
// the cell key and the trial index), takes its data (data.go: a fixed split
// made once from rngs.Derive and shared by every trial, or split.resample
// per trial), computes δ from the spec's rule at the training size, and
// fits the cell's mechanism — behind the block's pre-processing if any, a
// mechanisms.Preprocessed (pipeline.go, plan.Pipeline.Mechanism) whose Fit
// clips the rows to the unit ball, fits the steps on the training
// features, checks the declared collection and charges its run, so a
// tuning wrap is tuning ∘ pipeline — untuned, oracle tuning (fitOracle: every
// candidate, the best on the test set, charged with accounting.NonPrivate)
// or private tuning (fitPrivate: Budget.Wrap = plan.PrivateWrap, a
// RepeatAndSelect ledger). runner.account evaluates the charged event with
// the spec's accountant (memoised by the event's JSON and δ) and calls
// Release.CheckSpent unless the ledger is non-private, the tuning oracle or
// the release has a target scope. Then assumptions, metrics (metricEval,
// one function per plan.Metrics name), traces and diagnostics fill the
// record. Behind a pre-processing pipeline the mechanism fits π_S(S) and
// its released x ↦ model(π_S(clip(x))) (a mechanisms.PreprocessedModel) is
// scored on the parts mapped by the fitted steps (score); train metrics
// score the training rows mapped as held-out rows are, and
// excess_empirical_risk scores the predictor x ↦ model(π_S(clip(x))) on the
// original training rows against their own optimum (excessRisk); the
// record's privacy.pipeline states the steps, sensitivities and analyses.
//
// A fit that fails with an *accounting.InfeasibleError or a
// *mechanisms.OutOfRangeError is not a failure: markInfeasible records status
// "infeasible" with the error and, when known, the smallest ε reached. Such a
// trial released nothing and is settled: it is not rerun, plans count it
// stored and the renderer shows the cell as infeasible. A spec change that
// makes it feasible changes its cell key.
//
// # Shards
//
// With Options.Shard (dplab run --shard i/N; docs/cluster.md) a run writes
// its own file and manifest under shards/, refuses Force, and visits only the
// trials Assign gives it (trial g of the grid, in the plan's order, goes to shard
// g mod N; runner.trialRange). Assign depends on the grid alone, so every
// shard computes it independently. dplab merge calls results.MergeShards,
// then Gaps for every shard count found, and renders only without gaps.
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
