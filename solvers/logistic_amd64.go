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

// haveDerivsKernel reports whether logisticDerivsAVX512 runs: on the
// logistic kernel's CPUs with AVX-512 (the ZMM registers, the mask
// registers and their masked loads and stores).
var haveDerivsKernel = haveLogisticKernel && cpu.X86.HasAVX512F

// logisticDerivsAVX512 sets r[k] = logisticDeriv(u[k] + b, y[k]) for the
// k < n whose margin z = u[k] + b has 1e-4 ≤ |z| ≤ 20, with the same bits
// (logisticRows4AVX2's operations on eight lanes at a time), and returns
// the number of the others, whose r[k] it leaves as they were.
//
//go:noescape
func logisticDerivsAVX512(r, u, y *float64, n int, b float64) (skipped int)
