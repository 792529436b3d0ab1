//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

import "unsafe"

// haveSharedKernels is false: sharedBatchGrad runs for one-byte columns
// too.
const haveSharedKernels = false

func sharedDotsRows(*float64, *float64, *float64, unsafe.Pointer, uintptr, *int, int, int, int, int, *[256]float64) {
	panic("unreachable")
}

func sharedAddsRows(*[256]float64, *float64, unsafe.Pointer, uintptr, *int, int) {
	panic("unreachable")
}
