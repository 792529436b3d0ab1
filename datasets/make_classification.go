package datasets

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SeedParams are the params of a generator whose only parameter is its seed.
type SeedParams struct {
	Seed uint64 `toml:"seed"`
}

// Validate implements Params.
func (SeedParams) Validate() error { return nil }

// classification is a make_classification configuration with n_classes = 2,
// n_clusters_per_class = 2, n_repeated = 0, flip_y = 0.01, hypercube = True,
// shift = 0, scale = 1, shuffle = True (sklearn's defaults, which [IYE19]'s
// calls keep).
type classification struct {
	samples, features, informative, redundant int
	classSep                                  float64
}

const flipY = 0.01 // make_classification's default flip_y

func init() {
	gen := func(name, title, call string, c classification, papers []string) {
		Register(Info{
			Name:  name,
			Title: title,
			Description: "dplab's port of scikit-learn's make_classification algorithm for users without the stored file: " + call + ". " +
				"Same algorithm, other random numbers (not bit-identical to the stored file; scikit-learn's draws come from numpy's MT19937). " +
				"Steps: 4 clusters (2 per class) centred on distinct random vertices of the informative hypercube {±class_sep}; " +
				"informative features N(0, I)·A + centroid with A i.i.d. U(−1, 1) per cluster; redundant features = informative · B, " +
				"B i.i.d. U(−1, 1); the rest N(0, 1); 1% of labels replaced by a random class (so ≈0.5% flip); rows and columns shuffled. " +
				"Labels {0, 1}. Deterministic from seed.",
			Task: Binary, Synthetic: true, Papers: papers, License: "generated; no restriction",
			Source: "scikit-learn sklearn.datasets.make_classification (algorithm), Iyengar et al. 2019 (parameters)",
			Rows:   c.samples, Cols: c.features,
		}, func(_ string, p SeedParams) (*Loaded, error) {
			return &Loaded{All: makeClassification(name, c, generatorRand(name, p.Seed))}, nil
		}, SeedParams{})
	}
	gen("synthetic-l-gen", "Synthetic-L regenerated in Go (make_classification port, 10,000 × 40)",
		"n_samples=10000, n_features=40, n_informative=30, n_redundant=2, class_sep=2.0",
		classification{samples: 10000, features: 40, informative: 30, redundant: 2, classSep: 2}, []string{"RKW23 Fig. 2 (stand-in for Synthetic-L)"})
	gen("synthetic-h-gen", "Synthetic-H regenerated in Go (make_classification port, 2,000 × 2,000)",
		"n_samples=2000, n_features=2000, n_informative=10, n_redundant=0, class_sep=2.0",
		classification{samples: 2000, features: 2000, informative: 10, redundant: 0, classSep: 2}, []string{"RKW23 Fig. 2 (stand-in for Synthetic-H)"})
}

// makeClassification follows sklearn.datasets.make_classification (read in
// scikit-learn's samples_generator, not copied) for two classes and two
// clusters per class.
func makeClassification(name string, c classification, r *rand.Rand) *Dataset {
	const clusters = 4
	n, d, inf := c.samples, c.features, c.informative
	// Cluster sizes: n // clusters each, the remainder to the first clusters.
	sizes := make([]int, clusters)
	for k := range sizes {
		sizes[k] = n / clusters
	}
	for k := 0; k < n%clusters; k++ {
		sizes[k]++
	}
	centroids := hypercubeVertices(r, clusters, inf)
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < inf; j++ {
			x.Set(i, j, r.NormFloat64())
		}
	}
	start := 0
	for k, size := range sizes {
		a := uniformMatrix(r, inf, inf)
		block := x.Slice(start, start+size, 0, inf).(*mat.Dense)
		var moved mat.Dense
		moved.Mul(block, a)
		for i := 0; i < size; i++ {
			for j := 0; j < inf; j++ {
				block.Set(i, j, moved.At(i, j)+c.classSep*(2*centroids[k][j]-1))
			}
			y[start+i] = float64(k % 2)
		}
		start += size
	}
	if c.redundant > 0 {
		b := uniformMatrix(r, inf, c.redundant)
		red := x.Slice(0, n, inf, inf+c.redundant).(*mat.Dense)
		red.Mul(x.Slice(0, n, 0, inf), b)
	}
	for i := 0; i < n; i++ {
		for j := inf + c.redundant; j < d; j++ {
			x.Set(i, j, r.NormFloat64())
		}
	}
	for i := range y {
		if r.Float64() < flipY {
			y[i] = float64(r.IntN(2))
		}
	}
	// Shuffle the rows, then the columns.
	rows := r.Perm(n)
	cols := r.Perm(d)
	out := mat.NewDense(n, d, nil)
	outY := make([]float64, n)
	for i, src := range rows {
		for j, sc := range cols {
			out.Set(i, j, x.At(src, sc))
		}
		outY[i] = y[src]
	}
	return &Dataset{Name: name, Task: Binary, X: out, Y: outY}
}

// hypercubeVertices returns m distinct random vertices of {0, 1}^dim
// (sklearn's _generate_hypercube samples without replacement); m ≤ 2^dim.
func hypercubeVertices(r *rand.Rand, m, dim int) [][]float64 {
	seen := map[string]bool{}
	var out [][]float64
	key := make([]byte, dim)
	for len(out) < m {
		v := make([]float64, dim)
		for j := range v {
			b := r.IntN(2)
			v[j], key[j] = float64(b), byte(b)
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, v)
		}
	}
	return out
}

// uniformMatrix returns an r × c matrix of i.i.d. U(−1, 1) entries
// (sklearn: 2 * generator.uniform(size=...) - 1).
func uniformMatrix(r *rand.Rand, rows, cols int) *mat.Dense {
	a := mat.NewDense(rows, cols, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			a.Set(i, j, 2*r.Float64()-1)
		}
	}
	return a
}
