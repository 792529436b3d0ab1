package plan_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/dplab/dplab/harness/plan"
)

const onlySpec = `name = "only"
seed = 1
trials = 3
epsilon = [0.5, 2]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
label = "Synth"
params = { n = 300, d = 3 }

[[mechanism]]
name = "adassp"
label = "AdaSSP"
params = { rho = [1e-4, 1e-3] }

[[mechanism]]
name = "ridge"
label = "Ridge"
`

// TestOnlySubset: Plan.Only keeps, in expansion order and unchanged, the
// cells matching one filter of each dimension named (the reference, with
// no ε, matching every ε), counts what it left out, and leaves the plan
// it filters as it was.
func TestOnlySubset(t *testing.T) {
	s, err := plan.Parse("only.toml", []byte(onlySpec))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(context.Background(), s, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	full := append([]plan.Cell(nil), p.Cells()...)
	if len(full) != 5 {
		t.Fatalf("%d cells, want 5", len(full))
	}
	for _, c := range []struct {
		only []string
		want []int // indices into the full plan's cells
	}{
		{[]string{"params.rho=1e-3", "epsilon=2", "epsilon=0.5"}, []int{2, 3}},
		{[]string{"mechanism=ridge", "epsilon=2"}, []int{4}},
		{[]string{"epsilon=2"}, []int{1, 3, 4}},
		{[]string{"dataset=synthetic-linear", "mechanism=AdaSSP[rho=0.0001]"}, []int{0, 1}},
	} {
		sub, err := p.Only(c.only)
		if err != nil {
			t.Errorf("%q: %v", c.only, err)
			continue
		}
		var want []plan.Cell
		left := 0
		for i := range full {
			if slices.Contains(c.want, i) {
				want = append(want, full[i])
			} else {
				left += full[i].Trials
			}
		}
		if !reflect.DeepEqual(keys(sub.Cells()), keys(want)) {
			t.Errorf("%q: cells %v, want the full plan's %v", c.only, labels(sub.Cells()), c.want)
		}
		o := sub.Spec().Only
		if o == nil || o.Cells != len(c.want) || o.LeftCells != 5-len(c.want) || o.LeftTrials != left || !reflect.DeepEqual(o.Filters, c.only) {
			t.Errorf("%q: subset %+v", c.only, o)
		}
	}
	if !reflect.DeepEqual(keys(p.Cells()), keys(full)) || p.Spec().Only != nil {
		t.Error("Only changed the plan it filtered")
	}
	var oe *plan.OnlyError
	for _, bad := range [][]string{{"epsilon=1"}, {"mechanism=x"}, {"dataset"}, {"eps=1"}, {"mechanism=ridge", "params.rho=1e-4"}} {
		if _, err := p.Only(bad); !errors.As(err, &oe) {
			t.Errorf("%q: %v, want an *OnlyError", bad, err)
		}
	}
}

// keys returns the cells' keys (a Cell holds a registry entry's funcs,
// which reflect.DeepEqual never finds equal).
func keys(cells []plan.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Key)
	}
	return out
}

func labels(cells []plan.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Label)
	}
	return out
}
