// Package report turns stored records into what a reader sees: it decodes
// each [[figure]] and [[table]] block with its registered kind (kinds.go;
// one kind_<figure|table>_<kind>.go file per kind, or a package of its own
// under harness/report/kinds), joins the spec's cells with the aggregates
// of their stored trials (the view; a kind reads it through the exported
// View, view.go), and renders the figures (PNG, SVG), tables (Markdown,
// LaTeX, CSV) and summary.csv.
//
// The kinds of their own packages register when their assembly package,
// harness/report/kinds, is imported (the CLI does); this package never
// imports them.
//
// Check decodes every block before a run; a Collector gathers, record by
// record, what the figures and tables need (a run gives it each record it
// stores; Render scans a result directory's store into one, for dplab
// render), so no render holds the store in memory. docs/ARCHITECTURE.md
// places this package in the data flow.
//
// # The Collector and the view
//
// A Collector (collect.go) expands the spec's current cells and takes the
// store's records one at a time, keeping none: records of other cells are
// ignored, ok records go to a results.Aggregator (the last ok record per
// trial, statistics in trial order), and per cell it keeps what captions
// and privacy tables state (the ledger and δ of the first ok record, the
// pipeline analyses, the infeasible trials, per dataset the skip reason).
// That digest makes the view the kinds draw from, and the evidence of the
// generated docs. Column labels of noise parameters and diagnostics are
// what each mechanism declares by stored key (mechanisms.Info.Quantities;
// a column may be derived from stored keys, aggregated record by record),
// with solver counters, tuning's keys and pre-processing's statistics
// listed in quantities.go (ColumnLabels); TestQuantitiesCoverMechanisms
// fails on a key without one.
//
// # Claims
//
// Check also decodes every [[claim]] block strictly into a check of one of
// the kinds in checkKinds (claims.go: better, ratio, difference, value,
// crossover, monotone) over one quantity. Collector.Render evaluates them on
// the view the tables are drawn from and writes claims.md, claims.csv and
// claims.json (Claims; ReadClaims reads it back for dplab report and the
// generated docs). The rules (pairing of sides, interval arithmetic,
// verdicts) are stated in experiments/README.md, "Paper claims", and held to
// hand-computed cases by TestClaimsEvaluated and its neighbours. A new check
// kind is an entry in checkKinds with its doc and example (claims_kinds.go;
// TestClaimCheckExamples runs the example), its rule in experiments/README.md
// and a case in TestClaimsEvaluated; a new quantity is a case of
// claimQuantity.read and of claim.decodeQuantity.
//
// # Writing
//
// Collector.Render writes summary.csv (and curves.csv for [[curve]] specs),
// draws figures and builds tables one after the other (the view is not safe
// for concurrent use) and encodes and writes their files concurrently. Two
// tables writing the same file stem is an error, never an overwrite; a
// file's name always fits 255 bytes (labelStems cuts a long label's slug
// with a hash, and checkFileNames refuses at load a name that could not
// fit). Each figure and table gets its caption files (plotting package
// doc).
//
// # Evidence
//
// Evidence (evidence.go) is a finished run's digest written as JSON: per
// cell its summaries without their intervals (recomputed by the current
// spec's ci, so the evidence renders what the records would:
// TestEvidenceRendersAsRecords), the trace iterations the spec's tables and
// claims read (evidence_traces.go), and wall-clock times only when a claim
// reads one. Cells are matched by key; a spec cell missing from the evidence
// is a *StaleEvidenceError. harness/docgen renders the reproduction docs'
// sections from it (docs/README.md).
//
// # Adding a figure or table kind
//
// Write one file: kind_figure_<kind>.go or kind_table_<kind>.go in this
// package, or <kind>.go in a package of its own, harness/report/kinds/<kind>
// (package <kind>), written against the exported View only (its Kind's Docs
// is the generated kindDocs). It holds a
// struct whose toml-tagged, documented fields are the block's keys; an init
// calling RegisterFigure (or RegisterTable) with a Kind whose Params is the
// struct's zero value, Decode decodes a *Block into a pointer to it
// (b.Decode is strict; check with Block.Labels, Block.Formats, Block.OneOf,
// Block.Errorf) and Example is a small valid block; and Draw(*View) (a
// table: Build) with FileFormats. Leaving out Draw is a compile error in the
// decode function; a Kind without Decode or Example panics at registration.
// Picked up: dplab kinds, report.Check, rendering by the block's kind,
// TestEveryKindRenders (strict decoding, a real run, every format rendered
// twice, byte-identical), TestEveryKindKeyDocumented and
// TestLoadPathLeavesSpecUnchanged (every shipped spec's blocks, in full and
// --quick mode). Then go generate ./harness/report writes the generated
// files: params_doc.go (of this package or of the kind's package) and, for
// a package, its import in harness/report/kinds/kinds.go
// (TestKindDocsGenerated, TestEveryKindPackageAssembled). Not automatic: the
// kind's keys in experiments/README.md, and tests of what it draws
// (TestOutputErrors is the pattern for error positions).
//
// # Invariants
//
//   - Outputs are a function of the spec and the set of stored records:
//     byte-identical whatever the order trials finished in.
//   - Every figure and table states the accountant, δ and tuning mode its
//     numbers rest on, labels non-private tuning and selection, and states
//     the assumptions (public n, data-dependent scaling) recorded with the
//     trials, and what ε meant to cells with a target scope (never warned
//     about as overspending).
//   - Values read from the data without noise (traces, diagnostics) are
//     labelled so where they are shown (iterations captions; the
//     diagnostics table's title and caption).
//   - A mechanism run behind non-private pre-processing ([HSS24]) is
//     labelled in legends unless its label names the steps, and captions
//     state the steps, sensitivities and analyses its ε rests on
//     (render_pipeline.go).
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package report
