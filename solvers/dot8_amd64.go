//go:build !noasm && !gccgo && !safe

package solvers

// dotLanes8AVX sets s[r] = (s₀, s₁, s₂, s₃) for the rows x_r = x[off[r]:],
// r < 8, sₖ = Σ x_r[j]θ[j] over the columns j < cols with j ≡ k mod 4,
// added in increasing j from +0, each product rounded before it is added:
// the four partial sums of gonum's amd64 DotUnitary (its X7 and X8 lanes)
// before its tail and final additions. cols is a multiple of 4 and at most
// len(θ). The line pf bytes past each line read is prefetched (PREFETCHT0
// never faults). It reads without bounds checks.
//
//go:noescape
func dotLanes8AVX(s *[8][4]float64, x []float64, off *[8]int, theta []float64, cols int, pf int)
