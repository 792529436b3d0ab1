// Package spec is an experiment's specification: the TOML schema (Spec and
// its blocks), strict decoding with the file, line and key path of every
// problem (internal/strictoml, errors.go), validation against the
// registries of datasets, mechanisms, metrics and curves, and the expansion
// of the grid into cells (Expand: dataset × mechanism × sweep point × ε,
// each with the key its stored trials are found by), which only
// harness/plan calls: every later step reads a plan's cells.
//
// It does not run anything and knows nothing of results or rendering:
// harness/run runs the cells, harness/report decodes the [[figure]]
// and [[table]] blocks (kept raw here, as OutputSpec) and draws them.
// docs/ARCHITECTURE.md §3.1–3.2 describes the contracts; experiments/README.md
// is the user's reference of the format.
//
// # Invariants
//
//   - Parse and Load never panic on input: every problem is a *SpecError.
//   - Expand is deterministic (spec order; sweep keys sorted, last fastest)
//     and agrees with Validate, which reports the same problems first, with
//     positions.
//   - A cell's key depends only on what changes its trials' outputs (seed,
//     dataset, mechanism name, version, params and tuning, its pre-processing
//     when it has any, ε, δ rule, accountant): labels, titles, figures and
//     tables are not in it.
//   - A mechanism block's pre-processing (pipeline.go) is accepted only
//     when it can be accounted: known steps and keys, a declared collection
//     holding what the bounds need (never read from the data), the
//     mechanism's ledger for the steps' neighbouring relation and without
//     an (ε, δ) part, the RDP accountant.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package spec
