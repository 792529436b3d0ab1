package mechanisms

import (
	"fmt"
	"math"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
	"gonum.org/v1/gonum/mat"
)

// benchRGMNode returns one node of 70,000 × 22 rows from the ijcnn1-like
// generator (a random-split node of ijcnn1 has 70,845), with μ = 0.03, the
// shape of [HMB23] Figure 1's nodes, built before any timed loop.
func benchRGMNode(b *testing.B) (*datasets.Dataset, *solvers.RidgeNode) {
	b.Helper()
	e, err := datasets.Lookup("ijcnn1-like")
	if err != nil {
		b.Fatal(err)
	}
	l, err := e.Load("", func(v any) error { return strictoml.DecodeKV([]string{"n=70000", "seed=11"})(v) })
	if err != nil {
		b.Fatal(err)
	}
	node, err := solvers.NewRidgeNode(l.All.X, l.All.Y, 0.03)
	if err != nil {
		b.Fatal(err)
	}
	return l.All, node
}

// BenchmarkRGMIteration times one node's RGM release of its gradient at θ
// ([HMB23] v2 Eq. (83)): Aθ − b from the precomputed A and b, O(d²), and
// d Gaussian draws — independent of the node's 70,000 rows.
func BenchmarkRGMIteration(b *testing.B) {
	_, node := benchRGMNode(b)
	sc := scanRows(node)
	e, err := accounting.RGMCalibrate(accounting.RGMTarget{Eta: sc.eta, RRel: sc.eta*norm2(node.B()) + 2*sc.maxXY,
		D: 22, Alpha: 2, Epsilon: 0.1, Rule: accounting.RGMNeglectD})
	if err != nil {
		b.Fatal(err)
	}
	release := rgmNoiser(node, e, rngs.New(rngs.Derive("bench-rgm")).Get("noise"))
	theta, dst := node.Optimum(), make([]float64, 22)
	b.ReportAllocs()
	for b.Loop() {
		release(dst, theta)
	}
}

// BenchmarkClipIteration times one node's clipped release at its local
// optimum ([HMB23] v2 Eq. (81)): one pass over the 70,000 rows, at the
// paper's threshold c (nothing clipped there) and at c/10 ("clip low",
// most rows clipped: their gradients are read a second time).
func BenchmarkClipIteration(b *testing.B) {
	_, node := benchRGMNode(b)
	theta := node.Optimum()
	cmax, _ := node.SampleGradNorms(theta)
	for _, f := range []float64{1, 0.1} {
		b.Run(fmt.Sprintf("c_factor=%g", f), func(b *testing.B) {
			var clipped int
			release := clipNoiser(node, f*cmax, 1e-4, rngs.New(rngs.Derive("bench-clip")).Get("noise"), &clipped)
			dst := make([]float64, 22)
			b.ReportAllocs()
			for b.Loop() {
				release(dst, theta)
			}
			if f < 1 && clipped == 0 {
				b.Fatal("c/10 clipped nothing")
			}
		})
	}
}

// BenchmarkRGMSetup times one node's data-only setup, done once per
// training set and split and shared by every method and trial: A = XᵀX/n +
// μI, b, the eigenvalues and A⁻¹ (solvers.NewRidgeNode), the sensitivity
// scan (η, centred η, max‖xy‖/n, Δ₊: one A⁻¹x_j per row and a sort) and
// the clipping thresholds at the local optimum.
func BenchmarkRGMSetup(b *testing.B) {
	ds, _ := benchRGMNode(b)
	x := mat.DenseCopyOf(ds.X)
	b.ReportAllocs()
	var sink float64
	for b.Loop() {
		node, err := solvers.NewRidgeNode(x, ds.Y, 0.03)
		if err != nil {
			b.Fatal(err)
		}
		sc := scanRows(node)
		mx, ss := node.SampleGradNorms(node.Optimum())
		sink += sc.eta + mx + math.Sqrt(ss)
	}
	_ = sink
}
