package run

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/results"
)

// TestWriteOverlapsNextTrial: at -j 1 the run's writer stores a finished
// trial (encoding, appending, Options.Records) while the worker runs the
// next one. Records holds the first record until another fit has begun;
// when the worker stored its own trials, no fit could begin while it
// waited, and the wait timed out.
func TestWriteOverlapsNextTrial(t *testing.T) {
	src := overspendSpec("overlap", 3) + "[[mechanism]]\nname = \"test-overspend\"\n"
	var once sync.Once
	overlapped := false
	var got []int
	dir := filepath.Join(t.TempDir(), "out")
	before := overspendFits.Load()
	opt := Options{Jobs: 1, OutDir: dir, Cache: &DataCache{}, Records: func(r *results.Record) {
		got = append(got, r.Trial)
		once.Do(func() { // the second fit of the run must begin meanwhile
			for end := time.Now().Add(5 * time.Second); overspendFits.Load() < before+2 && time.Now().Before(end); {
				time.Sleep(time.Millisecond)
			}
			overlapped = overspendFits.Load() >= before+2
		})
	}}
	rep, err := Run(context.Background(), spectest.MustParse(t, src), opt)
	if err != nil || rep.Ran != 3 {
		t.Fatalf("run: %+v, %v; want 3 trials", rep, err)
	}
	if !overlapped {
		t.Error("no fit began while the first trial was being stored")
	}
	// One worker: the records are stored in the order the trials ran.
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Trial != i || got[i] != i {
			t.Errorf("record %d is trial %d (Records got %d), want %d", i, r.Trial, got[i], i)
		}
	}
}
