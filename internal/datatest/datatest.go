// Package datatest gives tests small datasets from the built-in generators.
package datatest

import (
	"fmt"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/strictoml"
)

// Tiny returns a small scaled dataset of task t from the built-in
// generators (synthetic-linear or synthetic-logistic, seed 4): rows scaled
// to norm ≤ 1, regression targets to |y| ≤ 1.
func Tiny(t testing.TB, task datasets.Task, n, d int) *datasets.Dataset {
	t.Helper()
	name := "synthetic-linear"
	if task == datasets.Binary {
		name = "synthetic-logistic"
	}
	e, err := datasets.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.Load("", func(v any) error {
		return strictoml.DecodeKV([]string{fmt.Sprintf("n=%d", n), fmt.Sprintf("d=%d", d), "seed=4"})(v)
	})
	if err != nil {
		t.Fatal(err)
	}
	ds := l.All.Clone()
	sc := datasets.Scaling{X: "max-row-norm", Y: "max-abs"}
	if task == datasets.Binary {
		sc.Y = "none"
	}
	if err := sc.Apply(ds); err != nil {
		t.Fatal(err)
	}
	return ds
}
