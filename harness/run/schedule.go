package run

// schedule visits the pending trials of n cells in the order a run starts
// them: round-robin over the cells, each cell's pending trials in index
// order — every cell's first pending trial, then every cell's second, and
// so on; a cell leaves the rotation when it has no pending trial left.
// trialRange gives the trials of cell ci the run may run (first,
// first+step, … below trials(ci)); todo reports whether trial t of cell ci
// is pending and is asked of a trial only before it is visited (a visited
// trial's completion does not change the order). schedule stops when visit
// returns false.
//
// A cell's first trial in a run does its one-off work (a calibration, a
// tuning grid's setup) that its other trials wait for: started in the first
// round, it overlaps with the other cells' instead of stalling the other
// workers. Rotating over the cells for the rest of the run keeps the mix of
// cells running the same from start to end, so every cell's mean trial
// cost is measured early, from many trials, beside the same company as the
// rest of its trials will have, and the progress ETA (costModel)
// extrapolates from it. Run cell by cell after one or two such rounds, the
// cells not reached yet were costed by one or two early trials each; on
// gaussmix_fig3 those were cheap (they ran beside other cells' light
// trials, the machine less loaded) and the ETA was 40–50% short for most of
// the run. An interrupted run also leaves every cell with about the same
// number of trials instead of some cells without any. A trial's output does
// not depend on the order (internal/rngs).
func schedule(n int, trials func(ci int) int, trialRange func(ci int) (first, step int),
	todo func(ci, t int) bool, visit func(ci, t int) bool) {
	next := make([]int, n) // per cell, the next trial to look at
	active := make([]int, 0, n)
	for ci := range n {
		first, _ := trialRange(ci)
		if first < trials(ci) {
			next[ci] = first
			active = append(active, ci)
		}
	}
	for len(active) > 0 {
		kept := active[:0]
		for _, ci := range active {
			_, step := trialRange(ci)
			t := next[ci]
			for t < trials(ci) && !todo(ci, t) {
				t += step
			}
			if t >= trials(ci) {
				continue
			}
			if !visit(ci, t) {
				return
			}
			if next[ci] = t + step; next[ci] < trials(ci) {
				kept = append(kept, ci)
			}
		}
		active = kept
	}
}
