package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// Render writes summary.csv, the spec's figures (figures/) and tables
// (tables/) in dir from the trials stored there, without running anything.
// Only trials of the spec's current cells count. The store is scanned
// (results.Scan) into a Collector, so its records are never all in memory.
// It returns the paths written.
func Render(s *spec.Spec, dir string, log io.Writer) ([]string, error) {
	if log == nil {
		log = io.Discard
	}
	return RenderFrom(s, dir, results.FromDir(dir, func(w string) { fmt.Fprintln(log, "warning:", w) }), log)
}

// RenderRecords renders from recs, records of dir's store held in memory,
// in store order.
func RenderRecords(s *spec.Spec, dir string, recs []results.Record, log io.Writer) ([]string, error) {
	return RenderFrom(s, dir, results.FromSlice(recs), log)
}

// RenderFrom renders the records of stored (a store's records in store
// order) into dir, through a Collector.
func RenderFrom(s *spec.Spec, dir string, stored results.Source, log io.Writer) ([]string, error) {
	p, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		return nil, err
	}
	return RenderPlan(p, dir, stored, log)
}

// RenderPlan renders the records of stored that are of p's cells (all of a
// spec's, or a --only subset of them: plan.Plan.Only) into dir, through a
// Collector.
func RenderPlan(p *plan.Plan, dir string, stored results.Source, log io.Writer) ([]string, error) {
	c := NewCollector(p)
	if err := stored(c.Add); err != nil {
		return nil, err
	}
	return c.Render(dir, log)
}

// Render writes summary.csv, the figures and the tables of the collected
// records in dir (dplab run calls it once the trials are done, with the
// records the run gave the Collector) and returns the paths written.
func (col *Collector) Render(dir string, log io.Writer) ([]string, error) {
	outs, v, err := col.prepare()
	if err != nil {
		return nil, err
	}
	return renderView(col.spec, outs, v, dir, log)
}

// renderView writes summary.csv, the figures, the tables and the claims of
// the view v of s's outputs outs in dir and returns the paths written.
func renderView(s *spec.Spec, outs *outputs, v *view, dir string, log io.Writer) ([]string, error) {
	if log == nil {
		log = io.Discard // the warning below wrote to a nil log and panicked (TestRenderIncompleteSaysSo)
	}
	if stored, want, short, empty := v.completeness(func(*plan.Cell) bool { return true }); stored < want {
		fmt.Fprintf(log, "warning: rendering incomplete results: %d of %d trials stored (%d cells short, %d with none); the figures and tables say so in their captions — rerun dplab run to complete them\n",
			stored, want, short, empty)
	}
	summary, err := v.summaryCSV()
	if err != nil {
		return nil, err
	}
	// summary.csv, curves.csv, the figures and the tables are written by
	// concurrent jobs, started as soon as each is drawn or built, each
	// replaced atomically but not synced (fileutil.ReplaceFile: the synced
	// store re-derives them); the paths and the first error are reported
	// in this order. Figures are drawn and tables built one after the
	// other here (the view is not safe for concurrent use). A job started
	// is always waited for, even when a later step fails.
	jobs := newJobGroup()
	err = startJobs(jobs, s, dir, outs, v, summary)
	paths, jerr := jobs.wait()
	if err != nil {
		return nil, err
	}
	return paths, jerr
}

// summaryCSV returns summary.csv's bytes.
func (v *view) summaryCSV() ([]byte, error) {
	var buf bytes.Buffer
	err := results.WriteSummaryCSV(&buf, v.ordered())
	return buf.Bytes(), err
}

// startJobs starts the render's jobs on jobs.
func startJobs(jobs *jobGroup, s *spec.Spec, dir string, outs *outputs, v *view, summary []byte) error {
	jobs.start(func() ([]string, error) {
		path := filepath.Join(dir, results.SummaryFile)
		if err := fileutil.ReplaceFile(path, summary); err != nil {
			return nil, err
		}
		return []string{path}, nil
	})
	if len(s.Curves) > 0 {
		csv := v.curvesCSV()
		jobs.start(func() ([]string, error) {
			path := filepath.Join(dir, CurvesFile)
			if err := fileutil.ReplaceFile(path, csv); err != nil {
				return nil, err
			}
			return []string{path}, nil
		})
	}
	if len(outs.figures) > 0 {
		if err := fileutil.MkdirAllIn(dir, "figures"); err != nil {
			return err
		}
	}
	kv := &View{v}
	for _, f := range outs.figures {
		fig, formats := f.Draw(kv), f.FileFormats()
		jobs.start(func() ([]string, error) {
			return plotting.Write(fig, filepath.Join(dir, "figures"), formats...)
		})
	}
	if len(outs.tables) > 0 {
		if err := fileutil.MkdirAllIn(dir, "tables"); err != nil {
			return err
		}
	}
	written := map[string]int{} // table file stem -> [[table]] index
	v.built = map[string][]*plotting.Table{}
	for i, t := range outs.tables {
		for _, tab := range t.Build(kv) {
			v.built[s.Tables[i].Name] = append(v.built[s.Tables[i].Name], tab)
			if j, ok := written[tab.Name]; ok {
				// A table split per dataset ("mse" → "mse-lin") can meet
				// another table's name ("mse-lin"): never overwrite.
				return fmt.Errorf("%s: table[%d] %q and table[%d] %q both write tables/%s.*; rename one", s.File, j, s.Tables[j].Name, i, s.Tables[i].Name, tab.Name)
			}
			written[tab.Name] = i
			formats := t.FileFormats()
			jobs.start(func() ([]string, error) {
				return plotting.WriteTable(tab, filepath.Join(dir, "tables"), formats...)
			})
		}
	}
	if len(outs.claims) > 0 {
		claims := evaluateClaims(s, outs.claims, v)
		jobs.start(func() ([]string, error) { return claims.write(dir) })
	}
	return nil
}

// DrawFigures returns the spec's figures drawn from recs (as RenderRecords
// draws them, without writing files): for checks of what a figure shows,
// such as plotting.LegendCovers.
func DrawFigures(s *spec.Spec, recs []results.Record) ([]*plotting.Figure, error) {
	c, err := collectorOf(s)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		c.Add(&recs[i])
	}
	outs, v, err := c.prepare()
	if err != nil {
		return nil, err
	}
	var figs []*plotting.Figure
	for _, f := range outs.figures {
		figs = append(figs, f.Draw(&View{v}))
	}
	return figs, nil
}

// prepare decodes the spec's figures and tables and makes the view of the
// collected records they are drawn from (with the [[curve]] values
// evaluated).
func (col *Collector) prepare() (*outputs, *view, error) {
	outs, err := decodeOutputs(col.spec)
	if err != nil {
		return nil, nil, err
	}
	return outs, col.digest().viewWithCurves(col.spec, col.cells), nil
}

// viewWithCurves is d's view of s with the [[curve]] values evaluated.
func (d *digest) viewWithCurves(s *spec.Spec, cells []plan.Cell) *view {
	v := d.view(s, cells)
	if len(s.Curves) > 0 {
		v.curves = evalCurves(s)
	}
	return v
}

// jobGroup runs jobs as they are added, at most GOMAXPROCS at a time, so
// that a figure's files are being rendered while the next figure is drawn
// and the tables are built (a figure's PNG is most of a small panel's
// rendering time). wait returns the paths the jobs wrote in job order and
// the first error in job order.
type jobGroup struct {
	sem     chan struct{}
	wg      sync.WaitGroup
	results []*jobResult
}

type jobResult struct {
	paths []string
	err   error
}

func newJobGroup() *jobGroup {
	return &jobGroup{sem: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// start runs job in a goroutine of its own as soon as a slot is free.
func (g *jobGroup) start(job func() ([]string, error)) {
	res := new(jobResult)
	g.results = append(g.results, res)
	g.wg.Go(func() {
		g.sem <- struct{}{}
		defer func() { <-g.sem }()
		res.paths, res.err = job()
	})
}

// wait waits for every job started.
func (g *jobGroup) wait() ([]string, error) {
	g.wg.Wait()
	var out []string
	var first error
	for _, r := range g.results {
		out = append(out, r.paths...)
		if first == nil {
			first = r.err
		}
	}
	return out, first
}

// view joins the spec's cells with the aggregates of their stored trials.
// Kinds read it through View (view.go).
type view struct {
	spec    *spec.Spec
	cells   []plan.Cell
	agg     map[string]results.CellSummary // by cell key
	skipped map[string]string              // dataset label -> reason
	// infeasible holds, by cell key, the cells with infeasible trials
	// (render_infeasible.go).
	infeasible map[string]*infeasibleCell
	over       map[string][]float64      // label -> ε values whose spent ε exceeded the target
	curves     [][]curves.Point          // evaluated [[curve]] blocks, in spec order
	ledgers    map[string]*ledgerSummary // by cell key, for privacy tables
	rels       map[string][]string       // neighbouring relation -> labels of the private mechanisms whose ledgers have it
	// dataStems and panelStems are the file-name parts of dataset labels
	// and curve panels (render_names.go), made on first use.
	dataStems, panelStems map[string]string
	// pipes holds what the records say about each mechanism block's
	// pre-processing (render_pipeline.go); nil when none has any.
	pipes map[int]*pipeNote
	// derived holds, by cell key, the summaries of the values tables print
	// derived from stored keys (quantity.of), by derivedKey.
	derived map[string]results.CellSummary
	// built holds the tables each [[table]] block built (several when it
	// is split per dataset or panel), by block name, for the claims that
	// read them (claims_table.go); set as a render builds them.
	built map[string][]*plotting.Table
	// ledgerEps memoises components by ledger and δ.
	ledgerEps map[ledgerKey][]float64
}

// ordered returns the summaries of the current cells in the spec's cell
// order, each with its dataset's registry name.
func (v *view) ordered() []results.CellSummary {
	var out []results.CellSummary
	for _, c := range v.cells {
		if a, ok := v.agg[c.Key]; ok {
			a.DatasetName = v.spec.DatasetAt(c.Dataset).Name
			out = append(out, a)
		}
	}
	return out
}

// legend returns a cell's legend entry: non-private tuning, and the
// non-private selection of accounted tuning, are always marked, and so is
// non-private pre-processing unless the label names it (pipelineLegend).
func (v *view) legend(c *plan.Cell) string {
	return c.Label + v.pipelineLegend(c) + TuningMark(v.spec.Mechanisms[c.Mechanism].Tuning.Mode)
}

// TuningMark is what a legend adds for a tuning mode (spec.TuneOracle,
// spec.TunePrivate): non-private tuning, and the non-private selection of
// accounted tuning, are always labelled; "" without tuning.
func TuningMark(mode string) string {
	switch mode {
	case spec.TuneOracle:
		return " (non-private tuning)"
	case spec.TunePrivate:
		return " (tuning accounted, selection not private)"
	}
	return ""
}

// Legends gathers, from stored records given one at a time (Add), the
// legend entry of each of a spec's cells as its figures and tables show it
// (tuning and pre-processing marked): the records' pipelines say where only
// group privacy applied. For pages that show cells outside a figure (dplab
// report).
type Legends struct {
	v     *view
	byKey map[string]*plan.Cell
}

// NewLegends returns the Legends of cells, s's expanded cells.
func NewLegends(s *spec.Spec, cells []plan.Cell) *Legends {
	l := &Legends{v: &view{spec: s, cells: cells}, byKey: make(map[string]*plan.Cell, len(cells))}
	for i := range cells {
		l.byKey[cells[i].Key] = &cells[i]
	}
	return l
}

// Add notes a stored record.
func (l *Legends) Add(r *results.Record) {
	if c := l.byKey[r.CellKey]; c != nil && r.Status == results.StatusOK {
		l.v.addPipeline(c, r.Privacy.Pipeline)
	}
}

// ByKey returns the legend entry of each cell by cell key.
func (l *Legends) ByKey() map[string]string {
	out := make(map[string]string, len(l.v.cells))
	for i := range l.v.cells {
		out[l.v.cells[i].Key] = l.v.legend(&l.v.cells[i])
	}
	return out
}

// keep returns the filter of the cells a figure or table shows: datasets
// and mechanisms by label (empty: all), and when task is not nil only the
// datasets of that task.
func (v *view) keep(dsLabels, mechLabels []string, task *datasets.Task) func(*plan.Cell) bool {
	return func(c *plan.Cell) bool {
		if !v.wantDataset(dsLabels, c.Dataset) || !v.wantMechanism(mechLabels, c.Mechanism) {
			return false
		}
		if task != nil {
			de, _ := datasets.Lookup(v.spec.DatasetAt(c.Dataset).Name)
			return de.Info.Task == *task
		}
		return true
	}
}

func (v *view) wantDataset(labels []string, i int) bool {
	return len(labels) == 0 || slices.Contains(labels, v.spec.Datasets[i].Label)
}

func (v *view) wantMechanism(labels []string, i int) bool {
	return len(labels) == 0 || slices.Contains(labels, v.spec.Mechanisms[i].Label)
}

// CenterBand returns the center ("mean" or "median") and band ("ci",
// "iqr", "minmax"; NaN ends for "none") of a stat as a figure draws them,
// the band clipped to the metric's range [m.Min, m.Max] (a CI of
// accuracies near 1 reaches above 1, of MSEs near 0 below 0).
func CenterBand(st results.Stat, m plan.Metric, center, band string) (y, lo, hi float64) {
	y = st.Mean
	if center == "median" {
		y = st.Median
	}
	switch band {
	case "ci":
		lo, hi = st.CILow, st.CIHigh
	case "iqr":
		lo, hi = st.Q1, st.Q3
	case "minmax":
		lo, hi = st.Min, st.Max
	default:
		return y, math.NaN(), math.NaN()
	}
	return y, math.Max(lo, m.Min), math.Min(hi, m.Max)
}

// ClampLogY replaces every value ≤ 0 of the figure's lines and reference
// lines, and with bands set of its bands, by a floor, so that a log y axis
// can draw them, and reports the floor and whether it was used. The floor
// is the given one, or else a tenth of the power of ten at or below the
// smallest positive value drawn (1e-12 when there is none). Non-finite
// values are left for the plotting package to skip, as are band ends ≤ 0
// when bands is false (it runs them to the bottom of the axes).
func ClampLogY(fig *plotting.Figure, floor float64, bands bool) (float64, bool) {
	if floor <= 0 {
		smallest := math.Inf(1)
		for _, p := range fig.Panels {
			for _, s := range p.Series {
				for _, xs := range [][]float64{s.Y, s.Lo, s.Hi} {
					for _, x := range xs {
						if x > 0 && !math.IsInf(x, 0) {
							smallest = math.Min(smallest, x)
						}
					}
				}
			}
			for _, r := range p.References {
				if r.Y > 0 && !math.IsInf(r.Y, 0) {
					smallest = math.Min(smallest, r.Y)
				}
			}
		}
		floor = 1e-12
		if !math.IsInf(smallest, 1) {
			floor, _ = strconv.ParseFloat("1e"+strconv.Itoa(int(math.Floor(math.Log10(smallest)))-1), 64)
		}
	}
	used := false
	for i := range fig.Panels {
		for j := range fig.Panels[i].Series {
			s := &fig.Panels[i].Series[j]
			clamped := [][]float64{s.Y}
			if bands {
				clamped = append(clamped, s.Lo, s.Hi)
			}
			for _, xs := range clamped {
				for k, x := range xs {
					if x <= 0 {
						xs[k], used = floor, true
					}
				}
			}
		}
		for j := range fig.Panels[i].References {
			if r := &fig.Panels[i].References[j]; r.Y <= 0 {
				r.Y, used = floor, true
			}
		}
	}
	return floor, used
}

// ScaledYNote follows a regression metric's title when the target was
// rescaled (the spec's scale.y = "max-abs", the default): an MSE of the
// rescaled y is not one of the data's units.
const ScaledYNote = " (y / max|y|)"

// scaledY reports whether m is a regression metric and every dataset of
// dsIdx (at least one) has its target divided by max |y| of its training
// rows (harness/spec sets scale.y to "max-abs" by default; the
// records' assumptions say so too).
func (v *view) scaledY(m plan.Metric, dsIdx ...int) bool {
	if m.Task != datasets.Regression || len(dsIdx) == 0 {
		return false
	}
	for _, di := range dsIdx {
		if datasets.ScaleMode(v.spec.Datasets[di].Scale.Y) != datasets.ScaleMaxAbs {
			return false
		}
	}
	return true
}

// skipNote is what the panel of a skipped dataset (registry name name)
// says: the reason in full, its first line, where it names the data
// directory (a path of the machine that ran it) the command that fetches
// the files instead: "skipped: dataset gisette: missing
// gisette/gisette_train.data, gisette/gisette_train.labels (dplab datasets
// fetch gisette)".
func skipNote(why, name string) string {
	s, _, _ := strings.Cut(why, "\n")
	if i := strings.Index(s, " in data directory "); i >= 0 {
		s = s[:i] + " (dplab datasets fetch " + name + ")"
	}
	return "skipped: " + s
}

// DefaultBandMinTrials is the fewest trials a point's band is drawn from
// unless a figure asks for fewer (band_min_trials): from 2 trials a
// Student-t CI has t = 12.7 and buries the curves.
const DefaultBandMinTrials = 3

// SparseBands leaves out the band of a point with fewer than Min trials
// (DefaultBandMinTrials when Min is 0) and notes the series it did so for.
type SparseBands struct {
	Min    int // 0: DefaultBandMinTrials
	labels []string
}

// Enough reports whether a point of the series label with count trials
// gets its band.
func (b *SparseBands) Enough(label string, count int) bool {
	m := b.Min
	if m <= 0 {
		m = DefaultBandMinTrials
	}
	if count >= m {
		return true
	}
	if !slices.Contains(b.labels, label) {
		b.labels = append(b.labels, label)
	}
	return false
}

// Note says where bands were left out ("" where none was).
func (b *SparseBands) Note() string {
	if len(b.labels) == 0 {
		return ""
	}
	m := b.Min
	if m <= 0 {
		m = DefaultBandMinTrials
	}
	return fmt.Sprintf("no band where a point has fewer than %d trials (band_min_trials) (%s)", m, strings.Join(b.labels, listSeparator(b.labels)))
}

// scopeText states, once per distinct target scope among the shown cells,
// what their ε meant (Privacy.TargetScope) and what their ε spent is
// instead: "ε = 0.1 is the per-step RDP ε at α = 2 (target scope of RGM);
// ε spent is the (ε, δ) of the whole run under rdp (orders default) at
// δ = 1e-05". Such cells are not warned about as overspending
// (results.CellSummary.OverspendsTarget).
func (v *view) scopeText(keep func(*plan.Cell) bool) []string {
	var scopes []string
	labels := map[string][]string{}
	eps := map[string][]float64{}
	for i := range v.cells {
		c := &v.cells[i]
		a, ok := v.agg[c.Key]
		if !ok || a.TargetScope == "" || !keep(c) {
			continue
		}
		sc := a.TargetScope
		if _, seen := labels[sc]; !seen {
			scopes = append(scopes, sc)
		}
		if l := v.spec.Mechanisms[c.Mechanism].Label; !slices.Contains(labels[sc], l) {
			labels[sc] = append(labels[sc], l)
		}
		eps[sc] = append(eps[sc], c.Epsilon)
	}
	var out []string
	for _, sc := range scopes {
		e := slices.Clone(eps[sc])
		slices.Sort(e)
		e = slices.Compact(e)
		var list []string
		for _, x := range e {
			list = append(list, strconv.FormatFloat(x, 'g', 3, 64))
		}
		head := "ε = " + list[0] + " is the"
		if len(list) > 1 {
			head = "each ε (" + strings.Join(list, ", ") + ") is the"
		}
		out = append(out, fmt.Sprintf("%s %s (target scope of %s); ε spent is the (ε, δ) of the whole run under %s at δ = %s",
			head, sc, strings.Join(labels[sc], ", "), plan.AccountingConfig(v.spec).Describe(), v.deltaText()))
	}
	return out
}

// ciText names the interval of the shown cells: "1.96·SE", "Student-t",
// or under the default "auto" the one their trial counts select (both,
// "Student-t where n < 30, else 1.96·SE", when the counts straddle 30).
func (v *view) ciText(keep func(*plan.Cell) bool) string {
	m := results.CIMethod(v.spec.CI)
	lo, hi := v.trialRange(keep)
	switch {
	case lo < 0 && m == results.CIAuto:
		return "Student-t for n < 30 trials, else 1.96·SE"
	case lo < 0 || !m.UsesStudentT(hi) && !m.UsesStudentT(lo):
		return "1.96·SE"
	case m.UsesStudentT(lo) && m.UsesStudentT(hi):
		if m == results.CIAuto {
			return "Student-t, n < 30"
		}
		return "Student-t"
	}
	return "Student-t where n < 30, else 1.96·SE"
}

// trialRange is the least and greatest number of trials aggregated in the
// shown cells; -1, -1 when none has any.
func (v *view) trialRange(keep func(*plan.Cell) bool) (lo, hi int) {
	lo, hi = -1, -1
	for i := range v.cells {
		a, ok := v.agg[v.cells[i].Key]
		if !ok || !keep(&v.cells[i]) {
			continue
		}
		if lo < 0 || a.Trials < lo {
			lo = a.Trials
		}
		hi = max(hi, a.Trials)
	}
	return lo, hi
}

// missingDataText says why the shown cells have no trials when it is that
// their optional datasets' files are absent (skipped records):
// "data missing: gisette (its files were not found: dplab datasets fetch
// gisette)". "" when some shown cell has trials or one of their datasets
// was not skipped.
func (v *view) missingDataText(keep func(*plan.Cell) bool) string {
	if lo, _ := v.trialRange(keep); lo >= 0 {
		return ""
	}
	var names []string
	for i := range v.cells {
		c := &v.cells[i]
		if !keep(c) {
			continue
		}
		d := v.spec.DatasetAt(c.Dataset)
		if _, skipped := v.skipped[d.Label]; !skipped {
			return ""
		}
		if !slices.Contains(names, d.Name) {
			names = append(names, d.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("data missing: %s (%s not found: dplab datasets fetch %s)", strings.Join(names, ", "),
		plural(len(names), "its files were", "their files were"), strings.Join(names, " "))
}

// trialsText is the number of trials aggregated in the shown cells, from
// the stored records (not the spec: a run with --trials, or an earlier
// larger run, changes it): "20 trials", or "20–40 trials per cell" when the
// cells differ.
func (v *view) trialsText(keep func(*plan.Cell) bool) string {
	lo, hi := v.trialRange(keep)
	switch {
	case lo < 0:
		return "0 trials (none stored)"
	case lo == hi && lo == 1:
		return "1 trial"
	case lo == hi:
		return fmt.Sprintf("%d trials", lo)
	}
	return fmt.Sprintf("%d–%d trials per cell", lo, hi)
}

// completeness counts the trials the spec asks for in the cells keep
// accepts and those stored (each cell's up to its own count), and the
// cells with fewer stored than asked (short) or none (empty). Cells of a
// skipped dataset (optional data absent: its panel says "skipped: …") do
// not count: rerunning would not fill them.
func (v *view) completeness(keep func(*plan.Cell) bool) (stored, want, short, empty int) {
	for i := range v.cells {
		c := &v.cells[i]
		if _, skipped := v.skipped[v.spec.DatasetAt(c.Dataset).Label]; skipped || !keep(c) {
			continue
		}
		want += c.Trials
		have := v.agg[c.Key].Trials // 0 when none is ok
		if ic, ok := v.infeasible[c.Key]; ok {
			have += ic.trials // settled: a rerun would not fill them
		}
		have = min(have, c.Trials)
		stored += have
		switch {
		case have == 0:
			empty++
		case have < c.Trials:
			short++
		}
	}
	return stored, want, short, empty
}

// incompleteText says, when the shown cells hold fewer trials than the
// spec asks for (an interrupted run, failed trials), how many, and each
// short cell's count: "INCOMPLETE: 150 of 220 trials stored; short of the
// spec's trials: AdaSSP at ε = 1 (10 of 20), …; 2 cells with none, not
// drawn" (at most maxShortListed cells named). "" when every cell is
// complete.
func (v *view) incompleteText(keep func(*plan.Cell) bool) string {
	stored, want, short, empty := v.completeness(keep)
	if stored >= want {
		return ""
	}
	name := v.cellNamer(keep)
	var listed []string
	for i := range v.cells {
		c := &v.cells[i]
		a, ok := v.agg[c.Key]
		settled := a.Trials
		if ic := v.infeasible[c.Key]; ic != nil {
			settled += ic.trials
		}
		if !keep(c) || !ok || settled >= c.Trials {
			continue
		}
		if len(listed) == maxShortListed {
			listed = append(listed, fmt.Sprintf("%d more", short-maxShortListed))
			break
		}
		where := name(c)
		if c.Private {
			where += " at ε = " + strconv.FormatFloat(c.Epsilon, 'g', 3, 64)
		}
		listed = append(listed, fmt.Sprintf("%s (%d of %d)", where, a.Trials, c.Trials))
	}
	out := fmt.Sprintf("INCOMPLETE: %d of %d trials stored", stored, want)
	if len(listed) > 0 {
		out += "; short of the spec's trials: " + strings.Join(listed, ", ")
	}
	if empty > 0 {
		out += fmt.Sprintf("; %d %s with none, not drawn", empty, plural(empty, "cell", "cells"))
	}
	return out
}

// maxShortListed is how many short cells a caption names.
const maxShortListed = 6

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// relationText names the neighbouring relation of the private ledgers
// (add/remove when there are none), per mechanism when they differ.
func (v *view) relationText() string {
	switch len(v.rels) {
	case 0:
		return "add/remove"
	case 1:
		for rel := range v.rels {
			return accounting.RelationText(rel)
		}
	}
	var parts []string
	for _, rel := range slices.Sorted(maps.Keys(v.rels)) {
		labels := append([]string(nil), v.rels[rel]...)
		sort.Strings(labels)
		parts = append(parts, fmt.Sprintf("%s (%s)", accounting.RelationText(rel), strings.Join(labels, ", ")))
	}
	return strings.Join(parts, ", ")
}

func (v *view) deltaText() string {
	s := v.spec
	if s.Delta.Constant() {
		return s.Delta.Text
	}
	var vals []string
	seen := map[string]bool{}
	for _, c := range v.ordered() {
		if !seen[c.Dataset] && c.Delta > 0 {
			seen[c.Dataset] = true
			vals = append(vals, fmt.Sprintf("%s: %.3g", c.Dataset, c.Delta))
		}
	}
	if len(vals) == 0 {
		return s.Delta.Text
	}
	return s.Delta.Text + " (" + strings.Join(vals, ", ") + ")"
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(slugRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// taskDatasets returns the indices of the spec's datasets that want
// accepts (labels; empty: all) and whose task is task.
func (v *view) taskDatasets(want []string, task datasets.Task) []int {
	var out []int
	for di, d := range v.spec.Datasets {
		de, _ := datasets.Lookup(d.Name)
		if v.wantDataset(want, di) && de.Info.Task == task {
			out = append(out, di)
		}
	}
	return out
}

func (v *view) tables(t *tableSpec) []*plotting.Table {
	s := v.spec
	m, _ := plan.LookupMetric(t.Metric)
	dsIdx := v.taskDatasets(t.Datasets, m.Task)
	// Columns: private cells' legends in spec order, with their mechanism.
	var cols []string
	colMech := map[string]int{}
	for ci := range v.cells {
		c := &v.cells[ci]
		if c.Private && v.wantMechanism(t.Mechanisms, c.Mechanism) && !slices.Contains(cols, v.legend(c)) {
			cols = append(cols, v.legend(c))
			colMech[v.legend(c)] = c.Mechanism
		}
	}
	wantEps := func(e float64) bool {
		if len(t.Epsilon) == 0 {
			return true
		}
		for _, x := range t.Epsilon {
			if math.Abs(x-e) <= 1e-9*e {
				return true
			}
		}
		return false
	}
	cell := func(di int, label string, eps float64) plotting.Entry {
		for ci := range v.cells {
			c := &v.cells[ci]
			if c.Dataset == di && v.legend(c) == label && c.Epsilon == eps {
				if a, ok := v.agg[c.Key]; ok {
					if st, ok := a.Metrics[t.Metric]; ok {
						return plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: true}
					}
				}
				if e, ok := v.infeasibleEntry(c.Key); ok {
					return e
				}
			}
		}
		if _, out := s.Excluded(di, colMech[label]); out {
			return excludedEntry()
		}
		return plotting.Entry{}
	}
	refs := func(di int) []string {
		var out []string
		for ci := range v.cells {
			c := &v.cells[ci]
			if c.Dataset == di && !c.Private && v.wantMechanism(t.Mechanisms, c.Mechanism) {
				if a, ok := v.agg[c.Key]; ok {
					if st, ok := a.Metrics[t.Metric]; ok {
						out = append(out, fmt.Sprintf("%s: %s", v.legend(c), plotting.Entry{Mean: st.Mean, Half: st.CIHalf, Present: true}.String()))
					}
				}
			}
		}
		return out
	}
	eps, _ := s.Epsilon.Floats()
	sort.Float64s(eps)
	keep := v.keep(t.Datasets, t.Mechanisms, &m.Task)
	base := &plotting.Table{Title: t.Title, Columns: cols, Better: betterOf(m)}
	if base.Title == "" {
		base.Title = m.Title
	}
	if t.Rows == "dataset" {
		tab := *base
		tab.Name, tab.RowHeader = t.Name, "dataset"
		if v.scaledY(m, dsIdx...) {
			tab.Title += ScaledYNote
		}
		tab.Title += fmt.Sprintf(" at ε = %g", t.Epsilon[0])
		var refNotes []string
		for _, di := range dsIdx {
			tab.Rows = append(tab.Rows, s.Datasets[di].Label)
			var row []plotting.Entry
			for _, col := range cols {
				row = append(row, cell(di, col, t.Epsilon[0]))
			}
			tab.Cells = append(tab.Cells, row)
			for _, r := range refs(di) {
				refNotes = append(refNotes, s.Datasets[di].Label+" "+r)
			}
		}
		tab.Caption = withReferences(refNotes, v.caption("ci", "mean", keep, t.Note))
		return []*plotting.Table{&tab}
	}
	var out []*plotting.Table
	for _, di := range dsIdx {
		tab := *base
		tab.Name, tab.RowHeader = t.Name, "ε"
		if len(dsIdx) > 1 {
			tab.Name = t.Name + "-" + v.datasetStem(s.Datasets[di].Label)
		}
		tab.Title += " — " + s.Datasets[di].Label
		if v.scaledY(m, di) {
			tab.Title += ScaledYNote
		}
		for _, e := range eps {
			if !wantEps(e) {
				continue
			}
			tab.Rows = append(tab.Rows, strconv.FormatFloat(e, 'g', 4, 64))
			var row []plotting.Entry
			for _, col := range cols {
				row = append(row, cell(di, col, e))
			}
			tab.Cells = append(tab.Cells, row)
		}
		// One table per dataset: its caption is about that dataset's cells.
		tab.Caption = withReferences(refs(di), v.caption("ci", "mean", func(c *plan.Cell) bool { return c.Dataset == di && keep(c) }, t.Note))
		out = append(out, &tab)
	}
	return out
}

// betterOf is the metric's direction as the table renderer's bolding rule.
func betterOf(m plan.Metric) plotting.Better {
	if m.Higher {
		return plotting.Higher
	}
	return plotting.Lower
}
