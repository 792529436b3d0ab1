package preprocess

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Mode selects which bound a Sensitivity reports.
type Mode string

const (
	// Paper is the bound as the paper states it (Prop. 3, Cor. 4, Table 3,
	// Prop. 5, Table 2's constants), used to reproduce its numbers.
	Paper Mode = "paper"
	// Safe is the bound with the errata of preprocessing.md applied and the
	// gaps this package found closed: the one to use for guarantees.
	Safe Mode = "safe"
)

func (m Mode) check() error {
	if m != Paper && m != Safe {
		return fmt.Errorf("preprocess: mode %q: want %q or %q", m, Paper, Safe)
	}
	return nil
}

// Collection declares the dataset collection 𝓛 that a sensitivity is stated
// over ([HSS24] Def. 4, "conditional sensitivities"). Its values come from the
// caller (a spec), never from the private data: a guarantee computed from
// them is conditional on every dataset in 𝓛 — both neighbours, and for a
// Chain every hybrid of two pre-processed neighbours — satisfying them.
// A fitted pre-processor reports the same quantities as read from the data
// (Fitted.Observed) so the caller can refuse when the data violate them
// (Fitted.Check, preprocessing.md §4.5 rule 6). Each pre-processor reads
// only the fields its bound needs; a zero value means "not declared".
type Collection struct {
	N        int    `toml:"n"`        // n, the rows of every dataset in 𝓛 (the larger one under add/remove); required
	Relation string `toml:"relation"` // accounting.RelationReplaceOne (default when empty) or accounting.RelationAddRemove

	// Deduplication and quantization.
	MaxCluster int `toml:"max_cluster"` // b: the largest good cluster |B| of any dataset in 𝓛 (paper mode)
	MaxLocal   int `toml:"max_local"`   // m: the most rows of a dataset in 𝓛 within 4η of any point (safe mode; 0: the trivial n − 1)

	// Imputation.
	MaxMissingRows     int       `toml:"max_missing_rows"`     // p: rows with at least one missing value in any dataset in 𝓛
	MaxImputedFeatures int       `toml:"max_imputed_features"` // the most missing features in one row (median, trimmed mean, regression; safe mode)
	OrderBand          []float64 `toml:"order_band"`           // [lo, hi] holding every median (median) or retained order statistic (trimmed mean) of every feature
	LambdaMin          float64   `toml:"lambda_min"`           // λ_min of XᵀX over the complete rows (regression imputation)
	LambdaMax          float64   `toml:"lambda_max"`           // λ_max of XᵀX over the complete rows (regression imputation, paper mode)

	// PCA (eigenvalues of the centred covariance with 1/(n−1), largest first).
	GapK       float64 `toml:"gap_k"`       // δ^k_min = min over 𝓛 of λ_k − λ_{k+1}
	Gap1       float64 `toml:"gap_1"`       // δ^1_min = min over 𝓛 of λ_1 − λ_2 (rank reduction, safe mode)
	GapAll     float64 `toml:"gap_all"`     // min over 𝓛 and i ≤ k of λ_i − λ_{i+1} (dimension reduction, safe mode)
	SignMargin float64 `toml:"sign_margin"` // min over 𝓛 and i ≤ k of |⟨v_i, 1⟩|/√d (dimension reduction, safe mode)
}

func (c Collection) relation() string {
	if c.Relation == "" {
		return accounting.RelationReplaceOne
	}
	return c.Relation
}

// checkBase validates the fields every bound needs: n ≥ 2 and a known relation.
func (c Collection) checkBase(name string, addRemove bool) error {
	if c.N < 2 {
		return fmt.Errorf("preprocess: %s: collection n = %d: must be ≥ 2", name, c.N)
	}
	switch c.relation() {
	case accounting.RelationReplaceOne:
	case accounting.RelationAddRemove:
		if !addRemove {
			return fmt.Errorf("preprocess: %s: relation %q: no sensitivity is derived for add/remove neighbours ([HSS24] footnote 4 covers deduplication and quantization only)", name, c.Relation)
		}
	default:
		return fmt.Errorf("preprocess: %s: relation %q: want %q or %q", name, c.Relation, accounting.RelationReplaceOne, accounting.RelationAddRemove)
	}
	return nil
}

// band returns the declared order band.
func (c Collection) band(name string) (lo, hi float64, err error) {
	if len(c.OrderBand) != 2 || !(c.OrderBand[0] <= c.OrderBand[1]) || math.IsInf(c.OrderBand[0], 0) || math.IsInf(c.OrderBand[1], 0) {
		return 0, 0, fmt.Errorf("preprocess: %s: order_band = %v: declare [lo, hi], finite, lo ≤ hi", name, c.OrderBand)
	}
	return c.OrderBand[0], c.OrderBand[1], nil
}

// Merge returns the smallest collection holding both a and b: counts and
// λ_max are maxima, gaps, λ_min and the sign margin minima (a zero, "not
// declared", is ignored), the order bands their hull. The probes bound each
// neighbouring pair by Merge(Observed(S₁), Observed(S₂)).
func Merge(a, b Collection) Collection {
	minNZ := func(x, y float64) float64 {
		switch {
		case x == 0:
			return y
		case y == 0:
			return x
		}
		return math.Min(x, y)
	}
	m := Collection{
		N: max(a.N, b.N), Relation: a.Relation,
		MaxCluster: max(a.MaxCluster, b.MaxCluster), MaxLocal: max(a.MaxLocal, b.MaxLocal),
		MaxMissingRows: max(a.MaxMissingRows, b.MaxMissingRows), MaxImputedFeatures: max(a.MaxImputedFeatures, b.MaxImputedFeatures),
		LambdaMin: minNZ(a.LambdaMin, b.LambdaMin), LambdaMax: math.Max(a.LambdaMax, b.LambdaMax),
		GapK: minNZ(a.GapK, b.GapK), Gap1: minNZ(a.Gap1, b.Gap1), GapAll: minNZ(a.GapAll, b.GapAll),
		SignMargin: minNZ(a.SignMargin, b.SignMargin),
	}
	if m.Relation == "" {
		m.Relation = b.Relation
	}
	switch {
	case len(a.OrderBand) != 2:
		m.OrderBand = slices.Clone(b.OrderBand)
	case len(b.OrderBand) != 2:
		m.OrderBand = slices.Clone(a.OrderBand)
	default:
		m.OrderBand = []float64{math.Min(a.OrderBand[0], b.OrderBand[0]), math.Max(a.OrderBand[1], b.OrderBand[1])}
	}
	return m
}

// measured stores a realised gap, eigenvalue or margin: positive values as
// they are, non-positive ones nudged below zero so that zero keeps meaning
// "not measured" (Merge, Check).
func measured(v float64) float64 {
	if v > 0 {
		return v
	}
	return v - 1e-300
}

// Sensitivity is a pre-processor's (Δ_∞, Δ_2) over a declared collection
// ([HSS24] Def. 4, Eq. 2): for neighbours S₁ = S ∪ {z₁}, S₂ = S ∪ {z₂} in 𝓛
// (add/remove: S₁ = S ∪ {z}, S₂ = S), at most DeltaInf rows x of S have
// π_{S₁}(x) ≠ π_{S₂}(x), and each moves by ‖π_{S₁}(x) − π_{S₂}(x)‖₂ ≤ Delta2.
// A removed row (deduplication) is the origin (preprocessing.md D3).
type Sensitivity struct {
	Preprocessor string  // its String(), e.g. "quantize[eta=0.1]"
	Mode         Mode    // paper or safe
	Relation     string  // accounting.RelationReplaceOne or accounting.RelationAddRemove
	DeltaInf     int     // Δ_∞: rows of S mapped differently
	Delta2       float64 // Δ_2: largest move of one row, L2
	Formula      string  // the formula with its values, e.g. "Δ_2 = 2η = 0.2, Δ_∞ = 2b = 40"
	Ref          string  // the result and the erratum applied
	Derived      bool    // the bound is derived in this package or preprocessing.md, not stated by the paper
}

// Tau returns τ = Δ_2·Δ_∞, the L12 distance between π_{S₂}(S) ∪ {π_{S₁}(z₁)} and
// π_{S₁}(S₁) that Theorem 2's SRDP term is evaluated at ([HSS24] §3, Def. 4).
func (s Sensitivity) Tau() float64 { return s.Delta2 * float64(s.DeltaInf) }

// TauFrobenius returns Δ_2·√Δ_∞, the Frobenius distance between the same
// datasets (preprocessing.md §2.6, footnote 3 of [HSS24]; for mechanisms
// whose SRDP proof goes through the Frobenius norm).
func (s Sensitivity) TauFrobenius() float64 { return s.Delta2 * math.Sqrt(float64(s.DeltaInf)) }

// Output is π_S(S): the pre-processed rows of S in their original order.
// Deduplication keeps n fixed: a removed row is zero in X and marked in
// Removed (preprocessing.md D3; it contributes nothing to sums and GLM
// gradients, whose normalisation stays n).
type Output struct {
	X       *mat.Dense // n × d′ (d′ = k for PCA dimension reduction)
	Removed []bool     // len n; nil when the pre-processor removes nothing
}

// Kept returns the number of rows not removed.
func (o *Output) Kept() int {
	n, _ := o.X.Dims()
	for _, r := range o.Removed {
		if r {
			n--
		}
	}
	return n
}

// Dataset returns a copy of src with X replaced by o.X (labels are never
// pre-processed, preprocessing.md D2). With drop, removed rows are left
// out; without, they stay as zero rows with their labels (fixed n, D3 — a
// mechanism whose statistics read labels alone, such as yᵀy, must drop them).
func (o *Output) Dataset(src *datasets.Dataset, drop bool) (*datasets.Dataset, error) {
	n, _ := o.X.Dims()
	if src.Rows() != n {
		return nil, fmt.Errorf("preprocess: output has %d rows, dataset %s %d", n, src.Name, src.Rows())
	}
	keep := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if !drop || o.Removed == nil || !o.Removed[i] {
			keep = append(keep, i)
		}
	}
	out := (&datasets.Dataset{Name: src.Name, Task: src.Task, X: o.X, Y: src.Y}).Subset(keep)
	if _, c := o.X.Dims(); c != src.Cols() {
		out.Features = nil
	} else {
		out.Features = src.Features
	}
	return out, nil
}

// Fitted is π_S: a pre-processor fitted on the rows of S.
type Fitted interface {
	// Output returns π_S(S). Callers must not modify it.
	Output() *Output
	// Transform applies π_S to other rows (a test set): PCA projects,
	// imputers fill with the fitted model, deduplication and quantization
	// leave them unchanged (they clean the training rows only).
	Transform(x *mat.Dense) (*mat.Dense, error)
	// Observed returns the collection parameters read from S — the smallest
	// collection holding S. They are diagnostics, never a guarantee's
	// parameters (preprocessing.md §4.5 rule 1).
	Observed() Collection
	// Check returns a *ViolationError when S violates the declared
	// collection c (fields c leaves at zero are not checked).
	Check(c Collection) error
	// Diagnostics returns Observed as named numbers for records
	// (diagnostics_nonprivate).
	Diagnostics() map[string]float64
}

// Preprocessor is a data-dependent pre-processing algorithm π ([HSS24] §3):
// Fit reads the features of S (never the labels, D2) and returns π_S,
// applied row-wise to S. Rows must lie in the unit ball (ClipRows, D2);
// NaN marks a missing value and only imputers accept it.
type Preprocessor interface {
	Name() string   // "dedup", "quantize", "impute-mean", …, "pca-rank", "pca-dim"
	String() string // with its parameters: "dedup[eta=0.1]"
	Fit(x *mat.Dense) (Fitted, error)
	// Sensitivity returns (Δ_∞, Δ_2) over the declared collection c.
	Sensitivity(c Collection, m Mode) (Sensitivity, error)
	// RowLipschitz is the Lipschitz constant of a fitted π_S in its input
	// row (+Inf when π_S is not continuous, as deduplication); Chain uses it.
	RowLipschitz() float64
	// OutputDiameter bounds ‖π_S(x) − π_{S′}(x′)‖ for any two outputs
	// (+Inf when unbounded); Chain uses it.
	OutputDiameter() float64
}

// ClipRows returns a copy of x with every row projected onto the unit ball,
// x/max(1, ‖x‖₂): the data-independent map that puts the data in the domain
// every bound assumes ([HSS24] §4, preprocessing.md D2). NaN entries (missing
// values) are left out of the norm and kept.
func ClipRows(x *mat.Dense) *mat.Dense {
	c := mat.DenseCopyOf(x)
	r, _ := c.Dims()
	for i := 0; i < r; i++ {
		row := c.RawRowView(i)
		if nrm := observedNorm(row); nrm > 1 {
			for j, v := range row {
				if !math.IsNaN(v) {
					row[j] = v / nrm
				}
			}
		}
	}
	return c
}

// observedNorm returns the L2 norm of the non-NaN entries of row.
func observedNorm(row []float64) float64 {
	var s float64
	for _, v := range row {
		if !math.IsNaN(v) {
			s += v * v
		}
	}
	return math.Sqrt(s)
}

// unitTol is the slack on ‖x‖ ≤ 1 for rows clipped in floating point.
const unitTol = 1e-9

// checkRows validates the input of Fit: at least two rows and one column,
// finite values (NaN allowed for imputers), rows in the unit ball.
func checkRows(name string, x *mat.Dense, allowNaN bool) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("preprocess: %s: no rows", name)
	}
	n, d := x.Dims()
	if n < 2 || d < 1 {
		return fmt.Errorf("preprocess: %s: %d × %d data: need at least 2 rows and 1 feature", name, n, d)
	}
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j, v := range row {
			if math.IsInf(v, 0) || (math.IsNaN(v) && !allowNaN) {
				what := "is infinite"
				if math.IsNaN(v) {
					what = "is missing (NaN): impute first (an impute-* step)"
				}
				return fmt.Errorf("preprocess: %s: row %d, feature %d %s", name, i, j, what)
			}
		}
		if nrm := observedNorm(row); nrm > 1+unitTol {
			return fmt.Errorf("preprocess: %s: row %d has norm %.6g > 1: the bounds assume the unit ball; clip rows first (ClipRows)", name, i, nrm)
		}
	}
	return nil
}

// checkCols validates held-out rows for Transform.
func checkCols(name string, x *mat.Dense, d int, allowNaN bool) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("preprocess: %s: no rows", name)
	}
	r, c := x.Dims()
	if c != d {
		return fmt.Errorf("preprocess: %s: %d features, fitted on %d", name, c, d)
	}
	for i := 0; i < r; i++ {
		for j, v := range x.RawRowView(i) {
			if math.IsInf(v, 0) || (math.IsNaN(v) && !allowNaN) {
				return fmt.Errorf("preprocess: %s: row %d, feature %d = %v", name, i, j, v)
			}
		}
	}
	return nil
}

// field names a collection parameter a fitted pre-processor reads from S.
type field int

const (
	fieldN field = iota
	fieldMaxCluster
	fieldMaxLocal
	fieldMissing
	fieldImputed
	fieldBand
	fieldLambdaMin
	fieldLambdaMax
	fieldGapK
	fieldGap1
	fieldGapAll
	fieldSignMargin
)

// fieldInfo is a field's key, its direction, and its value in a collection.
var fieldInfo = map[field]struct {
	key string
	max bool // an upper bound (the data violate it when observed > declared); else a lower bound
	get func(Collection) float64
}{
	fieldN:          {"n", true, func(c Collection) float64 { return float64(c.N) }},
	fieldMaxCluster: {"max_cluster", true, func(c Collection) float64 { return float64(c.MaxCluster) }},
	fieldMaxLocal:   {"max_local", true, func(c Collection) float64 { return float64(c.MaxLocal) }},
	fieldMissing:    {"max_missing_rows", true, func(c Collection) float64 { return float64(c.MaxMissingRows) }},
	fieldImputed:    {"max_imputed_features", true, func(c Collection) float64 { return float64(c.MaxImputedFeatures) }},
	fieldLambdaMin:  {"lambda_min", false, func(c Collection) float64 { return c.LambdaMin }},
	fieldLambdaMax:  {"lambda_max", true, func(c Collection) float64 { return c.LambdaMax }},
	fieldGapK:       {"gap_k", false, func(c Collection) float64 { return c.GapK }},
	fieldGap1:       {"gap_1", false, func(c Collection) float64 { return c.Gap1 }},
	fieldGapAll:     {"gap_all", false, func(c Collection) float64 { return c.GapAll }},
	fieldSignMargin: {"sign_margin", false, func(c Collection) float64 { return c.SignMargin }},
}

// Violation is one declared parameter the data violate.
type Violation struct {
	Param              string // the collection key, e.g. "max_cluster"
	Declared, Observed string
	Note               string
}

// ViolationError reports that the data lie outside the declared collection:
// the conditional guarantee does not apply to them (preprocessing.md §4.5
// rule 6: refuse, or fall back to group privacy or PTR).
type ViolationError struct {
	Preprocessor string
	Violations   []Violation
}

func (e *ViolationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = fmt.Sprintf("%s = %s declared, %s observed", v.Param, v.Declared, v.Observed)
		if v.Note != "" {
			parts[i] += " (" + v.Note + ")"
		}
	}
	return fmt.Sprintf("preprocess: %s: the data violate the declared collection: %s; the conditional guarantee does not hold: refuse, or fall back to group privacy or PTR",
		e.Preprocessor, strings.Join(parts, "; "))
}

// fitBase holds what every fitted pre-processor shares.
type fitBase struct {
	name   string
	out    *Output
	obs    Collection
	fields []field
	notes  map[field]string // why an observed value is conservative
}

func (f *fitBase) Output() *Output { return f.out }
func (f *fitBase) Observed() Collection {
	o := f.obs
	o.OrderBand = slices.Clone(o.OrderBand)
	return o
}

func (f *fitBase) Check(c Collection) error {
	var vs []Violation
	for _, fl := range f.fields {
		if fl == fieldBand {
			if len(c.OrderBand) == 2 && len(f.obs.OrderBand) == 2 && (f.obs.OrderBand[0] < c.OrderBand[0] || f.obs.OrderBand[1] > c.OrderBand[1]) {
				vs = append(vs, Violation{Param: "order_band", Declared: fmt.Sprint(c.OrderBand), Observed: fmt.Sprint(f.obs.OrderBand), Note: f.notes[fl]})
			}
			continue
		}
		info := fieldInfo[fl]
		dec, obs := info.get(c), info.get(f.obs)
		if dec == 0 {
			continue
		}
		bad := obs < dec
		if info.max {
			bad = obs > dec
		}
		if fl == fieldN {
			bad = obs != dec
		}
		if bad {
			vs = append(vs, Violation{Param: info.key, Declared: fmt.Sprintf("%.6g", dec), Observed: fmt.Sprintf("%.6g", obs), Note: f.notes[fl]})
		}
	}
	if vs != nil {
		return &ViolationError{Preprocessor: f.name, Violations: vs}
	}
	return nil
}

func (f *fitBase) Diagnostics() map[string]float64 {
	m := map[string]float64{}
	for _, fl := range f.fields {
		if fl == fieldBand {
			if len(f.obs.OrderBand) == 2 {
				m["order_band_lo"], m["order_band_hi"] = f.obs.OrderBand[0], f.obs.OrderBand[1]
			}
			continue
		}
		m[fieldInfo[fl].key] = fieldInfo[fl].get(f.obs)
	}
	return m
}

// Params are the parameters of every pre-processor Build can make; each
// reads its own (zero means "required" unless stated).
type Params struct {
	Eta  float64 `toml:"eta"`  // dedup, quantize: η > 0
	K    int     `toml:"k"`    // pca-rank, pca-dim: components, 1 ≤ k < d
	Trim int     `toml:"trim"` // impute-trimmed: m values dropped at each end, ≥ 0
}

// Names lists the pre-processors Build makes.
func Names() []string {
	return []string{"dedup", "quantize", "impute-mean", "impute-median", "impute-trimmed", "impute-linreg", "pca-rank", "pca-dim"}
}

// Build returns the pre-processor called name with params p.
func Build(name string, p Params) (Preprocessor, error) {
	switch name {
	case "dedup":
		return NewDedup(p.Eta)
	case "quantize":
		return NewQuantize(p.Eta)
	case "impute-mean":
		return &MeanImputer{}, nil
	case "impute-median":
		return &MedianImputer{}, nil
	case "impute-trimmed":
		return NewTrimmedMeanImputer(p.Trim)
	case "impute-linreg":
		return &LinRegImputer{}, nil
	case "pca-rank":
		return NewPCA(p.K, false)
	case "pca-dim":
		return NewPCA(p.K, true)
	}
	return nil, fmt.Errorf("preprocess: unknown pre-processor %q (known: %s)", name, strings.Join(Names(), ", "))
}

// FitDataset fits pp on the features of ds once per dataset (Dataset.Memo,
// keyed by pp.String()): the runner shares a training set between the
// trials of a fixed split.
func FitDataset(ds *datasets.Dataset, pp Preprocessor) (Fitted, error) {
	v, err := ds.Memo("preprocess/"+pp.String(), func() (any, error) { return pp.Fit(ds.X) })
	if err != nil {
		return nil, err
	}
	return v.(Fitted), nil
}

// rowsDiffer reports whether two output rows differ in any bit pattern
// (both NaN counts as equal).
func rowsDiffer(a, b []float64) bool {
	for j := range a {
		if a[j] != b[j] && !(math.IsNaN(a[j]) && math.IsNaN(b[j])) {
			return true
		}
	}
	return false
}

// rowDistance is ‖a − b‖₂.
func rowDistance(a, b []float64) float64 { return floats.Distance(a, b, 2) }
