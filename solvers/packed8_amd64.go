//go:build !noasm && !gccgo && !safe

package solvers

// dotPacked8AVX sets s[r] = (s₀, s₁, s₂, s₃) for the eight rows of the
// packed block p (packed8), sₖ = Σ x_r[j]θ[j] over the columns j < 4·chunks
// with j ≡ k mod 4, added in increasing j from +0, each product rounded
// before it is added: dotLanes8AVX's partial sums, read in address order.
// It reads without bounds checks.
//
//go:noescape
func dotPacked8AVX(s *[8][4]float64, p []float64, theta []float64, chunks int)

// axpyPacked8AVX adds a[r]·x_r to g for r = 0, …, 7 in turn over the
// columns j < 4·chunks of the packed block p: each element gets
// g[j] = ((g[j] + a₀x₀[j]) + a₁x₁[j]) + … + a₇x₇[j], each product and sum
// rounded, as two axpyRows4AVX calls (rows 0–3, then 4–7) compute it. It
// reads and writes without bounds checks.
//
//go:noescape
func axpyPacked8AVX(g []float64, a *[8]float64, p []float64, chunks int)
