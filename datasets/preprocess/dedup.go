package preprocess

import (
	"fmt"
	"math"
	"slices"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// Dedup is η-approximate deduplication π^d_η ([HSS24] §4.1). A row x of S is
// the centre of a good cluster when B(x, η; S) = B(x, 3η; S), i.e. no row of S
// lies at a distance in (η, 3η] from x; deduplication keeps one centre of
// each good cluster and removes its other rows, larger clusters first
// (preprocessing.md D4: the kept centre is the one with the smallest index;
// ties in size go to the cluster with the smallest row index). Two good
// clusters are disjoint or identical (if centres c₁, c₂ have intersecting
// η-balls, ‖c₁ − c₂‖ ≤ 2η ≤ 3η puts each in the other's η-ball, and the balls
// coincide), so the order matters only through rounding at the boundaries.
// Removed rows are zero in the output and marked (D3). Cost O(n²d).
type Dedup struct{ Eta float64 }

// NewDedup returns η-deduplication; η must be finite and > 0.
func NewDedup(eta float64) (*Dedup, error) {
	if err := checkEta("dedup", eta); err != nil {
		return nil, err
	}
	return &Dedup{Eta: eta}, nil
}

func checkEta(name string, eta float64) error {
	if !(eta > 0) || math.IsInf(eta, 0) {
		return fmt.Errorf("preprocess: %s: eta = %v: must be a finite number > 0", name, eta)
	}
	return nil
}

// Name implements Preprocessor.
func (p *Dedup) Name() string { return "dedup" }

// String implements Preprocessor.
func (p *Dedup) String() string { return fmt.Sprintf("dedup[eta=%g]", p.Eta) }

// RowLipschitz implements Preprocessor: a row is kept or removed, a jump.
func (p *Dedup) RowLipschitz() float64 { return math.Inf(1) }

// OutputDiameter implements Preprocessor: outputs are rows of the unit ball or 0.
func (p *Dedup) OutputDiameter() float64 { return 2 }

// Fit implements Preprocessor.
func (p *Dedup) Fit(x *mat.Dense) (Fitted, error) {
	if err := checkEta("dedup", p.Eta); err != nil {
		return nil, err
	}
	if err := checkRows(p.String(), x, false); err != nil {
		return nil, err
	}
	g := findGoodClusters(x, p.Eta)
	n, _ := x.Dims()
	out := &Output{X: mat.DenseCopyOf(x), Removed: make([]bool, n)}
	for _, c := range g.clusters {
		for _, j := range c.members {
			if j != c.rep {
				out.Removed[j] = true
				zero(out.X.RawRowView(j))
			}
		}
	}
	return &clusterFit{fitBase: g.base(p.String(), n, out)}, nil
}

// Sensitivity implements Preprocessor.
//
// Paper mode, [HSS24] Prop. 3 (replace-one) and its footnote 4 (add/remove):
//
//	Δ_2 = 1                      a removed row is the origin, rows lie in the unit ball
//	Δ_∞ = 2b  (replace-one)      b = the largest good cluster of any dataset in 𝓛
//	Δ_∞ = b   (add/remove)
//
// Safe mode [derived, this package]: Prop. 3's Δ_∞ is wrong. Its proof
// (Appendix C.1) only follows the rows within η of the new record z₁, but z₁
// also destroys every good cluster whose centres lie at a distance in
// (η, 3η] from it, however many: z₁ at 2.8η from q cluster centres (q = 5 in
// R², 2d in R^d) releases q(b − 1) rows, more than 2b for b ≥ 2 — the
// "star" probe (probe.go) exhibits it. What is true: a row x of S can change
// its fate only if some centre of its good cluster lies within 3η of z₁ (a
// good centre stays good, with the same cluster, when z₁ is more than 3η
// away; adding a record never makes a row a good centre), so the rows that
// change lie within 4η of z₁, and
//
//	Δ_∞ ≤ 2m  (replace-one),  m (add/remove),  capped at n − 1
//	m = the most rows of a dataset in 𝓛 within 4η of any point (MaxLocal)
//
// With m undeclared the safe Δ_∞ is the trivial n − 1 (group privacy).
// Δ_2 = 1 in both modes.
func (p *Dedup) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	return clusterSensitivity(p.String(), p.Eta, c, m, false)
}

// clusterSensitivity is the shared Sensitivity of Dedup and Quantize.
func clusterSensitivity(name string, eta float64, c Collection, m Mode, quantize bool) (Sensitivity, error) {
	if err := m.check(); err != nil {
		return Sensitivity{}, err
	}
	if err := c.checkBase(name, true); err != nil {
		return Sensitivity{}, err
	}
	if c.MaxLocal < 0 || c.MaxCluster < 0 {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: max_cluster = %d, max_local = %d: must be ≥ 0", name, c.MaxCluster, c.MaxLocal)
	}
	addRemove := c.relation() == accounting.RelationAddRemove
	factor, rel := 2, "replace-one"
	if addRemove {
		factor, rel = 1, "add/remove"
	}
	s := Sensitivity{Preprocessor: name, Mode: m, Relation: c.relation()}
	d2, d2Text, ref := 1.0, "Δ_2 = 1", "[HSS24] Prop. 3"
	if quantize {
		switch m {
		case Paper:
			d2, d2Text = eta, fmt.Sprintf("Δ_2 = η = %g", eta)
		case Safe:
			d2, d2Text = math.Min(2*eta, 2), fmt.Sprintf("Δ_2 = min(2η, 2) = %g (erratum preprocessing.md §2.2: π_{S₁}(x) = z₁, π_{S₂}(x) = z₂ are both within η of x)", math.Min(2*eta, 2))
		}
	}
	s.Delta2 = d2
	switch m {
	case Paper:
		if c.MaxCluster < 1 {
			return Sensitivity{}, fmt.Errorf("preprocess: %s: paper mode needs max_cluster (b, the largest good cluster in 𝓛) ≥ 1", name)
		}
		s.DeltaInf = factor * c.MaxCluster
		s.Formula = fmt.Sprintf("%s, Δ_∞ = %s = %d (b = %d, %s)", d2Text, map[bool]string{false: "2b", true: "b"}[addRemove], s.DeltaInf, c.MaxCluster, rel)
		s.Ref = ref + map[bool]string{false: "", true: ", footnote 4"}[addRemove]
	case Safe:
		s.Derived = true
		s.Ref = ref + "; Δ_∞ corrected in datasets/preprocess (Prop. 3's proof misses the clusters whose centres lie within 3η of z₁)"
		if c.MaxLocal == 0 {
			s.DeltaInf = c.N - 1
			s.Formula = fmt.Sprintf("%s, Δ_∞ = n − 1 = %d (no max_local declared: every row may change)", d2Text, s.DeltaInf)
		} else {
			s.DeltaInf = min(factor*c.MaxLocal, c.N-1)
			s.Formula = fmt.Sprintf("%s, Δ_∞ = min(%sm, n − 1) = %d (m = %d rows within 4η of a point, %s)", d2Text, map[bool]string{false: "2", true: ""}[addRemove], s.DeltaInf, c.MaxLocal, rel)
		}
		if quantize {
			s.Ref += "; Δ_2 = 2η (erratum §2.2)"
		}
	}
	return s, nil
}

// clusterFit is a fitted Dedup or Quantize.
type clusterFit struct{ fitBase }

// Transform implements Fitted: held-out rows are not deduplicated or quantized.
func (f *clusterFit) Transform(x *mat.Dense) (*mat.Dense, error) {
	_, d := f.out.X.Dims()
	if err := checkCols(f.name, x, d, false); err != nil {
		return nil, err
	}
	return mat.DenseCopyOf(x), nil
}

// goodCluster is one good cluster: its rows (sorted) and the kept centre.
type goodCluster struct {
	members []int
	rep     int
}

// goodClusters is what findGoodClusters reads from S.
type goodClusters struct {
	clusters []goodCluster // in processing order
	maxSize  int           // the largest good cluster
	local    int           // max_i #{j : ‖x_j − x_i‖ ≤ 8η} ≥ m = the most rows within 4η of any point
}

// findGoodClusters returns the good clusters of the rows of x
// ([HSS24] §4.1) in processing order (decreasing size, then smallest row),
// each with its kept centre (the good centre with the smallest index) and
// with rows claimed by an earlier cluster left out (possible only through
// rounding at distance exactly η or 3η).
func findGoodClusters(x *mat.Dense, eta float64) goodClusters {
	n, d := x.Dims()
	raw := x.RawMatrix()
	row := func(i int) []float64 { return raw.Data[i*raw.Stride : i*raw.Stride+d : i*raw.Stride+d] }
	counts := make([]int, 3*n)
	in1 := counts[:n:n]          // rows within η, itself included
	in3 := counts[n : 2*n : 2*n] // rows within 3η
	in8 := counts[2*n:]          // rows within 8η
	// Squared distances against squared radii: no square roots in the O(n²d)
	// loop. The partial sums never decrease (adding t² ≥ 0 rounds to no less),
	// so dist2 stopping once past a radius decides "within it" exactly as the
	// full sum would; within the radius it is the full sum, in index order.
	e1, e3, e8 := eta*eta, 9*eta*eta, 64*eta*eta
	for i := 0; i < n; i++ {
		in1[i]++
		in3[i]++
		in8[i]++
		xi := row(i)
		for j := i + 1; j < n; j++ {
			d2 := dist2Within(xi, row(j), e8)
			if d2 > e8 {
				continue
			}
			in8[i]++
			in8[j]++
			if d2 <= e3 {
				in3[i]++
				in3[j]++
			}
			if d2 <= e1 {
				in1[i]++
				in1[j]++
			}
		}
	}
	var g goodClusters
	covered := make([]bool, n) // a member of a cluster already built
	var cand []goodCluster
	var pool []int // the candidates' members, in consecutive parts
	for i := 0; i < n; i++ {
		g.local = max(g.local, in8[i])
		if in1[i] != in3[i] || covered[i] {
			continue
		}
		// The members, in index order: the rows within η of the centre i
		// (the same squared distances and decisions as above: (a − b)² =
		// (b − a)²), so there are exactly in1[i] and the scan stops at the last.
		if len(pool)+in1[i] > cap(pool) {
			pool = make([]int, 0, max(n, in1[i]))
		}
		members := pool[len(pool) : len(pool) : len(pool)+in1[i]]
		xi := row(i)
		for j := 0; j < n && len(members) < in1[i]; j++ {
			if j == i || dist2Within(xi, row(j), e1) <= e1 {
				members = append(members, j)
			}
		}
		pool = pool[:len(pool)+len(members)]
		for _, j := range members {
			covered[j] = true
		}
		// i is the first good centre met in index order: the smallest-index centre.
		cand = append(cand, goodCluster{members: members, rep: i})
	}
	slices.SortStableFunc(cand, func(a, b goodCluster) int {
		if len(a.members) != len(b.members) {
			return len(b.members) - len(a.members)
		}
		return a.members[0] - b.members[0]
	})
	taken := make([]bool, n)
	for _, c := range cand {
		if taken[c.rep] {
			continue
		}
		kept := c.members[:0] // filtered in place: cand is not read again
		for _, j := range c.members {
			if !taken[j] {
				taken[j] = true
				kept = append(kept, j)
			}
		}
		g.clusters = append(g.clusters, goodCluster{members: kept, rep: c.rep})
		g.maxSize = max(g.maxSize, len(c.members))
	}
	return g
}

// dist2Within is ‖a − b‖² summed in index order, stopping once past r2 (the
// partial sums never decrease, so the result is > r2 exactly when the full
// sum is); b is at least as long as a.
func dist2Within(a, b []float64, r2 float64) float64 {
	b = b[:len(a)]
	var d2 float64
	for k, v := range a {
		t := v - b[k]
		d2 += t * t
		if d2 > r2 {
			break
		}
	}
	return d2
}

// base returns the fitBase of a fitted Dedup or Quantize.
func (g goodClusters) base(name string, n int, out *Output) fitBase {
	return fitBase{
		name: name, out: out,
		obs:    Collection{N: n, MaxCluster: g.maxSize, MaxLocal: g.local},
		fields: []field{fieldN, fieldMaxCluster, fieldMaxLocal},
		notes:  map[field]string{fieldMaxLocal: "an upper bound: the most rows within 8η of a row"},
	}
}

func zero(row []float64) {
	for j := range row {
		row[j] = 0
	}
}
