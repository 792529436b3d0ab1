package results

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestAggregateTraces: per-iteration statistics of a trace over a cell's ok
// trials, by hand. Trials (ok) 0, 1, 2 have excess_objective traces
// [4, 2, 1], [2, 1], [6, 3, 2]; a failed rerun of trial 1 with [100, 100,
// 100] does not count. At t = 0 the values are {4, 2, 6}: mean 4, min 2,
// max 6, SD = √((0 + 4 + 4)/2) = 2, CI half-width 1.96·2/√3; at t = 2 only
// trials 0 and 2 reach it: {1, 2}, mean 1.5, count 2. Tolerance 1e-12
// relative: a few floating-point operations.
func TestAggregateTraces(t *testing.T) {
	withTrace := func(trial int, xs ...float64) Record {
		r := rec("c", trial, 1)
		r.Traces = map[string][]Float{}
		for _, x := range xs {
			r.Traces["excess_objective"] = append(r.Traces["excess_objective"], Float(x))
		}
		return r
	}
	failed := withTrace(1, 100, 100, 100)
	failed.Status = StatusFailed
	recs := []Record{withTrace(0, 4, 2, 1), withTrace(1, 2, 1), failed, withTrace(2, 6, 3, 2), rec("plain", 0, 1)}
	cells := Aggregate(recs, CINormal)
	if len(cells) != 2 || cells[0].Key != "c" {
		t.Fatalf("cells = %+v", cells)
	}
	if cells[1].Traces != nil {
		t.Errorf("a cell without traces has Traces %v, want nil", cells[1].Traces)
	}
	st := cells[0].Traces["excess_objective"]
	if len(st) != 3 {
		t.Fatalf("%d iterations summarised, want 3", len(st))
	}
	tests := []struct {
		t                        int
		count                    int
		mean, min, max, halfWant float64
	}{
		{0, 3, 4, 2, 6, 1.96 * 2 / math.Sqrt(3)},
		{1, 3, 2, 1, 3, 1.96 * 1 / math.Sqrt(3)}, // {2, 1, 3}: SD 1
		{2, 2, 1.5, 1, 2, 1.96 * math.Sqrt(0.5) / math.Sqrt(2)},
	}
	for _, tc := range tests {
		s := st[tc.t]
		got := [][2]float64{{s.Mean, tc.mean}, {s.Min, tc.min}, {s.Max, tc.max}, {s.CIHalf, tc.halfWant},
			{s.CILow, tc.mean - tc.halfWant}, {s.CIHigh, tc.mean + tc.halfWant}}
		for i, g := range got {
			if math.Abs(g[0]-g[1]) > 1e-12*math.Max(1, math.Abs(g[1])) {
				t.Errorf("t = %d, value %d: got %.15g, want %.15g", tc.t, i, g[0], g[1])
			}
		}
		if s.Count != tc.count {
			t.Errorf("t = %d: count %d, want %d", tc.t, s.Count, tc.count)
		}
	}
}

// TestTracesAndTargetScopeRoundTrip: traces (with a non-finite value, null in
// JSON and NaN read back) and a
// target scope survive encoding and decoding; a record without them has
// neither key in its JSON (omitempty: old records encode as before).
func TestTracesAndTargetScopeRoundTrip(t *testing.T) {
	r := rec("c", 0, 1)
	plain, err := AppendRecord(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "traces") || strings.Contains(string(plain), "target_scope") {
		t.Errorf("a record without traces or scope encodes them: %s", plain)
	}
	r.Traces = map[string][]Float{"excess_objective": {10, 1, Float(math.Inf(1)), 0.5}}
	r.Privacy.TargetScope = "per-step RDP ε at α = 2"
	b, err := AppendRecord(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"traces":{"excess_objective":[10,1,null,0.5]},"privacy":{"eps_target":1,"target_scope":"per-step RDP ε at α = 2","eps_spent":0.9`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoding %s\nlacks %s", b, want)
		}
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Traces["excess_objective"]; len(got) != 4 || !math.IsNaN(float64(got[2])) || got[3] != 0.5 || back.Privacy.TargetScope != r.Privacy.TargetScope {
		t.Errorf("decoded traces %v, scope %q", back.Traces, back.Privacy.TargetScope)
	}
}

// TestOverspendsTarget: which cells a report warns about.
func TestOverspendsTarget(t *testing.T) {
	tests := []struct {
		name  string
		c     CellSummary
		wants bool
	}{
		{"within target", CellSummary{Epsilon: 1, EpsSpentMax: 1, Tuning: TuningNone}, false},
		{"within calibration tolerance", CellSummary{Epsilon: 1, EpsSpentMax: 1 + 5e-10, Tuning: TuningNone}, false},
		{"over", CellSummary{Epsilon: 1, EpsSpentMax: 1.01, Tuning: TuningNone}, true},
		{"oracle tuning", CellSummary{Epsilon: 1, EpsSpentMax: math.Inf(1), Tuning: TuningOracle}, false},
		{"target scope", CellSummary{Epsilon: 0.1, EpsSpentMax: 2.5, Tuning: TuningNone, TargetScope: "per-step RDP ε at α = 2"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.OverspendsTarget(); got != tc.wants {
				t.Errorf("OverspendsTarget() = %v, want %v", got, tc.wants)
			}
		})
	}
}
