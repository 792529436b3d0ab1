package datasets

import (
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMemoComputesOnceAndIsPerDataset(t *testing.T) {
	d := &Dataset{X: mat.NewDense(2, 1, []float64{1, 2}), Y: []float64{0, 1}}
	var calls atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := d.Memo("sum", func() (any, error) {
				calls.Add(1)
				return d.X.At(0, 0) + d.X.At(1, 0), nil
			})
			if err != nil || v.(float64) != 3 {
				t.Errorf("Memo = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("compute ran %d times, want once", calls.Load())
	}
	c := d.Clone()
	c.Memo("sum", func() (any, error) { calls.Add(1); return 0.0, nil })
	if calls.Load() != 2 {
		t.Fatal("a clone shares its original's memo")
	}
	if v, _ := d.Memo("other", func() (any, error) { return "x", nil }); v != "x" {
		t.Fatal("keys are not independent")
	}
}

// TestObserveMemos: an observer sees each Memo call, with the compute's
// time on the call that computed and −1 on one that found the statistic,
// and nothing once stopped.
func TestObserveMemos(t *testing.T) {
	d := &Dataset{X: mat.NewDense(1, 1, []float64{1}), Y: []float64{0}}
	var calls []MemoCall
	stop := ObserveMemos(func(c MemoCall) { calls = append(calls, c) })
	for range 2 {
		if _, err := d.Memo("k", func() (any, error) { return 1, nil }); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	stop() // idempotent
	if _, err := d.Memo("k2", func() (any, error) { return 2, nil }); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("observed %d calls, want 2: %+v", len(calls), calls)
	}
	if c := calls[0]; c.Dataset != d || c.Key != "k" || c.Took < 0 || c.Start.IsZero() {
		t.Errorf("first call %+v, want d's k computed", c)
	}
	if c := calls[1]; c.Took != -1 {
		t.Errorf("second call %+v, want Took −1 (found)", c)
	}
	if memoObservers.Load() != nil {
		t.Error("observers left after stop")
	}
}

// BenchmarkMemoFound: a Memo call that finds its statistic, as every
// trial of a cell makes, with no observer and with one (plan --estimate's
// ledger, which returns at once outside first trials).
func BenchmarkMemoFound(b *testing.B) {
	d := &Dataset{X: mat.NewDense(1, 1, []float64{1}), Y: []float64{0}}
	compute := func() (any, error) { return 1, nil }
	d.Memo("k", compute)
	b.Run("no observer", func(b *testing.B) {
		for b.Loop() {
			d.Memo("k", compute)
		}
	})
	b.Run("observer", func(b *testing.B) {
		var busy atomic.Int64
		stop := ObserveMemos(func(c MemoCall) {
			if c.Took < 0 && busy.Load() == 0 {
				return
			}
		})
		defer stop()
		for b.Loop() {
			d.Memo("k", compute)
		}
	})
}
