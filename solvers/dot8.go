package solvers

import "gonum.org/v1/gonum/floats"

// dotRows8 sets u[r] = x_rᵀθ for the eight rows x_r = x[off[r] :
// off[r]+len(θ)], each bit for bit as floats.Dot(x_r, θ) computes it, as
// dotRows4 does for four: eight rows keep eight dependency chains of
// additions in flight where four left the adder waiting on its latency, and
// each load of θ serves eight rows. With the AVX kernel (dotLanes8AVX) the
// trailing 1–3 products go to s₀ one by one and u[r] = (s₀+s₂) + (s₁+s₃),
// DotUnitary's tail and final additions. The lines pf bytes past those read
// are fetched into cache meanwhile (the caller's next rows; any pf is
// safe). It panics if a row of off is not within x.
func dotRows8(u *[8]float64, x []float64, off *[8]int, pf int, theta []float64) {
	d := len(theta)
	for _, o := range off {
		if o < 0 || o > len(x)-d {
			panic(badShape)
		}
	}
	if !haveRowKernels {
		for r, o := range off {
			u[r] = floats.Dot(x[o:o+d], theta)
		}
		return
	}
	var s [8][4]float64
	d4 := d &^ 3
	dotLanes8AVX(&s, x, off, theta, d4, pf)
	for r, o := range off {
		s0 := s[r][0]
		for j := d4; j < d; j++ {
			s0 += float64(x[o+j] * theta[j]) // rounded, then added: no FMA
		}
		u[r] = (s0 + s[r][2]) + (s[r][1] + s[r][3])
	}
}
