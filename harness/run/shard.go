package run

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/results"
)

// Shard selects the part of a run's trials that one process runs: shard
// Index of Count (dplab run --shard i/N). The zero Shard is the whole run.
type Shard struct{ Index, Count int }

// MaxShards is the most shards a run may be split into: far more than a
// cluster's job array holds (Slurm's default MaxArraySize is 1001), and
// small enough for a per-shard table (plan --shards 2^63 − 1 panicked
// allocating one).
const MaxShards = 100_000

// CheckShards returns an error unless 1 ≤ n ≤ MaxShards.
func CheckShards(n int) error {
	if n < 1 || n > MaxShards {
		return fmt.Errorf("--shards %d: want 1..%d", n, MaxShards)
	}
	return nil
}

// ParseShard parses "i/N" with 0 ≤ i < N ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N ≤ %d (e.g. 0/4)", s, MaxShards)
	}
	return Shard{Index: i, Count: n}, nil
}

// Sharded reports whether sh selects part of a run.
func (sh Shard) Sharded() bool { return sh.Count > 0 }

func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Assignment maps each trial of a grid to one of n shards. It deals the
// trials round-robin in the grid's order — cells in the plan's order, each
// cell's trials 0, 1, … — so trial t of cell c goes to shard
// (base_c + t) mod n, base_c being the number of trials of the cells before
// c. It is a function of the expanded grid alone (the spec, --quick and
// --trials), so every array task computes the same assignment on its own,
// and it needs no cost model to balance: every cell's trials spread over
// the shards within one trial of each other, so a heavy cell (DP-SGD with
// private tuning) weighs on every shard alike, and the one extra trial a
// cell may give some shards rotates over consecutive cells. A trial's
// record does not depend on its shard (internal/rngs): any set of shards
// covering 0..n−1 stores what one unsharded run stores.
type Assignment struct {
	n    int
	base []int // per cell, (trials of the cells before it) mod n
}

// Assign returns the assignment of cells' trials to n ≥ 1 shards.
func Assign(cells []plan.Cell, n int) Assignment {
	a := Assignment{n: n, base: make([]int, len(cells))}
	off := 0
	for i := range cells {
		a.base[i] = off
		off = (off + cells[i].Trials%n) % n
	}
	return a
}

// Of returns the shard of trial t of cell ci (its index in the grid).
func (a Assignment) Of(ci, t int) int { return (a.base[ci] + t%a.n) % a.n }

// First returns the first trial of cell ci in shard s; the shard's other
// trials of the cell follow every n trials (First + k·n, below the cell's
// trial count).
func (a Assignment) First(ci, s int) int { return ((s-a.base[ci])%a.n + a.n) % a.n }

// Count returns how many of a cell's trials (trials in all) shard s runs.
func (a Assignment) Count(ci, trials, s int) int {
	f := a.First(ci, s)
	if f >= trials {
		return 0
	}
	return (trials-f-1)/a.n + 1
}

// trialRange returns the first trial of cell ci that the run's shard runs
// and the stride to its next: (0, 1) for an unsharded run.
func (r *runner) trialRange(ci int) (first, step int) {
	if !r.shard.Sharded() {
		return 0, 1
	}
	return r.assign.First(ci, r.shard.Index), r.assign.n
}

// openShard opens the shard's record file in dir (under the shard's own
// lock, not the directory's) and writes the spec's copy beside it, where
// dplab merge finds it.
func (r *runner) openShard(dir string, warn func(string), visit func(*results.Record)) (*results.Store, error) {
	store, err := results.OpenShard(dir, r.shard.Index, r.shard.Count, warn, visit)
	if err != nil {
		return nil, err
	}
	if _, err := results.WriteShardSpec(dir, r.spec.Source); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// Gap is a trial of the grid without an ok record after a merge.
type Gap struct {
	Cell  *plan.Cell
	Trial int
	// Shards are the shards that should have produced it, one per shard
	// count merged (normally one).
	Shards []Shard
	// Failed is true when the trial has records, all failed; Error is the
	// last one's message. Otherwise no record of it exists.
	Failed bool
	Error  string
}

// Gaps returns the trials of cells (s's grid) with no settled record (ok or
// infeasible) in stored, in grid order, naming for each shard count in
// counts the shard that Assign gives it. A cell whose trial 0 is recorded as
// skipped (an optional dataset without its files) has no gaps: an unsharded
// run stores only that record too. It keeps a bit per settled or skipped
// trial and the last error of each failed one.
func Gaps(cells []plan.Cell, stored results.Source, counts []int) ([]Gap, error) {
	var settled, skipped results.KeySet
	failed := map[results.Key]string{} // the last failed record's error
	if err := stored(func(r *results.Record) {
		switch r.Status {
		case results.StatusOK, results.StatusInfeasible:
			settled.Add(r.Key()) // no gap
		case results.StatusSkipped:
			skipped.Add(r.Key())
		case results.StatusFailed:
			failed[r.Key()] = r.Error
		}
	}); err != nil {
		return nil, err
	}
	assigns := make([]Assignment, len(counts))
	for i, n := range counts {
		assigns[i] = Assign(cells, n)
	}
	var gaps []Gap
	for ci := range cells {
		c := &cells[ci]
		if k := (results.Key{Cell: c.Key, Trial: 0}); skipped.Has(k) && !settled.Has(k) {
			continue
		}
		for t := 0; t < c.Trials; t++ {
			k := results.Key{Cell: c.Key, Trial: t}
			if settled.Has(k) {
				continue
			}
			g := Gap{Cell: c, Trial: t}
			g.Error, g.Failed = failed[k]
			for _, a := range assigns {
				g.Shards = append(g.Shards, Shard{Index: a.Of(ci, t), Count: a.n})
			}
			gaps = append(gaps, g)
		}
	}
	return gaps, nil
}
