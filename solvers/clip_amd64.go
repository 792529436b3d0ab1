//go:build !noasm && !gccgo && !safe && !amd64.v3

package solvers

import "golang.org/x/sys/cpu"

// haveClipKernel reports whether clipSumAVX512 runs.
var haveClipKernel = cpu.X86.HasAVX512F

// clipSumAVX512 is batchDerivs.set's clipping and sum, eight lanes at a
// time, with the same bits: for k < n, in order, it sets x = |r[k]|·norm[k]
// + 10⁻⁶ and, where x > clip and f = clip/x < 1, r[k] ·= f (counted in
// clipped), then adds r[k] to *sum. Every product, sum and quotient is
// rounded on its own, as in set; clip must be > 0.
//
//go:noescape
func clipSumAVX512(r, norm *float64, n int, clip float64, sum *float64) (clipped int)
