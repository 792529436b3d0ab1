package mechanisms

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dplab/dplab/datasets"
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
	l, err := e.Load("", datasets.DecodeKV([]string{"n=8192", "d=512"}))
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
