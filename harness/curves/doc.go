// Package curves is the registry of analytic curves that a spec's [[curve]]
// blocks draw: privacy bounds and noise levels as functions of one
// parameter. Each paper's curves live in curves_<paper>.go and register
// themselves in init; harness/spec validates [[curve]] blocks against
// the registry and harness/report evaluates them (Eval) and draws them.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md.
package curves
