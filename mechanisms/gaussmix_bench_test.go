package mechanisms

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// BenchmarkGaussMixSketch times one draw of the sketch M = S·[X y] + s·Ξ by
// each sampler on the paper's Gaussian synthetic set (gaussmix-gaussian with
// n = 8192 rows, d = 512, so p = 513, and k = int(2.5d) = 1280), scaled as
// the runner does. The factor R (exact) and Z (explicit) are built once
// before the loop, as Dataset.Memo does once per training set.
func BenchmarkGaussMixSketch(b *testing.B) {
	e, err := datasets.Lookup("gaussmix-gaussian")
	if err != nil {
		b.Fatal(err)
	}
	l, err := e.Load("", strictoml.DecodeKV([]string{"n=8192", "d=512"}))
	if err != nil {
		b.Fatal(err)
	}
	ds := l.All
	if err := (datasets.Scaling{X: "max-row-norm", Y: "max-abs"}).Apply(ds); err != nil {
		b.Fatal(err)
	}
	js, err := joint(ds, false)
	if err != nil {
		b.Fatal(err)
	}
	const k = 1280
	for _, sampler := range []string{samplerExplicit, samplerExact} {
		b.Run(fmt.Sprintf("sampler=%s/n=8192,d=512,k=%d", sampler, k), func(b *testing.B) {
			b.ReportAllocs()
			sk, nz := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				js.sketch(sampler, k, 25, sk, nz)
			}
		})
	}
}

// BenchmarkGaussMixFit times one fit of linear-mixing (each sampler),
// AdaSSP and Sheffet '17 (+ Lemma 1; the exact and wishart samplers) at
// the paper's k = int(2.5d), ε = 1, δ = 1e-6, on Boston-like (n = 404, d = 13) and Bike-like (n = 8708,
// d = 18) synthetic-linear data and the 512-d Gaussian set (n = 8192).
// Data-only statistics (XᵀX, λ_min, the QR factor) are memoised on the
// training set by a warm-up fit before the timed loop, as across the trials
// of a run.
func BenchmarkGaussMixFit(b *testing.B) {
	type size struct {
		name string
		data func() *datasets.Dataset
	}
	sizes := []size{
		{"n=404,d=13", func() *datasets.Dataset { return tinyData(b, datasets.Regression, 404, 13) }},
		{"n=8708,d=18", func() *datasets.Dataset { return tinyData(b, datasets.Regression, 8708, 18) }},
		{"gaussian,n=8192,d=512", func() *datasets.Dataset {
			e, _ := datasets.Lookup("gaussmix-gaussian")
			l, err := e.Load("", strictoml.DecodeKV([]string{"n=8192", "d=512"}))
			if err != nil {
				b.Fatal(err)
			}
			if err := (datasets.Scaling{X: "max-row-norm", Y: "max-abs"}).Apply(l.All); err != nil {
				b.Fatal(err)
			}
			return l.All
		}},
	}
	mechs := []struct {
		name string
		m    func(k int) Mechanism
	}{
		{"linear-mixing/exact", func(k int) Mechanism { return &LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: k}}} }},
		{"linear-mixing/explicit", func(k int) Mechanism {
			return &LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: k, Sampler: samplerExplicit}}}
		}},
		{"linear-mixing/wishart", func(k int) Mechanism {
			return &LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: k, Sampler: samplerWishart}}}
		}},
		{"sheffet17-renyi/exact", func(k int) Mechanism {
			return &Sheffet17{p: Sheffet17Params{sketchParams: sketchParams{K: k}}, renyi: true}
		}},
		{"sheffet17-renyi/wishart", func(k int) Mechanism {
			return &Sheffet17{p: Sheffet17Params{sketchParams: sketchParams{K: k, Sampler: samplerWishart}}, renyi: true}
		}},
		{"adassp", func(int) Mechanism { return &AdaSSP{} }},
	}
	for _, sz := range sizes {
		data := sz.data()
		k := int(2.5 * float64(data.Cols()))
		for _, mc := range mechs {
			m := mc.m(k)
			budget := Budget{Epsilon: 1, Delta: 1e-6, Calibrator: accounting.NewCalibrator(accounting.Config{})}
			if _, err := m.Fit(context.Background(), data, budget, rngs.New(rngs.Derive("warm"))); err != nil {
				b.Fatal(err)
			}
			b.Run(mc.name+"/"+sz.name, func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := m.Fit(context.Background(), data, budget, rngs.New(rngs.Derive("bench", fmt.Sprint(i)))); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkGaussMixHead times one fit of the private logistic heads of
// Figures 3 and 5 — linear-mixing on the surrogate (k = 4d = 512) and
// objective perturbation (Kifer et al., L-BFGS) — on synthetic-logistic
// data of Fashion-MNIST's size (n = 12000 rows, d = 128), at the grid's
// smallest and largest ε (δ = 1e-6).
func BenchmarkGaussMixHead(b *testing.B) {
	data := tinyData(b, datasets.Binary, 12000, 128)
	for _, eps := range []float64{0.1, 31.622776601683793} {
		for _, mc := range []struct {
			name string
			m    Mechanism
		}{
			{"linear-mixing", &LinearMixing{p: LinearMixingParams{sketchParams: sketchParams{K: 512}}}},
			{"objpert-kifer", &ObjPertKifer{}},
		} {
			budget := Budget{Epsilon: eps, Delta: 1e-6, Calibrator: accounting.NewCalibrator(accounting.Config{})}
			if _, err := mc.m.Fit(context.Background(), data, budget, rngs.New(rngs.Derive("warm"))); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/eps=%.3g/n=12000,d=128", mc.name, eps), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := mc.m.Fit(context.Background(), data, budget, rngs.New(rngs.Derive("bench", fmt.Sprint(i)))); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run(fmt.Sprintf("%s/single/eps=%.3g/n=12000,d=128", mc.name, eps), func(b *testing.B) {
				i := 0
				for b.Loop() {
					fresh := &datasets.Dataset{Name: data.Name, Task: data.Task, X: data.X, Y: data.Y} // nothing memoised
					if _, err := mc.m.Fit(context.Background(), fresh, budget, rngs.New(rngs.Derive("bench", fmt.Sprint(i)))); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
