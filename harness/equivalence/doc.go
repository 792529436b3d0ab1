// Package equivalence compares the evidence of a new full-size run of a
// spec with the committed evidence of the same spec (report.Evidence, what
// the reproduction docs are generated from) and says whether the results
// are equivalent in the sense of issue 37: results are reproducible and
// equivalent, not bit-frozen.
//
//   - Privacy quantities of every cell (ε spent, ε per run, δ, the mean RDP
//     order, the accountant, every noise parameter's statistics, the
//     ledger's event and δ, the infeasible calibrations) are equal to
//     PrivacyTol relative; a difference fails the check, naming the cell
//     and the field.
//   - Every statistic of a cell that its metrics, derived quantities and
//     kept traces give (not the wall-clock times) is compared by its mean:
//     a mean within Tenth of the committed 95% CI half-width of the old one
//     is close; otherwise Welch's two-sample t-test from (count, mean, sd)
//     gives a p-value. The count of statistics that differ at Alpha
//     uncorrected is reported; the verdict rejects with Holm's step-down
//     correction at family-wise Alpha [Hol79], so that a few chance
//     rejections among hundreds of statistics do not fail it. The cells'
//     diagnostics (work counters: iterations, gradient evaluations, which
//     the issue lets change) are compared the same way and reported, not
//     in the verdict.
//   - Every claim's verdict is unchanged; a claim on wall-clock times whose
//     verdict changed is listed, not in the verdict, like the wall-clock
//     metrics (speed is what such changes move, and load moves it too).
//   - Both hold the same cells: a spec whose grid changed is not comparable.
//     A cell whose key changed only because its mechanism's code version
//     did is compared with the old cell of the same grid point (rekey).
//
// Goldens (testdata/golden) are regenerated only after the check passes
// for the specs whose outputs moved (dplab equivalence, make equivalence).
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package equivalence
