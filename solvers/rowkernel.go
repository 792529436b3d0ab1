package solvers

import (
	"unsafe"

	"gonum.org/v1/gonum/floats"
)

// Four-row kernels of GLM.ValueGrad. A row-at-a-time pass (floats.Dot, then
// floats.AddScaled) waits on one dependency chain per row: gonum's dot
// product keeps four partial sums and each is a chain of d/4 additions.
// Working on four rows at once keeps four such chains in flight and reads
// the gradient once per four rows. Each kernel returns exactly the bits of
// the row-at-a-time calls it replaces, on every platform: the AVX kernels
// (rowkernel_amd64.s) sum in gonum's amd64 order (see dotRows4), and
// elsewhere the generic versions below make those very calls.

// dotRows4 sets u[r] = x_rᵀθ for the rows x_r = x[off[r] : off[r]+len(θ)],
// r = 0, …, 3, each bit for bit as floats.Dot(x_r, θ) computes it. next
// holds the offsets of the rows the caller sums next (off again if none):
// the AVX kernel fetches them into cache meanwhile. It panics if a row of
// off or next is not within x.
func dotRows4(u *[4]float64, x []float64, off, next *[4]int, theta []float64) {
	checkRows4(len(x), off, len(theta))
	checkRows4(len(x), next, len(theta))
	if haveRowKernels {
		dotRows4AVX(u, x, off, next, theta)
		return
	}
	for r, o := range off {
		u[r] = floats.Dot(x[o:o+len(theta)], theta)
	}
}

// axpyRows4 adds a[r]·x_r to g for r = 0, 1, 2, 3 in turn, with x_r =
// x[off[r] : off[r]+len(g)], each element bit for bit as four calls
// floats.AddScaled(g, a[r], x_r) leave it. A call with a[r] = 0 may be
// left out, as GLM.ValueGrad and DP-SGD leave it out, when x_r is finite:
// it would add only zeros, which never change g (see GLM.ValueGrad). It
// panics if a row of off is not within x.
func axpyRows4(g []float64, a *[4]float64, x []float64, off *[4]int) {
	checkRows4(len(x), off, len(g))
	if haveRowKernels {
		axpyRows4AVX(g, a, x, off)
		return
	}
	for r, ar := range a {
		if ar != 0 {
			floats.AddScaled(g, ar, x[off[r]:off[r]+len(g)])
		}
	}
}

// axpyRows8 adds a[r]·x_r to g for r = 0, …, 7 in turn, with x_r =
// x[off[r] : off[r]+len(g)], bit for bit as axpyRows4 on rows 0–3 and then
// on rows 4–7 (which it is where the AVX kernels do not run). It panics if
// a row of off is not within x.
func axpyRows8(g []float64, a *[8]float64, x []float64, off *[8]int) {
	checkRows4(len(x), (*[4]int)(off[:4]), len(g))
	checkRows4(len(x), (*[4]int)(off[4:]), len(g))
	if haveRowKernels {
		d4 := len(g) &^ 3
		axpyRows8AVX(g[:d4], a, x, off)
		for j := d4; j < len(g); j++ {
			v := g[j]
			for r, o := range off {
				v += float64(a[r] * x[o+j]) // rounded, then added: no FMA
			}
			g[j] = v
		}
		return
	}
	axpyRows4(g, (*[4]float64)(a[:4]), x, (*[4]int)(off[:4]))
	axpyRows4(g, (*[4]float64)(a[4:]), x, (*[4]int)(off[4:]))
}

// checkRows4 panics unless each row [off[r], off[r]+d) is within [0, n).
func checkRows4(n int, off *[4]int, d int) {
	for _, o := range off {
		if o < 0 || o > n-d {
			panic(badShape)
		}
	}
}

// stridedRows4 returns the offsets of rows i, …, i+3 of a matrix with the
// given stride, and those of the four rows after them (the same rows again
// past the last of rows).
func stridedRows4(i, stride, rows int) (off, next [4]int) {
	for r := range off {
		off[r] = (i + r) * stride
		next[r] = off[r]
		if i+4+r < rows {
			next[r] = (i + 4 + r) * stride
		}
	}
	return off, next
}

// prefetch asks for the memory of s to be fetched into cache (prefetchSpan:
// PREFETCHT0 on each of its cache lines where the kernels run, nothing
// elsewhere). It changes no value and never faults; an empty s is a no-op.
// It is for rows read in random order, whose cache misses the processor
// cannot foresee: asked for a few rows ahead, they arrive while the rows
// before them are used.
func prefetch[T any](s []T) {
	if len(s) > 0 {
		prefetchSpan(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*unsafe.Sizeof(s[0]))
	}
}
