// Package plan turns a decoded spec (harness/spec) and the registries into
// the plan every later step consumes.
//
// Load and Parse decode a spec (spec.Decode) and check it against the
// registries (Validate, validate.go): values in range, datasets, mechanisms,
// metrics and curves known, params decodable for every sweep point, each
// mechanism's ledger accountable under the spec's accountant
// (validate_grid.go), its ε targets reachable (targets.go), its tuning
// (tuning_spec.go) and pre-processing (pipeline.go: known steps and keys, a
// declared collection holding what the bounds need, never read from the
// data, the mechanism's ledger for the steps' neighbouring relation and,
// without an (ε, δ) part, the RDP accountant) accountable. Every problem is a
// *spec.SpecError with the file, line and key. Validation never writes to
// the decoded spec: resolve.go computes the documented defaults of what it
// leaves out (defaultsOf: labels, ci, metrics, split and scaling, the split
// indices' path and hash, tuning, an audit grid's trials and confidence)
// as a spec.Defaults, checks the copy spec.Spec.Resolved makes with them,
// and returns that copy with the Warnings the checks found: the resolved
// spec. ApplyQuick returns another copy with the [quick] overrides applied
// (spec.Spec.WithQuick), resolved and checked again.
//
// New makes the Plan: the grid of cells, expanded once, with the run's
// trial count resolved once and each cell's pre-processing (Cell.Pipeline).
// run, plan/--estimate, shards, merge, render, report and the HTML report
// read the cells of a Plan; nothing else expands the grid
// (TestExpandCalledOnlyByPlan), and nothing mutates a spec, decoded or
// resolved (TestLoadPathLeavesSpecUnchanged in harness/report,
// TestNoSpecWritesOutsideSpec).
//
// # Cells
//
// The cells come in a fixed order: datasets, then mechanisms, then sweep
// points (keys sorted, the last fastest), then ε, each in spec order. A
// cell's Key (expand.go) is a SHA-256 of the seed, the dataset, the
// mechanism's name, Info.Version, params and tuning, ε, the δ rule and the
// accountant; a block's pre-processing enters it only when present
// (pipelineKey, an omitempty field), so other cells keep their keys.
// Bumping cellKeyVersion invalidates every stored trial; a mechanism's
// Info.Version invalidates its own. A metric's direction lives with the
// metric (Metric.Higher): tuning selects by it and tables bold by it.
//
// # Audit grids
//
// A spec with an [audit] table is an audit grid (audit.go): no datasets;
// validateAudit checks its header, its blocks (audit targets, built by
// harness/run, which may import package audit) and its outputs, and
// expandAudit makes one cell per target, sweep point and ε, with Dataset
// −1, one trial and the audit's runs per side and confidence
// (Cell.Audit). Its key (auditKey) hashes the seed, the target and its
// mechanism's Info.Version, params, ε, δ, the runs and the confidence.
//
// # Invariants
//
//   - Parse, Load and Validate never panic on input: every problem is a
//     *spec.SpecError. TestSpecErrors pins file, line, key and message for
//     each kind of problem.
//   - The expansion is deterministic (spec order; sweep keys sorted, last
//     fastest) and agrees with Validate, which reports the same problems
//     first, with positions.
//   - A cell's key depends only on what changes its trials' outputs (seed,
//     dataset, mechanism name, version, params and tuning, its
//     pre-processing when it has any, ε, δ rule, accountant): labels,
//     titles, figures and tables are not in it.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package plan
