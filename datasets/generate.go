package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/floats"
)

// maxCells caps n·d of a file whose header states its dimensions (LibSVM,
// IDX): a damaged header must not make the reader allocate without bound.
const maxCells = 100_000_000

// generatorRand returns the random stream of generator name at seed: ChaCha8
// keyed by SHA-256("dplab/datasets", name, seed). Nothing else feeds it, so a
// generated dataset is a pure function of (name, params).
func generatorRand(name string, seed uint64) *rand.Rand {
	return rngs.Derive("dplab/datasets", name, strconv.FormatUint(seed, 10)).Rand()
}

// orDefault returns v, or def when v is zero.
func orDefault[T int | float64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// checkShape validates generator sizes n and d (after defaults). Their
// memory is bounded where a spec is checked (Entry.Shape against
// --max-data-bytes), not here.
func checkShape(n, d int) error {
	switch {
	case n < 1:
		return fmt.Errorf("n = %d: must be ≥ 1 (0 means the default)", n)
	case d < 1:
		return fmt.Errorf("d = %d: must be ≥ 1 (0 means the default)", d)
	case float64(n)*float64(d+1) > math.MaxInt64/8:
		return fmt.Errorf("n·d = %d·%d: too large to address", n, d)
	}
	return nil
}

// checkPositive validates a float parameter that must be > 0 after defaults.
func checkPositive(key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s = %v: must be a finite number > 0 (0 means the default)", key, v)
	}
	return nil
}

// UnitVector returns a vector uniform on the unit sphere S^{d-1}
// (a normalised standard Gaussian vector).
func UnitVector(r *rand.Rand, d int) []float64 {
	v := make([]float64, d)
	for {
		for i := range v {
			v[i] = r.NormFloat64()
		}
		if n := floats.Norm(v, 2); n > 0 {
			floats.Scale(1/n, v)
			return v
		}
	}
}

// gaussianMatrix returns n·d i.i.d. N(0, 1) values, row-major.
func gaussianMatrix(r *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

// sigmoid is the logistic function 1/(1+e^{−t}).
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}
