package datasets

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// IJCNN1LikeParams are the params of "ijcnn1-like".
type IJCNN1LikeParams struct {
	N        int     `toml:"n"`        // rows; 0 means 5000
	D        int     `toml:"d"`        // features; 0 means 22 (ijcnn1's)
	Positive float64 `toml:"positive"` // population rate of label +1; 0 means 0.096 (ijcnn1's 13,565/141,691 ≈ 0.0957)
	Seed     uint64  `toml:"seed"`
}

func (p IJCNN1LikeParams) withDefaults() IJCNN1LikeParams {
	p.N, p.D, p.Positive = orDefault(p.N, 5000), orDefault(p.D, 22), orDefault(p.Positive, 0.096)
	return p
}

func (p IJCNN1LikeParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p IJCNN1LikeParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if !(q.Positive > 0 && q.Positive < 1) {
		return fmt.Errorf("positive = %v: must be in (0, 1) (0 means 0.096)", q.Positive)
	}
	return nil
}

func init() {
	Register(Info{
		Name:  "ijcnn1-like",
		Title: "ijcnn1-like synthetic stand-in for RGM tests",
		Description: "rgm.md §6 item 22: x = Az/√d with z ~ N(0, I_d) and A an i.i.d. N(0, 1) d × d matrix (a random " +
			"covariance AAᵀ/d), d = 22; label sign(wᵀx + b₀) with w uniform on the unit sphere and b₀ = −Φ⁻¹(1 − p)·√(wᵀAAᵀw/d), " +
			"so that a fraction p = 0.096 of the population is positive (ijcnn1's rate). Labels ±1 as real targets, like ijcnn1. " +
			"Deterministic from seed.",
		Task: Regression, Synthetic: true, Papers: []string{"HMB23 (CI stand-in for ijcnn1)"},
		License: "generated; no restriction", Source: "dplab, following rgm.md §6 item 22",
		Rows: 5000, Cols: 22,
	}, func(_ string, p IJCNN1LikeParams) (*Loaded, error) {
		return &Loaded{All: generateIJCNN1Like(p.withDefaults())}, nil
	}, IJCNN1LikeParams{N: 200, D: 4, Positive: 0.3})
}

// normalQuantile is Φ⁻¹(p) = √2 · erf⁻¹(2p − 1).
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// generateIJCNN1Like draws A, w, then the rows.
func generateIJCNN1Like(p IJCNN1LikeParams) *Dataset {
	r := generatorRand("ijcnn1-like", p.Seed)
	a := mat.NewDense(p.D, p.D, gaussianMatrix(r, p.D, p.D))
	a.Scale(1/math.Sqrt(float64(p.D)), a)
	w := UnitVector(r, p.D)
	// wᵀx = (Aᵀw)ᵀz ~ N(0, ‖Aᵀw‖²): the threshold puts mass p above it.
	var atw mat.VecDense
	atw.MulVec(a.T(), mat.NewVecDense(p.D, w))
	b0 := -normalQuantile(1-p.Positive) * mat.Norm(&atw, 2)
	x := mat.NewDense(p.N, p.D, nil)
	x.Mul(mat.NewDense(p.N, p.D, gaussianMatrix(r, p.N, p.D)), a.T())
	y := make([]float64, p.N)
	for i := range y {
		y[i] = -1
		if floats.Dot(x.RawRowView(i), w)+b0 > 0 {
			y[i] = 1
		}
	}
	return &Dataset{Name: "ijcnn1-like", Task: Regression, X: x, Y: y}
}
