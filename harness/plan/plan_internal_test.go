package plan

import (
	"context"
	"testing"

	"github.com/dplab/dplab/harness/spec"
)

// preprocessingOf returns mechanism block mi's pre-processing in the plan
// of s.
func preprocessingOf(t *testing.T, s *spec.Spec, mi int) *Pipeline {
	t.Helper()
	p, err := New(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Preprocessing(mi)
}

// planCells returns the cells of the plan of s.
func planCells(s *spec.Spec) ([]Cell, error) {
	p, err := New(context.Background(), s, Options{})
	if err != nil {
		return nil, err
	}
	return p.Cells(), nil
}
