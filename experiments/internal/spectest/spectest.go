// Package spectest holds the small spec shared by the tests of
// experiments/run and experiments/report, and a parser that fails the test.
package spectest

import (
	"context"
	"testing"

	"github.com/dplab/dplab/experiments/spec"
)

// Valid is a small valid spec: AdaSSP and ridge on synthetic data, 2 ε,
// 3 trials, one figure and one table.
const Valid = `name = "t"
seed = 1
trials = 3
epsilon = [0.5, 2]
delta = "min(1e-6, 0.01/n)"

[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 400, d = 4, seed = 3 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = 1e-4 }

[[mechanism]]
name = "ridge"
label = "Ridge"

[[figure]]
name = "mse"
metric = "test_mse"

[[table]]
name = "mse"
metric = "test_mse"
`

// MustParse parses src as the spec "t.toml" or fails t.
func MustParse(t testing.TB, src string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Cells expands s or fails t.
func Cells(t testing.TB, s *spec.Spec) []spec.Cell {
	t.Helper()
	cells, err := s.Expand(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cells
}
