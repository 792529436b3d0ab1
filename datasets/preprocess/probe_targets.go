package preprocess

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// ProbeConfig sizes the swap sets of ClusterSwaps, ImputeSwaps and PCASwaps.
// Zero means the default, per family.
type ProbeConfig struct {
	N          int     // rows of S₁: 60 (clusters, imputation), 401 (PCA)
	D          int     // features: 4 (clusters), 5 (imputation), 6 (PCA)
	Random     int     // random swaps: 1400 (negative: none)
	PerTarget  int     // swaps per adversarial target: 200 (negative: none)
	Eta        float64 // η of the cluster swaps: 0.1
	MaxCluster int     // b of the cluster swaps: 6
	K          int     // PCA components: 3
	Seed       uint64
}

func (c ProbeConfig) with(n, d int) ProbeConfig {
	if c.N == 0 {
		c.N = n
	}
	if c.D == 0 {
		c.D = d
	}
	if c.Random == 0 {
		c.Random = 1400
	}
	if c.PerTarget == 0 {
		c.PerTarget = 200
	}
	if c.Eta == 0 {
		c.Eta = 0.1
	}
	if c.MaxCluster == 0 {
		c.MaxCluster = 6
	}
	if c.K == 0 {
		c.K = 3
	}
	c.Random, c.PerTarget = max(c.Random, 0), max(c.PerTarget, 0)
	return c
}

func (c ProbeConfig) check(family string, minN, minD int) error {
	if c.N < minN || c.D < minD || !(c.Eta > 0 && c.Eta <= 0.2) || c.MaxCluster < 1 || c.K < 1 {
		return fmt.Errorf("preprocess: %s swaps: config %+v: need n ≥ %d, d ≥ %d, η in (0, 0.2], b ≥ 1, k ≥ 1", family, c, minN, minD)
	}
	return nil
}

// probeRand is the stream of a swap family at seed.
func probeRand(family string, seed uint64) *rand.Rand {
	return rngs.Derive("dplab/preprocess/probe", family, strconv.FormatUint(seed, 10)).Rand()
}

// reuse is how many swaps share one base dataset.
const reuse = 10

func inBall(r *rand.Rand, d int, rad float64) []float64 {
	v := datasets.UnitVector(r, d)
	floats.Scale(rad*math.Pow(r.Float64(), 1/float64(d)), v)
	return v
}

func clipVec(v []float64) []float64 {
	if n := observedNorm(v); n > 1 {
		for j := range v {
			v[j] /= n
		}
	}
	return v
}

// rotation returns a uniformly random d × d orthogonal matrix.
func rotation(r *rand.Rand, d int) *mat.Dense {
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// ClusterSwaps returns swaps for deduplication and quantization on
// clustered data (datasets.GenerateClusteredUnitBall): with addRemove, Z2 is
// nil (S₂ = S). Targets ([HSS24] Prop. 3, preprocessing.md §4.6):
//
//   - "random": z₁, z₂ uniform in the ball, near a row, or duplicating a row;
//   - "both-centres": tight clusters 6η apart; z₁ = x + tu, z₂ = x − tu at
//     index 0, t just below η minus x's cluster radius: each is the kept
//     centre of x's cluster in its dataset (quantization Δ_2 → 2η);
//   - "bridge": z₁ at the midpoint of the two closest clusters (within 3η of
//     both destroys both good clusters);
//   - "star": q clusters of b rows at 2.8η from a point p (q = 5 in R², 2d
//     otherwise), pairwise more than 3η apart; z₁ = p destroys all of them
//     (q(b − 1) rows change), z₂ an isolated point.
func ClusterSwaps(cfg ProbeConfig, addRemove bool) ([]Swap, error) {
	cfg = cfg.with(60, 4)
	if err := cfg.check("cluster", 8, 2); err != nil {
		return nil, err
	}
	r := probeRand(fmt.Sprint("cluster/", addRemove), cfg.Seed)
	m, d, eta := cfg.N-1, cfg.D, cfg.Eta
	base := func(rows int, radius, sep float64) (*mat.Dense, []int, error) {
		ds, ids, err := datasets.GenerateClusteredUnitBall(datasets.ClusteredUnitBallParams{
			N: rows, D: d, Eta: eta, MaxCluster: cfg.MaxCluster, Radius: radius, Separation: sep, Seed: r.Uint64()})
		if err != nil {
			return nil, nil, err
		}
		return ds.X, ids, nil
	}
	second := func(z []float64) []float64 {
		if addRemove {
			return nil
		}
		return z
	}
	var out []Swap
	// random
	var s *mat.Dense
	var err error
	for i := 0; i < cfg.Random; i++ {
		if i%reuse == 0 {
			if s, _, err = base(m, 0.5, 3); err != nil {
				return nil, err
			}
		}
		out = append(out, Swap{Target: "random", S: s, Z1: randomNear(r, s, eta), Z2: second(randomNear(r, s, eta)), Index: r.IntN(m + 1)})
	}
	// both-centres
	for i := 0; i < cfg.PerTarget; i++ {
		if i%reuse == 0 {
			// Clusters 6η apart keep z₁, z₂ good centres; fall back to 3η
			// where the ball is too small for that many clusters.
			for _, sep := range []float64{6, 4, 3} {
				if s, _, err = base(m, 0.05, sep); err == nil {
					break
				}
			}
			if err != nil {
				return nil, err
			}
		}
		x := s.RawRowView(r.IntN(m))
		rho := 0.0
		for j := 0; j < m; j++ {
			if dist := floats.Distance(x, s.RawRowView(j), 2); dist <= eta {
				rho = math.Max(rho, dist)
			}
		}
		t := 0.999 * (eta - rho)
		u := datasets.UnitVector(r, d)
		if nx := floats.Norm(x, 2); nx > 0 { // u ⊥ x keeps x ± tu as close to the ball as x
			floats.AddScaled(u, -floats.Dot(u, x)/(nx*nx), x)
			floats.Scale(1/floats.Norm(u, 2), u)
		}
		z1, z2 := slicesClone(x), slicesClone(x)
		floats.AddScaled(z1, t, u)
		floats.AddScaled(z2, -t, u)
		out = append(out, Swap{Target: "both-centres", S: s, Z1: clipVec(z1), Z2: second(clipVec(z2)), Index: 0})
	}
	// bridge
	var ids []int
	for i := 0; i < cfg.PerTarget; i++ {
		if i%reuse == 0 {
			if s, ids, err = base(m, 0.05, 3); err != nil {
				return nil, err
			}
		}
		a, b := closestClusters(s, ids)
		z1 := slicesClone(s.RawRowView(a))
		floats.Add(z1, s.RawRowView(b))
		floats.Scale(0.5, z1)
		out = append(out, Swap{Target: "bridge", S: s, Z1: z1, Z2: second(inBall(r, d, 1)), Index: r.IntN(m + 1)})
	}
	// star
	for i := 0; i < cfg.PerTarget; i++ {
		w := starSwap(r, m, d, eta, cfg.MaxCluster, base)
		w.Z2 = second(w.Z2)
		out = append(out, w)
	}
	return out, nil
}

func slicesClone(v []float64) []float64 { return append([]float64(nil), v...) }

// randomNear returns a point uniform in the ball, near a row of s, or a
// duplicate of a row, each with probability 1/3.
func randomNear(r *rand.Rand, s *mat.Dense, eta float64) []float64 {
	m, d := s.Dims()
	switch r.IntN(3) {
	case 0:
		return inBall(r, d, 1)
	case 1:
		z := slicesClone(s.RawRowView(r.IntN(m)))
		floats.AddScaled(z, 2*eta*r.Float64(), datasets.UnitVector(r, d))
		return clipVec(z)
	}
	return slicesClone(s.RawRowView(r.IntN(m)))
}

// closestClusters returns one row of each of the two clusters whose first
// rows are closest.
func closestClusters(s *mat.Dense, ids []int) (int, int) {
	first := map[int]int{}
	var reps []int
	for i, k := range ids {
		if _, ok := first[k]; !ok {
			first[k] = i
			reps = append(reps, i)
		}
	}
	best, a, b := math.Inf(1), reps[0], reps[0]
	for x := 0; x < len(reps); x++ {
		for y := x + 1; y < len(reps); y++ {
			if dist := floats.Distance(s.RawRowView(reps[x]), s.RawRowView(reps[y]), 2); dist < best {
				best, a, b = dist, reps[x], reps[y]
			}
		}
	}
	return a, b
}

// starSwap builds the "star": q clusters of b rows at 2.8η from p, the rest
// of the rows from a clustered background more than 10η from p, z₁ = p and
// z₂ a point more than 4η from every row.
func starSwap(r *rand.Rand, m, d int, eta float64, b int, base func(int, float64, float64) (*mat.Dense, []int, error)) Swap {
	p := inBall(r, d, 0.3)
	var dirs [][]float64
	if d == 2 {
		phi := 2 * math.Pi * r.Float64()
		for j := 0; j < 5; j++ {
			a := phi + 2*math.Pi*float64(j)/5
			dirs = append(dirs, []float64{math.Cos(a), math.Sin(a)})
		}
	} else {
		q := rotation(r, d)
		for j := 0; j < d; j++ {
			c := mat.Col(nil, j, q)
			neg := slicesClone(c)
			floats.Scale(-1, neg)
			dirs = append(dirs, c, neg)
		}
	}
	nq := min(len(dirs), m/b)
	rows := make([][]float64, 0, m)
	for j := 0; j < nq; j++ {
		c := slicesClone(p)
		floats.AddScaled(c, 2.8*eta, dirs[j])
		rows = append(rows, c)
		for k := 1; k < b; k++ {
			x := slicesClone(c)
			floats.Add(x, inBall(r, d, 0.05*eta))
			rows = append(rows, x)
		}
	}
	if need := m - len(rows); need > 0 {
		bg, _, err := base(3*m, 0.5, 3)
		if err != nil { // too many clusters for the ball: isolated points only
			bg = mat.NewDense(1, d, nil)
		}
		bgRows, _ := bg.Dims()
		for i := 0; i < bgRows && len(rows) < m; i++ {
			if x := bg.RawRowView(i); floats.Distance(x, p, 2) > 10*eta {
				rows = append(rows, slicesClone(x))
			}
		}
		for len(rows) < m { // background exhausted: isolated points far from p
			if x := inBall(r, d, 1); floats.Distance(x, p, 2) > 10*eta {
				rows = append(rows, x)
			}
		}
	}
	s := mat.NewDense(m, d, nil)
	for i, j := range r.Perm(m) {
		s.SetRow(i, rows[j])
	}
	var z2 []float64
	for try := 0; try < 10000 && z2 == nil; try++ {
		z := inBall(r, d, 1)
		far := true
		for _, x := range rows {
			if floats.Distance(z, x, 2) <= 4*eta {
				far = false
				break
			}
		}
		if far {
			z2 = z
		}
	}
	if z2 == nil {
		z2 = slicesClone(rows[0]) // a duplicate: still a valid neighbour
	}
	return Swap{Target: "star", S: s, Z1: p, Z2: z2, Index: r.IntN(m + 1)}
}

// DedupCounterexample returns [HSS24] §5.1's pathological pair in R^d: S is
// 2d points 0.99η(±e_i) around the origin, pairwise more than η apart and all
// within η of the origin, so S has no good cluster and deduplication keeps
// it; z₁ = the origin makes one good cluster of all 2d + 1 rows and removes
// every row of S (Δ_∞ = n − 1 with n = 2d + 1); z₂ is a far, isolated point.
// Its collection has b = n: it lies outside any small-b collection.
func DedupCounterexample(d int, eta float64) (Swap, error) {
	if d < 1 || !(eta > 0 && eta <= 0.1) {
		return Swap{}, fmt.Errorf("preprocess: counterexample: d = %d, η = %v: need d ≥ 1, η in (0, 0.1]", d, eta)
	}
	s := mat.NewDense(2*d, d, nil)
	for i := 0; i < d; i++ {
		s.Set(2*i, i, 0.99*eta)
		s.Set(2*i+1, i, -0.99*eta)
	}
	z2 := make([]float64, d)
	z2[0] = 0.9
	return Swap{Target: "counterexample", S: s, Z1: make([]float64, d), Z2: z2, Index: 0}, nil
}

// ImputeSwaps returns swaps for the imputers (NaN = missing). Targets:
//
//   - "random": S from datasets.GenerateMissingUnitBall (missing fraction
//     0.05–0.5, 1..d−1 features per row), z₁, z₂ Gaussian rows, each missing
//     1..d features with probability 1/2;
//   - "missingness": the common rows at a unit v on features J (plus noise)
//     and one row missing everything; z₁ = (−cos φ·v_J, sin φ·w_K) observes all,
//     z₂ = (NaN_J, −w_K) misses J, φ ≈ π/4 (mean imputation's Δ_2 → 2.41/(n − p + 1));
//   - "order-gap": k common rows at +a·1, k at −a·1 (a = 1/√d), the rest
//     missing every feature; z₁ = +a·1, z₂ = −a·1: each median and trimmed
//     mean jumps by the whole band, in all d features;
//   - "leverage": one common row missing feature 0 with its other features
//     along the least-variance direction u of the complete rows;
//     z₁ = (0.7, 0.7u), z₂ = (−0.7, 0.7u) or (NaN, 0.7u).
func ImputeSwaps(cfg ProbeConfig) ([]Swap, error) {
	cfg = cfg.with(60, 5)
	if err := cfg.check("imputation", 12, 2); err != nil {
		return nil, err
	}
	r := probeRand("impute", cfg.Seed)
	m, d := cfg.N-1, cfg.D
	var out []Swap
	gaussRow := func() []float64 {
		z := make([]float64, d)
		for j := range z {
			z[j] = r.NormFloat64() / math.Sqrt(float64(d))
		}
		return clipVec(z)
	}
	maskSome := func(z []float64) []float64 {
		if r.IntN(2) == 0 {
			for _, j := range r.Perm(d)[:1+r.IntN(d)] {
				z[j] = math.NaN()
			}
		}
		return z
	}
	// random
	var s *mat.Dense
	for i := 0; i < cfg.Random; i++ {
		if i%reuse == 0 {
			fracs := []float64{0.05, 0.2, 0.5}
			p := datasets.MissingUnitBallParams{N: m, D: d, MissingFraction: fracs[r.IntN(3)], FeaturesPerRow: 1 + r.IntN(d-1), Seed: r.Uint64()}
			ds, miss, err := datasets.GenerateMissingUnitBall(p)
			if err != nil {
				return nil, err
			}
			s = MaskMissing(ds.X, miss)
		}
		out = append(out, Swap{Target: "random", S: s, Z1: maskSome(gaussRow()), Z2: maskSome(gaussRow()), Index: r.IntN(m + 1)})
	}
	// missingness
	for i := 0; i < cfg.PerTarget; i++ {
		perm := r.Perm(d)
		nj := 1 + r.IntN(d-1)
		inJ := make([]bool, d)
		for _, j := range perm[:nj] {
			inJ[j] = true
		}
		v, w := make([]float64, d), make([]float64, d)
		for j := 0; j < d; j++ {
			if inJ[j] {
				v[j] = r.NormFloat64()
			} else {
				w[j] = r.NormFloat64()
			}
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		floats.Scale(1/floats.Norm(w, 2), w)
		s = mat.NewDense(m, d, nil)
		hole := r.IntN(m)
		for k := 0; k < m; k++ {
			row := s.RawRowView(k)
			if k == hole {
				for j := range row {
					row[j] = math.NaN()
				}
				continue
			}
			copy(row, v)
			floats.AddScaled(row, 0.02, gaussRow())
			clipVec(row)
		}
		phi := math.Pi/4 + 0.1*r.NormFloat64()
		z1, z2 := make([]float64, d), make([]float64, d)
		for j := 0; j < d; j++ {
			if inJ[j] {
				z1[j], z2[j] = -math.Cos(phi)*v[j], math.NaN()
			} else {
				z1[j], z2[j] = math.Sin(phi)*w[j], -w[j]
			}
		}
		out = append(out, Swap{Target: "missingness", S: s, Z1: clipVec(z1), Z2: z2, Index: r.IntN(m + 1)})
	}
	// order-gap
	a := 1 / math.Sqrt(float64(d))
	for i := 0; i < cfg.PerTarget; i++ {
		cm := 1 + r.IntN(max(1, m/4))
		if (m-cm)%2 == 1 {
			cm++
		}
		k := (m - cm) / 2
		rows := make([][]float64, 0, m)
		for j := 0; j < k; j++ {
			rows = append(rows, constRow(d, a), constRow(d, -a))
		}
		for len(rows) < m {
			rows = append(rows, constRow(d, math.NaN()))
		}
		s = mat.NewDense(m, d, nil)
		for j, src := range r.Perm(m) {
			s.SetRow(j, rows[src])
		}
		out = append(out, Swap{Target: "order-gap", S: s, Z1: constRow(d, a), Z2: constRow(d, -a), Index: r.IntN(m + 1)})
	}
	// leverage
	for i := 0; i < cfg.PerTarget; i++ {
		s = mat.NewDense(m, d, nil)
		for k := 0; k < m; k++ {
			row := gaussRow()
			if k%10 == 9 {
				row[0] = math.NaN()
			}
			s.SetRow(k, row)
		}
		u := leastVarianceDirection(s)
		last := s.RawRowView(m - 1)
		last[0] = math.NaN()
		copy(last[1:], u)
		z1 := append([]float64{0.7}, scaled(u, 0.7)...)
		z2 := append([]float64{-0.7}, scaled(u, 0.7)...)
		if r.IntN(2) == 0 {
			z2[0] = math.NaN()
		}
		out = append(out, Swap{Target: "leverage", S: s, Z1: z1, Z2: z2, Index: r.IntN(m + 1)})
	}
	return out, nil
}

func constRow(d int, v float64) []float64 {
	row := make([]float64, d)
	for j := range row {
		row[j] = v
	}
	return row
}

func scaled(v []float64, c float64) []float64 {
	out := slicesClone(v)
	floats.Scale(c, out)
	return out
}

// leastVarianceDirection returns the unit eigenvector of the smallest
// eigenvalue of X_Cᵀ X_C restricted to features 1..d−1, X_C the complete rows.
func leastVarianceDirection(s *mat.Dense) []float64 {
	m, d := s.Dims()
	g := mat.NewSymDense(d-1, nil)
	for i := 0; i < m; i++ {
		row := s.RawRowView(i)
		if math.IsNaN(row[0]) {
			continue
		}
		g.SymRankOne(g, 1, mat.NewVecDense(d-1, slicesClone(row[1:])))
	}
	var eig mat.EigenSym
	if !eig.Factorize(g, true) {
		u := make([]float64, d-1)
		u[0] = 1
		return u
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	return mat.Col(nil, 0, &v)
}

// MaskMissing returns a copy of x with the cells miss[i] of each row i set to
// NaN (as datasets.GenerateMissingUnitBall returns them).
func MaskMissing(x *mat.Dense, miss [][]int) *mat.Dense {
	c := mat.DenseCopyOf(x)
	for i, m := range miss {
		for _, j := range m {
			c.Set(i, j, math.NaN())
		}
	}
	return c
}

// PCASwaps returns swaps for PCA with k components. Targets:
//
//   - "random": Gaussian rows with a decaying spectrum, z₁, z₂ uniform in the ball;
//   - "eigenvector": z₁, z₂ along the common rows' eigenvectors
//     (v_k and v_{k+1}; v₁ and −v₁; v₁ and 0);
//   - "small-gap": λ_k ≈ λ_{k+1}, z₁ = v_{k+1}, z₂ = v_k (the subspace turns);
//   - "degenerate-middle" (k ≥ 3, d ≥ 4): rows symmetric in a plane, so that
//     λ₂ = λ₃ while δ¹ and δ^k are large; z₁, z₂ = (v₂ ± v₃)/√2 pick the basis
//     (refutes Prop. 5's dimension-reduction bound with δ^k or min(δ^k, δ¹));
//   - "sign-reference": rows symmetric under the reflection that maps 1 to −1,
//     so ⟨v₁, 1⟩ = 0; z₁, z₂ tilt v₁ to either side of the sign convention.
func PCASwaps(cfg ProbeConfig) ([]Swap, error) {
	cfg = cfg.with(401, 6)
	if err := cfg.check("PCA", 20, cfg.K+1); err != nil {
		return nil, err
	}
	r := probeRand("pca", cfg.Seed)
	m, d, k := cfg.N-1, cfg.D, cfg.K
	decay := func(gapK float64) []float64 {
		l := make([]float64, d)
		for j := range l {
			l[j] = math.Pow(0.55, float64(j))
		}
		if gapK > 0 {
			l[k] = l[k-1] - gapK
		}
		return l
	}
	var out []Swap
	var s *mat.Dense
	for i := 0; i < cfg.Random; i++ {
		if i%reuse == 0 {
			s = spectrumRows(r, m, d, decay(0))
		}
		out = append(out, Swap{Target: "random", S: s, Z1: inBall(r, d, 1), Z2: inBall(r, d, 1), Index: r.IntN(m + 1)})
	}
	for i := 0; i < cfg.PerTarget; i++ {
		if i%reuse == 0 {
			s = spectrumRows(r, m, d, decay(0))
		}
		v := eigenvectors(s)
		var z1, z2 []float64
		switch r.IntN(3) {
		case 0:
			z1, z2 = mat.Col(nil, k-1, v), mat.Col(nil, k, v)
		case 1:
			z1 = mat.Col(nil, 0, v)
			z2 = scaled(z1, -1)
		default:
			z1, z2 = mat.Col(nil, 0, v), make([]float64, d)
		}
		out = append(out, Swap{Target: "eigenvector", S: s, Z1: z1, Z2: z2, Index: r.IntN(m + 1)})
	}
	for i := 0; i < cfg.PerTarget; i++ {
		if i%reuse == 0 {
			s = spectrumRows(r, m, d, decay(0.02*math.Pow(0.55, float64(k-1))))
		}
		v := eigenvectors(s)
		out = append(out, Swap{Target: "small-gap", S: s, Z1: mat.Col(nil, k, v), Z2: mat.Col(nil, k-1, v), Index: r.IntN(m + 1)})
	}
	if k >= 3 && d >= 4 {
		for i := 0; i < cfg.PerTarget; i++ {
			q := rotation(r, d)
			e := func(j int) []float64 { return mat.Col(nil, j, q) }
			rows := make([][]float64, 0, m)
			// M equally spaced angles (M ≥ 3: isotropic in the plane), both
			// signs along e₀, and every row with its negative: the covariance
			// is diag(0.64, 0.125, 0.125, 0, …) in the basis Q exactly.
			nAngles := m / 4
			off := 2 * math.Pi * r.Float64()
			for t := 0; t < nAngles; t++ {
				theta := off + 2*math.Pi*float64(t)/float64(nAngles)
				for _, sg := range []float64{1, -1} {
					x := scaled(e(0), 0.8*sg)
					floats.AddScaled(x, 0.5*math.Cos(theta), e(1))
					floats.AddScaled(x, 0.5*math.Sin(theta), e(2))
					rows = append(rows, x, scaled(x, -1))
				}
			}
			for len(rows) < m {
				rows = append(rows, make([]float64, d))
			}
			s = mat.NewDense(m, d, nil)
			for j, src := range r.Perm(m) {
				s.SetRow(j, rows[src])
			}
			z1, z2 := e(1), e(1)
			floats.Add(z1, e(2))
			floats.Sub(z2, e(2))
			floats.Scale(0.9/math.Sqrt2, z1)
			floats.Scale(0.9/math.Sqrt2, z2)
			out = append(out, Swap{Target: "degenerate-middle", S: s, Z1: z1, Z2: z2, Index: r.IntN(m + 1)})
		}
	}
	for i := 0; i < cfg.PerTarget; i++ {
		if i%reuse == 0 {
			s = reflectedRows(r, m, d, decay(0))
		}
		v1 := mat.Col(nil, 0, eigenvectors(s))
		u := constRow(d, 1/math.Sqrt(float64(d)))
		z1, z2 := slicesClone(v1), slicesClone(v1)
		floats.AddScaled(z1, 0.5, u)
		floats.AddScaled(z2, -0.5, u)
		floats.Scale(0.95/floats.Norm(z1, 2), z1)
		floats.Scale(0.95/floats.Norm(z2, 2), z2)
		out = append(out, Swap{Target: "sign-reference", S: s, Z1: z1, Z2: z2, Index: r.IntN(m + 1)})
	}
	return out, nil
}

// spectrumRows returns m rows x = Q diag(√λ) g, g ~ N(0, I), λ scaled to
// E‖x‖² = 0.5, clipped to the unit ball.
func spectrumRows(r *rand.Rand, m, d int, lambda []float64) *mat.Dense {
	q := rotation(r, d)
	scale := 0.5 / floats.Sum(lambda)
	s := mat.NewDense(m, d, nil)
	g := make([]float64, d)
	for i := 0; i < m; i++ {
		for j := range g {
			g[j] = r.NormFloat64() * math.Sqrt(lambda[j]*scale)
		}
		row := s.RawRowView(i)
		for a := 0; a < d; a++ {
			row[a] = floats.Dot(q.RawRowView(a), g)
		}
		clipVec(row)
	}
	return s
}

// reflectedRows returns rows with the spectrum lambda along an orthonormal
// basis whose first vector is (e₁ − e₂)/√2 ⊥ 1, each with its mirror image
// under H = I − 2uuᵀ, u = 1/√d (a zero row when m is odd): the covariance
// commutes with H, so its top eigenvector has ⟨v₁, 1⟩ = 0.
func reflectedRows(r *rand.Rand, m, d int, lambda []float64) *mat.Dense {
	basis := rotation(r, d)
	first := make([]float64, d)
	first[0], first[1] = 1/math.Sqrt2, -1/math.Sqrt2
	// Gram–Schmidt with first as the first column.
	cols := [][]float64{first}
	for j := 0; len(cols) < d && j < d; j++ {
		c := mat.Col(nil, j, basis)
		for _, b := range cols {
			floats.AddScaled(c, -floats.Dot(c, b), b)
		}
		if n := floats.Norm(c, 2); n > 1e-8 {
			floats.Scale(1/n, c)
			cols = append(cols, c)
		}
	}
	scale := 0.5 / floats.Sum(lambda)
	u := constRow(d, 1/math.Sqrt(float64(d)))
	s := mat.NewDense(m, d, nil)
	for i := 0; i+1 < m; i += 2 {
		x := make([]float64, d)
		for j, c := range cols {
			floats.AddScaled(x, r.NormFloat64()*math.Sqrt(lambda[j]*scale), c)
		}
		clipVec(x)
		hx := slicesClone(x)
		floats.AddScaled(hx, -2*floats.Dot(x, u), u)
		s.SetRow(i, x)
		s.SetRow(i+1, hx)
	}
	return s
}

// eigenvectors returns the eigenvectors of the centred covariance of s,
// largest eigenvalue first.
func eigenvectors(s *mat.Dense) *mat.Dense {
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, s, nil)
	var eig mat.EigenSym
	eig.Factorize(&cov, true)
	var v mat.Dense
	eig.VectorsTo(&v)
	_, d := s.Dims()
	out := mat.NewDense(d, d, nil)
	for j := 0; j < d; j++ {
		out.SetCol(j, mat.Col(nil, d-1-j, &v))
	}
	return out
}
