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
type progress struct {
	w     io.Writer
	tty   bool
	total int
	start time.Time

	mu   sync.Mutex
	done int
	stop chan struct{}
	wg   sync.WaitGroup
}

const plainEvery = 5 * time.Second

func newProgress(w io.Writer, total int, force *bool) *progress {
	p := &progress{w: w, total: total, start: time.Now(), stop: make(chan struct{})}
	if force != nil {
		p.tty = *force
	} else if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
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

func (p *progress) step() {
	p.mu.Lock()
	p.done++
	p.mu.Unlock()
}

func (p *progress) finish() {
	close(p.stop)
	p.wg.Wait()
	if p.total > 0 && p.w != io.Discard {
		p.draw(true)
	}
}

func (p *progress) draw(final bool) {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	elapsed := time.Since(p.start)
	rate := float64(done) / elapsed.Seconds()
	eta := "?"
	if done > 0 {
		eta = (time.Duration(float64(p.total-done) / rate * float64(time.Second))).Round(time.Second).String()
	}
	status := fmt.Sprintf("%d/%d trials  %.1f/s  elapsed %s  ETA %s", done, p.total, rate, elapsed.Round(time.Second), eta)
	if !p.tty {
		fmt.Fprintln(p.w, status)
		return
	}
	const width = 30
	filled := width * done / max(p.total, 1)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r%s %s\x1b[K%s", bar, status, end)
}
