package run

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestScheduleOrder: the order a run starts its pending trials in, on small
// grids: round-robin over the cells, each cell's pending trials in order;
// stored trials are skipped, a resumed cell leads with its first pending
// trial, and a shard visits only its own trials.
func TestScheduleOrder(t *testing.T) {
	type trial struct{ ci, t int }
	tests := []struct {
		name   string
		trials []int
		rng    func(ci int) (int, int)
		done   map[trial]bool
		want   string
	}{
		{name: "fresh", trials: []int{4, 3, 1},
			want: "0.0 1.0 2.0 0.1 1.1 0.2 1.2 0.3"},
		{name: "resumed", trials: []int{4, 3, 2},
			done: map[trial]bool{{0, 0}: true, {0, 1}: true, {1, 1}: true, {2, 0}: true, {2, 1}: true},
			want: "0.2 1.0 0.3 1.2"},
		{name: "shard 1 of 2", trials: []int{7, 4, 1},
			rng:  func(ci int) (int, int) { return []int{1, 0, 1}[ci], 2 },
			want: "0.1 1.0 0.3 1.2 0.5"},
		{name: "no trials", trials: []int{0, 0}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := tt.rng
			if rng == nil {
				rng = func(int) (int, int) { return 0, 1 }
			}
			var got []string
			seen := map[trial]bool{}
			schedule(len(tt.trials), func(ci int) int { return tt.trials[ci] }, rng,
				func(ci, t int) bool { return !tt.done[trial{ci, t}] },
				func(ci, tr int) bool {
					if seen[trial{ci, tr}] {
						t.Errorf("trial %d.%d visited twice", ci, tr)
					}
					seen[trial{ci, tr}] = true
					got = append(got, fmt.Sprintf("%d.%d", ci, tr))
					return true
				})
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("order %q, want %q", s, tt.want)
			}
		})
	}
	// visit returning false stops the schedule.
	n := 0
	schedule(3, func(int) int { return 10 }, func(int) (int, int) { return 0, 1 },
		func(int, int) bool { return true }, func(int, int) bool { n++; return n < 5 })
	if n != 5 {
		t.Errorf("visited %d trials after visit returned false at the 5th", n)
	}
}

// TestScheduledETA: the progress ETA on the run's own schedule, on grids
// whose cells' first trials carry a one-off (a calibration) that dwarfs
// their later trials, one worker (throughput 1: the ETA is the work left).
// Cell c (of 10, each its own plan row, 200 trials) costs F_c = 0.2 + 0.1c
// s for its first trial and on average L_c = 0.01(c+1) s for each later
// one: 6.5 s of first trials and 199 · 0.55 = 109.45 s of later ones.
//
// "constant": every later trial costs L_c. Once every cell has run two
// trials (7.05 s, 6% of the run) the work left is Σ_c pending_c · L_c
// exactly, and from 10% of the run on the ETA must say so at every trial.
// The old order (every cell's first trial, then the rest cell by cell)
// charged each cell not reached yet its first trial's cost per pending
// trial: at 10% of the run (11.61 s, in cell 1) it said 1195 s for 104.34 s
// left.
//
// "alternating": later trial t costs L_c·(1 ± 0.5), − for odd t, so one
// or two early trials are not representative, as on a real run (a heavy
// cell's second trial ran beside other cells' cheap ones). A cell's mean
// over m later trials is L_c, or L_c·(1 − 0.5/m) for odd m, and the work
// left differs from Σ_c pending_c · L_c by at most 0.5·L_c per cell: from
// 10% to 90% of the run (≥ 10 trials per cell run and ≥ 20 left) the ETA is
// within 5% of the work left. Three sweeps (first trials, second trials, then cell by cell) said
// 52.6 s for 104.1 s left at 10% of the run: the cells not reached yet were
// costed by their cheap second trial alone.
func TestScheduledETA(t *testing.T) {
	const cells, trials = 10, 200
	first := func(c int) float64 { return 0.2 + 0.1*float64(c) }
	mean := func(c int) float64 { return 0.01 * float64(c+1) }
	tests := []struct {
		name  string
		later func(c, t int) float64
		tol   float64 // relative to the work left
		until float64 // checked until this fraction of the run
	}{
		{"constant", func(c, _ int) float64 { return mean(c) }, 1e-9, 1},
		{"alternating", func(c, t int) float64 { return mean(c) * (1 + 0.5*float64(1-2*(t%2))) }, 0.05, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCostModel()
			key := func(c int) string { return fmt.Sprintf("cell%d", c) }
			total := 0.0
			for c := range cells {
				total += first(c)
				for tr := range trials {
					m.pending(key(c), "d\x00"+key(c))
					if tr > 0 {
						total += tt.later(c, tr)
					}
				}
			}
			ran := make([]int, cells)
			elapsed, checked := 0.0, 0
			schedule(cells, func(int) int { return trials }, func(int) (int, int) { return 0, 1 },
				func(int, int) bool { return true },
				func(c, tr int) bool {
					if tr != ran[c] {
						t.Fatalf("cell %d: trial %d started after %d of its trials", c, tr, ran[c])
					}
					wall := first(c)
					if tr > 0 {
						wall = tt.later(c, tr)
					}
					ran[c]++
					m.finished(key(c), wall)
					elapsed += wall
					if elapsed < 0.1*total || elapsed >= tt.until*total {
						return true
					}
					left, ok := m.remaining(time.Duration(elapsed * float64(time.Second)))
					if want := total - elapsed; !ok || absDiff(left.Seconds(), want) > tt.tol*want+1e-8 {
						t.Fatalf("at %.2f s of %.2f (after trial %d of cell %d): ETA %v, want %.2f s (±%.3g%%)",
							elapsed, total, tr, c, left, want, 100*tt.tol)
					}
					checked++
					return true
				})
			if slices.Min(ran) != trials || checked < cells*trials/3 {
				t.Errorf("ran %v trials per cell, checked the ETA %d times", ran, checked)
			}
		})
	}
}
