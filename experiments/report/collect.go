package report

import (
	"context"
	"maps"
	"math"
	"slices"

	"github.com/dplab/dplab/experiments/run"
	"github.com/dplab/dplab/experiments/spec"
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
	cells []spec.Cell
	byKey map[string]*spec.Cell
	rank  map[string]int // cell key -> its index in key order
	agg   *results.Aggregator
	n     int // records added so far: the next one's position
	notes map[string]*cellNotes
	// skipped holds, by dataset label, the last skipped record's reason
	// in (cell key, trial, position) order.
	skipped map[string]skip
	rels    map[string]map[string]bool // relation -> labels of the private cells' ok records
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

// NewCollector returns an empty Collector of s's current cells.
func NewCollector(s *spec.Spec) (*Collector, error) {
	cells, err := s.Expand(context.Background())
	if err != nil {
		return nil, err
	}
	c := &Collector{spec: s, cells: cells, byKey: make(map[string]*spec.Cell, len(cells)),
		agg: results.NewAggregator(results.CIMethod(s.CI)), notes: map[string]*cellNotes{},
		skipped: map[string]skip{}, rels: map[string]map[string]bool{}}
	for i := range cells {
		c.byKey[cells[i].Key] = &cells[i]
	}
	keys := slices.Sorted(maps.Keys(c.byKey))
	c.rank = make(map[string]int, len(keys))
	for k, key := range keys {
		c.rank[key] = k
	}
	return c, nil
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
		if r.Schema < 2 && r.Privacy.Assumptions == nil {
			// Schema-1 records predate Privacy.Assumptions: they are
			// stated from the spec, as a new run would have recorded them
			// (in a copy: r is the caller's).
			up := *r
			up.Privacy.Assumptions = run.Assumptions(col.spec, c, r)
			r = &up
		}
		col.agg.Add(r)
		if notes.ledger == nil || at.before(notes.ledgerAt) {
			notes.ledger, notes.ledgerAt = &ledgerSummary{event: r.Privacy.Event, delta: float64(r.Privacy.Delta)}, at
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

// view returns the view of the records added so far.
func (col *Collector) view() *view {
	s := col.spec
	v := &view{spec: s, cells: col.cells, agg: map[string]results.CellSummary{}, skipped: map[string]string{}, over: map[string][]float64{},
		ledgers: map[string]*ledgerSummary{}, rels: map[string][]string{}, infeasible: map[string]*infeasibleCell{}}
	for label, k := range col.skipped {
		v.skipped[label] = k.why
	}
	for rel, labels := range col.rels {
		v.rels[rel] = slices.Sorted(maps.Keys(labels))
	}
	// The mechanisms' pipeline notes, cell by cell in key order, as the
	// records sorted by (cell, trial) give them.
	for _, key := range slices.Sorted(maps.Keys(col.notes)) {
		n := col.notes[key]
		if n.ledger != nil {
			v.ledgers[key] = n.ledger
		}
		if n.infeasible != nil {
			v.infeasible[key] = n.infeasible
		}
		c := col.byKey[key]
		for _, a := range inOrder(n.analyses) {
			v.addPipeline(c, &results.Pipeline{Analysis: a})
		}
		for _, g := range inOrder(n.groups) {
			v.addPipeline(c, &results.Pipeline{Group: g})
		}
	}
	for _, c := range col.agg.Cells() {
		v.agg[c.Key] = c
		if c.OverspendsTarget() {
			v.over[c.Label] = append(v.over[c.Label], c.Epsilon)
		}
	}
	for label := range v.skipped {
		// A dataset skipped in an earlier run but present now has ok trials.
		for _, c := range v.cells {
			if s.Datasets[c.Dataset].Label == label && v.agg[c.Key].Trials > 0 {
				delete(v.skipped, label)
				break
			}
		}
	}
	return v
}
