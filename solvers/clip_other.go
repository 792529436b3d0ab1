//go:build !amd64 || noasm || gccgo || safe || amd64.v3

package solvers

// haveClipKernel is false: batchDerivs.set clips lane by lane.
const haveClipKernel = false

func clipSumAVX512(*float64, *float64, int, float64, *float64) int { panic("unreachable") }
