//go:build !noasm && !gccgo && !safe && !amd64.v3

package solvers

import "golang.org/x/sys/cpu"

// haveLogisticKernel reports whether logisticRows4AVX2 runs. It needs AVX2
// and FMA: with FMA the Go runtime's math.Exp takes the fused path that the
// kernel repeats (exp_amd64.s tests AVX and FMA). The kernel is left out at
// the amd64 level v3 and above, where the compiler may fuse the
// multiply–adds of the scalar code, and under noasm, gccgo and safe.
var haveLogisticKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// logisticRows4AVX2 sets value[k], deriv[k] = logisticValueDeriv(z[k], y[k]) for
// k < 4, with the same bits, for lanes with 1e-4 ≤ |z[k]| ≤ 20 (which
// logisticRows4 checks). It computes e = e^−|z| as the runtime's
// exp_amd64.s does on its FMA path, log1p(e) as math/log1p.go's branches
// for e in [2⁻²⁹, 1) do, and every other step as the scalar code, with no
// fused operation. A nil value skips the loss (and its log1p).
//
//go:noescape
func logisticRows4AVX2(value, deriv, z, y *[4]float64)
