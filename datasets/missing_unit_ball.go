package datasets

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// MissingUnitBallParams are the params of "missing-unit-ball".
type MissingUnitBallParams struct {
	N               int     `toml:"n"`                // rows; 0 means 1000
	D               int     `toml:"d"`                // features; 0 means 5
	MissingFraction float64 `toml:"missing_fraction"` // fraction of rows with missing features; 0 means 0.1; p = round(fraction·n) ≤ n − 1
	FeaturesPerRow  int     `toml:"features_per_row"` // missing features in each such row; 0 means 1; ≤ d
	Noise           float64 `toml:"noise"`            // sd of the target noise; 0 means 0.1
	Seed            uint64  `toml:"seed"`
}

func (p MissingUnitBallParams) withDefaults() MissingUnitBallParams {
	p.N, p.D, p.FeaturesPerRow = orDefault(p.N, 1000), orDefault(p.D, 5), orDefault(p.FeaturesPerRow, 1)
	p.MissingFraction, p.Noise = orDefault(p.MissingFraction, 0.1), orDefault(p.Noise, 0.1)
	return p
}

func (p MissingUnitBallParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// MissingRows returns p = round(missing_fraction · n), the number of rows with
// missing features (defaults applied).
func (p MissingUnitBallParams) MissingRows() int {
	q := p.withDefaults()
	return int(math.Round(q.MissingFraction * float64(q.N)))
}

// Validate implements Params.
func (p MissingUnitBallParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	if !(q.MissingFraction > 0 && q.MissingFraction < 1) {
		return fmt.Errorf("missing_fraction = %v: must be in (0, 1) (0 means 0.1)", q.MissingFraction)
	}
	if m := q.MissingRows(); m > q.N-1 {
		return fmt.Errorf("missing_fraction = %v: round(%v·%d) = %d rows with missing features, at most n − 1 = %d (every feature needs an observed value)",
			q.MissingFraction, q.MissingFraction, q.N, m, q.N-1)
	}
	if q.FeaturesPerRow < 1 || q.FeaturesPerRow > q.D {
		return fmt.Errorf("features_per_row = %d: must be in 1..d = %d (0 means 1)", q.FeaturesPerRow, q.D)
	}
	return checkPositive("noise", q.Noise)
}

func init() {
	Register(Info{
		Name:  "missing-unit-ball",
		Title: "Gaussian rows in the unit ball with missing features (imputation probes)",
		Description: "preprocessing.md §6 spec T3 (generator gaussian_unit_ball): rows x ~ N(0, I_d/d) clipped to the unit " +
			"ball (d = 5, n = 1000), target y = ⟨θ, x⟩ + 0.1·N(0, 1) with θ uniform on the unit sphere; p = round(missing_fraction·n) " +
			"rows (missing_fraction = 0.1), uniform without replacement, miss features_per_row = 1 features each, uniform without " +
			"replacement (missing completely at random). A dataset holds finite features only, so this one is the complete " +
			"rows; the imputation probes (table kind probes) use the same rows with the missing cells blanked for their " +
			"imputers. The complete rows do not depend on missing_fraction " +
			"or features_per_row. Deterministic from seed.",
		Task: Regression, Synthetic: true, Papers: []string{"HSS24 Table 3 (probes)"},
		License: "generated; no restriction", Source: "dplab, following preprocessing.md §6 (T3)",
		Rows: 1000, Cols: 5,
	}, func(_ string, p MissingUnitBallParams) (*Loaded, error) {
		d, _, err := GenerateMissingUnitBall(p)
		if err != nil {
			return nil, err
		}
		return &Loaded{All: d}, nil
	}, MissingUnitBallParams{N: 50, D: 3, MissingFraction: 0.2, FeaturesPerRow: 2})
}

// GenerateMissingUnitBall returns the complete rows of "missing-unit-ball"
// with params p (defaults applied, validated) and, per row, the sorted
// indices of its missing features (nil for a complete row). Exactly
// p.MissingRows() rows have missing features, each exactly features_per_row.
// The rows, θ and the targets are drawn before the missingness, so they do
// not depend on missing_fraction or features_per_row.
func GenerateMissingUnitBall(p MissingUnitBallParams) (*Dataset, [][]int, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	p = p.withDefaults()
	r := generatorRand("missing-unit-ball", p.Seed)
	x := mat.NewDense(p.N, p.D, gaussianMatrix(r, p.N, p.D))
	x.Scale(1/math.Sqrt(float64(p.D)), x)
	d := &Dataset{Name: "missing-unit-ball", Task: Regression, X: x, Y: make([]float64, p.N)}
	scaleRows(d, func(norm float64) float64 { return math.Min(1, 1/norm) })
	theta := UnitVector(r, p.D)
	for i := range d.Y {
		d.Y[i] = floats.Dot(x.RawRowView(i), theta) + p.Noise*r.NormFloat64()
	}
	missing := make([][]int, p.N)
	for _, i := range r.Perm(p.N)[:p.MissingRows()] {
		f := r.Perm(p.D)[:p.FeaturesPerRow]
		slices.Sort(f)
		missing[i] = f
	}
	return d, missing, nil
}
