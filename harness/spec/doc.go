// Package spec is an experiment's specification: the TOML schema (Spec and
// its blocks) and its strict decoding (Decode, DecodeFile) with the file,
// line and key path of every problem (internal/strictoml, errors.go). It
// imports no other dplab package (TestLayering): harness/plan checks a
// decoded spec against the registries of datasets, mechanisms, metrics and
// curves (plan.Load, plan.Validate), builds its pre-processing and expands
// its grid into cells (plan.New); every later step reads a plan.
//
// It does not run anything and knows nothing of results or rendering:
// harness/run runs the cells, harness/report decodes the [[figure]]
// and [[table]] blocks (kept raw here, as OutputSpec) and draws them, so
// plan.Load alone does not check their keys: the CLI calls report.Check (or
// report.Load) as well. experiments/README.md is the user's reference of
// the format; docs/ARCHITECTURE.md places this package in the data flow.
//
// # Decoding
//
// The TOML library (github.com/BurntSushi/toml) only parses: Decode turns
// the source into raw values (a syntax error is a toml.ParseError with its
// position) and internal/strictoml fills the typed structs, strictly. It
// exists because the library's metadata keeps one position per key path,
// without the index of an [[array]] element, exports no positions, and
// reports a type mismatch with its line only in the message text, at the
// last element defining the key: a wrong type in the first of two
// [[dataset]] blocks was reported at the second's line. Here every problem
// is a *SpecError with the file, its key path with an index on each array
// element ("dataset[1].split.test", "mechanism[0].params.rho") and the line
// keyIndex.linePath (errors.go) finds for that path in the source; of
// several problems, the first in the file is reported. The checks in
// harness/plan report theirs the same way (Spec.ErrAt, Spec.ErrIn,
// Spec.Line). The library never sees a file above MaxSourceBytes or nested
// deeper than MaxNesting, whose parse time and memory grow faster than
// their size (source.go: ReadSource, CheckSource).
//
// Plug-in params stay raw: dataset params and figure and table blocks as a
// RawTable, mechanism params and tuning candidates as a ParamTable (per key
// a Values list, which may be a sweep). Each plug-in decodes one point into
// its own typed struct with DecodeStrict, the same decoder, so an unknown key
// or a wrong type is an error naming the key.
//
// # Invariants
//
//   - Decode never panics on input: every problem is a *SpecError.
//   - Nothing writes to a decoded spec: plan.Validate returns the resolved
//     spec, a copy (Resolved) with the defaults harness/plan resolves from
//     the registries (Defaults: labels, ci, metrics, split and scaling, the
//     split indices' path and hash, tuning, an audit grid's trials and
//     confidence) and the Warnings its validation found, and
//     plan.ApplyQuick another with the [quick] overrides (WithQuick); the
//     plan holds the resolved spec and no step writes to it either. Only
//     this package writes to a spec's fields (TestNoSpecWritesOutsideSpec,
//     TestLoadPathLeavesSpecUnchanged).
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package spec
