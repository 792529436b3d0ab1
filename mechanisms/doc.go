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
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package mechanisms
