package report

import (
	"context"
	"maps"
	"math"
	"slices"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// Collector gathers, from a store's records given one at a time (Add), in
// store order, everything the figures and tables of a spec are drawn from,
// without keeping the records: the per-cell aggregates (a
// results.Aggregator, which keeps a few numbers per trial) and, per cell, a
// few facts the captions and privacy tables state. dplab run gives it each
// record as it is stored (run.Options.Records), dplab render each record as
// it scans the store, so neither holds the store in memory.
//
// The view it makes is the one the records sorted by (cell, trial), the
// store's order kept among the records of one trial, would give: what it
// keeps of a record's order is the record's trial and its position in the
// store. Not safe for concurrent use.
type Collector struct {
	spec  *spec.Spec
	cells []plan.Cell
	byKey map[string]*plan.Cell
	rank  map[string]int // cell key -> its index in key order
	agg   *results.Aggregator
	n     int // records added so far: the next one's position
	notes map[string]*cellNotes
	// skipped holds, by dataset label, the last skipped record's reason
	// in (cell key, trial, position) order.
	skipped map[string]skip
	rels    map[string]map[string]bool // relation -> labels of the private cells' ok records
	// derived aggregates, record by record, the values tables print
	// derived from stored keys (quantity.of), of the cells whose mechanism
	// has some.
	derived *results.Aggregator
	// ledgerEps holds the components (LedgerComponents) of each cell's
	// ledger as Add notes it, when the spec has a privacy table (nil
	// otherwise): a run gives Add its records on its writer goroutine while
	// trials run, so the accountant's evaluations the calibration table
	// needs are done there and not after the last trial (a tenth of a small
	// panel's rendering).
	ledgerEps map[ledgerKey][]float64
}

// recordAt orders the records of a cell as the view takes them: by trial,
// then by position in the store.
type recordAt struct{ trial, n int }

func (a recordAt) before(b recordAt) bool {
	return a.trial < b.trial || a.trial == b.trial && a.n < b.n
}

// skip is a skipped record's reason and where it stands among the
// skipped records of its dataset.
type skip struct {
	rank int // of its cell
	at   recordAt
	why  string
}

// cellNotes is what a Collector keeps of a cell beyond its aggregate.
type cellNotes struct {
	ledger   *ledgerSummary // of the first ok record
	ledgerAt recordAt
	// analyses and groups are the distinct values of the ok records'
	// privacy.pipeline, each where it first appeared.
	analyses, groups map[string]recordAt
	infeasible       *infeasibleCell
	orderAt          recordAt // the infeasible record whose order infeasible holds, if ordered
	ordered          bool
	reasonAt         recordAt // the infeasible record whose reason infeasible holds, if any
}

// collectorOf returns an empty Collector of the cells of s's plan (with
// the spec's trial count).
func collectorOf(s *spec.Spec) (*Collector, error) {
	p, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		return nil, err
	}
	return NewCollector(p), nil
}

// NewCollector returns an empty Collector of the plan's cells.
func NewCollector(p *plan.Plan) *Collector {
	s, cells := p.Spec(), p.Cells()
	c := &Collector{spec: s, cells: cells, byKey: make(map[string]*plan.Cell, len(cells)),
		agg: results.NewAggregator(results.CIMethod(s.CI)), derived: results.NewAggregator(results.CIMethod(s.CI)), notes: map[string]*cellNotes{},
		skipped: map[string]skip{}, rels: map[string]map[string]bool{}}
	for i := range cells {
		c.byKey[cells[i].Key] = &cells[i]
	}
	if slices.ContainsFunc(s.Tables, func(t spec.OutputSpec) bool { return t.Kind == privacyKind }) {
		c.ledgerEps = map[ledgerKey][]float64{}
	}
	keys := slices.Sorted(maps.Keys(c.byKey))
	c.rank = make(map[string]int, len(keys))
	for k, key := range keys {
		c.rank[key] = k
	}
	return c
}

// Add adds the next record of the store. Records of cells the spec no
// longer has are ignored. r is not modified and not retained, but its
// maps and its ledger event may be.
func (col *Collector) Add(r *results.Record) {
	c := col.byKey[r.CellKey]
	if c == nil {
		return
	}
	at := recordAt{r.Trial, col.n}
	col.n++
	notes := col.notes[r.CellKey]
	if notes == nil {
		notes = &cellNotes{}
		col.notes[r.CellKey] = notes
	}
	switch r.Status {
	case results.StatusSkipped:
		k := skip{col.rank[r.CellKey], at, r.Error}
		if old, ok := col.skipped[r.Dataset]; !ok || old.rank < k.rank || old.rank == k.rank && old.at.before(at) {
			col.skipped[r.Dataset] = k
		}
	case results.StatusInfeasible:
		notes.addInfeasible(r, at)
	case results.StatusOK:
		col.agg.Add(r)
		if mech := col.spec.Mechanisms[c.Mechanism].Name; derives(mech) {
			// Every ok record, so that a rerun's replaces its trial's.
			col.derived.Add(&results.Record{CellKey: r.CellKey, Trial: r.Trial, Status: results.StatusOK, Diagnostics: derivedValues(mech, r)})
		}
		if notes.ledger == nil || at.before(notes.ledgerAt) {
			notes.ledger, notes.ledgerAt = &ledgerSummary{event: r.Privacy.Event, delta: float64(r.Privacy.Delta)}, at
			if col.ledgerEps != nil {
				k := ledgerKeyOf(r.Privacy.Event, float64(r.Privacy.Delta))
				if _, ok := col.ledgerEps[k]; !ok {
					col.ledgerEps[k] = LedgerComponents(plan.AccountingConfig(col.spec), r.Privacy.Event, float64(r.Privacy.Delta))
				}
			}
		}
		if p := r.Privacy.Pipeline; p != nil {
			notes.analyses = firstAt(notes.analyses, p.Analysis, at)
			notes.groups = firstAt(notes.groups, p.Group, at)
		}
		if rel := r.Privacy.Relation; !math.IsInf(float64(r.Epsilon), 1) {
			if col.rels[rel] == nil {
				col.rels[rel] = map[string]bool{}
			}
			col.rels[rel][r.Label] = true
		}
	}
}

// firstAt notes that the value v ("" is none) appeared at at, keeping the
// earliest appearance of each value.
func firstAt(m map[string]recordAt, v string, at recordAt) map[string]recordAt {
	if v == "" {
		return m
	}
	if m == nil {
		m = map[string]recordAt{}
	}
	if old, ok := m[v]; !ok || at.before(old) {
		m[v] = at
	}
	return m
}

// inOrder returns the values of m in order of first appearance.
func inOrder(m map[string]recordAt) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a].before(m[b]) {
			return -1
		}
		return 1
	})
}

// digest is what a view is made of besides the spec: per cell its
// summaries and the notes a Collector keeps of it, per dataset the last
// skip's reason and per relation the labels whose ledgers have it. A
// Collector makes it from records (Collector.digest); an Evidence keeps it
// (evidence.go), so that a view is made again without them.
type digest struct {
	cells   map[string]*cellDigest // by cell key
	skipped map[string]string      // dataset label -> reason
	rels    map[string][]string    // neighbouring relation -> labels, sorted
	// ledgerEps holds ledger components already evaluated (the view's
	// memo starts with them); nil: none.
	ledgerEps map[ledgerKey][]float64
}

// cellDigest is what a view takes of one cell.
type cellDigest struct {
	summary *results.CellSummary // nil: no ok trial
	derived *results.CellSummary // the derived values' summaries (quantity.of); nil: none
	ledger  *ledgerSummary       // of the first ok record
	// analyses and groups are the distinct values of the ok records'
	// privacy.pipeline, in order of first appearance.
	analyses, groups []string
	infeasible       *infeasibleCell
}

// digest returns the digest of the records added so far.
func (col *Collector) digest() *digest {
	d := &digest{cells: map[string]*cellDigest{}, skipped: map[string]string{}, rels: map[string][]string{}, ledgerEps: maps.Clone(col.ledgerEps)}
	cell := func(key string) *cellDigest {
		if d.cells[key] == nil {
			d.cells[key] = &cellDigest{}
		}
		return d.cells[key]
	}
	for label, k := range col.skipped {
		d.skipped[label] = k.why
	}
	for rel, labels := range col.rels {
		d.rels[rel] = slices.Sorted(maps.Keys(labels))
	}
	for key, n := range col.notes {
		c := cell(key)
		c.ledger, c.infeasible = n.ledger, n.infeasible
		c.analyses, c.groups = inOrder(n.analyses), inOrder(n.groups)
	}
	for _, a := range col.derived.Cells() {
		cell(a.Key).derived = &a
	}
	for _, a := range col.agg.Cells() {
		cell(a.Key).summary = &a
	}
	return d
}

// view returns the view of the records added so far.
func (col *Collector) view() *view { return col.digest().view(col.spec, col.cells) }

// view returns the view of s's current cells (cells: its plan's) made of
// d. A digest's cells that are not current are left out.
func (d *digest) view(s *spec.Spec, cells []plan.Cell) *view {
	v := &view{spec: s, cells: cells, agg: map[string]results.CellSummary{}, skipped: maps.Clone(d.skipped), over: map[string][]float64{},
		ledgers: map[string]*ledgerSummary{}, rels: maps.Clone(d.rels), infeasible: map[string]*infeasibleCell{},
		derived: map[string]results.CellSummary{}, ledgerEps: maps.Clone(d.ledgerEps)}
	byKey := make(map[string]*plan.Cell, len(cells))
	for i := range cells {
		byKey[cells[i].Key] = &cells[i]
	}
	// Cell by cell in key order, as the records sorted by (cell, trial)
	// give them: the mechanisms' pipeline notes and the overspends.
	for _, key := range slices.Sorted(maps.Keys(d.cells)) {
		c, n := byKey[key], d.cells[key]
		if c == nil {
			continue
		}
		if n.ledger != nil {
			v.ledgers[key] = n.ledger
		}
		if n.infeasible != nil {
			v.infeasible[key] = n.infeasible
		}
		for _, a := range n.analyses {
			v.addPipeline(c, &results.Pipeline{Analysis: a})
		}
		for _, g := range n.groups {
			v.addPipeline(c, &results.Pipeline{Group: g})
		}
		if n.derived != nil {
			v.derived[key] = *n.derived
		}
		if a := n.summary; a != nil {
			v.agg[key] = *a
			if a.OverspendsTarget() {
				v.over[a.Label] = append(v.over[a.Label], a.Epsilon)
			}
		}
	}
	for label := range v.skipped {
		// A dataset skipped in an earlier run but present now has ok trials.
		for _, c := range v.cells {
			if s.DatasetAt(c.Dataset).Label == label && v.agg[c.Key].Trials > 0 {
				delete(v.skipped, label)
				break
			}
		}
	}
	return v
}
