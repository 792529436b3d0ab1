package run

import (
	"context"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/results"
)

// TestEstimate: every row with trials to run is timed on trials 0, 1 and 2
// of its first and last cell (6 trials for a row of two ε, 3 for a
// non-private row of one cell), a row with nothing to run is not timed,
// and the wall estimate is Setup + Σ (ToRun·PerTrial + CellsToRun·PerCell)
// / jobs.
func TestEstimate(t *testing.T) {
	s := spectest.MustParse(t, spectest.Valid)
	cells := spectest.Cells(t, s)
	// Store every trial of the last row: nothing of it to run.
	last := cells[len(cells)-1]
	var recs []results.Record
	for _, c := range cells {
		if c.Label == last.Label {
			for i := 0; i < c.Trials; i++ {
				recs = append(recs, results.Record{CellKey: c.Key, Trial: i, Status: results.StatusOK})
			}
		}
	}
	p, err := MakePlan(context.Background(), spectest.Plan(t, s), results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Estimate(context.Background(), Options{Cache: &DataCache{}}); err != nil {
		t.Fatal(err)
	}
	var work time.Duration
	for _, row := range p.Rows {
		cellsInRow := 0
		for _, c := range cells {
			if c.Label == row.Label {
				cellsInRow++
			}
		}
		switch {
		case row.ToRun == 0:
			if row.Cost != nil {
				t.Errorf("%s: nothing to run, but timed: %+v", row.Label, row.Cost)
			}
			continue
		case row.Cost == nil:
			t.Fatalf("%s: %d to run, not timed", row.Label, row.ToRun)
		}
		want := estimateTrials * min(cellsInRow, 2)
		if row.Cost.Timed != want || row.Cost.Failed != 0 || row.Cost.PerTrial <= 0 {
			t.Errorf("%s (%d cells): cost %+v, want %d timed trials", row.Label, cellsInRow, row.Cost, want)
		}
		if row.CellsToRun != cellsInRow || row.Cost.PerCell < 0 {
			t.Errorf("%s: %d cells to run, one-off %v; want %d cells and a one-off ≥ 0", row.Label, row.CellsToRun, row.Cost.PerCell, cellsInRow)
		}
		work += time.Duration(row.ToRun)*row.Cost.PerTrial + time.Duration(row.CellsToRun)*row.Cost.PerCell
	}
	for _, jobs := range []int{1, 3} {
		got, ok := p.EstimatedWall(jobs)
		if want := p.Setup + work/time.Duration(jobs); !ok || got != want {
			t.Errorf("jobs = %d: estimate %v (%v), want %v", jobs, got, ok, want)
		}
	}
}
