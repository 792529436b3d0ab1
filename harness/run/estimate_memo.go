package run

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/datasets"
)

// memoLedger records, while Estimate times trials, the statistics their
// Dataset.Memo calls compute (XᵀX, a data bound, a non-private fit: work
// done once per process and shared) and which of them a trial of another
// cell then uses. A cell's first trial does its one-off work, and the
// first cell to need a statistic its neighbours share computes it too: in
// gaussmix_fig3, the first cell of Gaussian mixing computed the features'
// joint statistics (0.12 s, once a run) and the estimate priced each of
// the block's five cells at it. Shared, that work counts once a run
// (RowCost.Shared), not once a cell.
//
// A statistic is shared when a trial of a cell other than the one that
// computed it uses it: a use while none of the trials timed when it was
// computed are being timed, or one that waited for the computation (from
// another trial timed at once); uses are looked at while some cell's
// first trial is timed. Trials timed at once cannot be told
// apart: a statistic computed among them is charged to all their first
// trials alike, the computation and each wait for it (a wait takes as
// long) spread over them (excess), and counted once for the first of them
// (once).
type memoLedger struct {
	// firsts counts the first trials being timed: a use while none is
	// says nothing new (a cell's first trial finds what it shares; its
	// later ones find it again) and is passed over without the lock, for
	// trials of microseconds, whose Memo calls are a share of their time.
	firsts  atomic.Int64
	mu      sync.Mutex
	timing  map[memoTrial]int // trials being timed now
	entries map[memoID]*memoEntry
	// early holds the calls that found a statistic not yet recorded: a
	// caller that waited for its computation may be told before the one
	// that computed it (every statistic computed is recorded, so these
	// are only such).
	early map[memoID][]time.Time
}

// sharedMemos is what the estimate's model needs of a memoLedger: of cell
// ci's first trial, the time it spent on statistics other cells share
// (excess) and the work of those it counts once a run (once).
type sharedMemos interface {
	excess(ci int) time.Duration
	once(ci int) time.Duration
}

type memoID struct {
	d   *datasets.Dataset
	key string
}

// memoTrial is trial t of cell ci.
type memoTrial struct{ cell, trial int }

// memoEntry is a statistic computed while trials were timed: the trials
// being timed then (its computer among them), when and for how long, how
// many calls waited for it, and whether a trial of another cell used it.
type memoEntry struct {
	by          []memoTrial
	from, to    time.Time
	waits       int
	shared      bool
	firstTrials int // of by, the first trials (trial 0)
}

func newMemoLedger() *memoLedger {
	return &memoLedger{timing: map[memoTrial]int{}, entries: map[memoID]*memoEntry{}, early: map[memoID][]time.Time{}}
}

// begin and end bracket the timing of trial t of cell ci.
func (l *memoLedger) begin(ci, t int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timing[memoTrial{ci, t}]++
	if t == 0 {
		l.firsts.Add(1)
	}
}

func (l *memoLedger) end(ci, t int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := memoTrial{ci, t}
	if l.timing[k]--; l.timing[k] <= 0 {
		delete(l.timing, k)
	}
	if t == 0 {
		l.firsts.Add(-1)
	}
}

// forget leaves trial t of cell ci out of the statistics it was timed
// with: a trial stopped before it ended (a fill of a wave of first
// trials), whose cell is not sampled. What it computed is charged to the
// trials timed with it, as though they had: when none of them needed it
// (the stopped trial computed a statistic of its own beside the wave's
// last first trial), that trial's one-off work is priced short of it,
// once another cell uses the statistic. Which of the trials timed at once
// computed a statistic is not known here.
func (l *memoLedger) forget(ci, t int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := memoTrial{ci, t}
	for _, e := range l.entries {
		if i := slices.Index(e.by, k); i >= 0 {
			e.by = slices.Delete(e.by, i, i+1)
			if t == 0 {
				e.firstTrials--
			}
		}
	}
}

// observe is the ledger's datasets.MemoObserver. A statistic computed
// while no trial is timed (loading) is by none, and calls while none is
// timed (rendering) are not the trials' uses.
func (l *memoLedger) observe(c datasets.MemoCall) {
	if c.Took < 0 && l.firsts.Load() == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := memoID{c.Dataset, c.Key}
	if len(l.timing) == 0 {
		if c.Took >= 0 {
			l.entries[id] = &memoEntry{from: c.Start, to: c.Start.Add(c.Took)}
		}
		return
	}
	if c.Took >= 0 {
		by := slices.SortedFunc(maps.Keys(l.timing), func(a, b memoTrial) int {
			return cmp.Or(cmp.Compare(a.cell, b.cell), cmp.Compare(a.trial, b.trial))
		})
		e := &memoEntry{by: by, from: c.Start, to: c.Start.Add(c.Took)}
		for _, t := range by {
			if t.trial == 0 {
				e.firstTrials++
			}
		}
		l.entries[id] = e
		for _, at := range l.early[id] {
			l.waited(e, at)
		}
		delete(l.early, id)
		return
	}
	e := l.entries[id]
	if e == nil {
		l.early[id] = append(l.early[id], c.Start)
		return
	}
	if l.waited(e, c.Start) {
		return
	}
	byCell := func(t memoTrial) bool {
		return slices.ContainsFunc(e.by, func(b memoTrial) bool { return b.cell == t.cell })
	}
	for t := range l.timing {
		if byCell(t) {
			return // perhaps a use by the cell that computed it
		}
	}
	e.shared = true // only other cells' trials are being timed
}

// waited reports whether a call at `at` that found e waited for its
// computation, by another goroutine: of another trial timed at once, when
// several were, which makes e shared.
func (l *memoLedger) waited(e *memoEntry, at time.Time) bool {
	if !at.Before(e.to) {
		return false
	}
	if len(e.by) > 1 {
		e.waits++
		e.shared = true
	}
	return true
}

// excess returns the time cell ci's first trial spent computing, or
// waiting for, statistics a trial of another cell used: what its time
// holds beyond the cell's own one-off work.
func (l *memoLedger) excess(ci int) time.Duration {
	return l.sum(func(e *memoEntry) float64 {
		if e.firstTrials == 0 || !slices.Contains(e.by, memoTrial{ci, 0}) {
			return 0
		}
		// The computation and each wait, spread over the first trials
		// timed with it.
		return float64(min(1+e.waits, e.firstTrials)) / float64(e.firstTrials)
	})
}

// once returns the work of the statistics a trial of another cell used,
// computed in cell ci's first trial (alone, or the first of those timed
// at once): a run computes each once.
func (l *memoLedger) once(ci int) time.Duration {
	return l.sum(func(e *memoEntry) float64 {
		i := slices.IndexFunc(e.by, func(t memoTrial) bool { return t.trial == 0 })
		if i < 0 || e.by[i].cell != ci {
			return 0
		}
		return 1
	})
}

// sum returns Σ weight(e) · duration over the shared entries with a
// weight, an entry inside another's computation (a statistic another
// computes, of the same trials) left out: its time is in that one's.
func (l *memoLedger) sum(weight func(*memoEntry) float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var picked []*memoEntry
	for _, e := range l.entries {
		if e.shared && weight(e) > 0 {
			picked = append(picked, e)
		}
	}
	var total float64
	for _, e := range picked {
		inside := slices.ContainsFunc(picked, func(o *memoEntry) bool {
			return o != e && slices.Equal(o.by, e.by) && !e.from.Before(o.from) && !e.to.After(o.to) &&
				(e.from.After(o.from) || e.to.Before(o.to))
		})
		if !inside {
			total += weight(e) * float64(e.to.Sub(e.from))
		}
	}
	return time.Duration(total)
}
