package datasets

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// indexed returns a dataset whose row i is (i, 2i) with target i, so a split
// part's rows identify the original rows.
func indexed(n int) *Dataset {
	x := make([]float64, 2*n)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x[2*i], x[2*i+1], y[i] = float64(i), float64(2*i), float64(i)
	}
	return newDataset("idx", Regression, n, 2, x, y, []string{"a", "b"})
}

func TestSplitSizesFollowThePapersRule(t *testing.T) {
	// Oracle: Python's int(0.8 * n) for the papers' sizes (gaussmix.md §6.2
	// table: 506 → 404/102, 10886 → 8708/2178, 1359 → 1087/272, 240 → 192/48;
	// objpert.md §5.1: 45,220 → 36,176/9,044).
	cases := []struct {
		n, train, val, test int
		testFrac, valFrac   float64
	}{
		{506, 404, 0, 102, 0.2, 0},
		{10886, 8708, 0, 2178, 0.2, 0},
		{1359, 1087, 0, 272, 0.2, 0},
		{240, 192, 0, 48, 0.2, 0},
		{45220, 36176, 0, 9044, 0.2, 0},
		{10240, 8192, 0, 2048, 0.2, 0},
		{100, 70, 10, 20, 0.2, 0.1},
		{10, 10, 0, 0, 0, 0},
	}
	for _, c := range cases {
		tr, va, te := SplitSizes(c.n, c.testFrac, c.valFrac)
		if tr != c.train || va != c.val || te != c.test {
			t.Errorf("n=%d test=%v val=%v: sizes %d/%d/%d, want %d/%d/%d", c.n, c.testFrac, c.valFrac, tr, va, te, c.train, c.val, c.test)
		}
	}
}

func TestSplitIsAPermutationAndDeterministic(t *testing.T) {
	d := indexed(101)
	train, val, test := Split(d, 0.2, 0.1, rand.New(rand.NewPCG(1, 1)))
	if train.Rows() != 70 || val.Rows() != 10 || test.Rows() != 21 {
		t.Fatalf("sizes %d/%d/%d", train.Rows(), val.Rows(), test.Rows())
	}
	var seen []int
	for _, p := range []*Dataset{train, val, test} {
		for i := 0; i < p.Rows(); i++ {
			k := int(p.Y[i])
			if p.X.At(i, 0) != float64(k) || p.X.At(i, 1) != float64(2*k) {
				t.Fatalf("row %d of a part does not match its target %d", i, k)
			}
			seen = append(seen, k)
		}
	}
	sort.Ints(seen)
	for i, k := range seen {
		if k != i {
			t.Fatalf("parts are not a partition of the rows: sorted ids %v", seen)
		}
	}
	again, _, _ := Split(d, 0.2, 0.1, rand.New(rand.NewPCG(1, 1)))
	other, _, _ := Split(d, 0.2, 0.1, rand.New(rand.NewPCG(2, 1)))
	if !sameData([]*Dataset{train}, []*Dataset{again}) {
		t.Error("same seed, different split")
	}
	if sameData([]*Dataset{train}, []*Dataset{other}) {
		t.Error("different seeds, same split")
	}
	// The parts are copies.
	train.X.Set(0, 0, -1)
	if d.X.At(int(train.Y[0]), 0) == -1 {
		t.Error("Split returned a view of the original rows")
	}
}

// TestSplitOrdered: the parts are consecutive rows in stored order — rows
// 0..69 train, 70..79 validation, 80..100 test for n = 101 (the benchmark's
// int(0.8·n) cut) — and copies.
func TestSplitOrdered(t *testing.T) {
	d := indexed(101)
	train, val, test := SplitOrdered(d, 0.2, 0.1)
	next := 0
	for _, p := range []*Dataset{train, val, test} {
		for i := 0; i < p.Rows(); i++ {
			if int(p.Y[i]) != next || p.X.At(i, 1) != float64(2*next) {
				t.Fatalf("row %d of a part is original row %v, want %d", i, p.Y[i], next)
			}
			next++
		}
	}
	if train.Rows() != 70 || val.Rows() != 10 || test.Rows() != 21 || next != 101 {
		t.Fatalf("sizes %d/%d/%d", train.Rows(), val.Rows(), test.Rows())
	}
	train.X.Set(0, 0, -1)
	if d.X.At(0, 0) == -1 {
		t.Error("SplitOrdered returned a view of the original rows")
	}
}

func TestSplitWithoutValidationOrTest(t *testing.T) {
	d := indexed(10)
	tr, va, te := Split(d, 0.3, 0, rand.New(rand.NewPCG(1, 1)))
	if va != nil || tr.Rows() != 7 || te.Rows() != 3 {
		t.Fatalf("got train %d, val %v, test %d", tr.Rows(), va, te.Rows())
	}
	tr, va, te = Split(d, 0, 0, rand.New(rand.NewPCG(1, 1)))
	if va != nil || te != nil || tr.Rows() != 10 {
		t.Fatal("test = 0 should give all rows to train")
	}
}

func TestCheckSplitRejectsBadFractions(t *testing.T) {
	for _, c := range []struct {
		n         int
		test, val float64
	}{
		{10, -0.1, 0}, {10, 1, 0}, {10, 0.5, 0.5}, {10, 0.2, -1}, {3, 0.1, 0.1}, {10, 0.2, 0.05}, {1, 0.5, 0},
	} {
		if err := CheckSplit(c.n, c.test, c.val); err == nil {
			t.Errorf("CheckSplit(%d, %v, %v) accepted", c.n, c.test, c.val)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Split with bad fractions did not panic")
		}
	}()
	Split(indexed(4), 1.5, 0, rand.New(rand.NewPCG(1, 1)))
}

func TestSubsetAndClone(t *testing.T) {
	d := indexed(5)
	s := d.Subset([]int{4, 0, 4})
	if s.Rows() != 3 || s.Y[0] != 4 || s.Y[1] != 0 || s.X.At(2, 1) != 8 {
		t.Fatalf("Subset rows %v", s.Y)
	}
	c := d.Clone()
	c.X.Set(1, 1, 99)
	c.Y[1] = 99
	c.Features[0] = "z"
	if d.X.At(1, 1) == 99 || d.Y[1] == 99 || d.Features[0] == "z" {
		t.Error("Clone shares storage with the original")
	}
}
