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
// and [[table]] blocks (kept raw here, as OutputSpec) and draws them, so
// Load alone does not check their keys: the CLI calls report.Check (or
// report.Load) as well. experiments/README.md is the user's reference of
// the format; docs/ARCHITECTURE.md places this package in the data flow.
//
// # Decoding
//
// The TOML library (github.com/BurntSushi/toml) only parses: ParseWith
// turns the source into raw values (a syntax error is a toml.ParseError with
// its position) and this package's decoder (decode.go: decodeRaw,
// DecodeStrict) fills the typed structs, strictly, by the rules stated in
// decode.go. It exists because the library's metadata keeps one position per
// key path, without the index of an [[array]] element, exports no
// positions, and reports a type mismatch with its line only in the message
// text, at the last element defining the key: a wrong type in the first of
// two [[dataset]] blocks was reported at the second's line. Here every
// problem is a *SpecError with the file, its key path with an index on each
// array element ("dataset[1].split.test", "mechanism[0].params.rho") and
// the line keyIndex.linePath (errors.go) finds for that path in the source;
// of several problems, the first in the file is reported. TestSpecErrors
// pins file, line, key and message for each kind of problem. The library
// never sees a file above MaxSourceBytes or nested deeper than MaxNesting,
// whose parse time and memory grow faster than their size (source.go:
// ReadSource, CheckSource).
//
// Plug-in params stay raw: dataset params and figure and table blocks as a
// RawTable, mechanism params and tuning candidates as a ParamTable (per key
// a Values list, which may be a sweep). Each plug-in decodes one point into
// its own typed struct with DecodeStrict, the same decoder, so an unknown key
// or a wrong type is an error naming the key.
//
// # Cells
//
// Expand returns the grid in a fixed order: datasets, then mechanisms, then
// sweep points (keys sorted, the last fastest), then ε, each in spec order.
// A cell's Key (expand.go) is a SHA-256 of the seed, the dataset, the
// mechanism's name, Info.Version, params and tuning, ε, the δ rule and the
// accountant; a block's pre-processing enters it only when present
// (pipelineKey, an omitempty field), so other cells keep their keys.
// Bumping cellKeyVersion invalidates every stored trial; a mechanism's
// Info.Version invalidates its own. A metric's direction lives with the
// metric (Metric.Higher): tuning selects by it and tables bold by it.
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
