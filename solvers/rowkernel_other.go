//go:build !amd64 || noasm || gccgo || safe

package solvers

import "unsafe"

// haveRowKernels is false: dotRows4 and axpyRows4 make gonum's row-at-a-time
// calls.
const haveRowKernels = false

func dotRows4AVX(*[4]float64, []float64, *[4]int, *[4]int, []float64) { panic("unreachable") }

func axpyRows4AVX([]float64, *[4]float64, []float64, *[4]int) { panic("unreachable") }

func axpyRows8AVX([]float64, *[8]float64, []float64, *[8]int) { panic("unreachable") }

func gemmRows4AVX([]float64, int, []float64, int, []float64, int, int, int) { panic("unreachable") }

// prefetchSpan does nothing: prefetching is a hint, and leaving it out
// changes no value.
func prefetchSpan(unsafe.Pointer, uintptr) {}

// prefetchAddrs does nothing, as prefetchSpan.
func prefetchAddrs(*uintptr, int) {}

// prefetchRecords does nothing, as prefetchSpan.
func prefetchRecords(unsafe.Pointer, uintptr, *int, int, int) {}

// prefetchIndexed does nothing, as prefetchSpan.
func prefetchIndexed(*int, *int, int) {}
