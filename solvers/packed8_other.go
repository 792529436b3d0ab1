//go:build !amd64 || noasm || gccgo || safe

package solvers

func dotPacked8AVX(*[8][4]float64, []float64, []float64, int) { panic("unreachable") }
func axpyPacked8AVX([]float64, *[8]float64, []float64, int)   { panic("unreachable") }
