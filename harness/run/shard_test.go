package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/results"
)

// TestAssignment checks the shard assignment against its definition and
// its properties, on grids with uneven trial counts: every trial is in
// exactly one shard, Of, First and Count agree with the round-robin deal
// of the grid's trials in order (trial number g of the grid goes to shard
// g mod n), and every cell's trials spread over the shards within one
// trial of each other.
func TestAssignment(t *testing.T) {
	for _, trials := range [][]int{{10, 10, 10}, {1, 7, 3, 250, 2}, {5}} {
		cells := make([]plan.Cell, len(trials))
		for i, n := range trials {
			cells[i].Trials = n
		}
		for _, n := range []int{1, 2, 3, 4, 8, 13} {
			a := Assign(cells, n)
			g := 0 // the trial's number in the grid
			for ci, c := range cells {
				per := make([]int, n)
				for tr := 0; tr < c.Trials; tr++ {
					if got := a.Of(ci, tr); got != g%n {
						t.Fatalf("%v, n=%d: cell %d trial %d in shard %d, want %d", trials, n, ci, tr, got, g%n)
					}
					per[a.Of(ci, tr)]++
					g++
				}
				for s := range n {
					if a.Count(ci, c.Trials, s) != per[s] {
						t.Fatalf("%v, n=%d: Count(cell %d, shard %d) = %d, want %d", trials, n, ci, s, a.Count(ci, c.Trials, s), per[s])
					}
					if f := a.First(ci, s); (f < c.Trials) != (per[s] > 0) || f < c.Trials && a.Of(ci, f) != s {
						t.Fatalf("First(cell %d, shard %d) = %d not in the shard (%d trials of it)", ci, s, f, per[s])
					}
					if f := a.First(ci, s); per[s] > 0 {
						for tr := 0; tr < f; tr++ {
							if a.Of(ci, tr) == s {
								t.Fatalf("First(cell %d, shard %d) = %d, but trial %d is in it", ci, s, f, tr)
							}
						}
					}
				}
				if slices.Max(per)-slices.Min(per) > 1 {
					t.Fatalf("%v, n=%d: cell %d spreads %v over the shards", trials, n, ci, per)
				}
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	if sh, err := ParseShard("3/8"); err != nil || sh != (Shard{3, 8}) {
		t.Fatalf("3/8: %v %v", sh, err)
	}
	for _, bad := range []string{"", "3", "8/8", "-1/4", "1/0", "a/b", "1/4/2", "0/100001", "0/9223372036854775807"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseShard("99999/100000"); err != nil {
		t.Errorf("99999/100000: %v", err)
	}
	// plan --shards 2^63 − 1 panicked allocating its per-shard table.
	for _, n := range []int{0, MaxShards + 1, math.MaxInt} {
		if CheckShards(n) == nil {
			t.Errorf("%d shards accepted", n)
		}
	}
}

// TestShardsMatchUnshardedRun runs the small spec as 4 shards at once into
// one directory, merges them and finds the records of one -j 1 run, timing
// aside (issue 15, Done when 1, in process; the CLI test does it with 4
// processes). Each shard writes its own file while another process holds
// the directory's lock.
func TestShardsMatchUnshardedRun(t *testing.T) {
	ctx := context.Background()
	single := filepath.Join(t.TempDir(), "single")
	if _, err := Run(ctx, spectest.MustParse(t, spectest.Valid), Options{Jobs: 1, OutDir: single, Cache: &DataCache{}}); err != nil {
		t.Fatal(err)
	}
	want := comparable(t, single)
	dir := filepath.Join(t.TempDir(), "sharded")
	// A directory lock held elsewhere does not stop shards (they take none).
	holder, err := results.Open(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	reps := make([]*Report, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Go(func() {
			reps[i], errs[i] = Run(ctx, spectest.MustParse(t, spectest.Valid), Options{Jobs: 1, OutDir: dir, Cache: &DataCache{}, Shard: Shard{i, 4}})
		})
	}
	wg.Wait()
	holder.Close()
	total := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		total += reps[i].Ran
		if _, err := os.Stat(results.ShardManifestPath(dir, i, 4)); err != nil {
			t.Errorf("shard %d wrote no manifest: %v", i, err)
		}
	}
	if total != len(want) {
		t.Fatalf("the shards ran %d trials, want %d", total, len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		t.Error("a shard wrote the directory's manifest")
	}
	res, err := results.MergeShards(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != len(want) || len(res.Duplicates) != 0 {
		t.Fatalf("merge added %d (want %d), duplicates %v", res.Added, len(want), res.Duplicates)
	}
	if got := comparable(t, dir); !slices.Equal(got, want) {
		t.Fatalf("merged shards differ from the -j 1 run:\n%v\n%v", got, want)
	}
	// A shard rerun after the merge finds its trials stored: it runs nothing.
	rep, err := Run(ctx, spectest.MustParse(t, spectest.Valid), Options{Jobs: 1, OutDir: dir, Cache: &DataCache{}, Shard: Shard{1, 4}})
	if err != nil || rep.Ran != 0 || rep.Stored != rep.Total {
		t.Fatalf("rerun of shard 1: %+v, %v", rep, err)
	}
	if _, err := Run(ctx, spectest.MustParse(t, spectest.Valid), Options{OutDir: dir, Force: true, Shard: Shard{1, 4}}); err == nil {
		t.Fatal("--force with a shard accepted")
	}
}

// TestGapsNameMissingTrials deletes one shard's file after a sharded run:
// Gaps names exactly that shard's trials, each with that shard, and a
// failed record counts as a gap (failed) too.
func TestGapsNameMissingTrials(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "out")
	for i := range 3 {
		if _, err := Run(ctx, spectest.MustParse(t, spectest.Valid), Options{Jobs: 1, OutDir: dir, Cache: &DataCache{}, Shard: Shard{i, 3}}); err != nil {
			t.Fatal(err)
		}
	}
	var lost []results.Record
	err := results.ScanShard(results.ShardPath(dir, 1, 3), nil, func(r *results.Record) { lost = append(lost, *r) })
	if err != nil || len(lost) == 0 {
		t.Fatalf("shard 1: %d records, %v", len(lost), err)
	}
	if err := os.Remove(results.ShardPath(dir, 1, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := results.MergeShards(dir, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := spectest.MustParse(t, spectest.Valid)
	cells := spectest.Cells(t, s)
	// One trial of shard 0 failed: its (only) record is a failed one.
	var failedKey results.Key
	for i := range recs {
		if recs[i].Status == results.StatusOK {
			recs[i].Status, recs[i].Error = results.StatusFailed, "boom"
			failedKey = recs[i].Key()
			break
		}
	}
	gaps, err := Gaps(cells, results.FromSlice(recs), []int{3})
	if err != nil {
		t.Fatal(err)
	}
	want := map[results.Key]bool{failedKey: true}
	for _, r := range lost {
		want[r.Key()] = true
	}
	if len(gaps) != len(want) {
		t.Fatalf("%d gaps, want %d", len(gaps), len(want))
	}
	for _, g := range gaps {
		k := results.Key{Cell: g.Cell.Key, Trial: g.Trial}
		if !want[k] {
			t.Errorf("gap %v was not lost", k)
		}
		wantShard := Shard{1, 3}
		if k == failedKey {
			wantShard = Shard{0, 3}
			if !g.Failed || g.Error != "boom" {
				t.Errorf("failed trial %v reported as %+v", k, g)
			}
		} else if g.Failed {
			t.Errorf("missing trial %v reported as failed", k)
		}
		if len(g.Shards) != 1 || g.Shards[0] != wantShard {
			t.Errorf("gap %v: shards %v, want %v", k, g.Shards, wantShard)
		}
	}
}

// TestShardEstimates checks the per-shard estimate against its definition,
// computed here from Assignment.Of trial by trial: a shard's work is, per
// cell it touches, PerCell + k·PerTrial for its k pending trials; stored
// trials are left out; the shards' trials add up to the pending ones. Its
// wall time is Setup plus 1.5 (the slowdown) × the end of its trials laid
// out here as its run starts them (every cell's first pending trial of
// the shard, then every cell's second, …), each on the first of the 2
// workers free (Graham's list scheduling), a cell's first with PerCell.
// Before, it was the work over the 2 workers, which a shard of a few
// long trials outlasts.
func TestShardEstimates(t *testing.T) {
	ctx := context.Background()
	s := spectest.MustParse(t, spectest.Valid)
	cells := spectest.Cells(t, s)
	recs := []results.Record{{CellKey: cells[0].Key, Trial: 1, Status: results.StatusOK}}
	p, err := MakePlan(ctx, spectest.Plan(t, s), results.FromSlice(recs))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Estimate(ctx, Options{Cache: &DataCache{}}); err != nil {
		t.Fatal(err)
	}
	for _, row := range p.Rows {
		if row.Cost == nil {
			t.Fatalf("%s: not timed", row.Label)
		}
	}
	// Fixed costs per row, so the expected work is exact.
	for i := range p.Rows {
		p.Rows[i].Cost = &RowCost{PerCell: time.Duration(1000 * (i + 1)), PerTrial: time.Duration(10 * (i + 1))}
	}
	p.Sample.Slowdown = 1.5 // a trial 1.5× as long when two run at once
	const n = 4
	est, err := p.ShardEstimates(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := Assign(cells, n)
	total := 0
	for sh := range n {
		var work time.Duration
		trials, touched := 0, 0
		for ci, c := range cells {
			row := slices.IndexFunc(p.Rows, func(r PlanRow) bool { return r.Label == c.Label })
			k := 0
			for tr := 0; tr < c.Trials; tr++ {
				if a.Of(ci, tr) == sh && !(ci == 0 && tr == 1) {
					k++
				}
			}
			if k > 0 {
				touched++
				trials += k
				work += p.Rows[row].Cost.PerCell + time.Duration(k)*p.Rows[row].Cost.PerTrial
			}
		}
		// The shard's trials in the run's order, on 2 workers.
		queue := make([][]time.Duration, len(cells))
		for ci, c := range cells {
			cost := p.Rows[slices.IndexFunc(p.Rows, func(r PlanRow) bool { return r.Label == c.Label })].Cost
			for tr := 0; tr < c.Trials; tr++ {
				if a.Of(ci, tr) == sh && !(ci == 0 && tr == 1) {
					d := cost.PerTrial
					if len(queue[ci]) == 0 {
						d += cost.PerCell
					}
					queue[ci] = append(queue[ci], d)
				}
			}
		}
		workers := []time.Duration{0, 0}
		for left := true; left; {
			left = false
			for ci := range queue {
				if len(queue[ci]) == 0 {
					continue
				}
				left = true
				w := slices.Index(workers, slices.Min(workers))
				workers[w] += queue[ci][0]
				queue[ci] = queue[ci][1:]
			}
		}
		wall := p.Setup + time.Duration(1.5*float64(slices.Max(workers)))
		if trials < 2 {
			wall = p.Setup + time.Duration(1.5*float64(work))
		}
		e := est[sh]
		if e.Shard != sh || e.Trials != trials || e.Cells != touched || e.Work != work || e.Wall != wall {
			t.Errorf("shard %d: %+v, want %d trials, %d cells, work %v, wall %v", sh, e, trials, touched, work, wall)
		}
		total += e.Trials
	}
	if want := p.Total - p.Stored; total != want {
		t.Errorf("the shards run %d trials, want %d", total, want)
	}
	// A skipped dataset runs trial 0 of each cell only.
	p.Skipped = map[string]string{"Lin": "absent"}
	if est, err = p.ShardEstimates(n, 2); err != nil {
		t.Fatal(err)
	}
	total = 0
	for _, e := range est {
		total += e.Trials
	}
	if total != len(cells) {
		t.Errorf("with the dataset skipped the shards run %d trials, want %d (trial 0 of each cell)", total, len(cells))
	}
}
