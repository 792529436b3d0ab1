package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SplitSizes returns the train, validation and test row counts of n rows:
//
//	n_train = ⌊(1 − test − validation)·n⌋, n_val = ⌊validation·n⌋, n_test = n − n_train − n_val
//
// which is GaussMix's `train_size = int(0.8 * n)` and the Iyengar et al.
// benchmark's `int(0.8 * n)` when test = 0.2 (gaussmix.md §6.2, objpert.md
// §5.1). The 1e-9 guards against fractions like 1 − 0.2 landing just below an
// integer in floating point.
func SplitSizes(n int, test, validation float64) (nTrain, nVal, nTest int) {
	nTrain = int(math.Floor((1-test-validation)*float64(n) + 1e-9))
	nVal = int(math.Floor(validation*float64(n) + 1e-9))
	return nTrain, nVal, n - nTrain - nVal
}

// CheckSplit reports whether n rows can be split with the given test and
// validation fractions, leaving every requested part non-empty. Callers
// validate with it before calling Split.
func CheckSplit(n int, test, validation float64) error {
	if !(test >= 0 && test < 1) {
		return fmt.Errorf("test fraction %v: must be in [0, 1)", test)
	}
	if !(validation >= 0 && validation < 1) {
		return fmt.Errorf("validation fraction %v: must be in [0, 1)", validation)
	}
	if test+validation >= 1 {
		return fmt.Errorf("test + validation fractions %v + %v: must be below 1", test, validation)
	}
	tr, va, te := SplitSizes(n, test, validation)
	switch {
	case tr < 1:
		return fmt.Errorf("%d rows leave no training row with test %v and validation %v", n, test, validation)
	case validation > 0 && va < 1:
		return fmt.Errorf("%d rows leave no validation row with validation fraction %v", n, validation)
	case test > 0 && te < 1:
		return fmt.Errorf("%d rows leave no test row with test fraction %v", n, test)
	}
	return nil
}

// Split shuffles the rows of d with r and cuts the permutation into train
// (first ⌊(1 − test − validation)·n⌋ rows), validation (next ⌊validation·n⌋
// rows) and test (the rest), as the papers' "random permutation, first 80%
// train" protocol does. val is nil when validation == 0 and tst is nil when
// test == 0. The parts are copies. Invalid fractions (see CheckSplit) panic:
// callers validate first.
func Split(d *Dataset, test, validation float64, r *rand.Rand) (train, val, tst *Dataset) {
	n := d.Rows()
	if CheckSplit(n, test, validation) != nil {
		panic(badSplit)
	}
	return cut(d, r.Perm(n), test, validation)
}

// SplitOrdered is Split without the shuffle: the parts are consecutive rows
// in d's stored order (train first, then validation, then test), the
// Iyengar et al. benchmark's `training_size = int(0.8·n)` cut of its
// synthetic data (dpml-benchmark gridsearch.py; objpert.md §5.1).
func SplitOrdered(d *Dataset, test, validation float64) (train, val, tst *Dataset) {
	n := d.Rows()
	if CheckSplit(n, test, validation) != nil {
		panic(badSplit)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return cut(d, idx, test, validation)
}

// cut splits d into the rows perm[:nTrain], the next nVal and the rest.
func cut(d *Dataset, perm []int, test, validation float64) (train, val, tst *Dataset) {
	nTrain, nVal, _ := SplitSizes(d.Rows(), test, validation)
	train = d.Subset(perm[:nTrain])
	if validation > 0 {
		val = d.Subset(perm[nTrain : nTrain+nVal])
	}
	if test > 0 {
		tst = d.Subset(perm[nTrain+nVal:])
	}
	return train, val, tst
}

const badSplit = "datasets: Split with invalid fractions (validate with CheckSplit first)"
