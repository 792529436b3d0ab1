package results

import (
	"cmp"
	"fmt"
	"maps"
	"math"
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
				if r.IntN(4) == 0 { // private tuning, a K = 0 release in half of them
					rc.Privacy.Tuning = TuningPrivate
					if r.IntN(2) == 0 {
						rc.Diagnostics = map[string]Float{DiagRuns: 0}
					}
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

// TestAggregateIndependentOfStoreOrder: an Aggregator's summaries depend
// on the order records are added only among the records of one trial (the
// last ok one wins): the records in any order that keeps each trial's
// records in their order, and the latest ok record of each trial alone in
// (cell, trial) order, summarise alike. Reversing the store makes each
// trial's other rerun the latest.
func TestAggregateIndependentOfStoreOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		recs := mixedRecords(r)
		rev := slices.Clone(recs)
		slices.Reverse(rev)
		for _, store := range [][]Record{recs, rev} {
			want := Aggregate(store, CIAuto)
			sorted := slices.Clone(store)
			slices.SortStableFunc(sorted, func(a, b Record) int {
				return cmp.Or(strings.Compare(a.CellKey, b.CellKey), cmp.Compare(a.Trial, b.Trial))
			})
			if got := Aggregate(sorted, CIAuto); !same(got, want) {
				t.Fatalf("in (cell, trial) order:\n%+v\nin store order:\n%+v", got, want)
			}
			var latest []Record
			for _, rc := range sorted {
				if rc.Status != StatusOK {
					continue
				}
				if n := len(latest); n > 0 && latest[n-1].Key() == rc.Key() {
					latest[n-1] = rc
					continue
				}
				latest = append(latest, rc)
			}
			if got := Aggregate(latest, CIAuto); !same(got, want) {
				t.Fatalf("latest ok records only:\n%+v\nall records:\n%+v", got, want)
			}
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
		checkAggregate(t, mixedRecords(r))
	}
}

// TestAggregateAcrossPages checks Aggregate against the direct computation
// of TestAggregateCollectsEveryKey over trials that span many of an
// Aggregator's pages, negative and far ones among them, with values that
// are the same in every trial for a while (held once per cell) before they
// differ, and reruns whose records lack keys the first had.
func TestAggregateAcrossPages(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10 {
		var recs []Record
		switchAt := r.IntN(400) // the records after it get varying values
		for n := range 3000 {
			trial := r.IntN(2500)
			switch r.IntN(20) {
			case 0:
				trial = -1 - r.IntN(600)
			case 1:
				trial = 1<<40 + r.IntN(3)
			}
			rc := rec(fmt.Sprintf("cell%d", r.IntN(2)), trial, 0.5)
			rc.Privacy.EpsSpent, rc.Privacy.AlphaStar, rc.WallSeconds = 1, 2, 3
			rc.Privacy.Noise = map[string]Float{"sigma": 4}
			rc.Privacy.Assumptions = []string{"x public"}
			if n > switchAt {
				rc.Metrics["test_mse"] = Float(r.Float64())
				rc.Privacy.EpsSpent, rc.WallSeconds = Float(r.Float64()), r.Float64()
				if r.IntN(3) == 0 {
					rc.Privacy.Noise = nil
					rc.Privacy.Assumptions = []string{"y public", "x public"}
				}
			}
			if r.IntN(10) == 0 {
				rc.Status = StatusFailed
			}
			if r.IntN(5) == 0 { // a K = 0 release of private tuning
				rc.Privacy.Tuning, rc.Diagnostics = TuningPrivate, map[string]Float{DiagRuns: 0}
			}
			recs = append(recs, rc)
		}
		checkAggregate(t, recs)
	}
}

// checkAggregate compares Aggregate(recs) with a direct computation.
func checkAggregate(t *testing.T, recs []Record) {
	t.Helper()
	{
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
			dataIndependent := 0
			for _, rc := range cell {
				if rc.DataIndependent() {
					dataIndependent++
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
				{"data-independent releases", c.DataIndependent, dataIndependent},
				{"ε spent", c.EpsSpentMax, field(func(rc *Record) map[string]Float { return map[string]Float{"": rc.Privacy.EpsSpent} })[""].Max},
				{"α* mean", c.AlphaMean, field(func(rc *Record) map[string]Float { return map[string]Float{"": rc.Privacy.AlphaStar} })[""].Mean},
				{"wall mean", c.WallMean, field(func(rc *Record) map[string]Float { return map[string]Float{"": Float(rc.WallSeconds)} })[""].Mean},
				{"wall", c.Wall, field(func(rc *Record) map[string]Float { return map[string]Float{"": Float(rc.WallSeconds)} })[""]},
			} {
				if g, w := fmt.Sprintf("%+v", f.got), fmt.Sprintf("%+v", f.want); g != w {
					t.Fatalf("cell %s %s:\n%s\nwant\n%s", c.Key, f.name, g, w)
				}
			}
		}
	}
}

// TestAggregateWallTimeCI: a cell's wall time per fit is summarised with
// its 95% CI like a metric (CellSummary.Wall), by the Aggregator's CI
// method, against hand-computed values: {0.019, 0.020, 0.021} s has mean
// 0.020 and SD 0.001, so a half-width of t_{0.975,2}·0.001/√3 =
// 0.0024841 (auto and t: 3 trials) or 1.96·0.001/√3 = 0.0011316 (normal);
// a rerun's wall time replaces the first run's, and a failed trial's does
// not count.
func TestAggregateWallTimeCI(t *testing.T) {
	var recs []Record
	for trial, w := range []float64{0.5, 0.020, 0.021} { // trial 0 is rerun below
		rc := rec("cell", trial, 0.1)
		rc.WallSeconds = w
		recs = append(recs, rc)
	}
	rerun := rec("cell", 0, 0.1)
	rerun.WallSeconds = 0.019
	failed := rec("cell", 3, 0.1)
	failed.Status, failed.WallSeconds = StatusFailed, 9
	recs = append(recs, rerun, failed)
	for _, tc := range []struct {
		ci   CIMethod
		half float64
	}{
		{CIAuto, 4.302652729749464 * 0.001 / 1.7320508075688772},
		{CIStudentT, 4.302652729749464 * 0.001 / 1.7320508075688772},
		{CINormal, 1.96 * 0.001 / 1.7320508075688772},
	} {
		c := Aggregate(recs, tc.ci)[0]
		w := c.Wall
		if w.Count != 3 || math.Abs(w.Mean-0.020) > 1e-15 || math.Abs(w.SD-0.001) > 1e-12 || math.Abs(w.CIHalf-tc.half) > 1e-12 ||
			w.Min != 0.019 || w.Max != 0.021 || c.WallMean != w.Mean {
			t.Errorf("ci %s: wall %+v (WallMean %g), want mean 0.020 ± %.7f over 3 trials", tc.ci, w, c.WallMean, tc.half)
		}
	}
}
