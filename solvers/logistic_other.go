//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

// haveLogisticKernel is false: logisticRows4 calls logisticValueDeriv.
const haveLogisticKernel = false

func logisticRows4AVX2(value, deriv, z, y *[4]float64) { panic("unreachable") }

// haveDerivsKernel is false: rowDerivs uses logisticRows4.
const haveDerivsKernel = false

func logisticDerivsAVX512(*float64, *float64, *float64, int, float64) int { panic("unreachable") }
