//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

// haveAdamKernel is false: Adam.Step updates one coordinate at a time.
const haveAdamKernel = false

func adamAVX(theta, grad, m, v *float64, n int, c *[6]float64) { panic("unreachable") }
