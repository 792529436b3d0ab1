//go:build !noasm && !gccgo && !safe

package solvers

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveRowKernels reports whether the AVX kernels of rowkernel_amd64.s run.
// The build tags are gonum's for its own assembly: with them gonum's
// floats.Dot is the SSE2 DotUnitary whose order the kernels keep.
var haveRowKernels = cpu.X86.HasAVX

// dotRows4AVX is dotRows4 without its checks, for AVX: row r's four
// partial sums sᵣₖ = Σ_{j ≡ k mod 4} x_r[j]θ[j] (gonum's X7 and X8 lanes)
// are the lanes of one YMM register, the 1–3 trailing products are added
// to s₀ one by one, and u[r] = (s₂+s₀) + (s₃+s₁) as DotUnitary's ADDPD X8,
// X7 and final ADDSD leave it. Products are rounded before they are added
// (no fused multiply–add), as in DotUnitary. The rows of next are
// prefetched.
//
//go:noescape
func dotRows4AVX(u *[4]float64, x []float64, off, next *[4]int, theta []float64)

// axpyRows4AVX is axpyRows4 without its checks, for AVX: each element gets
// g[j] = (((g[j] + a₀x₀[j]) + a₁x₁[j]) + a₂x₂[j]) + a₃x₃[j], each product
// and sum rounded, as AxpyUnitaryTo computes one row's term.
//
//go:noescape
func axpyRows4AVX(g []float64, a *[4]float64, x []float64, off *[4]int)

// axpyRows8AVX is axpyRows8 without its checks, for AVX, on the first
// len(g) &^ 3 columns (the caller adds the last 1–3): each element gets
// g[j] + a₀x₀[j] + … + a₇x₇[j], added left to right, each product and sum
// rounded, as axpyRows4AVX on rows 0–3 and then 4–7 leaves it, with one
// load and store of g per four elements instead of two.
//
//go:noescape
func axpyRows8AVX(g []float64, a *[8]float64, x []float64, off *[8]int)

// gemmRows4AVX adds Σₗ a[l·lda+r]·b[l·ldb+m] to c[r·ldc+m] for r < 4 and
// m < cols (a multiple of 4), l = 0, …, rows−1 in order, each product
// rounded before it is added (c += aᵀb for a's first four columns): the
// register-blocked part of syrkUpperAdd and MulUpper. It reads and writes
// without bounds checks.
//
//go:noescape
func gemmRows4AVX(c []float64, ldc int, a []float64, lda int, b []float64, ldb, rows, cols int)

// prefetchSpan issues PREFETCHT0 for each cache line of [p, p+bytes),
// bytes ≥ 1. A prefetch never faults and changes no value.
//
//go:noescape
func prefetchSpan(p unsafe.Pointer, bytes uintptr)

// prefetchAddrs issues PREFETCHT0 for the addresses p[0], …, p[n−1]. A
// prefetch never faults and changes no value, so an address past an
// object's end is harmless.
//
//go:noescape
func prefetchAddrs(p *uintptr, n int)

// prefetchRecords issues PREFETCHT0 for the first lines cache lines of the
// records base + rows[j]·stride, j < n (records of a 64-byte aligned array
// of stride bytes each). A prefetch never faults and changes no value.
//
//go:noescape
func prefetchRecords(base unsafe.Pointer, stride uintptr, rows *int, n, lines int)

// prefetchIndexed issues PREFETCHT0 for base[idx[j]], j < n, as
// prefetchRecords does.
//
//go:noescape
func prefetchIndexed(base *int, idx *int, n int)
