package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LowRankParams are the params of "gaussmix-gaussian" and "gaussmix-uniform".
type LowRankParams struct {
	N     int     `toml:"n"`     // rows; 0 means 10240 (8192 train + 2048 test after the 80/20 split)
	D     int     `toml:"d"`     // features; 0 means 512
	Rank  int     `toml:"rank"`  // q, the dimension of the subspace holding the rows; 0 means 4
	Noise float64 `toml:"noise"` // σ of y = xᵀθ₀ + σξ, ξ ~ U(−1, 1); 0 means 0.1
	Seed  uint64  `toml:"seed"`
}

func (p LowRankParams) withDefaults() LowRankParams {
	p.N, p.D, p.Rank, p.Noise = orDefault(p.N, 10240), orDefault(p.D, 512), orDefault(p.Rank, 4), orDefault(p.Noise, 0.1)
	return p
}

func (p LowRankParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p LowRankParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if q.Rank < 1 || q.Rank > q.D {
		return fmt.Errorf("rank = %d: must be in 1..d = %d (0 means 4)", q.Rank, q.D)
	}
	return checkPositive("noise", q.Noise)
}

// MLPParams are the params of "gaussmix-mlp".
type MLPParams struct {
	N      int     `toml:"n"`      // rows; 0 means 10240
	D      int     `toml:"d"`      // features (output width); 0 means 512
	Hidden int     `toml:"hidden"` // hidden width; 0 means 100
	Noise  float64 `toml:"noise"`  // σ; 0 means 0.1
	Seed   uint64  `toml:"seed"`
}

func (p MLPParams) withDefaults() MLPParams {
	p.N, p.D, p.Hidden, p.Noise = orDefault(p.N, 10240), orDefault(p.D, 512), orDefault(p.Hidden, 100), orDefault(p.Noise, 0.1)
	return p
}

func (p MLPParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p MLPParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if q.Hidden < 1 || q.Hidden > 10000 {
		return fmt.Errorf("hidden = %d: must be in 1..10000 (0 means 100)", q.Hidden)
	}
	return checkPositive("noise", q.Noise)
}

const gaussMixGenDesc = " Response y = xᵀθ₀ + σξ with θ₀ uniform on the unit sphere and ξ ~ U(−1, 1) (gaussmix.md §6.2, " +
	"\"common\"). All n rows come from one draw; the paper's 80/20 split, X / max train row norm and y / max|y_train| " +
	"are the runner's split and scaling. Deterministic from seed."

func init() {
	Register(Info{
		Name:  "gaussmix-gaussian",
		Title: "GaussMix \"Gaussian dataset\" (rank-q Gaussian rows)",
		Description: "x_i ~ N(0, QQᵀ) with Q ∈ R^{d×q} the Q factor of an i.i.d. N(0, 1) d × q matrix (rows on a q = 4 " +
			"dimensional subspace, so λ_min(XᵀX) = 0); n = 10240, d = 512 by default." + gaussMixGenDesc,
		Task: Regression, Synthetic: true, Papers: []string{"LSS+25 Fig. 2 (Gaussian panel)"},
		License: "generated; no restriction", Source: "[LSS+25] §6 / GaussMix GetDataset('synthetic_Gaussian')",
		Rows: 10240, Cols: 512,
	}, func(_ string, p LowRankParams) (*Loaded, error) {
		return &Loaded{All: generateLowRank("gaussmix-gaussian", p.withDefaults(), func(r *rand.Rand) float64 { return r.NormFloat64() })}, nil
	}, LowRankParams{N: 60, D: 8, Rank: 2})

	Register(Info{
		Name:  "gaussmix-uniform",
		Title: "GaussMix \"Uniform dataset\" (rank-q uniform latent)",
		Description: "x_i = Q z_i with z_i ∈ R^q i.i.d. U(−1, 1)·√12 entries and Q as for gaussmix-gaussian (q = 4), following " +
			"the authors' code rather than the text's \"i.i.d. Unif([−1,1]) features\" (gaussmix.md §7 item 14)." + gaussMixGenDesc,
		Task: Regression, Synthetic: true, Papers: []string{"LSS+25 Fig. 4(b)"},
		License: "generated; no restriction", Source: "[LSS+25] §6 / GaussMix GetDataset('synthetic_Uniform')",
		Rows: 10240, Cols: 512,
	}, func(_ string, p LowRankParams) (*Loaded, error) {
		return &Loaded{All: generateLowRank("gaussmix-uniform", p.withDefaults(), func(r *rand.Rand) float64 { return (2*r.Float64() - 1) * math.Sqrt(12) })}, nil
	}, LowRankParams{N: 60, D: 8, Rank: 2})

	Register(Info{
		Name:  "gaussmix-mlp",
		Title: "GaussMix \"Synthetic dataset\" (MLP features)",
		Description: "The paper's text version (gaussmix.md §6.2): latent x̃ ~ N(0, I₂), x = φ(W₂ φ(W₁x̃ + b₁) + b₂) with φ the " +
			"sigmoid, W₁ ∈ R^{100×2}, W₂ ∈ R^{d×100} i.i.d. N(0, 1), b₁, b₂ ~ N(0, 10⁻⁶ I); d = 512." + gaussMixGenDesc,
		Task: Regression, Synthetic: true, Papers: []string{"LSS+25 Fig. 2 (Synthetic panel)"},
		License: "generated; no restriction", Source: "[LSS+25] §6",
		Rows: 10240, Cols: 512,
	}, func(_ string, p MLPParams) (*Loaded, error) {
		return &Loaded{All: generateMLP(p.withDefaults())}, nil
	}, MLPParams{N: 60, D: 8, Hidden: 5})
}

// randomOrthonormal returns the d × q Q factor of the QR decomposition of an
// i.i.d. N(0, 1) d × q matrix: q orthonormal columns spanning a uniformly
// random subspace ([LSS+25] §6: "Q from the QR decomposition of an i.i.d.
// N(0,1) matrix").
func randomOrthonormal(r *rand.Rand, d, q int) *mat.Dense {
	g := mat.NewDense(d, q, gaussianMatrix(r, d, q))
	var qr mat.QR
	qr.Factorize(g)
	var full mat.Dense
	qr.QTo(&full)
	return mat.DenseCopyOf(full.Slice(0, d, 0, q))
}

// generateLowRank draws θ₀, Q, then each row x = Q z with z's entries from
// latent, then the noise ξ.
func generateLowRank(name string, p LowRankParams, latent func(*rand.Rand) float64) *Dataset {
	r := generatorRand(name, p.Seed)
	theta := UnitVector(r, p.D)
	q := randomOrthonormal(r, p.D, p.Rank)
	z := make([]float64, p.N*p.Rank)
	for i := range z {
		z[i] = latent(r)
	}
	x := mat.NewDense(p.N, p.D, nil)
	x.Mul(mat.NewDense(p.N, p.Rank, z), q.T())
	return withUniformNoise(name, x, theta, p.Noise, r)
}

// withUniformNoise returns the dataset X with y = Xθ + σξ, ξ ~ U(−1, 1).
func withUniformNoise(name string, x *mat.Dense, theta []float64, sigma float64, r *rand.Rand) *Dataset {
	n, _ := x.Dims()
	y := make([]float64, n)
	for i := range y {
		y[i] = floats.Dot(x.RawRowView(i), theta) + sigma*(2*r.Float64()-1)
	}
	return &Dataset{Name: name, Task: Regression, X: x, Y: y}
}

// generateMLP draws θ₀, the weights W₁, b₁, W₂, b₂, the latents, then the
// noise.
func generateMLP(p MLPParams) *Dataset {
	r := generatorRand("gaussmix-mlp", p.Seed)
	theta := UnitVector(r, p.D)
	w1 := gaussianMatrix(r, p.Hidden, 2)
	b1 := gaussianMatrix(r, p.Hidden, 1)
	w2 := gaussianMatrix(r, p.D, p.Hidden)
	b2 := gaussianMatrix(r, p.D, 1)
	const biasSD = 1e-3 // b ~ N(0, 10⁻⁶ I)
	floats.Scale(biasSD, b1)
	floats.Scale(biasSD, b2)
	latent := gaussianMatrix(r, p.N, 2)
	x := mat.NewDense(p.N, p.D, nil)
	h := make([]float64, p.Hidden)
	for i := 0; i < p.N; i++ {
		for k := range h {
			h[k] = sigmoid(w1[2*k]*latent[2*i] + w1[2*k+1]*latent[2*i+1] + b1[k])
		}
		row := x.RawRowView(i)
		for j := range row {
			row[j] = sigmoid(floats.Dot(w2[j*p.Hidden:(j+1)*p.Hidden], h) + b2[j])
		}
	}
	return withUniformNoise("gaussmix-mlp", x, theta, p.Noise, r)
}
