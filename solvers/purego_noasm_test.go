//go:build noasm

package solvers

// pureGo reports a build whose gonum and solvers kernels run in pure Go
// (-tags noasm): their sums round differently from the assembly kernels'.
const pureGo = true
