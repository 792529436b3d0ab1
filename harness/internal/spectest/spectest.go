// Package spectest holds the small spec shared by the tests of
// harness/run and harness/report, and a parser that fails the test.
package spectest

import (
	"context"
	_ "embed"
	"testing"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
)

// Valid is a small valid spec: AdaSSP and ridge on synthetic data, 2 ε,
// 3 trials, one figure and one table.
//
// It lives in valid.toml so that harness/plan's internal tests, which cannot
// import this package (it imports plan), read the same file.
//
//go:embed valid.toml
var Valid string

// MustParse parses src as the spec "t.toml" or fails t.
func MustParse(t testing.TB, src string) *spec.Spec {
	t.Helper()
	s, err := plan.Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Plan returns the plan of s (plan.New, the spec's trial count) or fails t.
func Plan(t testing.TB, s *spec.Spec) *plan.Plan {
	t.Helper()
	p, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Cells returns the cells of s's plan or fails t.
func Cells(t testing.TB, s *spec.Spec) []plan.Cell { return Plan(t, s).Cells() }
