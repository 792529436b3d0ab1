package main

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// A run allocates many short-lived values per trial and keeps little, so it
// collects less often than Go's default (GOGC 100): the heap may grow to
// 1 + runGCPercent/100 times the live data between collections (8–10% of a
// small panel's CPU was GC at the default, whose live heap is a few MB) —
// but by at most runGCHeadroom, since what a run keeps grows with its
// trials (a few numbers per trial for the figures: 40 MB at 10⁶ trials of
// AdaSSP, which 400% would let grow to a 200 MB heap).
const (
	runGCPercent  = 400
	runGCHeadroom = 64 << 20
)

// gcTuneEvery is how often boundGC reads the live heap.
const gcTuneEvery = 200 * time.Millisecond

// boundGC sets the garbage collector's percent (GOGC) to percent, lowered
// while percent of the live heap would exceed headroom bytes (to
// 100·headroom/live, never below Go's default of 100), and re-reads the live
// heap every gcTuneEvery until the returned stop is called, which restores
// the previous setting.
func boundGC(percent int, headroom uint64) (stop func()) {
	prev := debug.SetGCPercent(percent)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tune := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		p := percent
		if live := sample[0].Value.Uint64(); live > 0 && live*uint64(percent)/100 > headroom {
			p = max(100, int(headroom*100/live))
		}
		debug.SetGCPercent(p)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(gcTuneEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				tune()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		debug.SetGCPercent(prev)
	}
}
