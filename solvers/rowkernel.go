package solvers

import "gonum.org/v1/gonum/floats"

// Four-row kernels of GLM.ValueGrad. A row-at-a-time pass (floats.Dot, then
// floats.AddScaled) waits on one dependency chain per row: gonum's dot
// product keeps four partial sums and each is a chain of d/4 additions.
// Working on four rows at once keeps four such chains in flight and reads
// the gradient once per four rows. Each kernel returns exactly the bits of
// the row-at-a-time calls it replaces, on every platform: the AVX kernels
// (rowkernel_amd64.s) sum in gonum's amd64 order (see dotRows4), and
// elsewhere the generic versions below make those very calls.

// dotRows4 sets u[r] = x_rᵀθ for the rows x_r = x[r·stride : r·stride+len(θ)],
// r = 0, …, 3, each bit for bit as floats.Dot(x_r, θ) computes it. It panics
// if stride < len(θ) or x is shorter than 3·stride + len(θ).
func dotRows4(u *[4]float64, x []float64, stride int, theta []float64) {
	if stride < len(theta) || len(x) < 3*stride+len(theta) {
		panic(badShape)
	}
	if haveRowKernels {
		dotRows4AVX(u, x, stride, theta)
		return
	}
	for r := range u {
		u[r] = floats.Dot(x[r*stride:r*stride+len(theta)], theta)
	}
}

// axpyRows4 adds a[r]·x_r to g for r = 0, 1, 2, 3 in turn, with x_r =
// x[r·stride : r·stride+len(g)], each element bit for bit as four calls
// floats.AddScaled(g, a[r], x_r) leave it. A call with a[r] = 0 may be
// left out, as GLM.ValueGrad leaves it out, when x_r is finite: it would
// add only zeros, which never change g (see GLM.ValueGrad). It panics if
// stride < len(g) or x is shorter than 3·stride + len(g).
func axpyRows4(g []float64, a *[4]float64, x []float64, stride int) {
	if stride < len(g) || len(x) < 3*stride+len(g) {
		panic(badShape)
	}
	if haveRowKernels {
		axpyRows4AVX(g, a, x, stride)
		return
	}
	for r, ar := range a {
		if ar != 0 {
			floats.AddScaled(g, ar, x[r*stride:r*stride+len(g)])
		}
	}
}
