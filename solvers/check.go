package solvers

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Panic messages for broken internal contracts (STYLE §2.4).
const (
	badShape = "solvers: shape mismatch"
	badDim   = "solvers: dimension must be positive"
)

// checkFinite returns an error naming what and the first index holding a NaN
// or an infinity.
func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("solvers: %s[%d] = %v is not finite", what, i, x)
		}
	}
	return nil
}

// checkFiniteMatrix returns an error naming what and the first row and column
// holding a NaN or an infinity. A row whose sum (floats.Sum, gonum's SIMD
// kernel) is finite holds no NaN or infinity — either would make the sum NaN
// or infinite — so only a row whose sum is not finite (a bad entry, or an
// overflow of finite ones) is searched entry by entry.
func checkFiniteMatrix(what string, a mat.RawMatrixer) error {
	m := a.RawMatrix()
	for i := 0; i < m.Rows; i++ {
		row := m.Data[i*m.Stride : i*m.Stride+m.Cols]
		if s := floats.Sum(row); s-s == 0 {
			continue
		}
		for j, x := range row {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("solvers: %s[%d,%d] = %v is not finite", what, i, j, x)
			}
		}
	}
	return nil
}

// checkFiniteSym is checkFiniteMatrix for the upper triangle of a symmetric
// matrix (the only part gonum reads).
func checkFiniteSym(what string, a *mat.SymDense) error {
	s := a.RawSymmetric()
	for i := 0; i < s.N; i++ {
		for j := i; j < s.N; j++ {
			if x := s.Data[i*s.Stride+j]; math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("solvers: %s[%d,%d] = %v is not finite", what, i, j, x)
			}
		}
	}
	return nil
}

// checkLabels returns an error naming the first label not in {0, 1}.
func checkLabels(y []float64) error {
	for i, v := range y {
		if v != 0 && v != 1 {
			return fmt.Errorf("solvers: label y[%d] = %v, want 0 or 1", i, v)
		}
	}
	return nil
}

// checkRegularization returns an error unless lambda is finite and ≥ 0.
func checkRegularization(lambda float64) error {
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		return fmt.Errorf("solvers: regularization λ = %v must be finite and ≥ 0", lambda)
	}
	return nil
}
