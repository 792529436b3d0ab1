package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ClusteredUnitBallParams are the params of "clustered-unit-ball".
type ClusteredUnitBallParams struct {
	N          int     `toml:"n"`           // rows; 0 means 500
	D          int     `toml:"d"`           // features; 0 means 10
	Eta        float64 `toml:"eta"`         // η of the deduplication/quantization it is made for; 0 means 0.1; in (0, 0.5]
	MaxCluster int     `toml:"max_cluster"` // b: cluster sizes uniform in 1..b; 0 means 20
	Radius     float64 `toml:"radius"`      // members lie within radius·η of their cluster's centre row; 0 means 0.5; in (0, 1)
	Separation float64 `toml:"separation"`  // rows of different clusters are more than separation·η apart; 0 means 3; ≥ 3
	Seed       uint64  `toml:"seed"`
}

func (p ClusteredUnitBallParams) withDefaults() ClusteredUnitBallParams {
	p.N, p.D, p.MaxCluster = orDefault(p.N, 500), orDefault(p.D, 10), orDefault(p.MaxCluster, 20)
	p.Eta, p.Radius, p.Separation = orDefault(p.Eta, 0.1), orDefault(p.Radius, 0.5), orDefault(p.Separation, 3)
	return p
}

func (p ClusteredUnitBallParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p ClusteredUnitBallParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if !(q.Eta > 0 && q.Eta <= 0.5) {
		return fmt.Errorf("eta = %v: must be in (0, 0.5] (0 means 0.1)", q.Eta)
	}
	if q.MaxCluster < 1 || q.MaxCluster > q.N {
		return fmt.Errorf("max_cluster = %d: must be in 1..n = %d (0 means 20)", q.MaxCluster, q.N)
	}
	if !(q.Radius > 0 && q.Radius < 1) {
		return fmt.Errorf("radius = %v: must be in (0, 1) (0 means 0.5): members lie within radius·η < η of their centre", q.Radius)
	}
	if !(q.Separation >= 3) || math.IsInf(q.Separation, 0) {
		return fmt.Errorf("separation = %v: must be a finite number ≥ 3 (0 means 3): clusters are good only when no other row lies within 3η", q.Separation)
	}
	return nil
}

func init() {
	Register(Info{
		Name:  "clustered-unit-ball",
		Title: "Near-duplicate clusters in the unit ball (deduplication/quantization probes)",
		Description: "preprocessing.md §6 spec SP: clusters of sizes uniform in 1..b (b = max_cluster = 20; the last one " +
			"truncated to reach n = 500 rows) in the unit ball of R^d (d = 10). Each cluster is a centre row, uniform in the " +
			"ball of radius 1 − radius·η, and members uniform in the ball of radius radius·η < η around it (radius = 0.5, " +
			"η = 0.1); centres are drawn by rejection so that rows of different clusters are more than separation·η = 3η " +
			"apart. Every cluster is therefore a good cluster of η-deduplication ([HSS24] §4.1: B(c, η) = B(c, 3η)), and with " +
			"radius ≤ 0.5 every member is one of its centres. Rows are shuffled (the representative rule keeps the smallest " +
			"index). Labels {0, 1} per cluster: y = 1 when ⟨w, c⟩ > 0 for a uniform unit w. Deterministic from seed.",
		Task: Binary, Synthetic: true, Papers: []string{"HSS24 Prop. 3 (probes)"},
		License: "generated; no restriction", Source: "dplab, following preprocessing.md §6 (SP)",
		Rows: 500, Cols: 10,
	}, func(_ string, p ClusteredUnitBallParams) (*Loaded, error) {
		d, _, err := GenerateClusteredUnitBall(p)
		if err != nil {
			return nil, err
		}
		return &Loaded{All: d}, nil
	}, ClusteredUnitBallParams{N: 60, D: 3, Eta: 0.05, MaxCluster: 5})
}

// GenerateClusteredUnitBall returns the "clustered-unit-ball" dataset of p
// (defaults applied, validated) and the cluster index of every row. It fails
// when the clusters cannot be placed (too many clusters of too large a
// separation for the unit ball of R^d).
func GenerateClusteredUnitBall(p ClusteredUnitBallParams) (*Dataset, []int, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	p = p.withDefaults()
	r := generatorRand("clustered-unit-ball", p.Seed)
	var sizes []int
	for total := 0; total < p.N; {
		s := min(1+r.IntN(p.MaxCluster), p.N-total)
		sizes = append(sizes, s)
		total += s
	}
	rad := p.Radius * p.Eta
	// Rows within rad of their centres: centres more than (separation + 2·radius)·η
	// apart put rows of different clusters more than separation·η apart.
	minDist := (p.Separation + 2*p.Radius) * p.Eta
	const maxTries = 20000
	centres := make([][]float64, 0, len(sizes))
	for range sizes {
		placed := false
		for try := 0; try < maxTries && !placed; try++ {
			c := uniformInBall(r, p.D, 1-rad)
			placed = true
			for _, o := range centres {
				if floats.Distance(c, o, 2) <= minDist {
					placed = false
					break
				}
			}
			if placed {
				centres = append(centres, c)
			}
		}
		if !placed {
			return nil, nil, fmt.Errorf("clustered-unit-ball: cannot place %d clusters %.3g apart in the unit ball of R^%d (placed %d in %d tries each): lower n or eta, or raise d or max_cluster",
				len(sizes), minDist, p.D, len(centres), maxTries)
		}
	}
	w := UnitVector(r, p.D)
	data := make([]float64, 0, p.N*p.D)
	cluster := make([]int, 0, p.N)
	labels := make([]float64, 0, p.N)
	for k, s := range sizes {
		c := centres[k]
		y := 0.0
		if floats.Dot(w, c) > 0 {
			y = 1
		}
		for m := 0; m < s; m++ {
			row := append([]float64(nil), c...)
			if m > 0 {
				floats.Add(row, uniformInBall(r, p.D, rad))
			}
			data = append(data, row...)
			cluster = append(cluster, k)
			labels = append(labels, y)
		}
	}
	// Shuffle the rows: which member has the smallest index is then random.
	perm := r.Perm(p.N)
	x := mat.NewDense(p.N, p.D, nil)
	ys := make([]float64, p.N)
	ids := make([]int, p.N)
	for i, src := range perm {
		x.SetRow(i, data[src*p.D:(src+1)*p.D])
		ys[i], ids[i] = labels[src], cluster[src]
	}
	return &Dataset{Name: "clustered-unit-ball", Task: Binary, X: x, Y: ys}, ids, nil
}

// uniformInBall returns a point uniform in the ball of radius rad of R^d.
func uniformInBall(r *rand.Rand, d int, rad float64) []float64 {
	u := UnitVector(r, d)
	floats.Scale(rad*math.Pow(r.Float64(), 1/float64(d)), u)
	return u
}
