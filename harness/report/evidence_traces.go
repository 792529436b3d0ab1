package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dplab/dplab/results"
)

// An evidence file keeps of each trace (results.CellSummary.Traces) only
// the iterations the spec's tables and claims read when it was made: a
// trace of 41 iterations, of which a table shows 4, is most of a
// distributed-GD run's summary otherwise. Figures, which draw every
// iteration, are not rendered from evidence.

// traceUse is what is read of one trace: every iteration, the iterations
// At, and the last one of each cell.
type traceUse struct {
	All  bool  `json:"all,omitempty"`
	At   []int `json:"at,omitempty"` // sorted, distinct
	Last bool  `json:"last,omitempty"`
}

// traceUses is what is read of the traces, by trace name.
type traceUses map[string]*traceUse

// add notes that u of trace name is read.
func (us traceUses) add(name string, u traceUse) {
	old := us[name]
	if old == nil {
		old = &traceUse{}
		us[name] = old
	}
	old.All, old.Last = old.All || u.All, old.Last || u.Last
	old.At = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(old.At), u.At...))))
}

// traceReader is a table that reads traces.
type traceReader interface{ tracesRead(traceUses) }

// tracesRead returns what the tables and claims of outs read of the
// traces.
func (o *outputs) tracesRead() traceUses {
	us := traceUses{}
	for _, t := range o.tables {
		if r, ok := t.(traceReader); ok {
			r.tracesRead(us)
		}
	}
	for _, c := range o.claims {
		if c.q.kind == "trace" {
			if c.q.iteration < 0 {
				us.add(c.q.name, traceUse{Last: true})
			} else {
				us.add(c.q.name, traceUse{At: []int{c.q.iteration}})
			}
		}
	}
	return us
}

// keeps reports whether iteration t of a trace of n iterations is kept.
func (u *traceUse) keeps(t, n int) bool {
	return u != nil && (u.All || u.Last && t == n-1 || slices.Contains(u.At, t))
}

// missing returns what want reads that have does not keep ("" when
// none): "t = 30", "every iteration", "the last iteration".
func (have *traceUse) missing(want *traceUse) string {
	if have == nil {
		have = &traceUse{}
	}
	if have.All {
		return ""
	}
	var out []string
	if want.All {
		out = append(out, "every iteration")
	}
	if want.Last && !have.Last {
		out = append(out, "the last iteration")
	}
	for _, t := range want.At {
		if !slices.Contains(have.At, t) {
			out = append(out, fmt.Sprintf("t = %d", t))
		}
	}
	return strings.Join(out, ", ")
}

// pruneTraces drops from a the traces, and the iterations of traces, that
// us does not read (a dropped iteration is a Stat of no value).
func pruneTraces(a *results.CellSummary, us traceUses) {
	if a == nil || a.Traces == nil {
		return
	}
	for name, ts := range a.Traces {
		u := us[name]
		if u == nil {
			delete(a.Traces, name)
			continue
		}
		if u.All {
			continue
		}
		kept := make([]results.Stat, len(ts))
		for t := range ts {
			if u.keeps(t, len(ts)) {
				kept[t] = ts[t]
			} else {
				kept[t] = results.Summarize(nil, results.CINormal)
			}
		}
		a.Traces[name] = kept
	}
	if len(a.Traces) == 0 {
		a.Traces = nil
	}
}

// checkTraces returns an error when the tables and claims of outs read
// iterations of traces the evidence did not keep.
func (e *Evidence) checkTraces(outs *outputs) error {
	want := outs.tracesRead()
	var miss []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if m := e.traces[name].missing(want[name]); m != "" {
			miss = append(miss, fmt.Sprintf("trace %s at %s", name, m))
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return fmt.Errorf("the evidence of %s keeps of the traces only what the spec's tables and claims read when it was made; they now read %s: refresh the evidence from the full-size run (dplab docs --refresh, or make reproduce)",
		e.Spec, strings.Join(miss, "; "))
}
