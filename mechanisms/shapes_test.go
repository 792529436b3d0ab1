package mechanisms

import (
	"context"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/buildtest"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// shapeOf prints an event's kinds and composition structure, without its
// numbers: the "shape" EventShaper declares.
func shapeOf(e accounting.Event) string {
	switch e := e.(type) {
	case accounting.SelfComposed:
		return "self_composed(" + shapeOf(e.Event) + ")"
	case accounting.Composed:
		parts := make([]string, len(e.Events))
		for i, s := range e.Events {
			parts[i] = shapeOf(s)
		}
		return "composed(" + strings.Join(parts, ",") + ")"
	case accounting.RepeatAndSelect:
		return "repeat_and_select(" + shapeOf(e.Event) + ")"
	case nil:
		return "<nil>"
	}
	return e.Kind()
}

// TestEventShapes checks every registered mechanism's declared ledger shapes
// (what validation checks the spec's accountant against) against what Fit
// returns on the test configuration: without tuning, the event has one of
// the declared shapes, and every declared shape is valid; with private
// tuning (Budget.Wrap), EventShapes refuses the budget exactly when Fit does.
func TestEventShapes(t *testing.T) {
	wrap := func(e accounting.Event) accounting.Event {
		return accounting.RepeatAndSelect{Event: e, Distribution: accounting.Poisson, Mean: 3}
	}
	for _, info := range List() {
		t.Run(info.Name, func(t *testing.T) {
			e, _ := Lookup(info.Name)
			m, err := e.Test()
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range info.Tasks {
				data := tinyData(t, task, 400, 5)
				b := Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
				shapes, err := m.EventShapes(b)
				if err != nil || len(shapes) == 0 {
					t.Fatalf("EventShapes without tuning: %v, %v", shapes, err)
				}
				var declared []string
				for _, s := range shapes {
					if err := accounting.Validate(s); err != nil {
						t.Errorf("declared shape %s is invalid: %v", shapeOf(s), err)
					}
					declared = append(declared, shapeOf(s))
				}
				seed := rngs.Derive("shapes", info.Name)
				rel, err := m.Fit(context.Background(), data, b, rngs.New(seed))
				if err != nil {
					t.Fatalf("%s fit: %v", task, err)
				}
				if got := shapeOf(rel.Event); !contains(declared, got) {
					t.Errorf("%s: Fit returned a %s ledger; EventShapes declares %v", task, got, declared)
				}

				b.Wrap = wrap
				_, shapeErr := m.EventShapes(b)
				_, fitErr := m.Fit(context.Background(), data, b, rngs.New(seed))
				if (shapeErr != nil) != (fitErr != nil) {
					t.Errorf("%s with private tuning: EventShapes error %v, Fit error %v; want both or neither", task, shapeErr, fitErr)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestMechanismWithoutShapesDoesNotCompile: EventShapes is part of the
// Mechanism interface, so a mechanism that leaves it out fails to compile at
// its registration (go build with an overlay adding such a file), instead of
// running without the accountant check of its ledgers.
func TestMechanismWithoutShapesDoesNotCompile(t *testing.T) {
	code := `package mechanisms

import (
	"context"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
)

type scratchParams struct{}

func (scratchParams) Validate() error { return nil }

type scratchMech struct{}

func (*scratchMech) Fit(context.Context, *datasets.Dataset, Budget, rngs.Streams) (*Release, error) {
	return nil, nil
}

// no EventShapes method

func init() {
	Register(Info{Name: "scratch-overlay", Tasks: []datasets.Task{datasets.Regression}},
		func(scratchParams) (Mechanism, error) { return &scratchMech{}, nil }, scratchParams{})
}
`
	buildtest.FailsWith(t, "zz_scratch_mechanism.go", code, "*scratchMech does not implement Mechanism (missing method EventShapes)")
}
