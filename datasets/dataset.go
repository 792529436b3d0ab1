package datasets

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/internal/oncemap"
	"gonum.org/v1/gonum/mat"
)

// Task is what a dataset's targets are.
type Task int

const (
	// Regression targets are real numbers.
	Regression Task = iota
	// Binary labels are 0 or 1.
	Binary
)

// String returns "regression" or "binary".
func (t Task) String() string {
	switch t {
	case Regression:
		return "regression"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// Dataset is a design matrix with its targets. Datasets handed to mechanisms are
// read-only: a mechanism that needs to transform the data works on a copy.
type Dataset struct {
	Name     string
	Task     Task
	X        *mat.Dense // n × d
	Y        []float64  // real targets, or labels in {0, 1} for Binary
	Features []string   // optional column names, len d when set

	memo atomic.Pointer[oncemap.Map[string, any]] // derived statistics; see Memo
}

// Memo returns the statistic called key of d (XᵀX, λ_min, a factorisation,
// ...), computing it with compute on first use and sharing it afterwards; it
// is safe for concurrent use. The runner shares one training set between
// the trials of a fixed split, so a statistic that depends only on the data
// is computed once rather than per trial. Callers must not modify the
// returned value, and must not modify d after the first Memo call (the
// memo would go stale): datasets handed to mechanisms are read-only.
func (d *Dataset) Memo(key string, compute func() (any, error)) (any, error) {
	obs := memoObservers.Load()
	if obs == nil {
		return d.memoTable().Do(key, compute)
	}
	start := time.Now()
	took := time.Duration(-1)
	v, err := d.memoTable().Do(key, func() (any, error) {
		start = time.Now()
		v, err := compute()
		took = time.Since(start)
		return v, err
	})
	for _, f := range *obs {
		(*f)(MemoCall{Dataset: d, Key: key, Start: start, Took: took})
	}
	return v, err
}

// MemoCall is one call of Dataset.Memo as a MemoObserver sees it, once it
// returns.
type MemoCall struct {
	Dataset *Dataset
	Key     string
	// Took is how long the call's compute ran, from Start; −1 when the
	// call computed nothing: the statistic was there, or another caller
	// was computing it and this one, called at Start, waited for it.
	Start time.Time
	Took  time.Duration
}

// A MemoObserver is told of every Memo call of every dataset in the
// process, from the caller's goroutine, while it is observing.
type MemoObserver func(MemoCall)

var (
	memoObserversMu sync.Mutex
	memoObservers   atomic.Pointer[[]*MemoObserver] // nil: none (Memo's fast path)
)

// ObserveMemos tells f of every Memo call until stop is called: what a
// process's trials compute once and share (plan --estimate separates a
// statistic that several cells share, computed once per run, from a
// cell's own one-off work). Observers may run at once from several
// goroutines and must be quick.
func ObserveMemos(f MemoObserver) (stop func()) {
	obs := &f
	update := func(edit func([]*MemoObserver) []*MemoObserver) {
		memoObserversMu.Lock()
		defer memoObserversMu.Unlock()
		var list []*MemoObserver
		if old := memoObservers.Load(); old != nil {
			list = slices.Clone(*old)
		}
		if list = edit(list); len(list) == 0 {
			memoObservers.Store(nil)
			return
		}
		memoObservers.Store(&list)
	}
	update(func(l []*MemoObserver) []*MemoObserver { return append(l, obs) })
	var once sync.Once
	return func() {
		once.Do(func() {
			update(func(l []*MemoObserver) []*MemoObserver {
				return slices.DeleteFunc(l, func(o *MemoObserver) bool { return o == obs })
			})
		})
	}
}

// memoTable returns d's memo table, made on first use (so datasets built
// as struct literals need no constructor) without a lock: the workers of a
// run look it up every trial.
func (d *Dataset) memoTable() *oncemap.Map[string, any] {
	if m := d.memo.Load(); m != nil {
		return m
	}
	d.memo.CompareAndSwap(nil, &oncemap.Map[string, any]{})
	return d.memo.Load()
}

// Rows returns n, the number of examples.
func (d *Dataset) Rows() int { r, _ := d.X.Dims(); return r }

// Cols returns d, the number of features.
func (d *Dataset) Cols() int { _, c := d.X.Dims(); return c }

// Clone returns a deep copy of d: mechanisms and scaling may modify the copy
// without touching d.
func (d *Dataset) Clone() *Dataset {
	c := &Dataset{Name: d.Name, Task: d.Task, X: mat.DenseCopyOf(d.X)}
	c.Y = append([]float64(nil), d.Y...)
	if d.Features != nil {
		c.Features = append([]string(nil), d.Features...)
	}
	return c
}

// Subset returns a new dataset holding the rows idx of d, in that order
// (repeats allowed). The rows are copied.
func (d *Dataset) Subset(idx []int) *Dataset {
	n, cols := d.X.Dims()
	data := make([]float64, len(idx)*cols)
	y := make([]float64, len(idx))
	for i, r := range idx {
		if r < 0 || r >= n {
			panic(badRow)
		}
		copy(data[i*cols:(i+1)*cols], d.X.RawRowView(r))
		y[i] = d.Y[r]
	}
	s := &Dataset{Name: d.Name, Task: d.Task, Y: y, Features: d.Features}
	if len(idx) > 0 && cols > 0 {
		s.X = mat.NewDense(len(idx), cols, data)
	} else {
		s.X = &mat.Dense{}
	}
	return s
}

const badRow = "datasets: row index out of range"

// newDataset wraps row-major data (n rows of d values) and targets y.
func newDataset(name string, task Task, n, d int, data, y []float64, features []string) *Dataset {
	if len(data) != n*d || len(y) != n || (features != nil && len(features) != d) {
		panic("datasets: shape mismatch")
	}
	return &Dataset{Name: name, Task: task, X: mat.NewDense(n, d, data), Y: y, Features: features}
}
