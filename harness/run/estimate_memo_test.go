package run

import (
	"math"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
)

// TestMemoLedger: a statistic computed by a cell's first trial timed alone
// is shared once a trial of another cell uses it, not when a trial of the
// same cell does, nor a use while the computing cell is also being timed
// (who used it is not known), nor a use outside any trial; nested
// computations count once. One computed among trials timed at once is
// charged to all their first trials alike: the computation and each wait
// for it spread over them, counted once for the first of them; a trial
// forgotten (stopped) leaves it to the others.
func TestMemoLedger(t *testing.T) {
	d := &datasets.Dataset{}
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	computed := func(key string, at, took time.Duration) datasets.MemoCall {
		return datasets.MemoCall{Dataset: d, Key: key, Start: t0.Add(at), Took: took}
	}
	used := func(key string, at time.Duration) datasets.MemoCall {
		return datasets.MemoCall{Dataset: d, Key: key, Start: t0.Add(at), Took: -1}
	}
	later := time.Hour // a use after every computation
	l := newMemoLedger()
	// Cell 0's first trial, alone: A (0–100 ms) computes B (10–40 ms)
	// inside it; C (200–230 ms) apart; D (300–310 ms) is used by no other
	// cell yet.
	l.begin(0, 0)
	l.observe(computed("B", 10*ms, 30*ms))
	l.observe(computed("A", 0, 100*ms))
	l.observe(computed("C", 200*ms, 30*ms))
	l.observe(computed("D", 300*ms, 10*ms))
	l.observe(used("D", later)) // its own trial
	l.end(0, 0)
	l.observe(used("D", later)) // outside any trial
	// Cell 0's later trial uses D: the same cell.
	l.begin(0, 1)
	l.observe(used("D", later))
	l.end(0, 1)
	// Cell 0's later trial and cell 1's first at once: a use of D is not
	// known to be cell 1's; E, computed among them, is charged to cell 1's
	// first trial, the only first trial of the two.
	l.begin(0, 2)
	l.begin(1, 0)
	l.observe(used("D", later))
	l.observe(computed("E", 400*ms, 50*ms))
	l.end(0, 2)
	l.end(1, 0)
	for ci := range 2 {
		if e, o := l.excess(ci), l.once(ci); e != 0 || o != 0 {
			t.Fatalf("cell %d before another cell's use: excess %v, once %v, want 0", ci, e, o)
		}
	}
	// Cell 2 alone uses A, B, C and E.
	l.begin(2, 0)
	for _, k := range []string{"A", "B", "C", "E"} {
		l.observe(used(k, later))
	}
	l.end(2, 0)
	check := func(ci int, excess, once time.Duration) {
		t.Helper()
		if e, o := l.excess(ci), l.once(ci); e != excess || o != once {
			t.Errorf("cell %d: excess %v, once %v, want %v, %v", ci, e, o, excess, once)
		}
	}
	check(0, 130*ms, 130*ms) // A ∪ B = 100 ms, C 30 ms
	check(1, 50*ms, 50*ms)   // E
	// Cell 1's later trial and cell 3's first at once (cell 0 not timed):
	// a use of D by another cell.
	l.begin(1, 1)
	l.begin(3, 0)
	l.observe(used("D", later))
	l.end(1, 1)
	l.end(3, 0)
	check(0, 140*ms, 140*ms)
	// Cells 5 and 6's first trials at once: F (500–560 ms), computed by
	// one while the other waited for it, is in both their times.
	l.begin(5, 0)
	l.begin(6, 0)
	l.observe(computed("F", 500*ms, 60*ms))
	l.observe(used("F", 510*ms))
	l.end(5, 0)
	l.end(6, 0)
	check(5, 60*ms, 60*ms)
	check(6, 60*ms, 0)
	// The same, the waiting call told first (both return at once).
	l.begin(10, 0)
	l.begin(11, 0)
	l.observe(used("H", 710*ms))
	l.observe(computed("H", 700*ms, 60*ms))
	l.end(10, 0)
	l.end(11, 0)
	check(10, 60*ms, 60*ms)
	check(11, 60*ms, 0)
	// Computed before any trial (loading): by none, and its uses leave
	// nothing waiting to be matched.
	l.observe(computed("I", 800*ms, 5*ms))
	l.begin(12, 0)
	l.observe(used("I", later))
	l.end(12, 0)
	if len(l.early) != 0 {
		t.Errorf("calls held for a statistic computed before the trials: %v", l.early)
	}
	check(12, 0, 0)
	// Cells 7 and 8's first trials at once: G (600–640 ms), computed by
	// one with no wait, later used by cell 9: spread over the two.
	l.begin(7, 0)
	l.begin(8, 0)
	l.observe(computed("G", 600*ms, 40*ms))
	l.end(7, 0)
	l.end(8, 0)
	l.begin(9, 0)
	l.observe(used("G", later))
	l.end(9, 0)
	check(7, 20*ms, 40*ms)
	check(8, 20*ms, 0)
	// Cells 13 and 14's first trials at once: J (900–980 ms), computed by
	// cell 13's while cell 14's waited, later used by cell 15; cell 13's
	// trial was stopped (a fill of the wave, forgotten: its cell is not
	// sampled). J is charged to cell 14's alone, whole, and once; before,
	// cell 14 took its half and the once went to the stopped cell.
	l.begin(13, 0)
	l.begin(14, 0)
	l.observe(computed("J", 900*ms, 80*ms))
	l.observe(used("J", 910*ms))
	l.end(13, 0)
	l.end(14, 0)
	l.forget(13, 0)
	l.begin(15, 0)
	l.observe(used("J", later))
	l.end(15, 0)
	check(13, 0, 0)
	check(14, 80*ms, 80*ms)
}

// fakeMemos is a sharedMemos of given times per cell.
type fakeMemos struct{ ex, on map[int]time.Duration }

func (f fakeMemos) excess(ci int) time.Duration { return f.ex[ci] }
func (f fakeMemos) once(ci int) time.Duration   { return f.on[ci] }

// TestRowMeansSharedStatistics: two blocks' first trials, timed two at
// once at a slowdown of 2, shared a statistic (100 ms, one computing it
// while the other waited: 100 ms in each one's wall time). Each trial
// took 2·(10 ms of its own + 20 ms later trial) + 100 ms = 160 ms; its
// later trial 20 ms alone. The sampled rows' one-off work is 10 ms (160/2
// − 20 − 100/2), the statistic counts once, 50 ms (its 100 ms over the
// slowdown), for the block that computed it; a row with no cell of its
// own takes its block's, with the statistic when its block computed it
// (60 ms), without when its block waited for it (10 ms). Before, a peer
// of the waiting block took the wait too (879 ms where the closed form
// was 570 ms, TestEstimateSharedStatistic's keys at -j 2), and the
// statistic's time was taken from the trial's cost without the slowdown.
func TestRowMeansSharedStatistics(t *testing.T) {
	ms := time.Millisecond
	memos := fakeMemos{
		ex: map[int]time.Duration{0: 100 * ms, 1: 100 * ms},
		on: map[int]time.Duration{0: 100 * ms},
	}
	cell := func(pos int) *cellSample {
		return &cellSample{pos: pos, first: trialTime{wall: 160 * ms, slow: 2}, later: []trialTime{{wall: 20 * ms, slow: 1}}}
	}
	// Cells 0 (block A, row a1) and 1 (block B, row b1) are sampled; rows
	// a2 and b2 (cells 2 and 3) are not.
	a1 := &rowSample{row: &PlanRow{}, memos: memos, cells: []int{0}, sampled: []*cellSample{cell(0)}}
	b1 := &rowSample{row: &PlanRow{}, memos: memos, cells: []int{1}, sampled: []*cellSample{cell(0)}}
	a2 := &rowSample{row: &PlanRow{}, memos: memos, cells: []int{2}}
	b2 := &rowSample{row: &PlanRow{}, memos: memos, cells: []int{3}}
	a1.peers, a2.peers = []*rowSample{a1, a2}, []*rowSample{a1, a2}
	b1.peers, b2.peers = []*rowSample{b1, b2}, []*rowSample{b1, b2}
	for _, tc := range []struct {
		name     string
		rs       *rowSample
		pc, once time.Duration
	}{
		{"a1 (computed it)", a1, 10 * ms, 50 * ms},
		{"b1 (waited)", b1, 10 * ms, 0},
		{"a2 (its block computed it)", a2, 60 * ms, 0},
		{"b2 (its block waited)", b2, 10 * ms, 0},
	} {
		pt, pc := tc.rs.means(1)
		if time.Duration(pt) != 20*ms || math.Abs(pc-float64(tc.pc)) > 1 || tc.rs.sharedWork() != tc.once {
			t.Errorf("%s: per trial %v, one-off %v, shared %v; want 20ms, %v, %v", tc.name, time.Duration(pt), time.Duration(pc), tc.rs.sharedWork(), tc.pc, tc.once)
		}
	}
}

// TestRowMeansOneTrialShared: a cell whose first trial alone is timed (one
// trial a cell, as with --trials 1) prices its row's trials at it, less
// the statistics other cells used, which count once a run: a first trial
// of 160 ms that computed a 100 ms statistic its neighbours share is a
// 60 ms trial, and the 100 ms are the row's shared work. Before, the
// statistic was in each of the row's trials and counted once more.
func TestRowMeansOneTrialShared(t *testing.T) {
	ms := time.Millisecond
	memos := fakeMemos{ex: map[int]time.Duration{0: 100 * ms}, on: map[int]time.Duration{0: 100 * ms}}
	rs := &rowSample{row: &PlanRow{}, memos: memos, cells: []int{0, 1}, sampled: []*cellSample{{pos: 0, first: trialTime{wall: 160 * ms, slow: 1}}}}
	pt, pc := rs.means(1)
	if time.Duration(pt) != 60*ms || pc != 0 || rs.sharedWork() != 100*ms {
		t.Errorf("per trial %v, one-off %v, shared %v; want 60ms, 0, 100ms", time.Duration(pt), time.Duration(pc), rs.sharedWork())
	}
}
