//go:build !noasm && !gccgo && !safe && !amd64.v3

package solvers

import "golang.org/x/sys/cpu"

// haveAdamKernel reports whether adamAVX runs (AVX; left out where the
// compiler may fuse Step's multiply–adds, amd64 level v3 and above).
var haveAdamKernel = cpu.X86.HasAVX

// adamAVX applies Adam.Step's update to the first n coordinates (a
// multiple of 4) of theta, m and v with gradient grad, with Step's bits;
// c holds 1 − β₁, β₂, 1 − β₂, the step η/(1 − β₁ᵗ), √(1 − β₂ᵗ) and ε.
//
//go:noescape
func adamAVX(theta, grad, m, v *float64, n int, c *[6]float64)
