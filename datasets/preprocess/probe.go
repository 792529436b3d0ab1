package preprocess

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dplab/dplab/mechanisms/accounting"
	"gonum.org/v1/gonum/mat"
)

// Sensitivity probes (preprocessing.md §4.6): empirical searches over
// neighbouring datasets that measure how many common rows a pre-processor
// maps differently and how far, and hold each measurement against the
// claimed bound evaluated on the smallest collection holding both
// neighbours, Merge(Observed(S₁), Observed(S₂)) — the sharpest test a bound
// stated over a collection admits. A single pair above its bound refutes
// it; a clean run confirms it only empirically.

// Swap is one pair of neighbouring datasets: S₁ is S with Z1 inserted at
// position Index, S₂ is S with Z2 inserted there (replace-one), or S itself
// when Z2 is nil (add/remove). NaN in Z1, Z2 or S marks a missing value.
type Swap struct {
	Target string     // how it was made: "random", "both-centres", "star", "missingness", …
	S      *mat.Dense // the common rows, n − 1 of them
	Z1, Z2 []float64
	Index  int // 0 ≤ Index ≤ rows of S
}

// AddRemove reports whether the swap is an add/remove pair (Z2 nil).
func (w Swap) AddRemove() bool { return w.Z2 == nil }

// Neighbours returns S₁ and S₂.
func (w Swap) Neighbours() (s1, s2 *mat.Dense) {
	s1 = w.neighbour(w.Z1)
	if w.AddRemove() {
		return s1, mat.DenseCopyOf(w.S)
	}
	return s1, w.neighbour(w.Z2)
}

// neighbour returns S with z inserted at position Index.
func (w Swap) neighbour(z []float64) *mat.Dense { return w.neighbourIn(nil, z) }

// neighbourIn is neighbour writing into *buf, grown when too small (nil:
// a new array): every cell is overwritten, so a reused buffer gives the same
// matrix as a new one.
func (w Swap) neighbourIn(buf *[]float64, z []float64) *mat.Dense {
	m, d := w.S.Dims()
	var data []float64
	if buf == nil || cap(*buf) < (m+1)*d {
		data = make([]float64, (m+1)*d)
		if buf != nil {
			*buf = data
		}
	} else {
		data = (*buf)[:(m+1)*d]
	}
	for i := 0; i < m; i++ {
		at := i
		if i >= w.Index {
			at++
		}
		copy(data[at*d:(at+1)*d], w.S.RawRowView(i))
	}
	copy(data[w.Index*d:(w.Index+1)*d], z)
	return mat.NewDense(m+1, d, data)
}

func (w Swap) check() error {
	if w.S == nil || w.S.IsEmpty() {
		return fmt.Errorf("preprocess: probe: swap %q has no common rows", w.Target)
	}
	m, d := w.S.Dims()
	if len(w.Z1) != d || (w.Z2 != nil && len(w.Z2) != d) || w.Index < 0 || w.Index > m {
		return fmt.Errorf("preprocess: probe: swap %q: |z₁| = %d, |z₂| = %d, index %d for %d × %d common rows", w.Target, len(w.Z1), len(w.Z2), w.Index, m, d)
	}
	return nil
}

// Measure is what one swap showed.
type Measure struct {
	DeltaInf int     // common rows x with π_{S₁}(x) ≠ π_{S₂}(x) (any bit)
	Delta2   float64 // max over common rows of ‖π_{S₁}(x) − π_{S₂}(x)‖₂
	Row      int     // the common row (index in S) that moved most; −1 if none moved
}

// MeasureSwap fits pp on both neighbours of w and measures Δ_∞ and Δ_2 over
// the common rows; it also returns Merge(Observed(S₁), Observed(S₂)).
func MeasureSwap(pp Preprocessor, w Swap) (Measure, Collection, error) {
	return measureSwap(pp, w, nil, nil)
}

// swapScratch holds the arrays of the neighbours one goroutine's swaps are
// built in, one after the other. A neighbour built there is read only by its
// own swap's fits, which are dropped before the next swap (an add/remove
// swap's S₂, kept in commonFit, is never built there).
type swapScratch struct{ s1, s2 []float64 }

// commonFit holds pp's fit of one dataset of common rows S: an add/remove
// swap's S₂ is S itself, shared by the swaps drawn on the same base dataset
// (reuse of them in a row), so Probe fits it once for them all. A fit is a
// deterministic function of its rows and is only read, so a swap measures
// exactly what a fit of its own would give.
type commonFit struct {
	s   *mat.Dense
	fit Fitted
	err error
}

// measureSwap is MeasureSwap; with memo non-nil an add/remove swap's S₂
// fit is taken from memo when memo holds w.S's, and stored there otherwise;
// with scratch non-nil the neighbours not kept in memo are built in it.
func measureSwap(pp Preprocessor, w Swap, memo *commonFit, scratch *swapScratch) (Measure, Collection, error) {
	if err := w.check(); err != nil {
		return Measure{}, Collection{}, err
	}
	var buf1, buf2 *[]float64
	if scratch != nil {
		buf1, buf2 = &scratch.s1, &scratch.s2
	}
	s1 := w.neighbourIn(buf1, w.Z1)
	var f2 Fitted
	var err2 error
	if memo != nil && w.AddRemove() && memo.s == w.S {
		f2, err2 = memo.fit, memo.err
	} else {
		s2 := mat.DenseCopyOf(w.S)
		if !w.AddRemove() {
			s2 = w.neighbourIn(buf2, w.Z2)
		}
		f2, err2 = pp.Fit(s2)
		if memo != nil && w.AddRemove() {
			*memo = commonFit{s: w.S, fit: f2, err: err2}
		}
	}
	f1, err := pp.Fit(s1)
	if err != nil {
		return Measure{}, Collection{}, fmt.Errorf("S₁: %w", err)
	}
	if err2 != nil {
		return Measure{}, Collection{}, fmt.Errorf("S₂: %w", err2)
	}
	o1, o2 := f1.Output().X, f2.Output().X
	m := Measure{Row: -1}
	rows, _ := w.S.Dims()
	for i := 0; i < rows; i++ {
		p1, p2 := i, i
		if i >= w.Index {
			p1 = i + 1
			if !w.AddRemove() {
				p2 = i + 1
			}
		}
		r1, r2 := o1.RawRowView(p1), o2.RawRowView(p2)
		if rowsDiffer(r1, r2) {
			m.DeltaInf++
		}
		if d := rowDistance(r1, r2); d > m.Delta2 {
			m.Delta2, m.Row = d, i
		}
	}
	c := Merge(f1.Observed(), f2.Observed())
	c.N, _ = s1.Dims()
	c.Relation = accounting.RelationReplaceOne
	if w.AddRemove() {
		c.Relation = accounting.RelationAddRemove
	}
	return m, c, nil
}

// Witness is a swap with what it showed and the bound it was held to.
type Witness struct {
	Swap        Swap
	Measure     Measure
	Collection  Collection  // Merge(Observed(S₁), Observed(S₂))
	Sensitivity Sensitivity // the bound on that collection (zero when none)
}

// String summarises the witness in one line.
func (w *Witness) String() string {
	if w == nil {
		return "none"
	}
	m, d := w.Swap.S.Dims()
	z := "z₂ absent (add/remove)"
	if !w.Swap.AddRemove() {
		z = fmt.Sprintf("‖z₁ − z₂‖ = %.4g", nanDistance(w.Swap.Z1, w.Swap.Z2))
	}
	return fmt.Sprintf("%s swap at index %d of n = %d, d = %d, %s: Δ_∞ = %d, Δ_2 = %.6g (common row %d); collection %s",
		w.Swap.Target, w.Swap.Index, m+1, d, z, w.Measure.DeltaInf, w.Measure.Delta2, w.Measure.Row, describeCollection(w.Collection))
}

// nanDistance is the L2 distance with a missing value counted as 0.
func nanDistance(a, b []float64) float64 {
	var s float64
	for j := range a {
		x, y := a[j], b[j]
		if math.IsNaN(x) {
			x = 0
		}
		if math.IsNaN(y) {
			y = 0
		}
		s += (x - y) * (x - y)
	}
	return math.Sqrt(s)
}

func describeCollection(c Collection) string {
	var parts []string
	add := func(k string, v float64) {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%.4g", k, v))
		}
	}
	add("n", float64(c.N))
	add("b", float64(c.MaxCluster))
	add("m", float64(c.MaxLocal))
	add("p", float64(c.MaxMissingRows))
	add("m_feat", float64(c.MaxImputedFeatures))
	if len(c.OrderBand) == 2 {
		parts = append(parts, fmt.Sprintf("band=[%.4g, %.4g]", c.OrderBand[0], c.OrderBand[1]))
	}
	add("λ_min", c.LambdaMin)
	add("λ_max", c.LambdaMax)
	add("δ^k", c.GapK)
	add("δ^1", c.Gap1)
	add("gap_all", c.GapAll)
	add("sign_margin", c.SignMargin)
	return "{" + strings.Join(parts, ", ") + "}"
}

// Verdict holds one bound (a mode and a quantity) against a probe run.
type Verdict struct {
	Mode      Mode
	Quantity  string // "Δ_∞" or "Δ_2"
	Refuted   bool   // some swap exceeded its bound
	Checked   int    // swaps with a finite bound in this mode
	Unbounded int    // swaps whose collection gives no bound (zero eigengap, n − p − 1 < 1, sign margin, …)
	MaxRatio  float64
	Witness   *Witness // the swap of the largest observed/bound ratio
}

// Observed and Bound return the witness's measurement and bound.
func (v Verdict) Observed() float64 {
	if v.Witness == nil {
		return 0
	}
	if v.Quantity == "Δ_∞" {
		return float64(v.Witness.Measure.DeltaInf)
	}
	return v.Witness.Measure.Delta2
}

// Bound returns the bound at the witness.
func (v Verdict) Bound() float64 {
	if v.Witness == nil {
		return 0
	}
	if v.Quantity == "Δ_∞" {
		return float64(v.Witness.Sensitivity.DeltaInf)
	}
	return v.Witness.Sensitivity.Delta2
}

// String is "paper Δ_2: REFUTED (observed 0.1998 > bound 0.1; max ratio 1.998 over 2000 swaps) — witness".
func (v Verdict) String() string {
	state := "confirmed"
	rel := "≤"
	if v.Refuted {
		state, rel = "REFUTED", ">"
	}
	return fmt.Sprintf("%s %s: %s (observed %.6g %s bound %.6g; max observed/bound %.4g over %d swaps, %d without a bound) — %v",
		v.Mode, v.Quantity, state, v.Observed(), rel, v.Bound(), v.MaxRatio, v.Checked, v.Unbounded, v.Witness)
}

// ProbeReport is the outcome of Probe.
type ProbeReport struct {
	Preprocessor string
	Swaps        int            // measured
	FitErrors    int            // swaps a neighbour of which the pre-processor refused (skipped)
	Targets      map[string]int // measured swaps per target
	MaxDeltaInf  *Witness       // the largest Δ_∞ seen
	MaxDelta2    *Witness       // the largest Δ_2 seen
	Verdicts     []Verdict      // paper Δ_∞, paper Δ_2, safe Δ_∞, safe Δ_2
}

// Verdict returns the verdict of mode and quantity ("Δ_∞" or "Δ_2").
func (r *ProbeReport) Verdict(m Mode, quantity string) Verdict {
	for _, v := range r.Verdicts {
		if v.Mode == m && v.Quantity == quantity {
			return v
		}
	}
	return Verdict{Mode: m, Quantity: quantity}
}

// String summarises the report, one line per verdict.
func (r *ProbeReport) String() string {
	var b strings.Builder
	targets := make([]string, 0, len(r.Targets))
	for t, n := range r.Targets {
		targets = append(targets, fmt.Sprintf("%s %d", t, n))
	}
	sort.Strings(targets)
	fmt.Fprintf(&b, "%s: %d swaps (%s), %d refused by the pre-processor\n", r.Preprocessor, r.Swaps, strings.Join(targets, ", "), r.FitErrors)
	fmt.Fprintf(&b, "  largest Δ_2: %v\n  largest Δ_∞: %v\n", r.MaxDelta2, r.MaxDeltaInf)
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "  %v\n", v)
	}
	return b.String()
}

// probeTol is the relative slack of a verdict: an observation within
// rounding of its bound (the order-gap swaps reach the safe bounds exactly)
// does not refute it.
const probeTol = 1e-9

// Probe measures every swap (MeasureSwap) and holds Δ_∞ and Δ_2 against
// pp's bounds in both modes on each pair's own collection. A swap whose
// neighbour pp refuses (a feature with no observed value, a singular Gram
// matrix) is counted in FitErrors and skipped; a collection that admits no
// bound in a mode is counted in Unbounded.
func Probe(pp Preprocessor, swaps []Swap) (*ProbeReport, error) {
	r := &ProbeReport{Preprocessor: pp.String(), Targets: map[string]int{}}
	modes := []Mode{Paper, Safe}
	verdicts := make([]Verdict, 0, 4)
	for _, m := range modes {
		verdicts = append(verdicts, Verdict{Mode: m, Quantity: "Δ_∞"}, Verdict{Mode: m, Quantity: "Δ_2"})
	}
	var memo commonFit
	var scratch swapScratch
	for _, w := range swaps {
		if err := w.check(); err != nil {
			return nil, err
		}
		meas, col, err := measureSwap(pp, w, &memo, &scratch)
		if err != nil {
			r.FitErrors++
			continue
		}
		r.Swaps++
		r.Targets[w.Target]++
		wit := &Witness{Swap: w, Measure: meas, Collection: col}
		if r.MaxDelta2 == nil || meas.Delta2 > r.MaxDelta2.Measure.Delta2 {
			r.MaxDelta2 = wit
		}
		if r.MaxDeltaInf == nil || meas.DeltaInf > r.MaxDeltaInf.Measure.DeltaInf {
			r.MaxDeltaInf = wit
		}
		for _, m := range modes {
			s, err := pp.Sensitivity(col, m)
			for i := range verdicts {
				v := &verdicts[i]
				if v.Mode != m {
					continue
				}
				if err != nil {
					v.Unbounded++
					continue
				}
				v.Checked++
				obs, bound := meas.Delta2, s.Delta2
				if v.Quantity == "Δ_∞" {
					obs, bound = float64(meas.DeltaInf), float64(s.DeltaInf)
				}
				ratio := 0.0
				switch {
				case obs == 0:
				case bound == 0:
					ratio = math.Inf(1)
				default:
					ratio = obs / bound
				}
				if obs > bound*(1+probeTol)+1e-300 {
					v.Refuted = true
				}
				if v.Witness == nil || ratio > v.MaxRatio {
					v.MaxRatio = ratio
					v.Witness = &Witness{Swap: w, Measure: meas, Collection: col, Sensitivity: s}
				}
			}
		}
	}
	r.Verdicts = verdicts
	return r, nil
}

// StandardProbe is one pre-processor with the swaps it is probed on.
type StandardProbe struct {
	Preprocessor Preprocessor
	Family       string // "cluster", "cluster-add-remove", "impute", "pca"
}

// StandardProbes returns the probe set of preprocessing.md §4.6 and spec SP:
// deduplication and quantization (η = cfg.Eta) on ClusterSwaps for both
// relations, the four imputers (trimmed mean with m = 2) on ImputeSwaps,
// PCA rank and dimension reduction (k = cfg.K) on PCASwaps, and the chain
// quantization → PCA rank reduction on ClusterSwaps.
func StandardProbes(cfg ProbeConfig) []StandardProbe {
	c := cfg.with(60, 4)
	dedup, quant := &Dedup{Eta: c.Eta}, &Quantize{Eta: c.Eta}
	chain := &Chain{Steps: []Preprocessor{quant, &PCA{K: 1}}}
	return []StandardProbe{
		{dedup, "cluster"}, {dedup, "cluster-add-remove"},
		{quant, "cluster"}, {quant, "cluster-add-remove"},
		{MeanImputer{}, "impute"}, {MedianImputer{}, "impute"}, {&TrimmedMeanImputer{Trim: 2}, "impute"}, {LinRegImputer{}, "impute"},
		{&PCA{K: c.K}, "pca"}, {&PCA{K: c.K, Dim: true}, "pca"},
		{chain, "cluster"},
	}
}

// RunStandardProbes runs StandardProbes(cfg), generating each family's swaps once.
func RunStandardProbes(cfg ProbeConfig) ([]*ProbeReport, error) {
	swaps := map[string][]Swap{}
	get := func(family string) ([]Swap, error) {
		if s, ok := swaps[family]; ok {
			return s, nil
		}
		var s []Swap
		var err error
		switch family {
		case "cluster":
			s, err = ClusterSwaps(cfg, false)
		case "cluster-add-remove":
			s, err = ClusterSwaps(cfg, true)
		case "impute":
			s, err = ImputeSwaps(cfg)
		case "pca":
			s, err = PCASwaps(cfg)
		default:
			err = fmt.Errorf("preprocess: unknown swap family %q", family)
		}
		swaps[family] = s
		return s, err
	}
	var out []*ProbeReport
	for _, sp := range StandardProbes(cfg) {
		s, err := get(sp.Family)
		if err != nil {
			return nil, err
		}
		rep, err := Probe(sp.Preprocessor, s)
		if err != nil {
			return nil, err
		}
		if sp.Family == "cluster-add-remove" {
			rep.Preprocessor += " (add/remove)"
		}
		out = append(out, rep)
	}
	return out, nil
}
