// Package curves is the registry of analytic curves that a spec's [[curve]]
// blocks draw: privacy bounds and noise levels as functions of one
// parameter. Each paper's curves live in curves_<paper>.go and register
// themselves in init; experiments/spec validates [[curve]] blocks against
// the registry and experiments/report evaluates them (Eval) and draws them.
//
// # References
//
// Cited in this package: [CKS20], [LSS+25], [RKW23]. Full entries:
// docs/references.md.
package curves
