package run

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// TestSameBits: the event memo reuses a JSON only for events equal down to
// float bits, slice nil-ness and dynamic types.
func TestSameBits(t *testing.T) {
	negZero := math.Copysign(0, -1)
	g := accounting.Gaussian{Sigma: 1.5, Sensitivity: 1}
	tests := []struct {
		name string
		a, b accounting.Event
		want bool
	}{
		{"same gaussian", g, accounting.Gaussian{Sigma: 1.5, Sensitivity: 1}, true},
		{"other sigma", g, accounting.Gaussian{Sigma: 1.5000000000000002, Sensitivity: 1}, false},
		{"0 and -0", accounting.Gaussian{Sigma: 0, Sensitivity: 1}, accounting.Gaussian{Sigma: negZero, Sensitivity: 1}, false},
		{"NaN and NaN", accounting.Gaussian{Sigma: math.NaN(), Sensitivity: 1}, accounting.Gaussian{Sigma: math.NaN(), Sensitivity: 1}, true},
		{"other kinds, same fields", accounting.Gaussian{Sigma: 2, Sensitivity: 1}, accounting.Laplace{Scale: 2, Sensitivity: 1}, false},
		{"same composed", accounting.NewComposed(g, accounting.GaussMix{K: 32, Gamma: 400}), accounting.NewComposed(g, accounting.GaussMix{K: 32, Gamma: 400}), true},
		{"composed, other leaf", accounting.NewComposed(g, accounting.GaussMix{K: 32, Gamma: 400}), accounting.NewComposed(g, accounting.GaussMix{K: 31, Gamma: 400}), false},
		{"composed, nil and empty", accounting.Composed{}, accounting.Composed{Events: []accounting.Event{}}, false},
		{"self-composed count", accounting.SelfComposed{Event: g, Count: 3}, accounting.SelfComposed{Event: g, Count: 2}, false},
		{"nil inner event", accounting.SelfComposed{Count: 3}, accounting.SelfComposed{Event: g, Count: 3}, false},
	}
	for _, tc := range tests {
		if got := sameBits(reflect.ValueOf(tc.a), reflect.ValueOf(tc.b), 0); got != tc.want {
			t.Errorf("%s: sameBits = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want {
			ja, erra := json.Marshal(tc.a)
			jb, errb := json.Marshal(tc.b)
			if string(ja) != string(jb) || (erra == nil) != (errb == nil) {
				t.Errorf("%s: same bits but JSON %s (%v) and %s (%v)", tc.name, ja, erra, jb, errb)
			}
		}
	}
}

// TestEncodeEventMemo: the runner's event encoding is json.Marshal's, for a
// cell whose trials charge the same event, then another, then the first
// again, and per-run events are kept apart from charged ones.
func TestEncodeEventMemo(t *testing.T) {
	r := &runner{}
	a := accounting.SelfComposed{Event: accounting.Gaussian{Sigma: 118.5, Sensitivity: 1}, Count: 3}
	b := accounting.NewComposed(accounting.Laplace{Scale: 80, Sensitivity: 2}, accounting.GaussMix{K: 32, Gamma: 2547.4})
	for i, step := range []struct {
		cell   string
		perRun bool
		event  accounting.Event
	}{{"c", false, a}, {"c", false, a}, {"c", false, b}, {"c", true, a}, {"c", false, b}, {"c", false, a}, {"d", false, b}, {"c", true, a}} {
		got, err := r.encodeEvent(step.cell, step.perRun, step.event)
		want, _ := json.Marshal(step.event)
		if err != nil || string(got) != string(want) {
			t.Errorf("step %d: %s, %v; want %s", i, got, err, want)
		}
	}
}

// TestNoiseMapMemo: a cell's noise map is reused only for a release whose
// noise parameters are the same bit for bit (−0 is not 0, a NaN payload is
// its own), and the map handed out always holds the release's values.
func TestNoiseMapMemo(t *testing.T) {
	r := &runner{}
	nan2 := math.Float64frombits(0x7ff8000000000002)
	steps := []map[string]float64{
		{"sigma": 1.5, "k": 32},
		{"sigma": 1.5, "k": 32},
		{"sigma": 1.5, "k": 32, "extra": 0},
		{"sigma": math.Copysign(0, -1), "k": 32},
		{"sigma": 0, "k": 32},
		{"sigma": math.NaN(), "k": 32},
		{"sigma": nan2, "k": 32},
		{"sigma": 1.5, "other": 32},
		nil,
	}
	var prev map[string]results.Float
	for i, src := range steps {
		got := r.noiseMap("cell", src)
		want := floatMap(src)
		if len(got) != len(want) {
			t.Fatalf("step %d: %v, want %v", i, got, want)
		}
		for k, v := range want {
			if math.Float64bits(float64(got[k])) != math.Float64bits(float64(v)) {
				t.Fatalf("step %d: %s = %v, want %v", i, k, got[k], v)
			}
		}
		if reused := i > 0 && got != nil && prev != nil && reflect.ValueOf(got).UnsafePointer() == reflect.ValueOf(prev).UnsafePointer(); reused != (i == 1) {
			t.Errorf("step %d: reused the previous map = %v", i, reused)
		}
		prev = got
	}
}

// TestCellSeedMemo: the memoised cell seed is rngs.Derive("cell", the
// spec's seed, the cell's key) for each cell, asked for once or again.
func TestCellSeedMemo(t *testing.T) {
	r := &runner{spec: &spec.Spec{Seed: 50}}
	for _, key := range []string{"a", "b", "a", "c", "b"} {
		got := r.cellSeed(&plan.Cell{Key: key})
		if want := rngs.Derive("cell", "50", key); got != want {
			t.Errorf("cell %s: seed %x, want %x", key, got, want)
		}
	}
}
