package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestSparseRowsMatchGonum: on sparse rows (a fraction 0–0.9 of zeros,
// lengths 1–41 and 104–129), dotLanes gives the bits of floats.Dot on the
// dense row and addScaled those of floats.AddScaled, with entries and θ of
// many magnitudes and ±0 (finite: the GLM refuses NaN and ±Inf in X).
// dotLanes is compared only where the AVX kernels run, as GLM uses it.
func TestSparseRowsMatchGonum(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 23))
	var lengths []int
	for d := 1; d <= 41; d++ {
		lengths = append(lengths, d)
	}
	lengths = append(lengths, 104, 105, 127, 128, 129)
	for _, d := range lengths {
		for rep := range 8 {
			zeros := float64(rep) / 8 * 0.9
			const rows = 6
			x := mat.NewDense(rows, d, nil)
			for i := range rows {
				for j := range d {
					if r.Float64() >= zeros {
						x.Set(i, j, kernelEntry(r, false))
					}
				}
			}
			// A nearly empty matrix has no sparse form when more than half
			// of its few entries are set; force one.
			s := sparseRowsOf(x.RawMatrix(), 0)
			w := make([]float64, d)
			for j := range w {
				w[j] = kernelEntry(r, false)
			}
			for i := range rows {
				row := x.RawRowView(i)
				if haveRowKernels {
					if got, want := s.dotLanes(i, w), floats.Dot(row, w); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("d = %d, row %d: dotLanes = %v, floats.Dot %v", d, i, got, want)
					}
				}
				a := kernelEntry(r, false)
				got, want := make([]float64, d), make([]float64, d)
				for j := range got {
					got[j] = kernelEntry(r, false)
					if got[j] == 0 {
						got[j] = 1 // g is never −0 where GLM and DP-SGD add rows
					}
				}
				copy(want, got)
				s.addScaled(got, a, i)
				floats.AddScaled(want, a, row)
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("d = %d, row %d: addScaled[%d] = %v, floats.AddScaled %v", d, i, j, got[j], want[j])
					}
				}
			}
		}
	}
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: dotLanes not compared")
	}
}

// TestGLMSparseMatchesDense: GLM.ValueGrad on a sparse X (read through its
// non-zero entries) returns the bits of the dense path, for the logistic
// and squared losses, with and without intercept and clipping, on row
// counts that leave 0–3 rows after the four-row blocks.
func TestGLMSparseMatchesDense(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 29))
	for _, sh := range []struct{ n, d int }{{203, 37}, {400, 105}, {130, 6}} {
		x := mat.NewDense(sh.n, sh.d, nil)
		for i := range sh.n {
			for j := range sh.d {
				if r.Float64() < 0.12 {
					x.Set(i, j, r.NormFloat64()*math.Exp(r.NormFloat64()))
				}
			}
		}
		y := make([]float64, sh.n)
		for i := range y {
			y[i] = float64(r.IntN(2))
		}
		for _, cfg := range []GLMConfig{{}, {Bias: true}, {Loss: LossSquared, Bias: true}, {Bias: true, Clip: 0.5}} {
			sparse, err := NewGLM(x, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if haveRowKernels != (sparse.sparse != nil) {
				t.Fatalf("%d × %d at density 0.12: sparse form %v with AVX kernels %v", sh.n, sh.d, sparse.sparse != nil, haveRowKernels)
			}
			dense := *sparse
			dense.sparse = nil
			for range 5 {
				theta := make([]float64, sparse.Dim())
				for j := range theta {
					theta[j] = r.NormFloat64()
				}
				gs, gd := make([]float64, len(theta)), make([]float64, len(theta))
				fs, fd := sparse.ValueGrad(gs, theta), dense.ValueGrad(gd, theta)
				if math.Float64bits(fs) != math.Float64bits(fd) {
					t.Fatalf("%+v, %d × %d: value %v (sparse), %v (dense)", cfg, sh.n, sh.d, fs, fd)
				}
				for j := range gs {
					if math.Float64bits(gs[j]) != math.Float64bits(gd[j]) {
						t.Fatalf("%+v, %d × %d: gradient[%d] %v (sparse), %v (dense)", cfg, sh.n, sh.d, j, gs[j], gd[j])
					}
				}
			}
		}
	}
}
