package preprocess

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dplab/dplab/datasets"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestDedupQuantizeAgainstGeneratorClusters: on clustered-unit-ball data with
// radius ≤ 0.5 every member of a cluster is one of its good centres (the
// generator's construction, checked by brute force in datasets), so
// deduplication must keep exactly the smallest-index row of each generated
// cluster and quantization map every row onto it. The expected output comes
// from the generator's cluster ids, not from findGoodClusters.
func TestDedupQuantizeAgainstGeneratorClusters(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		ds, ids, err := datasets.GenerateClusteredUnitBall(datasets.ClusteredUnitBallParams{N: 300, D: 6, Eta: 0.05, MaxCluster: 10, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		first := map[int]int{}
		for i, k := range ids {
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
		fd, err := (&Dedup{Eta: 0.05}).Fit(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		fq, err := (&Quantize{Eta: 0.05}).Fit(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		od, oq := fd.Output(), fq.Output()
		for i, k := range ids {
			keep := first[k] == i
			if od.Removed[i] == keep {
				t.Fatalf("seed %d row %d (cluster %d, first row %d): removed = %v", seed, i, k, first[k], od.Removed[i])
			}
			want := ds.X.RawRowView(i)
			if !keep {
				want = make([]float64, 6)
			}
			if !floats.Equal(od.X.RawRowView(i), want) {
				t.Fatalf("seed %d row %d: dedup output %v, want %v", seed, i, od.X.RawRowView(i), want)
			}
			if !floats.Equal(oq.X.RawRowView(i), ds.X.RawRowView(first[k])) {
				t.Fatalf("seed %d row %d: quantized to %v, want cluster %d's first row", seed, i, oq.X.RawRowView(i), k)
			}
		}
		if oq.Removed != nil {
			t.Error("quantization removed rows")
		}
	}
}

// TestDedupHandExample works [HSS24] §4.1's definition by hand on the line
// (η = 0.1): {0, 0.05} is a good cluster (nothing in (0.1, 0.3] of either);
// 0.5 and 0.62 see each other at 0.12 ∈ (η, 3η], and 0.9 sees 0.62 at 0.28,
// so none of the three is a centre (all kept, unmoved); −0.5, −0.45, −0.41
// are pairwise within η (0.05, 0.04, 0.09) with nothing else within 3η: one
// good cluster of three centres. Kept: the smallest index of each cluster.
func TestDedupHandExample(t *testing.T) {
	xs := []float64{0.05, 0.5, -0.45, 0, 0.62, 0.9, -0.5, -0.41}
	x := mat.NewDense(len(xs), 1, xs)
	f, err := (&Dedup{Eta: 0.1}).Fit(x)
	if err != nil {
		t.Fatal(err)
	}
	wantRemoved := []bool{false, false, false, true, false, false, true, true}
	for i, w := range wantRemoved {
		if f.Output().Removed[i] != w {
			t.Errorf("row %d (%v): removed = %v, want %v", i, xs[i], f.Output().Removed[i], w)
		}
	}
	if o := f.Observed(); o.MaxCluster != 3 {
		t.Errorf("b = %d, want 3", o.MaxCluster)
	}
	q, _ := (&Quantize{Eta: 0.1}).Fit(x)
	wantQ := []float64{0.05, 0.5, -0.45, 0.05, 0.62, 0.9, -0.45, -0.45}
	for i, w := range wantQ {
		if g := q.Output().X.At(i, 0); g != w {
			t.Errorf("quantized row %d = %v, want %v", i, g, w)
		}
	}
}

// TestClusterSensitivityFormulas: [HSS24] Prop. 3 and footnote 4 in paper
// mode, the corrected count and 2η in safe mode, by hand.
func TestClusterSensitivityFormulas(t *testing.T) {
	c := Collection{N: 1000, MaxCluster: 5, MaxLocal: 12}
	ar := c
	ar.Relation = "add_remove"
	cases := []struct {
		p    Preprocessor
		c    Collection
		m    Mode
		inf  int
		d2   float64
		derv bool
	}{
		{&Dedup{Eta: 0.1}, c, Paper, 10, 1, false},
		{&Dedup{Eta: 0.1}, ar, Paper, 5, 1, false},
		{&Dedup{Eta: 0.1}, c, Safe, 24, 1, true},
		{&Dedup{Eta: 0.1}, ar, Safe, 12, 1, true},
		{&Dedup{Eta: 0.1}, Collection{N: 1000, MaxCluster: 5}, Safe, 999, 1, true},
		{&Dedup{Eta: 0.1}, Collection{N: 20, MaxLocal: 15}, Safe, 19, 1, true},
		{&Quantize{Eta: 0.1}, c, Paper, 10, 0.1, false},
		{&Quantize{Eta: 0.1}, c, Safe, 24, 0.2, true},
		{&Quantize{Eta: 1.5}, c, Safe, 24, 2, true},
	}
	for _, k := range cases {
		s, err := k.p.Sensitivity(k.c, k.m)
		if err != nil {
			t.Fatal(err)
		}
		if s.DeltaInf != k.inf || math.Abs(s.Delta2-k.d2) > 1e-15 || s.Derived != k.derv || s.Formula == "" || s.Ref == "" {
			t.Errorf("%s %s %+v: %+v, want Δ_∞ = %d, Δ_2 = %v", k.p, k.m, k.c, s, k.inf, k.d2)
		}
	}
	// Table 2's τ for quantization: η·p with p = Δ_∞ (paper).
	s, _ := (&Quantize{Eta: 0.1}).Sensitivity(Collection{N: 1000, MaxCluster: 5}, Paper)
	if s.Tau() != 1 {
		t.Errorf("τ = %v, want η·2b = 1", s.Tau())
	}
}

// TestQuantizationWitness pins erratum 17 on a hand-built pair: x alone,
// z₁ = x + 0.999η·u and z₂ = x − 0.999η·u at index 0 are each the kept
// centre of {z, x}, so x maps to z₁ in S₁ and to z₂ in S₂:
// ‖π_{S₁}(x) − π_{S₂}(x)‖ = 1.998η > η (paper), ≤ 2η (safe).
func TestQuantizationWitness(t *testing.T) {
	const eta = 0.1
	s := mat.NewDense(3, 2, []float64{0, 0, 0.8, 0, -0.8, 0}) // x = 0, two far rows
	w := Swap{Target: "hand", S: s, Z1: []float64{0, 0.999 * eta}, Z2: []float64{0, -0.999 * eta}, Index: 0}
	p := &Quantize{Eta: eta}
	m, col, err := MeasureSwap(p, w)
	if err != nil {
		t.Fatal(err)
	}
	if m.DeltaInf != 1 || m.Row != 0 || math.Abs(m.Delta2-1.998*eta) > 1e-12 {
		t.Fatalf("measure %+v, want Δ_∞ = 1 at row 0, Δ_2 = 1.998η", m)
	}
	paper, _ := p.Sensitivity(col, Paper)
	safe, _ := p.Sensitivity(col, Safe)
	if !(m.Delta2 > paper.Delta2) || !(m.Delta2 <= safe.Delta2) {
		t.Errorf("Δ_2 = %v against paper %v (must exceed) and safe %v (must hold)", m.Delta2, paper.Delta2, safe.Delta2)
	}
	if col.MaxCluster != 2 {
		t.Errorf("b = %d, want 2 ({z, x})", col.MaxCluster)
	}
}

// TestStarRefutesProp3Count: z₁ at 2.8η from q good-cluster centres (pairwise
// 2.8√2η > 3η apart) destroys all q clusters: q(b − 1) rows stop being
// removed, against Prop. 3's 2b; the corrected bound 2m holds.
func TestStarRefutesProp3Count(t *testing.T) {
	const eta, b, d = 0.1, 4, 4
	r := rand.New(rand.NewPCG(1, 1))
	var rows [][]float64
	for i := 0; i < d; i++ {
		for _, sg := range []float64{1, -1} {
			c := make([]float64, d)
			c[i] = sg * 2.8 * eta
			for k := 0; k < b; k++ {
				x := append([]float64(nil), c...)
				if k > 0 {
					floats.Add(x, inBall(r, d, 0.01*eta))
				}
				rows = append(rows, x)
			}
		}
	}
	s := mat.NewDense(len(rows), d, nil)
	for i, x := range rows {
		s.SetRow(i, x)
	}
	far := make([]float64, d)
	far[0] = 0.95
	w := Swap{Target: "star", S: s, Z1: make([]float64, d), Z2: far, Index: 5}
	for _, p := range []Preprocessor{&Dedup{Eta: eta}, &Quantize{Eta: eta}} {
		m, col, err := MeasureSwap(p, w)
		if err != nil {
			t.Fatal(err)
		}
		q := 2 * d
		if m.DeltaInf != q*(b-1) {
			t.Errorf("%s: Δ_∞ = %d, want q(b − 1) = %d", p, m.DeltaInf, q*(b-1))
		}
		paper, _ := p.Sensitivity(col, Paper)
		safe, _ := p.Sensitivity(col, Safe)
		if col.MaxCluster != b || paper.DeltaInf != 2*b || m.DeltaInf <= paper.DeltaInf || m.DeltaInf > safe.DeltaInf {
			t.Errorf("%s: b = %d, Δ_∞ = %d against paper %d (must exceed) and safe %d (must hold)", p, col.MaxCluster, m.DeltaInf, paper.DeltaInf, safe.DeltaInf)
		}
	}
}

// TestDedupCounterexample is [HSS24] §5.1: 2d rows 0.99η(±e_i) around the
// origin have no good cluster; adding the origin removes all of them:
// Δ_∞ = n − 1 = 2d. The pair's collection has b = n (one cluster of every
// row), so Prop. 3's 2b = 2n is not violated: the dataset is outside every
// collection with a small b.
func TestDedupCounterexample(t *testing.T) {
	w, err := DedupCounterexample(10, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	p := &Dedup{Eta: 0.05}
	m, col, err := MeasureSwap(p, w)
	if err != nil {
		t.Fatal(err)
	}
	if m.DeltaInf != 20 || col.N != 21 || col.MaxCluster != 21 {
		t.Fatalf("Δ_∞ = %d, n = %d, b = %d: want 20, 21, 21", m.DeltaInf, col.N, col.MaxCluster)
	}
	if s, _ := p.Sensitivity(col, Paper); s.DeltaInf != 42 {
		t.Errorf("paper Δ_∞ = %d, want 2b = 42", s.DeltaInf)
	}
	if _, err := DedupCounterexample(0, 0.05); err == nil {
		t.Error("d = 0 accepted")
	}
}

// TestFindGoodClustersAllocations: findGoodClusters lays its candidates'
// members out in one shared array and filters them in place, so its
// allocations grow with log(#clusters), not with two per cluster (the
// probes fit deduplication and quantization tens of thousands of times).
func TestFindGoodClustersAllocations(t *testing.T) {
	ds, _, err := datasets.GenerateClusteredUnitBall(datasets.ClusteredUnitBallParams{N: 300, D: 6, Eta: 0.05, MaxCluster: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	clusters := len(findGoodClusters(ds.X, 0.05).clusters)
	allocs := testing.AllocsPerRun(5, func() { findGoodClusters(ds.X, 0.05) })
	if clusters < 30 || allocs >= float64(clusters)/2 {
		t.Errorf("%v allocations for %d good clusters: want ≥ 30 clusters and fewer than half as many allocations", allocs, clusters)
	}
}
