package preprocess

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// LinRegImputer fills the missing values of a row by least squares on its
// observed features ([HSS24] App. C.2, Table 3: f(x) = x_rᵀ(X_rᵀX_r)⁻¹X_rᵀX_j,
// no intercept). The models are fitted on the complete rows of S
// (preprocessing.md D6): for a row observing the features O and missing M,
// β = G_OO⁻¹ G_OM with G = X_CᵀX_C the d × d Gram matrix of the complete rows
// C, and x_M = x_Oᵀβ. A row missing every feature is filled with zeros.
type LinRegImputer struct{}

// Name implements Preprocessor.
func (LinRegImputer) Name() string { return "impute-linreg" }

// String implements Preprocessor.
func (LinRegImputer) String() string { return "impute-linreg" }

// RowLipschitz implements Preprocessor: ‖β‖ per imputed value (bounded by
// the collection's λ_min, not by a constant); Chain runs imputers first only.
func (LinRegImputer) RowLipschitz() float64 { return math.Inf(1) }

// OutputDiameter implements Preprocessor: imputed rows may leave the unit ball.
func (LinRegImputer) OutputDiameter() float64 { return math.Inf(1) }

// Fit implements Preprocessor. It needs the restriction G_OO of the complete
// rows' Gram matrix to every observed set O of S to be positive definite.
// Observed records λ_min and λ_max of G (λ_min(G_OO) ≥ λ_min(G) by interlacing).
func (p LinRegImputer) Fit(x *mat.Dense) (Fitted, error) {
	s, err := scanMissing(p.String(), x)
	if err != nil {
		return nil, err
	}
	var complete []int
	for i, m := range s.miss {
		if m == nil {
			complete = append(complete, i)
		}
	}
	if len(complete) == 0 {
		return nil, fmt.Errorf("preprocess: %s: no complete row to fit the regressions on", p)
	}
	xc := mat.NewDense(len(complete), s.d, nil)
	for r, i := range complete {
		xc.SetRow(r, x.RawRowView(i))
	}
	g := mat.NewSymDense(s.d, nil)
	g.SymOuterK(1, xc.T())
	var eig mat.EigenSym
	if !eig.Factorize(g, false) {
		return nil, fmt.Errorf("preprocess: %s: eigendecomposition of the complete rows' Gram matrix failed", p)
	}
	ev := eig.Values(nil)
	obs := s.baseObserved()
	obs.LambdaMin, obs.LambdaMax = measured(ev[0]), measured(ev[len(ev)-1])
	models := &linRegModels{g: g, beta: map[string]*mat.Dense{}}
	for _, m := range s.miss {
		if m != nil {
			if _, err := models.model(m); err != nil {
				return nil, fmt.Errorf("preprocess: %s: %w", p, err)
			}
		}
	}
	frozen := models.beta // read-only from here: Transform solves unseen patterns without caching
	fill := func(row []float64, miss []int) error {
		b, ok := frozen[patternKey(miss)]
		if !ok {
			var err error
			if b, err = (&linRegModels{g: g, beta: map[string]*mat.Dense{}}).model(miss); err != nil {
				return err
			}
		}
		return predict(row, miss, b)
	}
	return newImputeFit(p.String(), x, s, obs, []field{fieldN, fieldMissing, fieldImputed, fieldLambdaMin, fieldLambdaMax}, fill)
}

// linRegModels caches β per missingness pattern.
type linRegModels struct {
	g    *mat.SymDense
	beta map[string]*mat.Dense // |O| × |M|; nil when O is empty
}

// patternKey is the map key of a missingness pattern: its indices, each
// followed by a space (strconv, not fmt.Sprint: this runs for every
// incomplete row of every fit).
func patternKey(miss []int) string {
	b := make([]byte, 0, 3*len(miss))
	for _, j := range miss {
		b = append(strconv.AppendInt(b, int64(j), 10), ' ')
	}
	return string(b)
}

// model returns β = G_OO⁻¹ G_OM for the missing features miss.
func (l *linRegModels) model(miss []int) (*mat.Dense, error) {
	key := patternKey(miss)
	if b, ok := l.beta[key]; ok {
		return b, nil
	}
	d := l.g.SymmetricDim()
	var obs []int
	for j := 0; j < d; j++ {
		if !slices.Contains(miss, j) {
			obs = append(obs, j)
		}
	}
	if len(obs) == 0 {
		l.beta[key] = nil
		return nil, nil
	}
	goo := mat.NewSymDense(len(obs), nil)
	for a, i := range obs {
		for b, j := range obs[a:] {
			goo.SetSym(a, a+b, l.g.At(i, j))
		}
	}
	gom := mat.NewDense(len(obs), len(miss), nil)
	for a, i := range obs {
		for b, j := range miss {
			gom.Set(a, b, l.g.At(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(goo) {
		return nil, fmt.Errorf("the complete rows' Gram matrix on the observed features %v is not positive definite: too few complete rows", obs)
	}
	var b mat.Dense
	if err := ch.SolveTo(&b, gom); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return nil, err
		}
	}
	l.beta[key] = &b
	return &b, nil
}

// predict writes x_M = x_Oᵀβ into row.
func predict(row []float64, miss []int, b *mat.Dense) error {
	if b == nil {
		for _, j := range miss {
			row[j] = 0
		}
		return nil
	}
	xo := make([]float64, 0, len(row)-len(miss))
	for j, v := range row {
		if !slices.Contains(miss, j) {
			xo = append(xo, v)
		}
	}
	for c, j := range miss {
		var s float64
		for a, v := range xo {
			s += v * b.At(a, c)
		}
		row[j] = s
	}
	return nil
}

// Sensitivity implements Preprocessor. Δ_∞ = p in both modes.
//
// Paper mode, [HSS24] Table 3 (Prop. 15's proof: Sherman–Morrison and
// interlacing), per imputed value:
//
//	Δ_2 = λ_max²/((λ_max + 1)·λ_min²) + 1/λ_min
//
// λ_min, λ_max the extreme eigenvalues of XᵀX over the complete rows of any
// dataset in 𝓛.
//
// Safe mode [derived, this package], per row imputing up to m values:
//
//	Δ_2 = √m · (1/λ_min) · (1 + √(n/λ_min))
//
// Proof: with G, c = X_Oᵀy on S₁ and G′, c′ on S₂ (one row (a, t) of the fit
// swapped, dropped or added), β − β′ = G⁻¹(c − c′) + G⁻¹(G′ − G)β′;
// ‖c − c′‖ ≤ |t₁|‖a₁‖ + |t₂|‖a₂‖ ≤ 1 and ‖G′ − G‖ ≤ max ‖aᵢ‖² ≤ 1 for rows in
// the unit ball, ‖β′‖ ≤ ‖y′‖/√λ_min(G′) ≤ √(n/λ_min), and a regressor row has
// norm ≤ 1; λ_min(G_OO) ≥ λ_min(G) by interlacing.
func (p LinRegImputer) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	s, err := imputeSensitivity(p.String(), c, m)
	if err != nil {
		return s, err
	}
	if !(c.LambdaMin > 0) || math.IsInf(c.LambdaMin, 0) {
		return Sensitivity{}, fmt.Errorf("preprocess: %s: lambda_min = %v: declare a finite λ_min(XᵀX) > 0 of the complete rows", p, c.LambdaMin)
	}
	lmin := c.LambdaMin
	switch m {
	case Paper:
		lmax := c.LambdaMax
		if !(lmax >= lmin) || math.IsInf(lmax, 0) {
			return Sensitivity{}, fmt.Errorf("preprocess: %s: lambda_max = %v: paper mode needs a finite λ_max ≥ λ_min = %v", p, lmax, lmin)
		}
		s.Delta2 = lmax*lmax/((lmax+1)*lmin*lmin) + 1/lmin
		s.Formula = fmt.Sprintf("Δ_2 = λ_max²/((λ_max+1)λ_min²) + 1/λ_min = %.6g (λ_min = %.6g, λ_max = %.6g), Δ_∞ = p = %d", s.Delta2, lmin, lmax, c.MaxMissingRows)
		s.Ref = "[HSS24] Table 3, Prop. 15 (per imputed value)"
	case Safe:
		mf, err := imputedFeatures(p.String(), c)
		if err != nil {
			return Sensitivity{}, err
		}
		s.Delta2 = math.Sqrt(float64(mf)) * (1 + math.Sqrt(float64(c.N)/lmin)) / lmin
		s.Formula = fmt.Sprintf("Δ_2 = √m(1 + √(n/λ_min))/λ_min = %.6g (m = %d, n = %d, λ_min = %.6g), Δ_∞ = p = %d", s.Delta2, mf, c.N, lmin, c.MaxMissingRows)
		s.Ref = "derived in datasets/preprocess (perturbation of the normal equations); replaces [HSS24] Table 3's entry"
		s.Derived = true
	}
	return s, nil
}
