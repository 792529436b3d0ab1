// Package mechanisms holds dplab's learners, private and reference, behind one
// interface and a registry. Each file registers one mechanism family in its
// init function with a typed params struct (decoded strictly from a spec's
// params table) and a tiny test configuration.
//
// # Invariants
//
//   - A mechanism draws randomness only from the trial's named streams, so the
//     same seed gives the same bits at any -j.
//   - A mechanism never modifies the training set it is given.
//   - Release.Event describes what the fit did, in a form the accountant
//     evaluates; the runner computes the ε actually spent from it (after
//     Budget.Wrap for tuning). No mechanism reports a number copied from the
//     budget.
//   - A mechanism that calibrates noise calibrates Budget.Wrap(event) against
//     the target, so the whole procedure meets it.
//
// # The contract
//
//   - Fit draws randomness only from its streams, never modifies train,
//     returns ctx.Err() promptly when cancelled, and is safe to call
//     concurrently on one built mechanism (the runner builds each
//     (mechanism, params) once per run and shares it between trials).
//   - A mechanism that calibrates its noise calls Budget.Calibrate, which
//     calibrates the charged event Budget.Wrap(event(x)), so the whole
//     procedure (tuning included) meets the target, and sets
//     Release.Calibrated. Fits that reproduce a paper's constants leave it
//     false. Release.CheckSpent fails a calibrated release that spends more
//     than its target by more than accounting.CalibrationTolerance.
//   - Release.Trace and Release.Stats are computed from the training data
//     without noise (evaluation and diagnosis, never released); keys of
//     Stats and Noise may carry a group prefix ("node1/eta"), which the
//     diagnostics table shows as one row per group. Release.TargetScope
//     says the budget's ε was a target for something other than the whole
//     ledger's (ε, δ); the recorded ε spent is the ledger's either way.
//   - EventShaper, part of Mechanism: before seeing data, a mechanism
//     declares the shapes of the events Fit may return under a budget, or
//     the error Fit would return whatever the data. Spec validation checks
//     each shape with the spec's accountant and refuses the spec otherwise;
//     a mechanism without it does not compile at its registration
//     (TestMechanismWithoutShapesDoesNotCompile).
//   - TargetChecker (optional, shapes.go): a mechanism whose noise is a
//     closed form of (ε, δ) or whose calibration searches a bounded grid
//     says, for a budget and a DataShape, what its fixed constants spend or
//     the error Fit would return (*OutOfRangeError,
//     *accounting.InfeasibleError); spec validation calls it at every ε of
//     the grid (harness/plan/targets.go).
//   - Info.Relation and Info.Events are what dplab mechanisms prints;
//     TestConformance checks them against the ledger Fit returns.
//
// A params struct's field doc comments are its documentation:
// internal/fielddoc extracts them into the generated params_doc.go (go
// generate ./mechanisms; TestParamDocsGenerated fails when it is stale).
// The field's default tag says what its zero value means, range what
// Validate accepts, and only (for a struct shared by several mechanisms)
// which of them read the key; Entry.Params reads it all and dplab
// mechanisms NAME prints it. TestEveryParamDocumented requires a doc, a
// default and a range for every key; TestParamDefaultsMeanZero fits each
// mechanism with every key at its literal default and at its zero value and
// requires the same model, ledger and noise.
//
// # Adding a mechanism
//
// Write one file, <registry_name>.go with hyphens as underscores: the
// mechanism type, its params struct (toml tags, zero value = the documented
// default, Validate naming the key at fault), Fit and EventShapes, and an
// init calling Register(Info{Name, Title, Ref, Tasks, Private, Version: 1,
// Relation, Events}, build, testParams) with tiny, fast testParams. Picked
// up through List: dplab mechanisms, TestConformance (relation and events
// match the ledger, ε spent ≤ target for private mechanisms, same streams →
// same model, cancellation), TestEventShapes, TestEveryParamDocumented,
// TestParamDefaultsMeanZero, BenchmarkFit, harness/run's
// TestLedgerCheckMatchesRuns, and the audit's TestMechanismAudits. The same
// Info declares what the tests and docs read from the registry: its
// calibration claims (Info.Calibration, checked by TestCalibratedClaims),
// a private mechanism's audits (Info.Audits: setup, runs, leak variants and
// the trust row measured by the full audit, go test -run
// 'TestMechanismAudits/^<name>$' ./audit without -short, whose log prints
// the real and broken variants' lower bounds; TestMechanismAudits,
// TestDeclaredAudits), how
// tables print each key of Release.Noise and Release.Stats
// (Info.Quantities: label, LaTeX, meaning, unit, reference, and for a
// derived column its formula, Of and When; harness/report reads them;
// TestQuantitiesCoverMechanisms fits the test params and Info.QuantityParams
// and fails on a reported key without one or a declared key not reported) and
// its reference (Info.Ref). go generate ./mechanisms then regenerates
// params_doc.go, the mechanism list of docs/references.md and
// testdata/fingerprints.txt; go generate ./audit regenerates the trust
// table of docs/trust.md. Not automatic: a new paper's full entry in
// docs/references.md; tests of the paper's own claims; a new event kind
// first, if it charges one (mechanisms/accounting).
// A change of behaviour bumps Info.Version, which re-keys its cells so stored
// trials are not reused: TestVersionFingerprints fails when a mechanism's
// release on a fixed input changes under an unchanged version.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package mechanisms
