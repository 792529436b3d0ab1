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
// render), so no render holds the store in memory.
// docs/ARCHITECTURE.md §3.6 and §5.3 describe the contracts and how to add
// a kind.
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
