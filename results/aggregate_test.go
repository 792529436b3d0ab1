package results

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// mixedRecords returns records of 5 cells in a shuffled store order:
// reruns of some trials, failed records, and metrics, diagnostics, noise
// parameters and assumptions whose keys differ from trial to trial.
func mixedRecords(r *rand.Rand) []Record {
	var recs []Record
	keys := []string{"a", "b", "c", "d"}
	pick := func() map[string]Float {
		m := map[string]Float{}
		for _, k := range keys {
			if r.IntN(4) > 0 { // most trials have most keys
				m[k] = Float(r.NormFloat64())
			}
		}
		if len(m) == 0 {
			return nil
		}
		return m
	}
	assume := []string{"x public", "y public", "n public"}
	for c := range 5 {
		for trial := range 12 {
			for range 1 + r.IntN(2) { // some trials rerun
				rc := rec(fmt.Sprintf("cell%d", c), trial, r.Float64())
				rc.Metrics, rc.Diagnostics, rc.Privacy.Noise = pick(), pick(), pick()
				rc.Privacy.EpsSpent = Float(r.Float64())
				rc.Privacy.Assumptions = assume[:r.IntN(len(assume)+1)]
				if r.IntN(3) == 0 {
					rc.Privacy.Assumptions = []string{assume[2], assume[0]}
				}
				if r.IntN(8) == 0 {
					rc.Status = StatusFailed
				}
				recs = append(recs, rc)
			}
		}
	}
	r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return recs
}

// same reports whether two summaries print alike (NaN equal to NaN).
func same(a, b []CellSummary) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }

// TestAggregateOrderedMatchesAggregate: given the records' indices in
// (cell, trial, store) order, AggregateOrdered summarises exactly what
// Aggregate does from the records in store order; given them in any other
// order it still does (it sorts them itself).
func TestAggregateOrderedMatchesAggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		recs := mixedRecords(r)
		want := Aggregate(recs, CIAuto)
		order := make([]int, len(recs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(i, j int) int {
			return cmp.Or(strings.Compare(recs[i].CellKey, recs[j].CellKey), cmp.Compare(recs[i].Trial, recs[j].Trial))
		})
		if got := AggregateOrdered(recs, order, CIAuto); !same(got, want) {
			t.Fatalf("AggregateOrdered in (cell, trial) order:\n%+v\nAggregate:\n%+v", got, want)
		}
		if _, ok := latestOf(recs, order); !ok {
			t.Fatal("latestOf did not take the sorted order")
		}
		// Reversed: the reruns' order flips too, so the other rerun of a
		// trial is the latest, as Aggregate of the records in that order
		// has it.
		slices.Reverse(order)
		picked := make([]Record, len(order))
		for n, i := range order {
			picked[n] = recs[i]
		}
		if got, want := AggregateOrdered(recs, order, CIAuto), Aggregate(picked, CIAuto); !same(got, want) {
			t.Fatalf("AggregateOrdered out of order:\n%+v\nAggregate:\n%+v", got, want)
		}
	}
}

// TestAggregateCollectsEveryKey compares Aggregate with a direct
// computation: each key's values of Metrics, Diagnostics and
// Privacy.Noise gathered in (trial, store) order into maps, then
// summarised, and the assumptions' union in first-seen order, over the
// latest ok record of each trial.
func TestAggregateCollectsEveryKey(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		recs := mixedRecords(r)
		latest := map[string]map[int]*Record{}
		for i := range recs {
			rc := &recs[i]
			if rc.Status != StatusOK {
				continue
			}
			if latest[rc.CellKey] == nil {
				latest[rc.CellKey] = map[int]*Record{}
			}
			latest[rc.CellKey][rc.Trial] = rc
		}
		for _, c := range Aggregate(recs, CIAuto) {
			var cell []*Record
			for _, trial := range slices.Sorted(maps.Keys(latest[c.Key])) {
				cell = append(cell, latest[c.Key][trial])
			}
			field := func(get func(*Record) map[string]Float) map[string]Stat {
				vals := map[string][]float64{}
				for _, rc := range cell {
					for k, v := range get(rc) {
						vals[k] = append(vals[k], float64(v))
					}
				}
				out := map[string]Stat{}
				for k, xs := range vals {
					out[k] = Summarize(xs, CIAuto)
				}
				return out
			}
			var assumed []string
			for _, rc := range cell {
				for _, a := range rc.Privacy.Assumptions {
					if !slices.Contains(assumed, a) {
						assumed = append(assumed, a)
					}
				}
			}
			noise := field(func(rc *Record) map[string]Float { return rc.Privacy.Noise })
			if len(noise) == 0 {
				noise = nil
			}
			for _, f := range []struct {
				name      string
				got, want any
			}{
				{"metrics", c.Metrics, field(func(rc *Record) map[string]Float { return rc.Metrics })},
				{"diagnostics", c.Diagnostics, field(func(rc *Record) map[string]Float { return rc.Diagnostics })},
				{"noise", c.Noise, noise},
				{"assumptions", c.Assumptions, assumed},
				{"trials", c.Trials, len(cell)},
			} {
				if g, w := fmt.Sprintf("%+v", f.got), fmt.Sprintf("%+v", f.want); g != w {
					t.Fatalf("cell %s %s:\n%s\nwant\n%s", c.Key, f.name, g, w)
				}
			}
		}
	}
}
