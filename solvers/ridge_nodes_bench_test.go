package solvers

import (
	"testing"
)

// benchNode returns a 70,000 × 22 node of ijcnn1's shape (rows of norm ≈ 1,
// labels ±1) from a fixed seed.
func benchNode(b *testing.B) *RidgeNode {
	r := newTestRand()
	n, d := 70000, 22
	x := randomDense(r, n, d)
	x.Scale(0.25, x)
	y := make([]float64, n)
	for i := range y {
		y[i] = 1
		if r.Float64() < 0.9 {
			y[i] = -1
		}
	}
	node, err := NewRidgeNode(x, y, 0.03)
	if err != nil {
		b.Fatal(err)
	}
	return node
}

// BenchmarkRidgeNodeClippedGrad times one clipped-gradient pass over a
// 70,000-row node at a threshold that clips some rows.
func BenchmarkRidgeNodeClippedGrad(b *testing.B) {
	node := benchNode(b)
	theta := node.Optimum()
	mx, _ := node.SampleGradNorms(theta)
	dst, work := make([]float64, 22), make([]float64, 70000)
	for _, bc := range []struct {
		name string
		f    float64
	}{{"c_factor=10", 10}, {"c_factor=1", 1}, {"c_factor=0.1", 0.1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				node.ClippedGrad(dst, theta, bc.f*mx, work)
			}
		})
	}
}
