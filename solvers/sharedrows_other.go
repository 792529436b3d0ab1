//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

import "unsafe"

// haveSharedKernels is false: sharedBatchGrad runs for one-byte columns
// too.
const haveSharedKernels = false

func sharedDots8(*[8]float64, *[8]unsafe.Pointer, int, *[256]float64) { panic("unreachable") }

func sharedAdds8(*[256]float64, *[8]float64, *[8]unsafe.Pointer, int) { panic("unreachable") }
