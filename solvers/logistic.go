package solvers

import "math"

// logisticValueDeriv returns f(u; y) = log(1 + eᵘ) − y·u and f'(u; y) =
// sigmoid(u) − y for y ∈ {0, 1}, from one exponential e = e^−|u| ≤ 1:
//
//	log(1 + eᵘ) − y·u = (max(u, 0) − y·u) + log1p(e)
//	f'(u; y) = (1 − y)·sigmoid(u) − y·(1 − sigmoid(u)),
//
// the last form avoiding the cancellation in sigmoid(u) − 1 for large u.
func logisticValueDeriv(u, y float64) (v, g float64) {
	e := math.Exp(-math.Abs(u))
	p, q := sigmoidPair(u, e)
	// max(u, 0) − y·u is exact for y ∈ {0, 1}; adding log1p(e) last keeps
	// its digits when the rest cancels to 0.
	return (max(u, 0) - y*u) + math.Log1p(e), (1-y)*p - y*q
}

// logisticRows4 sets v[k], g[k] = logisticValueDeriv(z[k], y[k]) for
// k < 4, with the same bits: by the AVX2 kernel when every |z[k]| is in
// [1e-4, 20], where e^−|z| ∈ [2⁻²⁹, 1) takes log1p's main branches (a NaN
// fails the check), else lane by lane. A nil v asks for the derivatives
// only (logisticDeriv's bits, the same as logisticValueDeriv's); g may be z
// (the derivatives then replace the margins).
func logisticRows4(v, g, z, y *[4]float64) {
	if haveLogisticKernel && kernelMargin(z[0]) && kernelMargin(z[1]) && kernelMargin(z[2]) && kernelMargin(z[3]) {
		logisticRows4AVX2(v, g, z, y)
		return
	}
	for k := range z {
		if v == nil {
			g[k] = logisticDeriv(z[k], y[k])
		} else {
			v[k], g[k] = logisticValueDeriv(z[k], y[k])
		}
	}
}

// kernelMargin reports whether |z| ∈ [1e-4, 20].
func kernelMargin(z float64) bool {
	a := math.Abs(z)
	return a >= 1e-4 && a <= 20
}

// logisticDeriv returns f'(u; y) = sigmoid(u) − y as logisticValueDeriv does,
// without the logarithm.
func logisticDeriv(u, y float64) float64 {
	p, q := sigmoidPair(u, math.Exp(-math.Abs(u)))
	return (1-y)*p - y*q
}

// sigmoidPair returns sigmoid(u) and 1 − sigmoid(u), each to full relative
// precision, from e = e^−|u|: 1/(1 + e) and e/(1 + e), swapped for u < 0.
func sigmoidPair(u, e float64) (p, q float64) {
	inv := 1 / (1 + e)
	if u < 0 {
		return e * inv, inv
	}
	return inv, e * inv
}

// logisticCurvature returns f″(u) = sigmoid(u)(1 − sigmoid(u)) =
// e/(1 + e)² with e = e^−|u| (the same for u and −u).
func logisticCurvature(u float64) float64 {
	e := math.Exp(-math.Abs(u))
	return e / ((1 + e) * (1 + e))
}
