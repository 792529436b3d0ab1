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
