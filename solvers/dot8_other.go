//go:build !amd64 || noasm || gccgo || safe

package solvers

func dotLanes8AVX(*[8][4]float64, []float64, *[8]int, []float64, int, int) { panic("unreachable") }
