package datasets

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// LowRankLogisticParams are the params of "lowrank-logistic".
type LowRankLogisticParams struct {
	N            int     `toml:"n"`             // rows; 0 means 5000
	D            int     `toml:"d"`             // features; 0 means 200
	K            int     `toml:"k"`             // number of large eigenvalues; 0 means 5
	TailFraction float64 `toml:"tail_fraction"` // Σ_{i>k} λ_i / trace; 0 means 0.05
	MeanSqNorm   float64 `toml:"mean_sq_norm"`  // E‖x‖² before clipping (the trace); 0 means 0.8
	Temperature  float64 `toml:"temperature"`   // P(y = 1 | x) = σ(⟨θ*, x⟩/T); 0 means 0.1
	Seed         uint64  `toml:"seed"`
}

func (p LowRankLogisticParams) withDefaults() LowRankLogisticParams {
	p.N, p.D, p.K = orDefault(p.N, 5000), orDefault(p.D, 200), orDefault(p.K, 5)
	p.TailFraction, p.MeanSqNorm, p.Temperature = orDefault(p.TailFraction, 0.05), orDefault(p.MeanSqNorm, 0.8), orDefault(p.Temperature, 0.1)
	return p
}

func (p LowRankLogisticParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p LowRankLogisticParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if q.D > 4000 {
		return fmt.Errorf("d = %d: at most 4000 (the generator builds a d × d rotation)", q.D)
	}
	if q.K < 1 || q.K >= q.D {
		return fmt.Errorf("k = %d: must be in 1..d−1 = %d (0 means 5)", q.K, q.D-1)
	}
	if !(q.TailFraction > 0 && q.TailFraction < 1) {
		return fmt.Errorf("tail_fraction = %v: must be in (0, 1) (0 means 0.05)", q.TailFraction)
	}
	if err := checkPositive("mean_sq_norm", q.MeanSqNorm); err != nil {
		return err
	}
	return checkPositive("temperature", q.Temperature)
}

func init() {
	Register(Info{
		Name:  "lowrank-logistic",
		Title: "Approximately low-rank logistic data (Hu et al. Fig. 3)",
		Description: "preprocessing.md §6 spec F3 (the paper gives no details): x = U diag(√λ) z, z ~ N(0, I_d), U a random " +
			"rotation, k = 5 equal top eigenvalues λ = 0.8·0.95/5 = 0.152 and d − k equal tail eigenvalues summing to " +
			"0.8·0.05 (E‖x‖² = 0.8, eigengap δ₅ ≈ 0.15 before clipping); rows centred by their sample mean, then clipped to " +
			"the unit ball (the privacy domain ‖x‖ ≤ 1 wins over exact centring); labels y = 1 with probability " +
			"σ(⟨θ*, x⟩/0.1), θ* a unit vector in the span of the top k directions; labels {0, 1}. n = 5000, d = 200. " +
			"Deterministic from seed.",
		Task: Binary, Synthetic: true, Papers: []string{"HSS24 Fig. 3"},
		License: "generated; no restriction", Source: "dplab, following preprocessing.md §3.2 and §6 (F3)",
		Rows: 5000, Cols: 200,
	}, func(_ string, p LowRankLogisticParams) (*Loaded, error) {
		return &Loaded{All: generateLowRankLogistic(p.withDefaults())}, nil
	}, LowRankLogisticParams{N: 300, D: 10, K: 2})
}

// generateLowRankLogistic draws U, θ*'s coordinates, the rows, then the labels.
func generateLowRankLogistic(p LowRankLogisticParams) *Dataset {
	r := generatorRand("lowrank-logistic", p.Seed)
	u := randomOrthonormal(r, p.D, p.D)
	top := p.MeanSqNorm * (1 - p.TailFraction) / float64(p.K)
	tail := p.MeanSqNorm * p.TailFraction / float64(p.D-p.K)
	// Scale U's columns by √λ: x = (U diag √λ) z.
	for j := 0; j < p.D; j++ {
		s := math.Sqrt(tail)
		if j < p.K {
			s = math.Sqrt(top)
		}
		for i := 0; i < p.D; i++ {
			u.Set(i, j, u.At(i, j)*s)
		}
	}
	v := UnitVector(r, p.K)
	theta := make([]float64, p.D)
	for j := 0; j < p.K; j++ {
		for i := 0; i < p.D; i++ {
			theta[i] += v[j] * u.At(i, j) / math.Sqrt(top)
		}
	}
	x := mat.NewDense(p.N, p.D, nil)
	x.Mul(mat.NewDense(p.N, p.D, gaussianMatrix(r, p.N, p.D)), u.T())
	d := &Dataset{Name: "lowrank-logistic", Task: Binary, X: x, Y: make([]float64, p.N)}
	mean, _ := columnMoments(d, 0)
	standardize(d, mean, ones(p.D))
	scaleRows(d, func(norm float64) float64 { return math.Min(1, 1/norm) })
	for i := range d.Y {
		if r.Float64() < sigmoid(floats.Dot(x.RawRowView(i), theta)/p.Temperature) {
			d.Y[i] = 1
		}
	}
	return d
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}
