// Package audit measures a mechanism's privacy empirically: it runs the
// mechanism many times on a worst-case pair of neighbouring datasets, picks
// a threshold test on a scalar statistic of the release using one half of
// the runs, and turns the test's false-positive and false-negative counts on
// the other half into a lower bound on ε that holds with probability at least
// the stated confidence ([JUO20] §3, [NST+21] §4; the recipe is
// ../shared/research/auditing.md). A lower bound above the ε a mechanism's
// ledger claims is a refutation of the claim; a lower bound below it
// certifies nothing.
//
// The pieces: ClopperPearsonUpper and EpsilonLowerBound (the statistics),
// Run (the runs, on every core, with progress), and Targets (one auditable
// target per registered private mechanism, with the pair and statistic it
// uses, plus the reference Gaussian mechanism). An audit grid (a spec with
// an [audit] table) is an ordinary spec: harness/run runs each of its cells
// as one trial through Run and stores it with every other trial.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package audit
