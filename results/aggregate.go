package results

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
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
	Sum            float64 // of the values in sample order; Mean is Sum / Count
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
	s.Sum, s.Mean = sum, sum/float64(n)
	s.SD = math.NaN()
	if n > 1 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(n-1))
	}
	s = s.WithCI(ci)
	s.Median = quantile7(sorted, 0.5)
	s.Q1 = quantile7(sorted, 0.25)
	s.Q3 = quantile7(sorted, 0.75)
	s.Min, s.Max = sorted[0], sorted[n-1]
	return s
}

// WithCI returns s with its standard error and 95% CI of the mean (SE,
// CIHalf, CILow, CIHigh) computed by the method ci from its Count, Mean and
// SD, as Summarize computes them: a summary kept without its interval
// (report.Evidence) gets the interval of any method, bit for bit what
// Summarize of the sample would give. With fewer than two values they are
// NaN.
func (s Stat) WithCI(ci CIMethod) Stat {
	n := s.Count
	if n > 1 {
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
	// WallMean is Wall.Mean: the mean wall time of a fit, in seconds.
	WallMean float64
	// Wall summarises the trials' wall times of the fit (Record.WallSeconds,
	// in seconds): mean and 95% CI over trials, by the Aggregator's CI
	// method. A timing measurement: it varies from run to run and with the
	// machine's load.
	Wall Stat
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

// Aggregate summarises records by cell. Only ok records count, the last
// one of each trial (a trial rerun, or merged twice, has several). Cells are returned sorted by key. It is an
// Aggregator given recs in order.
func Aggregate(recs []Record, ci CIMethod) []CellSummary {
	a := NewAggregator(ci)
	for i := range recs {
		a.Add(&recs[i])
	}
	return a.Cells()
}

// Aggregator summarises records by cell as they are added, in any order,
// without keeping them: a run adds each record as it is stored, a render as
// it reads the store (Scan), so neither holds the store in memory. Cells
// gives the summaries Aggregate gives of the records in the order added:
// only ok records count, the last added of each (cell, trial); every
// statistic is computed in trial order, as from a sorted store.
//
// Exact quantiles (Stat.Median, Q1, Q3) and sums in trial order need every
// value, so a cell keeps, per trial, the numbers its summary reads: each
// metric, diagnostic and noise value, ε spent, one-run ε, α*, the wall
// time, the trace values, and which of the cell's distinct (target scope,
// assumptions) the record states. They are held by trial index in pages of
// pageSize trials, 8 bytes a number, and a number that is the same in every
// trial so far (ε spent of a fixed ledger, a non-tuned cell's one-run ε)
// is held once for the cell: a trial of AdaSSP keeps 5 numbers (two
// metrics, two noise parameters and the wall time), 41 bytes with its
// page's bitsets, where a run that kept its records grew by 2.3 KB a trial
// (TestMemoryBoundedByCells); the identity fields are kept once per cell. A
// store whose trial indices are sparse (a hand-edited one) costs a page per
// stray index. Not safe for concurrent use.
type Aggregator struct {
	ci    CIMethod
	cells map[string]*cellRows
}

// NewAggregator returns an empty Aggregator whose summaries compute
// confidence intervals by ci.
func NewAggregator(ci CIMethod) *Aggregator {
	return &Aggregator{ci: ci, cells: map[string]*cellRows{}}
}

// Trial slots per page of a cellRows.
const (
	pageBits  = 9
	pageSize  = 1 << pageBits
	pageWords = pageSize / 64
)

// The columns every cell has, before those of its records' maps.
const (
	colSpent  = iota // Privacy.EpsSpent
	colPerRun        // Privacy.EpsPerRun
	colAlpha         // Privacy.AlphaStar
	colWall          // WallSeconds
	colAttrs         // the index in cellRows.sets of the record's attrSet
	fixedCols
)

// The maps of a record whose keys are columns.
const (
	mapMetrics = iota
	mapDiagnostics
	mapNoise
	numMaps
)

// cellRows is what an Aggregator keeps of one cell's ok records: per trial
// the numbers of the last one added.
type cellRows struct {
	pages map[int]*page // by trial >> pageBits
	cols  []column      // the fixed columns, then the maps' keys
	keys  [numMaps][]keyCol
	// traces are the names of the records' traces, in order of appearance.
	traces   []string
	sets     []attrSet
	setIndex map[string]uint32 // attrSet.key() -> index in sets, once there are many
	lastSet  int               // the index of the last record's set; -1 before any
	// first is the smallest trial, whose record names the cell
	// (CellSummary's identity fields, in id); named is false before any.
	first int
	named bool
	id    CellSummary
}

// keyCol is the column of a key of one of a record's maps.
type keyCol struct {
	name string
	col  int
}

// column is what a cell keeps of one column beyond its pages: while every
// value so far is v (bit for bit), same is set and no page holds values;
// seen is false before the first value.
type column struct {
	seen, same bool
	v          float64
}

// page holds the columns of pageSize consecutive trials: ok marks the
// trials with an ok record, dataIndependent those whose record released
// private tuning's data-independent model (Record.DataIndependent), has[j]
// those with a value in column j, and vals[j] the values (nil while column
// j is the same everywhere).
type page struct {
	ok              [pageWords]uint64
	dataIndependent [pageWords]uint64
	has             [][pageWords]uint64
	vals            []*[pageSize]float64
	traces          map[string]*[pageSize][]float64
}

// attrSet is what a record says in words that a summary reads: its target
// scope and assumptions.
type attrSet struct {
	scope   string
	assumed []string
}

func (a attrSet) key() string { return a.scope + "\x00" + strings.Join(a.assumed, "\x00") }

func bit(words *[pageWords]uint64, slot int) bool { return words[slot/64]&(1<<(slot%64)) != 0 }

// Add adds r: a later ok record of a trial replaces an earlier one. r is
// not retained, but r.MechParams is (as the summary's MechParams) when r
// names its cell: it must not be modified afterwards.
func (a *Aggregator) Add(r *Record) {
	if r.Status != StatusOK {
		return
	}
	c := a.cells[r.CellKey]
	if c == nil {
		c = &cellRows{pages: map[int]*page{}, cols: make([]column, fixedCols), lastSet: -1}
		a.cells[r.CellKey] = c
	}
	c.add(r)
}

func (c *cellRows) add(r *Record) {
	t := r.Trial
	slot := t & (pageSize - 1)
	p := c.pages[t>>pageBits] // an arithmetic shift: a negative trial has a page too
	if p == nil {
		p = &page{}
		c.pages[t>>pageBits] = p
	}
	if bit(&p.ok, slot) { // a rerun: the trial's earlier record is forgotten
		for j := range p.has {
			p.has[j][slot/64] &^= 1 << (slot % 64)
		}
		for _, tr := range p.traces {
			tr[slot] = nil
		}
	}
	p.ok[slot/64] |= 1 << (slot % 64)
	if r.DataIndependent() {
		p.dataIndependent[slot/64] |= 1 << (slot % 64)
	} else {
		p.dataIndependent[slot/64] &^= 1 << (slot % 64)
	}
	if !c.named || t <= c.first {
		c.first, c.named = t, true
		c.id = CellSummary{Key: r.CellKey, Dataset: r.Dataset, Mechanism: r.Mechanism, Label: r.Label,
			Epsilon: float64(r.Epsilon), MechParams: r.MechParams, Delta: float64(r.Privacy.Delta),
			Accountant: r.Privacy.Accountant, Tuning: r.Privacy.Tuning, Selection: r.Privacy.Selection}
	}
	c.set(p, slot, colSpent, float64(r.Privacy.EpsSpent))
	c.set(p, slot, colPerRun, float64(r.Privacy.EpsPerRun))
	c.set(p, slot, colAlpha, float64(r.Privacy.AlphaStar))
	c.set(p, slot, colWall, r.WallSeconds)
	c.set(p, slot, colAttrs, float64(c.attrSet(attrSet{r.Privacy.TargetScope, r.Privacy.Assumptions})))
	c.setMap(p, slot, mapMetrics, r.Metrics)
	c.setMap(p, slot, mapDiagnostics, r.Diagnostics)
	c.setMap(p, slot, mapNoise, r.Privacy.Noise)
	for k, xs := range r.Traces {
		if !slices.Contains(c.traces, k) {
			c.traces = append(c.traces, k)
		}
		if p.traces == nil {
			p.traces = map[string]*[pageSize][]float64{}
		}
		tr := p.traces[k]
		if tr == nil {
			tr = new([pageSize][]float64)
			p.traces[k] = tr
		}
		vals := make([]float64, len(xs)) // not nil: a trial with an empty trace has the name
		for i, x := range xs {
			vals[i] = float64(x)
		}
		tr[slot] = vals
	}
}

// setMap sets the values of m, one of a record's maps (group g), in their
// columns. A cell's records mostly have the same keys, so the keys already
// seen are looked up first, which costs about half of ranging over the
// map; it is ranged over only when it has keys not seen yet.
func (c *cellRows) setMap(p *page, slot, g int, m map[string]Float) {
	found := 0
	for _, k := range c.keys[g] {
		if v, ok := m[k.name]; ok {
			c.set(p, slot, k.col, float64(v))
			found++
		}
	}
	if found == len(m) {
		return
	}
	for name, v := range m {
		if !slices.ContainsFunc(c.keys[g], func(k keyCol) bool { return k.name == name }) {
			c.keys[g] = append(c.keys[g], keyCol{name, len(c.cols)})
			c.cols = append(c.cols, column{})
			c.set(p, slot, len(c.cols)-1, float64(v))
		}
	}
}

// set sets the value of column j at slot of p.
func (c *cellRows) set(p *page, slot, j int, v float64) {
	for len(p.has) <= j {
		p.has, p.vals = append(p.has, [pageWords]uint64{}), append(p.vals, nil)
	}
	p.has[j][slot/64] |= 1 << (slot % 64)
	col := &c.cols[j]
	switch {
	case !col.seen:
		col.seen, col.same, col.v = true, true, v
		return
	case col.same && math.Float64bits(v) == math.Float64bits(col.v):
		return
	case col.same:
		// The first value that differs: every page with values in the
		// column holds them from now on.
		col.same = false
		for _, q := range c.pages {
			if j < len(q.has) && q.has[j] != [pageWords]uint64{} {
				q.vals[j] = new([pageSize]float64)
				for i := range q.vals[j] {
					q.vals[j][i] = col.v
				}
			}
		}
	}
	if p.vals[j] == nil {
		p.vals[j] = new([pageSize]float64)
	}
	p.vals[j][slot] = v
}

// attrSet returns the index of s among the cell's distinct sets, adding
// it if new. A cell's records mostly share one set (the runner's per-cell
// memo), so the last record's is tried first.
func (c *cellRows) attrSet(s attrSet) uint32 {
	same := func(t attrSet) bool { return t.scope == s.scope && slices.Equal(t.assumed, s.assumed) }
	if c.lastSet >= 0 && same(c.sets[c.lastSet]) {
		return uint32(c.lastSet)
	}
	const linear = 8 // sets searched one by one before a map is made
	i := -1
	if c.setIndex == nil {
		i = slices.IndexFunc(c.sets, same)
		if i < 0 && len(c.sets) >= linear {
			c.setIndex = make(map[string]uint32, 2*linear)
			for k, t := range c.sets {
				c.setIndex[t.key()] = uint32(k)
			}
		}
	}
	if i < 0 && c.setIndex != nil {
		if k, ok := c.setIndex[s.key()]; ok {
			i = int(k)
		}
	}
	if i < 0 {
		i = len(c.sets)
		c.sets = append(c.sets, s)
		if c.setIndex != nil {
			c.setIndex[s.key()] = uint32(i)
		}
	}
	c.lastSet = i
	return uint32(i)
}

// Cells returns the summaries of the cells added, sorted by key. The cells
// are summarised concurrently (up to GOMAXPROCS at a time); each cell's
// summary is computed exactly as it would be alone.
func (a *Aggregator) Cells() []CellSummary {
	keys := slices.Sorted(maps.Keys(a.cells))
	out := make([]CellSummary, len(keys))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(keys)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(keys) {
					return
				}
				out[i] = a.cells[keys[i]].summarize(a.ci)
			}
		})
	}
	wg.Wait()
	return out
}

// inOrder returns the cell's pages in trial order, its number of trials
// and how many of them released the data-independent model.
func (c *cellRows) inOrder() (pages []*page, n, dataIndependent int) {
	pages = make([]*page, 0, len(c.pages))
	for _, k := range slices.Sorted(maps.Keys(c.pages)) {
		p := c.pages[k]
		pages = append(pages, p)
		for w := range p.ok {
			n += bits.OnesCount64(p.ok[w])
			dataIndependent += bits.OnesCount64(p.ok[w] & p.dataIndependent[w])
		}
	}
	return pages, n, dataIndependent
}

// each calls f with the page and slot of each of the cell's trials, in
// trial order (pages: inOrder's).
func each(pages []*page, f func(p *page, i int)) {
	for _, p := range pages {
		for w, word := range p.ok {
			for word != 0 {
				f(p, 64*w+bits.TrailingZeros64(word))
				word &= word - 1
			}
		}
	}
}

// values returns column j's values of the trials that have one, in trial
// order, appended to dst[:0].
func (c *cellRows) values(dst []float64, pages []*page, j int) []float64 {
	dst = dst[:0]
	col := &c.cols[j]
	each(pages, func(p *page, i int) {
		if j < len(p.has) && bit(&p.has[j], i) {
			if col.same {
				dst = append(dst, col.v)
			} else {
				dst = append(dst, p.vals[j][i])
			}
		}
	})
	return dst
}

// summarize returns the cell's summary over its trials in trial order.
func (c *cellRows) summarize(ci CIMethod) CellSummary {
	pages, n, dataIndependent := c.inOrder()
	s := c.id
	s.Trials, s.DataIndependent = n, dataIndependent
	xs := make([]float64, 0, n)
	byName := func(g int) map[string]Stat {
		out := make(map[string]Stat, len(c.keys[g]))
		for _, k := range c.keys[g] {
			if xs = c.values(xs, pages, k.col); len(xs) > 0 { // none: only replaced records had the key
				out[k.name] = Summarize(xs, ci)
			}
		}
		return out
	}
	s.Metrics, s.Diagnostics = byName(mapMetrics), byName(mapDiagnostics)
	if noise := byName(mapNoise); len(noise) > 0 {
		s.Noise = noise // nil when no trial has noise parameters
	}
	for _, k := range c.traces {
		var at [][]float64 // t -> values over the trials reaching t
		has := false       // a trial has the trace (perhaps empty)
		each(pages, func(p *page, i int) {
			tr := p.traces[k]
			if tr == nil || tr[i] == nil {
				return
			}
			has = true
			for len(at) < len(tr[i]) {
				at = append(at, nil)
			}
			for t, x := range tr[i] {
				at[t] = append(at[t], x)
			}
		})
		if !has {
			continue // only replaced records had it
		}
		if s.Traces == nil {
			s.Traces = map[string][]Stat{} // nil when no trial has a trace
		}
		st := make([]Stat, len(at))
		for t, vals := range at {
			st[t] = Summarize(vals, ci)
		}
		s.Traces[k] = st
	}
	seen := map[string]bool{}
	last := -1 // the last trial's set of assumptions, all of them seen
	for _, set := range c.values(xs, pages, colAttrs) {
		if int(set) == last {
			continue
		}
		as := c.sets[int(set)]
		if s.TargetScope == "" {
			s.TargetScope = as.scope
		}
		for _, a := range as.assumed {
			if !seen[a] {
				seen[a] = true
				s.Assumptions = append(s.Assumptions, a)
			}
		}
		last = int(set)
	}
	s.EpsSpentMax, s.EpsPerRunMax = math.Inf(-1), math.NaN()
	for _, x := range c.values(xs, pages, colSpent) {
		s.EpsSpentMax = math.Max(s.EpsSpentMax, x)
	}
	for _, pr := range c.values(xs, pages, colPerRun) {
		if pr != 0 && !(pr <= s.EpsPerRunMax) {
			s.EpsPerRunMax = pr // NaN until the first tuned trial
		}
	}
	s.AlphaMean = sum(c.values(xs, pages, colAlpha)) / float64(n)
	s.Wall = Summarize(c.values(xs, pages, colWall), ci)
	s.WallMean = s.Wall.Mean
	return s
}

// sum adds xs up in order.
func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}
