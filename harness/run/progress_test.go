package run

import (
	"strings"
	"testing"
	"time"
)

// TestCostModelETA: on a run whose cells differ in cost the ETA weighs each
// pending trial by its cell's measured cost. Two cells of 100 trials, one
// at 0.1 s per trial and one at 2 s, on one worker: after the first trial
// of each (2.1 s of work in 2.1 s), 99 × 0.1 + 99 × 2 = 207.9 s are left.
// A count-based ETA would say 198 × 1.05 = 207.9 s here too, so the test
// then finishes 50 cheap trials: 49 × 0.1 + 99 × 2 = 202.9 s are left,
// where the count-based ETA (rate 52 trials in 7.1 s) says 148 / 7.32 =
// 20.2 s, off by 10×.
func TestCostModelETA(t *testing.T) {
	m := newCostModel()
	for range 100 {
		m.pending("cheap", "d\x00A")
		m.pending("dear", "d\x00B")
	}
	if _, ok := m.remaining(time.Second); ok {
		t.Error("an ETA before any trial finished")
	}
	m.finished("cheap", 0.1)
	m.finished("dear", 2)
	left, ok := m.remaining(2100 * time.Millisecond)
	if want := 207.9; !ok || absDiff(left.Seconds(), want) > 1e-6 {
		t.Errorf("after one trial each: ETA %v, want %v s", left, want)
	}
	for range 50 {
		m.finished("cheap", 0.1)
	}
	left, _ = m.remaining(7100 * time.Millisecond)
	if want := 202.9; absDiff(left.Seconds(), want) > 1e-6 {
		t.Errorf("after 50 more cheap trials: ETA %v, want %v s", left, want)
	}
	// Two workers: twice the throughput, half the time left.
	left, _ = m.remaining(3550 * time.Millisecond)
	if want := 202.9 / 2; absDiff(left.Seconds(), want) > 1e-6 {
		t.Errorf("at twice the throughput: ETA %v, want %v s", left, want)
	}
}

// TestCostModelFallbacks: a cell with no finished trial is costed by its
// stored trials (a resumed run), else its plan row's, else the run's mean.
func TestCostModelFallbacks(t *testing.T) {
	m := newCostModel()
	m.pending("resumed", "d\x00A")
	m.stored("resumed", "d\x00A", 3)
	m.pending("sibling", "d\x00B") // same row as "done" below
	m.pending("done", "d\x00B")
	m.pending("done", "d\x00B")
	m.pending("other", "d\x00C")
	m.finished("done", 1)
	// resumed: 3 (stored); sibling: 1 (row B); done: 1 (own); other: 1 (run mean).
	left, _ := m.remaining(time.Second) // throughput 1
	if want := 3.0 + 1 + 1 + 1; absDiff(left.Seconds(), want) > 1e-9 {
		t.Errorf("ETA %v, want %v s", left, want)
	}
}

// TestCostModelOneOff: a cell's first trial carries its one-off work (a
// calibration): 5 s first, 0.1 s after. The runner starts every cell first,
// so for a while each cell has only its first trial; the ETA must not
// charge the one-off to every later trial. Ten cells of 101 trials, one
// worker: after every cell's first trial (50 s) and one later trial of
// cell 0 (0.1 s), 10·100 − 1 = 999 later trials of 0.1 s are left: 99.9 s
// (a model without the split said 999 × 5 = 4995 s).
func TestCostModelOneOff(t *testing.T) {
	m := newCostModel()
	keys := make([]string, 10)
	for i := range keys {
		keys[i] = string(rune('a' + i))
		for range 101 {
			m.pending(keys[i], "d\x00R")
		}
	}
	for _, k := range keys {
		m.finished(k, 5)
	}
	m.finished(keys[0], 0.1)
	left, ok := m.remaining(50100 * time.Millisecond) // throughput 1
	if want := 99.9; !ok || absDiff(left.Seconds(), want) > 1e-6 {
		t.Errorf("ETA %v, want %v s", left, want)
	}
	// A cell not started yet pays its row's first-trial cost once.
	m.pending("new", "d\x00R")
	m.pending("new", "d\x00R")
	left, _ = m.remaining(50100 * time.Millisecond)
	if want := 99.9 + 5 + 0.1; absDiff(left.Seconds(), want) > 1e-6 {
		t.Errorf("with a new cell: ETA %v, want %v s", left, want)
	}
}

// TestProgressStatus: the line a run prints, with an injected clock.
func TestProgressStatus(t *testing.T) {
	m := newCostModel()
	for range 10 {
		m.pending("c", "d\x00A")
	}
	start := time.Unix(0, 0)
	p := &progress{total: 10, start: start, now: func() time.Time { return start.Add(4 * time.Second) }, cost: m}
	if got := p.status(); !strings.HasSuffix(got, "ETA ?") {
		t.Errorf("before the first trial: %q", got)
	}
	p.step("c", 2)
	p.step("c", 2)
	// 8 trials × 2 s at throughput 4 trial-s / 4 s = 1: 16 s.
	if got, want := p.status(), "2/10 trials  0.5/s  elapsed 4s  ETA 16s"; got != want {
		t.Errorf("status %q, want %q", got, want)
	}
}

func absDiff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
