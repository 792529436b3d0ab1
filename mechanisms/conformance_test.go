package mechanisms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// tinyData returns a small scaled dataset of task t from the built-in
// generators (datatest.Tiny).
func tinyData(t testing.TB, task datasets.Task, n, d int) *datasets.Dataset {
	return datatest.Tiny(t, task, n, d)
}

// TestConformance runs every registered mechanism on its test config: the
// ledger is supported by the RDP accountant, a private mechanism's spent ε is
// within a loose target, the same streams give the same bits, and a
// cancelled context returns ctx.Err().
func TestConformance(t *testing.T) {
	for _, info := range List() {
		info := info
		t.Run(info.Name, func(t *testing.T) {
			e, _ := Lookup(info.Name)
			m, err := e.Test()
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range info.Tasks {
				data := tinyData(t, task, 400, 5)
				b := Budget{Epsilon: 2, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
				seed := rngs.Derive("conformance", info.Name)
				r1, err := m.Fit(context.Background(), data, b, rngs.New(seed))
				if err != nil {
					t.Fatalf("%s fit: %v", task, err)
				}
				g, err := accounting.Config{}.Epsilon(r1.Event, b.Delta)
				if err != nil {
					t.Fatalf("ledger %T not supported: %v", r1.Event, err)
				}
				if info.Private && !(g.Epsilon <= b.Epsilon) {
					t.Errorf("%s: ε spent %v > target %v", task, g.Epsilon, b.Epsilon)
				}
				if !info.Private && !math.IsInf(g.Epsilon, 1) {
					t.Errorf("non-private mechanism reports ε = %v, want +Inf", g.Epsilon)
				}
				checkDeclaredLedger(t, info, m, b, r1.Event)
				r2, _ := m.Fit(context.Background(), data, b, rngs.New(seed))
				j1, _ := json.Marshal(r1.Model)
				j2, _ := json.Marshal(r2.Model)
				if string(j1) != string(j2) {
					t.Errorf("%s: same streams gave different models", task)
				}
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if _, err := m.Fit(ctx, data, b, rngs.New(seed)); !errors.Is(err, context.Canceled) {
					t.Errorf("%s: cancelled fit returned %v, want context.Canceled", task, err)
				}
			}
		})
	}
}

// structuralKinds are event kinds that shape a ledger (a relation, parallel
// parts, a node that releases nothing) rather than release anything; Info.Events
// need not list them.
var structuralKinds = []string{"with_relation", "parallel", "noop"}

// checkDeclaredLedger holds Info.Relation and Info.Events (what dplab
// mechanisms prints) to the ledger Fit returned and to the declared
// EventShapes: the relation is the ledger's ("" and non_private for a
// non-private learner), and every non-structural leaf kind is declared.
func checkDeclaredLedger(t *testing.T, info Info, m Mechanism, b Budget, ledger accounting.Event) {
	t.Helper()
	rel, err := accounting.LedgerRelation(ledger)
	switch {
	case err != nil:
		t.Errorf("ledger relation: %v", err)
	case !info.Private && info.Relation != "":
		t.Errorf("non-private mechanism declares relation %q, want none", info.Relation)
	case info.Private && rel != info.Relation:
		t.Errorf("Info.Relation = %q, but Fit's ledger is %s", info.Relation, rel)
	}
	shapes, err := m.EventShapes(b)
	if err != nil {
		t.Fatalf("EventShapes: %v", err)
	}
	used := map[string]bool{}
	for _, e := range append(shapes, ledger) {
		accounting.Leaves(e, func(l accounting.Event, _ float64) {
			if !slices.Contains(structuralKinds, l.Kind()) {
				used[l.Kind()] = true
			}
		})
	}
	for k := range used {
		if !slices.Contains(info.Events, k) {
			t.Errorf("ledger holds a %s event, not in Info.Events %v", k, info.Events)
		}
	}
	if len(info.Events) == 0 {
		t.Errorf("Info.Events is empty")
	}
}

// BenchmarkFit times one trial's fit of each mechanism, with its default
// params, on regression or binary data of the papers' sizes (Boston-like n = 404, d = 13 and
// Bike-like n = 8708, d = 18 for regression; n = 36000, d = 104 for binary).
// The data stays fixed across iterations, as across the trials of a fixed
// split, so data-only statistics memoised on it (XᵀX, factors, non-private
// fits) are computed once, as in a run.
func BenchmarkFit(b *testing.B) {
	sizes := map[datasets.Task][][2]int{
		datasets.Regression: {{404, 13}, {8708, 18}},
		datasets.Binary:     {{36000, 104}},
	}
	for _, info := range List() {
		e, _ := Lookup(info.Name)
		m, _, err := e.Build(nil) // the documented defaults: the papers' settings
		if err != nil {
			b.Fatal(err)
		}
		for _, task := range info.Tasks {
			for _, sz := range sizes[task] {
				data := tinyData(b, task, sz[0], sz[1])
				budget := Budget{Epsilon: 1, Delta: 1e-6, Calibrator: accounting.NewCalibrator(accounting.Config{})}
				b.Run(fmt.Sprintf("%s/n=%d,d=%d", info.Name, sz[0], sz[1]), func(b *testing.B) {
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if _, err := m.Fit(context.Background(), data, budget, rngs.New(rngs.Derive("bench", fmt.Sprint(i)))); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
			}
		}
	}
}
