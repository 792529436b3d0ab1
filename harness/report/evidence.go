package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// EvidenceVersion is the version of an evidence file's format; a reader
// refuses a newer one.
const EvidenceVersion = 1

// Evidence is a result directory's trials digested into what the spec's
// tables, claims and summary.csv are made of (the per-cell summaries and
// notes a Collector keeps), without the records: a few numbers per cell
// and statistic, whatever the number of trials. The reproduction docs'
// generated sections are rendered from the evidence of full-size runs
// committed beside them (dplab docs, harness/docgen), with the
// current spec and code: a change of the spec's CI method, of a label or
// of a table's format shows in the rendering as in a new run's.
//
// A statistic keeps its count, sum, standard deviation, quartiles and
// extremes (not its interval): the 95% CI of the mean is computed again
// by the spec's CI method (results.Stat.WithCI), bit for bit what a render
// of the records gives. Wall-clock times (each cell's mean wall time and
// the diagnostics results.IsTimingKey names) differ from run to run: they
// are kept only when a claim of the spec reads one (Timing).
type Evidence struct {
	Spec       string // the spec's name
	SpecSHA256 string // of the spec file the evidence was made with
	// CodeVersions are the records' code versions (dplab's build
	// revisions), sorted.
	CodeVersions []string
	// CI is the spec's CI method when the evidence was made; a rendering
	// uses the spec's method of its time.
	CI string
	// Quick is set for the evidence of a --quick run.
	Quick bool
	// Timing is set when the wall-clock times are kept (a claim of the
	// spec reads one).
	Timing bool
	// Trials is the number of ok trials digested.
	Trials int
	// Runs are the runs that stored the trials (from the result
	// directory's manifest, by dplab docs --refresh), the context of the
	// wall-clock times: kept with them (Timing) only.
	Runs []EvidenceRun

	d      *digest
	traces traceUses // the iterations kept of each trace (evidence_traces.go)
}

// EvidenceRun is a run that stored trials of an evidence's result
// directory: when it ran, on how many concurrent trials, how many it ran,
// and the machine's 1-minute load average at its start and end
// (results.Run.Load).
type EvidenceRun struct {
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Jobs   int       `json:"jobs"`
	Trials int       `json:"trials"`
	Load   []float64 `json:"load,omitempty"`
}

// RunsOf returns the runs of manifest m that stored trials, as evidence
// keeps them (times in UTC, to the second).
func RunsOf(m *results.Manifest) []EvidenceRun {
	var out []EvidenceRun
	for _, r := range m.Runs {
		if r.TrialsRun > 0 {
			out = append(out, EvidenceRun{Start: r.Start.UTC().Truncate(time.Second), End: r.End.UTC().Truncate(time.Second),
				Jobs: r.Jobs, Trials: r.TrialsRun, Load: r.Load})
		}
	}
	return out
}

// NewEvidence digests the records of stored (a store's records in store
// order) for s's current cells. The store must hold every trial of every
// cell (but those of a skipped dataset): the evidence stands for a
// finished run.
func NewEvidence(s *spec.Spec, stored results.Source) (*Evidence, error) {
	outs, err := decodeOutputs(s)
	if err != nil {
		return nil, err
	}
	col, err := collectorOf(s)
	if err != nil {
		return nil, err
	}
	versions := map[string]bool{}
	if err := stored(func(r *results.Record) {
		if r.Status == results.StatusOK && col.byKey[r.CellKey] != nil {
			versions[r.CodeVersion] = true
		}
		col.Add(r)
	}); err != nil {
		return nil, err
	}
	d := col.digest()
	v := d.view(s, col.cells)
	if have, want, short, empty := v.completeness(func(*plan.Cell) bool { return true }); have < want {
		return nil, fmt.Errorf("%s: %d of %d trials stored (%d cells short, %d with none): evidence is made of a finished run; complete it first (dplab run)", s.Name, have, want, short, empty)
	}
	// A skipped dataset's reason names the data directory: $DPLAB_DATA
	// instead, so that the evidence is the same on every machine.
	if dir := datasets.DataDir(""); dir != "" {
		for label, why := range d.skipped {
			d.skipped[label] = strings.ReplaceAll(why, dir, "$DPLAB_DATA")
		}
	}
	e := &Evidence{Spec: s.Name, SpecSHA256: s.SHA256, CI: s.CI, Quick: s.QuickApplied, d: d,
		CodeVersions: slices.Sorted(maps.Keys(versions))}
	e.Timing = readsTiming(outs)
	e.traces = outs.tracesRead()
	for _, c := range d.cells {
		if c.summary != nil {
			e.Trials += c.summary.Trials
		}
		pruneTraces(c.summary, e.traces)
		pruneTraces(c.derived, e.traces)
		if !e.Timing {
			dropTiming(c.summary)
			dropTiming(c.derived)
		}
	}
	return e, nil
}

// readsTiming reports whether a claim of outs reads a wall-clock time.
func readsTiming(outs *outputs) bool {
	return slices.ContainsFunc(outs.claims, func(c *claim) bool { return c.q.timing() })
}

// dropTiming removes a summary's wall-clock times.
func dropTiming(a *results.CellSummary) {
	if a == nil {
		return
	}
	a.WallMean, a.Wall = math.NaN(), results.Stat{}
	maps.DeleteFunc(a.Diagnostics, func(k string, _ results.Stat) bool { return results.IsTimingKey(k) })
}

// EvidenceOutputs is what a spec's evidence renders to with the current
// code: every table as a render builds it, without its caption (which
// also counts the trials of trace iterations the evidence does not keep;
// a document's prose explains), the claims, summary.csv.
type EvidenceOutputs struct {
	Tables []*plotting.Table // in the order a render writes them; Note empty
	// Captions holds each table's caption (Tables[i]'s), as a render writes
	// it; for a table of trace iterations it also counts the trials of
	// iterations the evidence does not keep.
	Captions []plotting.Caption
	Claims   *Claims // nil without [[claim]] blocks
	Summary  []byte  // summary.csv
	// Interval names how the tables' intervals are computed ("Student-t,
	// n < 30"); "" when no cell has trials.
	Interval string

	spec *spec.Spec
	outs *outputs
	view *view
}

// evidenceFigureKinds are the figure kinds drawn from evidence
// (EvidenceOutputs.Figure): those made of the cells' summaries and the
// [[curve]] values, which the evidence keeps whole.
var evidenceFigureKinds = []string{"epsilon", "curves"}

// Figure draws the spec's [[figure]] block name from the evidence, as a
// render draws it from the records (with its caption), for a figure of a
// kind made of the cells' summaries (evidenceFigureKinds); a figure of
// trace iterations is not: the evidence keeps only the iterations tables
// and claims read.
func (o *EvidenceOutputs) Figure(name string) (*plotting.Figure, error) {
	var names []string
	for i := range o.spec.Figures {
		b := &o.spec.Figures[i]
		if b.Name != name {
			names = append(names, b.Name)
			continue
		}
		if !slices.Contains(evidenceFigureKinds, b.Kind) {
			return nil, fmt.Errorf("figure %q of %s is of kind %q: the evidence draws figures of kind %s only", name, o.spec.Name, b.Kind, strings.Join(evidenceFigureKinds, " or "))
		}
		return o.outs.figures[i].Draw(&View{o.view}), nil
	}
	return nil, fmt.Errorf("spec %s has no figure %q%s (its figures: %s)", o.spec.Name, name, suggest.DidYouMean(name, names), strings.Join(names, ", "))
}

// StaleEvidenceError is an evidence file that lacks cells of the current
// spec: the spec's grid (datasets, mechanisms, params, ε, trials, seed)
// changed since the run it was made of.
type StaleEvidenceError struct {
	Spec    string
	Missing []string // the cells lacking, by label and ε (at most maxStaleListed)
	Count   int      // how many lack
}

// maxStaleListed is how many lacking cells a StaleEvidenceError names.
const maxStaleListed = 5

func (e *StaleEvidenceError) Error() string {
	more := ""
	if e.Count > len(e.Missing) {
		more = fmt.Sprintf(", and %d more", e.Count-len(e.Missing))
	}
	return fmt.Sprintf("the evidence of %s lacks %d of the spec's cells (%s%s): the spec's grid changed since its run; run it at full size again and refresh the evidence (make reproduce, or dplab run then dplab docs --refresh)",
		e.Spec, e.Count, strings.Join(e.Missing, "; "), more)
}

// view returns the view of s made of the evidence, with its statistics'
// intervals by s's CI method; a *StaleEvidenceError when a cell of s
// (of a dataset not skipped) is not in it.
func (e *Evidence) view(s *spec.Spec) (*outputs, *view, error) {
	if s.Name != e.Spec {
		return nil, nil, fmt.Errorf("evidence of %s given for spec %s", e.Spec, s.Name)
	}
	outs, err := decodeOutputs(s)
	if err != nil {
		return nil, nil, err
	}
	if err := e.checkTraces(outs); err != nil {
		return nil, nil, err
	}
	if !e.Timing && readsTiming(outs) {
		return nil, nil, fmt.Errorf("the evidence of %s was made without wall-clock times (no claim read one then); a claim now reads one: refresh the evidence from the full-size run (dplab docs --refresh, or make reproduce)", e.Spec)
	}
	p, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		return nil, nil, err
	}
	cells := p.Cells()
	stale := &StaleEvidenceError{Spec: s.Name}
	for i := range cells {
		c := &cells[i]
		if _, skipped := e.d.skipped[s.DatasetAt(c.Dataset).Label]; !skipped && e.d.cells[c.Key] == nil {
			stale.Count++
			if len(stale.Missing) < maxStaleListed {
				stale.Missing = append(stale.Missing, staleCellText(s, c))
			}
		}
	}
	if stale.Count > 0 {
		return nil, nil, stale
	}
	ci := results.CIMethod(s.CI)
	d := &digest{cells: make(map[string]*cellDigest, len(e.d.cells)), skipped: e.d.skipped, rels: e.d.rels}
	for k, c := range e.d.cells {
		cc := *c
		cc.summary, cc.derived = withCI(c.summary, ci), withCI(c.derived, ci)
		d.cells[k] = &cc
	}
	return outs, d.viewWithCurves(s, cells), nil
}

// staleCellText names a cell: "ijcnn1 Relative[split=random], ε = 0.1".
func staleCellText(s *spec.Spec, c *plan.Cell) string {
	eps := "non-private"
	if c.Private {
		eps = "ε = " + strconv.FormatFloat(c.Epsilon, 'g', 4, 64)
	}
	return fmt.Sprintf("%s %s, %s", s.DatasetAt(c.Dataset).Label, c.Label, eps)
}

// withCI returns a copy of a with every statistic's interval by ci.
func withCI(a *results.CellSummary, ci results.CIMethod) *results.CellSummary {
	if a == nil {
		return nil
	}
	b := *a
	stat := func(st results.Stat) results.Stat { return st.WithCI(ci) }
	b.Metrics, b.Diagnostics, b.Noise = mapValues(a.Metrics, stat), mapValues(a.Diagnostics, stat), mapValues(a.Noise, stat)
	if a.Wall.Count > 0 {
		b.Wall = stat(a.Wall)
	}
	b.Traces = mapValues(a.Traces, func(ts []results.Stat) []results.Stat { return mapSlice(ts, stat) })
	return &b
}

// mapValues returns m with f applied to each value (nil when m is nil).
func mapValues[T, U any](m map[string]T, f func(T) U) map[string]U {
	if m == nil {
		return nil
	}
	out := make(map[string]U, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

// mapSlice returns xs with f applied to each element.
func mapSlice[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// toEvStat and fromEvStat convert a statistic to and from its evidence
// form (evStat: the same fields, its own JSON).
func toEvStat(st results.Stat) evStat   { return evStat(st) }
func fromEvStat(st evStat) results.Stat { return results.Stat(st) }

// Outputs renders the spec's tables, claims and summary.csv from the
// evidence with s, the current spec (see Evidence).
func (e *Evidence) Outputs(s *spec.Spec) (*EvidenceOutputs, error) {
	outs, v, err := e.view(s)
	if err != nil {
		return nil, err
	}
	return viewOutputs(s, outs, v)
}

// viewOutputs returns the EvidenceOutputs of the view v of s's outputs
// outs.
func viewOutputs(s *spec.Spec, outs *outputs, v *view) (*EvidenceOutputs, error) {
	out := &EvidenceOutputs{spec: s, outs: outs, view: v}
	var err error
	if out.Summary, err = v.summaryCSV(); err != nil {
		return nil, err
	}
	v.built = map[string][]*plotting.Table{} // the tables claims read (quantity table:NAME), as a render keeps them
	for i, t := range outs.tables {
		for _, tab := range t.Build(&View{v}) {
			v.built[s.Tables[i].Name] = append(v.built[s.Tables[i].Name], tab)
			shown := *tab
			shown.Caption = plotting.Caption{}
			out.Tables, out.Captions = append(out.Tables, &shown), append(out.Captions, tab.Caption)
		}
	}
	if len(outs.claims) > 0 {
		out.Claims = evaluateClaims(s, outs.claims, v)
	}
	all := func(*plan.Cell) bool { return true }
	if lo, _ := v.trialRange(all); lo > 0 {
		out.Interval = v.ciText(all)
	}
	return out, nil
}

// The evidence file is JSON: a header object whose "cells" member lists
// one cell per line, so that a new run's evidence differs from the old
// one's line by line, cell by cell. Statistics are arrays (evStat);
// non-finite numbers are null (NaN), "inf" or "-inf".

// evidenceHeader is the evidence file's members but its cells.
type evidenceHeader struct {
	Version      int                 `json:"version"`
	Spec         string              `json:"spec"`
	SpecSHA256   string              `json:"spec_sha256"`
	CodeVersions []string            `json:"code_versions"`
	CI           string              `json:"ci"`
	Quick        bool                `json:"quick"`
	Timing       bool                `json:"timing"`
	Trials       int                 `json:"trials"`
	Runs         []EvidenceRun       `json:"runs,omitempty"`
	Traces       traceUses           `json:"traces,omitempty"`
	Skipped      map[string]string   `json:"skipped,omitempty"`
	Relations    map[string][]string `json:"relations,omitempty"`
}

// evidenceFile is the evidence file.
type evidenceFile struct {
	evidenceHeader
	Cells []evCell `json:"cells"`
}

// evCell is a cell's digest in the file.
type evCell struct {
	Key        string        `json:"key"`
	Summary    *evSummary    `json:"summary,omitempty"`
	Derived    *evSummary    `json:"derived,omitempty"`
	Ledger     *evLedger     `json:"ledger,omitempty"`
	Analyses   []string      `json:"analyses,omitempty"`
	Groups     []string      `json:"groups,omitempty"`
	Infeasible *evInfeasible `json:"infeasible,omitempty"`
}

type evLedger struct {
	Event json.RawMessage `json:"event"`
	Delta evFloat         `json:"delta"`
}

type evInfeasible struct {
	Trials int     `json:"trials"`
	Lo     evFloat `json:"lo"`
	Hi     evFloat `json:"hi"`
	Order  evFloat `json:"order"`
	Reason string  `json:"reason,omitempty"`
}

// evSummary is a results.CellSummary in the file (its Key is the cell's).
type evSummary struct {
	Dataset         string              `json:"dataset"`
	DatasetName     string              `json:"dataset_name,omitempty"`
	Mechanism       string              `json:"mechanism"`
	Label           string              `json:"label"`
	Epsilon         evFloat             `json:"epsilon"`
	Params          map[string]any      `json:"params,omitempty"`
	Trials          int                 `json:"trials"`
	DataIndependent int                 `json:"data_independent,omitempty"`
	EpsSpentMax     evFloat             `json:"eps_spent_max"`
	EpsPerRunMax    evFloat             `json:"eps_per_run_max"`
	Delta           evFloat             `json:"delta"`
	Accountant      string              `json:"accountant,omitempty"`
	Tuning          string              `json:"tuning,omitempty"`
	Selection       string              `json:"selection,omitempty"`
	TargetScope     string              `json:"target_scope,omitempty"`
	AlphaMean       evFloat             `json:"alpha_mean"`
	WallMean        evFloat             `json:"wall_s_mean"`
	Wall            *evStat             `json:"wall_s,omitempty"` // kept with the timing (Evidence.Timing)
	Assumptions     []string            `json:"assumptions,omitempty"`
	Metrics         map[string]evStat   `json:"metrics,omitempty"`
	Diagnostics     map[string]evStat   `json:"diagnostics,omitempty"`
	Noise           map[string]evStat   `json:"noise,omitempty"`
	Traces          map[string][]evStat `json:"traces,omitempty"`
}

// JSON returns the evidence file's bytes.
func (e *Evidence) JSON() ([]byte, error) {
	h := evidenceHeader{Version: EvidenceVersion, Spec: e.Spec, SpecSHA256: e.SpecSHA256, CodeVersions: e.CodeVersions,
		CI: e.CI, Quick: e.Quick, Timing: e.Timing, Trials: e.Trials, Runs: e.Runs, Traces: e.traces, Skipped: e.d.skipped, Relations: e.d.rels}
	if h.CodeVersions == nil {
		h.CodeVersions = []string{}
	}
	head, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-2]) // without "\n}"
	b.WriteString(",\n  \"cells\": [")
	for i, key := range slices.Sorted(maps.Keys(e.d.cells)) {
		line, err := json.Marshal(encodeCell(key, e.d.cells[key]))
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", key, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(line)
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes(), nil
}

// Rekeyed returns a copy of e whose cells filed under a key of keys (old
// key -> new key) are filed, with their summaries, under the new key; the
// other cells are shared with e. The equivalence check evaluates the
// committed evidence's claims this way when a mechanism's code version
// changed its cells' keys.
func (e *Evidence) Rekeyed(keys map[string]string) *Evidence {
	c := *e
	d := *e.d
	d.cells = make(map[string]*cellDigest, len(e.d.cells))
	for k, cd := range e.d.cells {
		if n, ok := keys[k]; ok {
			moved := *cd
			moved.summary, moved.derived = withKey(cd.summary, n), withKey(cd.derived, n)
			k, cd = n, &moved
		}
		d.cells[k] = cd
	}
	c.d = &d
	return &c
}

// withKey is a copy of s filed under key; nil stays nil.
func withKey(s *results.CellSummary, key string) *results.CellSummary {
	if s == nil {
		return nil
	}
	c := *s
	c.Key = key
	return &c
}

// ParseEvidence reads an evidence file's bytes (Evidence.JSON); name
// names it in errors.
func ParseEvidence(name string, b []byte) (*Evidence, error) {
	var f evidenceFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if f.Version > EvidenceVersion || f.Version < 1 {
		return nil, fmt.Errorf("%s: format version %d (this dplab reads 1 to %d)", name, f.Version, EvidenceVersion)
	}
	e := &Evidence{Spec: f.Spec, SpecSHA256: f.SpecSHA256, CodeVersions: f.CodeVersions, CI: f.CI, Quick: f.Quick,
		Timing: f.Timing, Trials: f.Trials, Runs: f.Runs, traces: f.Traces,
		d: &digest{cells: make(map[string]*cellDigest, len(f.Cells)), skipped: f.Skipped, rels: f.Relations}}
	if e.d.skipped == nil {
		e.d.skipped = map[string]string{}
	}
	if e.d.rels == nil {
		e.d.rels = map[string][]string{}
	}
	for _, c := range f.Cells {
		if c.Key == "" || e.d.cells[c.Key] != nil {
			return nil, fmt.Errorf("%s: cell key %q empty or repeated", name, c.Key)
		}
		d, err := decodeCell(c)
		if err != nil {
			return nil, fmt.Errorf("%s: cell %s: %w", name, c.Key, err)
		}
		e.d.cells[c.Key] = d
	}
	return e, nil
}

func encodeCell(key string, c *cellDigest) evCell {
	out := evCell{Key: key, Summary: encodeSummary(c.summary), Derived: encodeSummary(c.derived), Analyses: c.analyses, Groups: c.groups}
	if c.ledger != nil {
		out.Ledger = &evLedger{Event: c.ledger.event, Delta: evFloat(c.ledger.delta)}
	}
	if ic := c.infeasible; ic != nil {
		out.Infeasible = &evInfeasible{Trials: ic.trials, Lo: evFloat(ic.lo), Hi: evFloat(ic.hi), Order: evFloat(ic.order), Reason: ic.reason}
	}
	return out
}

func decodeCell(c evCell) (*cellDigest, error) {
	d := &cellDigest{analyses: c.Analyses, groups: c.Groups}
	var err error
	if d.summary, err = decodeSummary(c.Key, c.Summary); err != nil {
		return nil, err
	}
	if d.derived, err = decodeSummary(c.Key, c.Derived); err != nil {
		return nil, err
	}
	if l := c.Ledger; l != nil {
		// The record's event was compact JSON; the file may be indented.
		var ev bytes.Buffer
		if len(l.Event) > 0 {
			if err := json.Compact(&ev, l.Event); err != nil {
				return nil, fmt.Errorf("ledger event: %w", err)
			}
		}
		d.ledger = &ledgerSummary{event: ev.Bytes(), delta: float64(l.Delta)}
		if len(l.Event) == 0 || string(l.Event) == "null" {
			d.ledger.event = nil
		}
	}
	if ic := c.Infeasible; ic != nil {
		d.infeasible = &infeasibleCell{trials: ic.Trials, lo: float64(ic.Lo), hi: float64(ic.Hi), order: float64(ic.Order), reason: ic.Reason}
	}
	return d, nil
}

func encodeSummary(a *results.CellSummary) *evSummary {
	if a == nil {
		return nil
	}
	stats := func(m map[string]results.Stat) map[string]evStat {
		if len(m) == 0 {
			return nil
		}
		return mapValues(m, toEvStat)
	}
	s := &evSummary{Dataset: a.Dataset, DatasetName: a.DatasetName, Mechanism: a.Mechanism, Label: a.Label, Epsilon: evFloat(a.Epsilon),
		Params: a.MechParams, Trials: a.Trials, DataIndependent: a.DataIndependent, EpsSpentMax: evFloat(a.EpsSpentMax),
		EpsPerRunMax: evFloat(a.EpsPerRunMax), Delta: evFloat(a.Delta), Accountant: a.Accountant, Tuning: a.Tuning,
		Selection: a.Selection, TargetScope: a.TargetScope, AlphaMean: evFloat(a.AlphaMean), WallMean: evFloat(a.WallMean),
		Assumptions: a.Assumptions, Metrics: stats(a.Metrics), Diagnostics: stats(a.Diagnostics), Noise: stats(a.Noise)}
	if a.Wall.Count > 0 {
		w := evStat(a.Wall)
		s.Wall = &w
	}
	if len(a.Traces) > 0 {
		s.Traces = mapValues(a.Traces, func(ts []results.Stat) []evStat { return mapSlice(ts, toEvStat) })
	}
	return s
}

// decodeSummary is encodeSummary's inverse: maps as an Aggregator makes
// them (Metrics and Diagnostics never nil, Noise and Traces nil when
// empty), statistics without their intervals (Evidence.view adds them).
func decodeSummary(key string, s *evSummary) (*results.CellSummary, error) {
	if s == nil {
		return nil, nil
	}
	stats := func(m map[string]evStat) map[string]results.Stat {
		if m == nil {
			return map[string]results.Stat{}
		}
		return mapValues(m, fromEvStat)
	}
	a := &results.CellSummary{Key: key, Dataset: s.Dataset, DatasetName: s.DatasetName, Mechanism: s.Mechanism, Label: s.Label,
		Epsilon: float64(s.Epsilon), MechParams: s.Params, Trials: s.Trials, DataIndependent: s.DataIndependent,
		EpsSpentMax: float64(s.EpsSpentMax), EpsPerRunMax: float64(s.EpsPerRunMax), Delta: float64(s.Delta),
		Accountant: s.Accountant, Tuning: s.Tuning, Selection: s.Selection, TargetScope: s.TargetScope,
		AlphaMean: float64(s.AlphaMean), WallMean: float64(s.WallMean), Assumptions: s.Assumptions,
		Metrics: stats(s.Metrics), Diagnostics: stats(s.Diagnostics)}
	if s.Wall != nil {
		a.Wall = results.Stat(*s.Wall)
	}
	if len(s.Noise) > 0 {
		a.Noise = stats(s.Noise)
	}
	if len(s.Traces) > 0 {
		a.Traces = mapValues(s.Traces, func(ts []evStat) []results.Stat { return mapSlice(ts, fromEvStat) })
	}
	return a, nil
}

// evFloat is a number of the evidence file: JSON's shortest round-trip
// form when finite, null for NaN, "inf" and "-inf".
type evFloat float64

// MarshalJSON implements json.Marshaler.
func (x evFloat) MarshalJSON() ([]byte, error) { return appendNum(nil, float64(x)), nil }

// UnmarshalJSON implements json.Unmarshaler.
func (x *evFloat) UnmarshalJSON(b []byte) error {
	f, err := parseNum(b)
	*x = evFloat(f)
	return err
}

func appendNum(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "null"...)
	case math.IsInf(x, 1):
		return append(b, `"inf"`...)
	case math.IsInf(x, -1):
		return append(b, `"-inf"`...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

func parseNum(b []byte) (float64, error) {
	switch string(b) {
	case "null":
		return math.NaN(), nil
	case `"inf"`:
		return math.Inf(1), nil
	case `"-inf"`:
		return math.Inf(-1), nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("number %s: want a number, null, \"inf\" or \"-inf\"", b)
	}
	return x, nil
}

// evStat is a results.Stat in the file, without its interval: [n, v] for
// n equal values v (results.Summarize of them is the Stat), else [n, sum,
// sd, median, q1, q3, min, max] (mean = sum/n, as Summarize computes it).
// n = 0 is [0].
type evStat results.Stat

// MarshalJSON implements json.Marshaler.
func (s evStat) MarshalJSON() ([]byte, error) {
	b := strconv.AppendInt([]byte{'['}, int64(s.Count), 10)
	var xs []float64
	switch {
	case s.Count == 0:
	case s.Min == s.Max && !math.IsNaN(s.Mean):
		xs = []float64{s.Min}
	default:
		xs = []float64{s.Sum, s.SD, s.Median, s.Q1, s.Q3, s.Min, s.Max}
	}
	for _, x := range xs {
		b = appendNum(append(b, ','), x)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON implements json.Unmarshaler. The interval is not set.
func (s *evStat) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		return errors.New("empty statistic")
	}
	n, err := strconv.Atoi(string(raw[0]))
	if err != nil || n < 0 {
		return fmt.Errorf("statistic %s: want a count ≥ 0 first", b)
	}
	xs := make([]float64, len(raw)-1)
	for i, r := range raw[1:] {
		if xs[i], err = parseNum(r); err != nil {
			return err
		}
	}
	switch {
	case n == 0 && len(xs) == 0:
		*s = evStat(results.Summarize(nil, results.CINormal))
	case n > 0 && len(xs) == 1:
		same := make([]float64, n)
		for i := range same {
			same[i] = xs[0]
		}
		*s = evStat(results.Summarize(same, results.CINormal))
	case n > 0 && len(xs) == 7:
		*s = evStat{Count: n, Sum: xs[0], Mean: xs[0] / float64(n), SD: xs[1], Median: xs[2], Q1: xs[3], Q3: xs[4], Min: xs[5], Max: xs[6]}
	default:
		return fmt.Errorf("statistic %s: want [0], [n, value] or [n, sum, sd, median, q1, q3, min, max]", b)
	}
	return nil
}

// EvidenceCell is one cell of an evidence file as the equivalence check
// (harness/equivalence) reads it: its summaries, statistics without
// their intervals (results.Stat.WithCI adds them); the ledger of its first
// ok record; its infeasible calibrations. Read only: they are the
// evidence's own.
type EvidenceCell struct {
	Key              string
	Summary, Derived *results.CellSummary // nil: none
	// LedgerEvent is the ledger's event as compact JSON and LedgerDelta its
	// δ; LedgerEvent is nil without a ledger.
	LedgerEvent []byte
	LedgerDelta float64
	// Infeasible is set when trials were infeasible: how many, the
	// smallest ε they reached (Lo, Hi) and the RDP order of an RDP target.
	Infeasible *EvidenceInfeasible
}

// EvidenceInfeasible is a cell's infeasible calibrations (EvidenceCell).
type EvidenceInfeasible struct {
	Trials        int
	Lo, Hi, Order float64
}

// Cells returns the evidence's cells, sorted by key.
func (e *Evidence) Cells() []EvidenceCell {
	out := make([]EvidenceCell, 0, len(e.d.cells))
	for _, key := range slices.Sorted(maps.Keys(e.d.cells)) {
		c := e.d.cells[key]
		ec := EvidenceCell{Key: key, Summary: c.summary, Derived: c.derived}
		if c.ledger != nil {
			ec.LedgerEvent, ec.LedgerDelta = c.ledger.event, c.ledger.delta
		}
		if ic := c.infeasible; ic != nil {
			ec.Infeasible = &EvidenceInfeasible{Trials: ic.trials, Lo: ic.lo, Hi: ic.hi, Order: ic.order}
		}
		out = append(out, ec)
	}
	return out
}
