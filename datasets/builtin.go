package datasets

import (
	"gonum.org/v1/gonum/floats"
)

// LinearParams are the params of "synthetic-linear".
type LinearParams struct {
	N     int     `toml:"n"`     // rows; 0 means 1000
	D     int     `toml:"d"`     // features; 0 means 10
	Noise float64 `toml:"noise"` // standard deviation of the Gaussian noise on y; 0 means 0.1
	Seed  uint64  `toml:"seed"`  // generator seed
}

func (p LinearParams) withDefaults() LinearParams {
	p.N, p.D, p.Noise = orDefault(p.N, 1000), orDefault(p.D, 10), orDefault(p.Noise, 0.1)
	return p
}

func (p LinearParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p LinearParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	return checkPositive("noise", q.Noise)
}

// LogisticParams are the params of "synthetic-logistic".
type LogisticParams struct {
	N     int     `toml:"n"`     // rows; 0 means 1000
	D     int     `toml:"d"`     // features; 0 means 10
	Noise float64 `toml:"noise"` // temperature T of P(y = 1 | x) = σ(xᵀθ/T); 0 means 0.25
	Seed  uint64  `toml:"seed"`  // generator seed
}

func (p LogisticParams) withDefaults() LogisticParams {
	p.N, p.D, p.Noise = orDefault(p.N, 1000), orDefault(p.D, 10), orDefault(p.Noise, 0.25)
	return p
}

func (p LogisticParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(q.D)}, nil
}

// Validate implements Params.
func (p LogisticParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, q.D); err != nil {
		return err
	}
	return checkPositive("noise", q.Noise)
}

func init() {
	Register(Info{
		Name:  "synthetic-linear",
		Title: "Synthetic linear regression (Gaussian features)",
		Description: "x ~ N(0, I_d), θ uniform on the unit sphere, y = xᵀθ + noise·ξ with ξ ~ N(0, 1). " +
			"Deterministic from seed; no files. The built-in data of the quickstart.",
		Task: Regression, Synthetic: true, License: "generated; no restriction",
		Source: "dplab built-in", Rows: 1000, Cols: 10, Papers: []string{"dplab quickstart"},
	}, func(_ string, p LinearParams) (*Loaded, error) {
		return &Loaded{All: generateLinear(p.withDefaults())}, nil
	}, LinearParams{N: 50, D: 3})

	Register(Info{
		Name:  "synthetic-logistic",
		Title: "Synthetic binary logistic data (Gaussian features)",
		Description: "x ~ N(0, I_d), θ uniform on the unit sphere, y ~ Bernoulli(σ(xᵀθ/noise)) in {0, 1}. " +
			"Deterministic from seed; no files.",
		Task: Binary, Synthetic: true, License: "generated; no restriction",
		Source: "dplab built-in", Rows: 1000, Cols: 10, Papers: []string{"dplab quickstart"},
	}, func(_ string, p LogisticParams) (*Loaded, error) {
		return &Loaded{All: generateLogistic(p.withDefaults())}, nil
	}, LogisticParams{N: 50, D: 3})
}

// generateLinear draws θ, then the rows of X row by row, then the noise.
func generateLinear(p LinearParams) *Dataset {
	r := generatorRand("synthetic-linear", p.Seed)
	theta := UnitVector(r, p.D)
	x := gaussianMatrix(r, p.N, p.D)
	y := make([]float64, p.N)
	for i := range y {
		y[i] = floats.Dot(x[i*p.D:(i+1)*p.D], theta) + p.Noise*r.NormFloat64()
	}
	return newDataset("synthetic-linear", Regression, p.N, p.D, x, y, nil)
}

// generateLogistic draws θ, then X, then one uniform per label.
func generateLogistic(p LogisticParams) *Dataset {
	r := generatorRand("synthetic-logistic", p.Seed)
	theta := UnitVector(r, p.D)
	x := gaussianMatrix(r, p.N, p.D)
	y := make([]float64, p.N)
	for i := range y {
		if r.Float64() < sigmoid(floats.Dot(x[i*p.D:(i+1)*p.D], theta)/p.Noise) {
			y[i] = 1
		}
	}
	return newDataset("synthetic-logistic", Binary, p.N, p.D, x, y, nil)
}
