package solvers

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/internal/rngs"
)

// BenchmarkMinimizeLogistic fits objective perturbation's perturbed logistic
// objective Σℓ + (λ/2)‖θ‖² + bᵀθ ([RKW23] §5) on Adult-sized synthetic data
// (36,000 unit-norm rows, 104 features + bias) to τ = 0.01, the paper's
// setting, from θ = 0. b ~ N(0, σ²I).
func BenchmarkMinimizeLogistic(b *testing.B) {
	r := newTestRand()
	x, y := logisticData(r, 36000, 104, 4)
	for _, bc := range []struct {
		name          string
		lambda, sigma float64
		method        string
	}{
		{"n=36000,d=105", 1, 10, ""},
		{"n=36000,d=105,lambda=100,sigma=100", 100, 100, ""},
		{"n=36000,d=105,method=newton", 1, 10, MethodNewton},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l, err := NewGLM(x, y, GLMConfig{Bias: true})
			if err != nil {
				b.Fatal(err)
			}
			obj := Objective{Loss: l, L2: bc.lambda, Linear: randomVec(newTestRand(), l.Dim(), bc.sigma)}
			x0 := make([]float64, l.Dim())
			b.ReportAllocs()
			var res Result
			for b.Loop() {
				res, err = Minimize(obj, x0, &Settings{GradTol: 0.01, Method: bc.method})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.FuncEvals), "evals/op")
			b.ReportMetric(float64(res.Iterations), "iters/op")
		})
	}
}

// BenchmarkDPSGD times one DP-SGD training run with dense rows: Adult-sized
// data (36,000 unit-norm rows, 104 features + bias, 60 epochs, 8,460 steps)
// and the training parts of Synthetic-H (1,600 rows, 2,000 features + bias,
// 60 epochs, 420 steps) and Synthetic-L (8,000 rows, 40 features + bias, 60
// epochs, 1,920 steps), objpert_fig2's dense data sets; expected batch 256,
// C = √2, Adam.
func BenchmarkDPSGD(b *testing.B) {
	for _, sh := range []struct{ n, d int }{{36000, 104}, {1600, 2000}, {8000, 40}} {
		x, y := logisticData(newTestRand(), sh.n, sh.d, 4)
		cfg := DPSGDConfig{NoiseMultiplier: 1, Clip: math.Sqrt2, LearningRate: 1e-3, Epochs: 60,
			ExpectedBatch: 256, Bias: true}
		b.Run(fmt.Sprintf("n=%d,d=%d,epochs=60", sh.n, sh.d+1), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DPSGD(context.Background(), x, y, cfg, rngs.New(rngs.Derive("bench"))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRidge solves ridge regression by the normal equations (Gram by
// dsyrk, Cholesky), the non-private baseline's cost on AdaSSP-sized data.
func BenchmarkRidge(b *testing.B) {
	r := newTestRand()
	x := randomDense(r, 36000, 104)
	y := randomVec(r, 36000, 1)
	b.Run("n=36000,d=104", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Ridge(x, y, 1e-6); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSolveRegularizedSketch solves the normal equations of a GaussMix
// sketch at Boston housing's size (X̃ᵀX̃θ = X̃ᵀỸ with X̃ a 32 × 13 Gaussian
// sketch, k = int(2.5d)), which linear-mixing, Sheffet '17 and AdaSSP solve
// once per trial: a run of the Boston panel of [LSS+25] Figure 4 solves
// 5000 such systems.
func BenchmarkSolveRegularizedSketch(b *testing.B) {
	r := newTestRand()
	gram := Gram(randomDense(r, 32, 13))
	rhs := randomVec(r, 13, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SolveRegularized(gram, rhs, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGram times GramTo on GaussMix sketches, which linear-mixing and
// Sheffet '17 form once per trial: Boston housing's size (32 × 14: 13
// features and the label), gaussmix_fig3's (k = 512 rows × 128 features)
// and gaussmix_fig2's 512-d sets' (k = 1280 rows × 513).
func BenchmarkGram(b *testing.B) {
	for _, sh := range []struct{ rows, cols int }{{32, 14}, {512, 128}, {1280, 513}} {
		x := randomDense(newTestRand(), sh.rows, sh.cols)
		g := mat.NewSymDense(sh.cols, nil)
		b.Run(fmt.Sprintf("%d×%d", sh.rows, sh.cols), func(b *testing.B) {
			for b.Loop() {
				GramTo(g, x)
			}
		})
	}
}

// BenchmarkLogisticHessian times the Hessian of the summed logistic loss,
// which Minimize's Newton fallback forms, at gaussmix_fig3's size (12,000
// rows, 128 features).
func BenchmarkLogisticHessian(b *testing.B) {
	x, y := logisticData(newTestRand(), 12000, 128, 4)
	l, err := NewGLM(x, y, GLMConfig{})
	if err != nil {
		b.Fatal(err)
	}
	theta := randomVec(newTestRand(), l.Dim(), 1)
	h := mat.NewSymDense(l.Dim(), nil)
	for b.Loop() {
		l.Hessian(h, theta)
	}
}

// BenchmarkMulTransUpper times the exact GaussMix sketch's product G·R at
// gaussmix_fig3's size (k = 512 sketch rows, p = 129) and gaussmix_fig2's
// 512-d size (k = 1280, p = 513) by MulTransUpper and by the dgemm column
// blocks it falls back on.
func BenchmarkMulTransUpper(b *testing.B) {
	for _, sh := range []struct{ k, p int }{{512, 129}, {1280, 513}} {
		k, p := sh.k, sh.p
		r := newTestRand()
		gt := blas64.General{Rows: p, Cols: k, Stride: k, Data: make([]float64, p*k)}
		for i := range gt.Data {
			gt.Data[i] = r.NormFloat64()
		}
		up := blas64.General{Rows: p, Cols: p, Stride: p, Data: make([]float64, p*p)}
		for i := range p {
			for j := i; j < p; j++ {
				up.Data[i*p+j] = r.NormFloat64()
			}
		}
		c := blas64.General{Rows: k, Cols: p, Stride: p, Data: make([]float64, k*p)}
		for _, v := range []struct {
			name string
			mul  func(c, gt, r blas64.General)
		}{{"MulTransUpper", MulTransUpper}, {"dgemm", mulTransUpperGemm}} {
			b.Run(fmt.Sprintf("%s/k=%d,p=%d", v.name, k, p), func(b *testing.B) {
				for b.Loop() {
					v.mul(c, gt, up)
				}
			})
		}
	}
}
