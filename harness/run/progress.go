package run

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress reports done/total, rate and ETA on the log writer: a redrawn bar
// on a terminal, a plain line every few seconds otherwise (CI logs).
//
// The ETA weighs every pending trial by what its cell costs (costModel),
// not by the mean trial: on a spec whose cells differ in cost (a tuned
// DP-SGD beside a sketch) a count-based ETA is off by the cost ratio.
type progress struct {
	w     io.Writer
	tty   bool
	total int
	start time.Time
	now   func() time.Time

	mu   sync.Mutex
	done int
	cost *costModel
	stop chan struct{}
	wg   sync.WaitGroup
}

const plainEvery = 5 * time.Second

// IsTerminal reports whether w is a terminal (a character device): the
// progress bar is redrawn there, and plain lines are printed elsewhere. A
// caller that wraps its log writer (a lock) passes IsTerminal of the
// wrapped one as Options.Progress.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// newProgress starts reporting on w for total pending trials; cost (nil:
// count-based) weighs them.
func newProgress(w io.Writer, total int, force *bool, cost *costModel) *progress {
	p := &progress{w: w, total: total, start: time.Now(), now: time.Now, cost: cost, stop: make(chan struct{})}
	if force != nil {
		p.tty = *force
	} else {
		p.tty = IsTerminal(w)
	}
	if total == 0 || w == io.Discard {
		return p
	}
	every := plainEvery
	if p.tty {
		every = 200 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
	return p
}

// step counts one finished trial of the cell with key cell that took wall
// seconds.
func (p *progress) step(cell string, wall float64) {
	p.mu.Lock()
	p.done++
	if p.cost != nil {
		p.cost.finished(cell, wall)
	}
	p.mu.Unlock()
}

func (p *progress) finish() {
	close(p.stop)
	p.wg.Wait()
	if p.total > 0 && p.w != io.Discard {
		p.draw(true)
	}
}

// status is the progress line without the bar.
func (p *progress) status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	rate := float64(p.done) / elapsed.Seconds()
	eta := "?"
	switch {
	case p.done >= p.total:
		eta = "0s"
	case p.cost != nil:
		if left, ok := p.cost.remaining(elapsed); ok {
			eta = left.Round(time.Second).String()
		}
	case p.done > 0:
		eta = (time.Duration(float64(p.total-p.done) / rate * float64(time.Second))).Round(time.Second).String()
	}
	return fmt.Sprintf("%d/%d trials  %.1f/s  elapsed %s  ETA %s", p.done, p.total, rate, elapsed.Round(time.Second), eta)
}

func (p *progress) draw(final bool) {
	status := p.status()
	if !p.tty {
		fmt.Fprintln(p.w, status)
		return
	}
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	const width = 30
	filled := width * min(done, p.total) / max(p.total, 1)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r%s %s\x1b[K%s", bar, status, end)
}

// costModel estimates the work left in a run from what each cell's trials
// cost. A cell's first trial in a run also does the cell's one-off work (a
// calibration, a tuning grid's setup), so first trials and later ones are
// kept apart: a later trial costs what the cell's later trials did in this
// run, else its stored trials (a resumed run), else its plan row's later
// trials (same dataset and mechanism label, other ε or sweep point), else
// the cell's own first trial, else the row's, else the run's; a cell not
// started yet pays one first trial (its row's first trials, else its stored
// ones, else the run's) and later ones for the rest. The work left divided by
// the throughput seen so far (trial-seconds finished per second of the
// run, which absorbs the concurrency and the harness' overhead) is the ETA.
// The extrapolation holds because the runner rotates over the cells
// (schedule): every cell's later trials are measured from the second round
// on, beside the same mix of cells as its remaining ones.
// Callers hold the progress lock.
type costModel struct {
	cells map[string]*cellCost  // by cell key
	rows  map[string]*phaseWall // by plan row
	run   phaseWall             // every trial finished in this run
}

// cellCost is one cell's pending count and wall times.
type cellCost struct {
	row     string
	pending int
	run     phaseWall
	stored  meanWall
}

// phaseWall keeps first trials (with a cell's one-off work) apart from the
// others.
type phaseWall struct{ first, later meanWall }

func (p *phaseWall) add(wall float64, first bool) {
	if first {
		p.first.add(wall)
	} else {
		p.later.add(wall)
	}
}

// meanWall accumulates wall times.
type meanWall struct {
	sum float64
	n   int
}

func (m *meanWall) add(wall float64) { m.sum += wall; m.n++ }

func (m meanWall) mean() (float64, bool) {
	if m.n == 0 {
		return 0, false
	}
	return m.sum / float64(m.n), true
}

func newCostModel() *costModel {
	return &costModel{cells: map[string]*cellCost{}, rows: map[string]*phaseWall{}}
}

// cell returns the entry of a cell in plan row row.
func (m *costModel) cell(key, row string) *cellCost {
	c := m.cells[key]
	if c == nil {
		c = &cellCost{row: row}
		m.cells[key] = c
		if m.rows[row] == nil {
			m.rows[row] = &phaseWall{}
		}
	}
	return c
}

// pending counts one trial of the cell to run.
func (m *costModel) pending(key, row string) { m.cell(key, row).pending++ }

// stored adds the wall time of a trial stored by an earlier run (a later
// trial: the cell's one-off work is not seen apart in stored records).
func (m *costModel) stored(key, row string, wall float64) {
	m.cell(key, row).stored.add(wall)
}

// finished records a trial of this run: the cell's first in this run, or a
// later one.
func (m *costModel) finished(key string, wall float64) {
	c := m.cells[key]
	if c == nil {
		return
	}
	first := c.run.first.n == 0
	c.pending = max(c.pending-1, 0)
	c.run.add(wall, first)
	m.rows[c.row].add(wall, first)
	m.run.add(wall, first)
}

// firstOf picks the first mean that exists.
func firstOf(ms ...meanWall) (float64, bool) {
	for _, m := range ms {
		if w, ok := m.mean(); ok {
			return w, true
		}
	}
	return 0, false
}

// remaining is the estimated wall time left after elapsed; ok is false
// before the first trial of this run has finished.
func (m *costModel) remaining(elapsed time.Duration) (time.Duration, bool) {
	total := m.run.first.sum + m.run.later.sum
	if m.run.first.n+m.run.later.n == 0 || total <= 0 || elapsed <= 0 {
		return 0, false
	}
	var work float64
	for _, c := range m.cells {
		if c.pending == 0 {
			continue
		}
		row := m.rows[c.row]
		later, _ := firstOf(c.run.later, c.stored, row.later, c.run.first, row.first, m.run.later, m.run.first)
		if c.run.first.n > 0 {
			work += float64(c.pending) * later
			continue
		}
		first, _ := firstOf(row.first, c.stored, m.run.first, row.later, m.run.later)
		work += first + float64(c.pending-1)*later
	}
	throughput := total / elapsed.Seconds() // trial-seconds per second
	return time.Duration(work / throughput * float64(time.Second)), true
}
