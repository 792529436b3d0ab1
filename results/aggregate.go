package results

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// CIMethod is how a 95% confidence interval of the mean is computed.
type CIMethod string

const (
	// CINormal is mean ± 1.96·SE, SE = sd/√n (the papers' error bars).
	CINormal CIMethod = "normal"
	// CIStudentT is mean ± t_{0.975, n−1}·SE.
	CIStudentT CIMethod = "t"
	// CIAuto is CIStudentT for a sample of fewer than StudentTBelow values
	// and CINormal otherwise: the normal interval is too narrow for few
	// trials (at n = 5, t_{0.975, 4} = 2.776 against 1.96).
	CIAuto CIMethod = "auto"
)

// StudentTBelow is the sample size under which CIAuto uses Student-t.
const StudentTBelow = 30

// UsesStudentT reports whether m computes the interval of a sample of n
// values with Student-t's quantile.
func (m CIMethod) UsesStudentT(n int) bool {
	return m == CIStudentT || m == CIAuto && n < StudentTBelow
}

// Validate reports whether m is a known method.
func (m CIMethod) Validate() error {
	switch m {
	case CINormal, CIStudentT, CIAuto:
		return nil
	}
	return fmt.Errorf("results: unknown confidence interval %q (want %q, %q or %q)", string(m), CIAuto, CINormal, CIStudentT)
}

// Stat summarises one sample.
type Stat struct {
	Count          int
	Mean, SD, SE   float64 // SD is the sample standard deviation (n−1)
	CIHalf         float64 // half-width of the 95% CI of the mean
	CILow, CIHigh  float64
	Median, Q1, Q3 float64 // type-7 quantiles [HF96]
	Min, Max       float64
}

// Summarize computes the Stat of xs with the given CI method. NaN values are
// kept: they make the mean NaN, which is what a failed metric should do.
func Summarize(xs []float64, ci CIMethod) Stat {
	n := len(xs)
	s := Stat{Count: n}
	if n == 0 {
		nan := math.NaN()
		return Stat{Mean: nan, SD: nan, SE: nan, CIHalf: nan, CILow: nan, CIHigh: nan,
			Median: nan, Q1: nan, Q3: nan, Min: nan, Max: nan}
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n > 1 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(n-1))
		s.SE = s.SD / math.Sqrt(float64(n))
		z := 1.96
		if ci.UsesStudentT(n) {
			z = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		}
		s.CIHalf = z * s.SE
	} else {
		s.SD, s.SE, s.CIHalf = math.NaN(), math.NaN(), math.NaN()
	}
	s.CILow, s.CIHigh = s.Mean-s.CIHalf, s.Mean+s.CIHalf
	s.Median = quantile7(sorted, 0.5)
	s.Q1 = quantile7(sorted, 0.25)
	s.Q3 = quantile7(sorted, 0.75)
	s.Min, s.Max = sorted[0], sorted[n-1]
	return s
}

// quantile7 is the type-7 sample quantile of sorted data [HF96]:
// h = (n−1)p, Q = x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
func quantile7(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 1 {
		return sorted[0]
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// CellSummary is the summary of one cell's trials.
type CellSummary struct {
	Key        string
	Dataset    string
	Mechanism  string
	Label      string
	Epsilon    float64
	MechParams map[string]any
	Trials     int
	// DataIndependent counts, of Trials, those that released private
	// tuning's data-independent model (K = 0 runs drawn;
	// Record.DataIndependent). Their metrics are in Metrics, as the
	// protocol released that model; they ran nothing, so they have no noise.
	DataIndependent int
	Metrics         map[string]Stat
	// Privacy over trials: the largest ε spent (the guarantee that holds for
	// every trial; +Inf for oracle tuning and non-private mechanisms), the
	// largest one-run ε of a tuned cell (NaN otherwise), δ, accountant,
	// tuning mode, selection, the mean optimal order, and the union of the
	// trials' assumptions in first-seen order.
	EpsSpentMax  float64
	EpsPerRunMax float64
	Delta        float64
	Accountant   string
	Tuning       string
	Selection    string
	Assumptions  []string
	AlphaMean    float64
	WallMean     float64
	// Diagnostics summarises the records' non-private diagnostics (work
	// counters read from the data without noise; see Record.Diagnostics).
	Diagnostics map[string]Stat
	// Noise summarises the records' noise parameters (Privacy.Noise) by key.
	Noise map[string]Stat
	// TargetScope is what the cell's ε target meant to its fits when it is
	// not the whole procedure's (ε, δ) target (Privacy.TargetScope of its
	// first trial that states one); "" otherwise.
	TargetScope string
	// Traces summarises each trace per iteration: Traces[name][t] is the
	// Stat (mean, CI of the mean, min, max, ...) of the values at index t
	// over the cell's ok trials whose trace reaches t, so Stat.Count is the
	// number of trials at t (fewer at the end when trials ran different
	// numbers of steps). Nil when no trial has a trace. Computed from the
	// training data without noise (see Record.Traces).
	Traces map[string][]Stat
	// DatasetName is the dataset's registry name ("boston"); the records
	// carry only its label (Dataset), so the renderer, which knows the
	// spec, fills it in. "" when unknown.
	DatasetName string
}

// OverspendsTarget reports whether the cell spent more than its target ε
// (beyond the calibration tolerance 1e-9) in a way that is a warning: not
// for oracle tuning (ε spent = +Inf by definition), and not for a cell with
// a TargetScope, whose target was not a target for the ε recorded as spent.
func (c *CellSummary) OverspendsTarget() bool {
	return c.Tuning != TuningOracle && c.TargetScope == "" && c.EpsSpentMax > c.Epsilon*(1+1e-9)
}

// Aggregate summarises records by cell. Only ok records count (see Latest).
// Cells are returned sorted by key.
//
// The cells are summarised concurrently (up to GOMAXPROCS at a time); each
// cell's summary is computed exactly as it would be alone.
func Aggregate(recs []Record, ci CIMethod) []CellSummary {
	return aggregate(recs, latestOrder(recs), ci)
}

// AggregateOrdered is Aggregate of the records recs[i], i in order, for a
// caller that has already put them in (cell key, trial) order, the reruns
// of a trial in store order: it neither copies the records out nor sorts
// them again. If order is not in that order the records are sorted as
// Aggregate sorts them, so the result is always Aggregate's of those
// records.
func AggregateOrdered(recs []Record, order []int, ci CIMethod) []CellSummary {
	latest, ok := latestOf(recs, order)
	if !ok {
		picked := make([]Record, len(order))
		for n, i := range order {
			picked[n] = recs[i]
		}
		return Aggregate(picked, ci)
	}
	return aggregate(recs, latest, ci)
}

// aggregate summarises recs[i], i in order (latestOrder's), by cell.
func aggregate(recs []Record, order []int, ci CIMethod) []CellSummary {
	var spans [][]int // the indices in recs of each cell's records
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && recs[order[j]].CellKey == recs[order[i]].CellKey {
			j++
		}
		spans = append(spans, order[i:j])
		i = j
	}
	if len(spans) == 0 {
		return nil
	}
	cells := make([]CellSummary, len(spans))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(spans)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(spans) {
					return
				}
				cells[i] = summarizeCell(recs, spans[i], ci)
			}
		}()
	}
	wg.Wait()
	return cells
}

// summarizeCell summarises the records recs[i], i in which, of one cell.
func summarizeCell(recs []Record, which []int, ci CIMethod) CellSummary {
	first := &recs[which[0]]
	c := CellSummary{
		Key: first.CellKey, Dataset: first.Dataset, Mechanism: first.Mechanism, Label: first.Label,
		Epsilon: float64(first.Epsilon), MechParams: first.MechParams, Trials: len(which),
		Delta: float64(first.Privacy.Delta), Accountant: first.Privacy.Accountant, Tuning: first.Privacy.Tuning,
		Selection: first.Privacy.Selection,
	}
	n := len(which)
	metrics, diag, noise := byName{n: n}, byName{n: n}, byName{n: n}
	var traces map[string][][]float64 // name -> t -> values over trials
	var alphaSum, wallSum float64
	c.EpsSpentMax, c.EpsPerRunMax = math.Inf(-1), math.NaN()
	seen := map[string]bool{}
	// lastAssumed are the last record's assumptions, all seen. A run's
	// records of one cell mostly share one slice (run's per-cell memo), so
	// comparing with it costs next to nothing.
	var lastAssumed []string
	for _, i := range which {
		r := &recs[i]
		metrics.add(r.Metrics)
		diag.add(r.Diagnostics)
		noise.add(r.Privacy.Noise)
		for k, xs := range r.Traces {
			if traces == nil {
				traces = map[string][][]float64{}
			}
			at := traces[k]
			for len(at) < len(xs) {
				at = append(at, nil)
			}
			for t, x := range xs {
				at[t] = append(at[t], float64(x))
			}
			traces[k] = at
		}
		if c.TargetScope == "" {
			c.TargetScope = r.Privacy.TargetScope
		}
		c.EpsSpentMax = math.Max(c.EpsSpentMax, float64(r.Privacy.EpsSpent))
		if pr := float64(r.Privacy.EpsPerRun); pr != 0 && !(pr <= c.EpsPerRunMax) {
			c.EpsPerRunMax = pr // NaN until the first tuned trial
		}
		if as := r.Privacy.Assumptions; !slices.Equal(as, lastAssumed) {
			for _, a := range as {
				if !seen[a] {
					seen[a] = true
					c.Assumptions = append(c.Assumptions, a)
				}
			}
			lastAssumed = as
		}
		alphaSum += float64(r.Privacy.AlphaStar)
		wallSum += r.WallSeconds
		if r.DataIndependent() {
			c.DataIndependent++
		}
	}
	c.Metrics, c.Diagnostics = metrics.summarize(ci), diag.summarize(ci)
	if len(noise.names) > 0 {
		c.Noise = noise.summarize(ci)
	}
	if traces != nil {
		c.Traces = make(map[string][]Stat, len(traces))
		for k, at := range traces {
			st := make([]Stat, len(at))
			for t, xs := range at {
				st[t] = Summarize(xs, ci)
			}
			c.Traces[k] = st
		}
	}
	c.AlphaMean = alphaSum / float64(len(which))
	c.WallMean = wallSum / float64(len(which))
	return c
}

// byName collects, by key, a cell's values of one of its records' maps
// (Metrics, Diagnostics, Privacy.Noise), each key's values in record
// order. A cell's records mostly have the same keys, so a record is read
// by looking up the keys already seen, which costs about half of ranging
// over its map and hashing each key into a map of slices; its map is
// ranged over only when it has keys not seen yet.
type byName struct {
	n     int // the cell's records: the most values a key can have
	names []string
	vals  [][]float64 // vals[j] are the values of names[j]
}

// add appends the values of m, one record's map.
func (b *byName) add(m map[string]Float) {
	found := 0
	for j, name := range b.names {
		if v, ok := m[name]; ok {
			b.vals[j] = append(b.vals[j], float64(v))
			found++
		}
	}
	if found == len(m) {
		return
	}
	for k, v := range m {
		if !slices.Contains(b.names, k) {
			b.names = append(b.names, k)
			b.vals = append(b.vals, append(make([]float64, 0, b.n), float64(v)))
		}
	}
}

// summarize returns the Stat of each key's values.
func (b *byName) summarize(ci CIMethod) map[string]Stat {
	out := make(map[string]Stat, len(b.names))
	for j, name := range b.names {
		out[name] = Summarize(b.vals[j], ci)
	}
	return out
}
