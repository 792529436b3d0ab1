//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

// haveLogisticKernel is false: logisticRows4 calls logisticValueDeriv.
const haveLogisticKernel = false

func logisticRows4AVX2(value, deriv, z, y *[4]float64) { panic("unreachable") }
