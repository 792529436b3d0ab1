package accounting

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rgmCodeCalibration reproduces the RGM authors' noise calibration
// (HadrienHx/RGM 953a4314, noisers.py UnboundedNoiser on model.py
// LinearRegression) on the deterministic toy data of the golden cases
// (reference README, rgm_calibration "code"): it is the test oracle that the
// RGM mechanism's sensitivity code must agree with. gamma = Δ√(α/ε) and
// sigma = γR*/Δ are the code's std-linear noise (rgm.md §1.4 variant 3).
func rgmCodeCalibration(t *testing.T, c goldenCase) map[string]any {
	n, d := int(c.in(t, "n")), int(c.in(t, "d"))
	reg, alpha, eps := c.in(t, "reg"), c.in(t, "alpha"), c.in(t, "epsilon")
	rounds, quant := int(c.in(t, "filter")), c.in(t, "quantile")
	removeMean := c.Inputs["remove_mean"].(bool)

	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, math.Cos(0.37*float64(i+1)*float64(j+1)))
		}
		y[i] = math.Copysign(1, math.Sin(1.3*float64(i+1)))
	}
	var Ainv *mat.Dense
	var b, xbar *mat.VecDense
	build := func() {
		var A mat.Dense
		A.Mul(X.T(), X)
		A.Scale(1/float64(n), &A)
		for j := 0; j < d; j++ {
			A.Set(j, j, A.At(j, j)+reg)
		}
		Ainv = &mat.Dense{}
		if err := Ainv.Inverse(&A); err != nil {
			t.Fatal(err)
		}
		b = mat.NewVecDense(d, nil)
		b.MulVec(X.T(), mat.NewVecDense(n, y))
		b.ScaleVec(1/float64(n), b)
		xbar = mat.NewVecDense(d, nil)
		if removeMean {
			for j := 0; j < d; j++ {
				xbar.SetVec(j, mat.Sum(X.ColView(j))/float64(n))
			}
		}
	}
	centred := func(i int) (v, av *mat.VecDense) {
		v = mat.NewVecDense(d, nil)
		v.SubVec(X.RowView(i), xbar)
		av = mat.NewVecDense(d, nil)
		av.MulVec(Ainv, v)
		return v, av
	}
	build()
	for r := 0; r < rounds; r++ {
		ds := make([]float64, n)
		for i := range ds {
			v, av := centred(i)
			ds[i] = mat.Dot(v, v) * mat.Dot(av, av) / float64(n)
		}
		// numpy.quantile, linear interpolation
		s := append([]float64(nil), ds...)
		sort.Float64s(s)
		h := float64(n-1) * quant
		lo := int(math.Floor(h))
		dq := s[lo]
		if lo+1 < n {
			dq += (h - float64(lo)) * (s[lo+1] - s[lo])
		}
		for i := range ds {
			ci := math.Pow(dq/math.Max(ds[i], dq), 0.25)
			v, _ := centred(i)
			for j := 0; j < d; j++ {
				X.Set(i, j, xbar.AtVec(j)+v.AtVec(j)*ci)
			}
			y[i] *= ci
		}
		build()
	}
	delta, maxXY := 0.0, 0.0
	for i := 0; i < n; i++ {
		v, av := centred(i)
		delta = math.Max(delta, mat.Norm(v, 2)*mat.Norm(av, 2)/float64(n))
		maxXY = math.Max(maxXY, mat.Norm(X.RowView(i), 2)*math.Abs(y[i])/float64(n))
	}
	rStar := delta*mat.Norm(b, 2) + maxXY
	gamma := delta * math.Sqrt(alpha/eps)
	return map[string]any{"delta": delta, "R_star": rStar, "gamma": gamma, "sigma": gamma * rStar / delta}
}
