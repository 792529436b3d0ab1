package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
)

// TestNewTrialsOverride: a --trials override travels in the plan (each
// cell's Trials and Plan.Trials) and leaves the spec as it was; without
// one the plan has the spec's count. The cells are the same either way.
func TestNewTrialsOverride(t *testing.T) {
	s := spectest.MustParse(t, spectest.Valid)
	own, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	over, err := plan.New(context.Background(), s, plan.Options{Trials: 7})
	if err != nil {
		t.Fatal(err)
	}
	if s.Trials != 3 || own.Trials() != 3 || over.Trials() != 7 {
		t.Fatalf("spec %d, plan %d, override plan %d trials; want 3, 3, 7", s.Trials, own.Trials(), over.Trials())
	}
	if len(own.Cells()) == 0 || len(own.Cells()) != len(over.Cells()) {
		t.Fatalf("%d cells without the override, %d with it", len(own.Cells()), len(over.Cells()))
	}
	for i, c := range over.Cells() {
		if o := own.Cells()[i]; c.Trials != 7 || o.Trials != 3 || c.Key != o.Key {
			t.Errorf("cell %d: %d and %d trials, keys %s and %s; want 7 and 3, one key", i, c.Trials, o.Trials, c.Key, o.Key)
		}
	}
	if own.Spec() != s || over.Spec() != s {
		t.Error("the plans do not hold the spec they were made of")
	}
}

// TestNewOverrideOverLimits: an override that takes the grid over the
// spec's trial limit is a *spec.SpecError at the trials key, with the
// override's count in its message.
func TestNewOverrideOverLimits(t *testing.T) {
	s, err := plan.ParseWith("t.toml", []byte(spectest.Valid), spec.LoadOptions{Limits: spec.Limits{MaxTrials: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.New(context.Background(), s, plan.Options{Trials: 3}); err != nil {
		t.Fatalf("the spec's own count: %v", err)
	}
	_, err = plan.New(context.Background(), s, plan.Options{Trials: 1000})
	var se *spec.SpecError
	if !errors.As(err, &se) || se.Key != "trials" || !strings.Contains(err.Error(), "× 1000 trials") {
		t.Fatalf("err = %v, want a SpecError at trials naming 1000 trials", err)
	}
}
