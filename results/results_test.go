package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloatJSONRoundTrip: finite values round-trip exactly; non-finite
// ones are JSON null (one type per field) and read back as NaN; the
// strings of schema-2 stores and the golden vectors still read.
func TestFloatJSONRoundTrip(t *testing.T) {
	for _, x := range []float64{0, -1.5, 1e-300, 0.1, math.Inf(1), math.Inf(-1), math.NaN()} {
		b, err := json.Marshal(Float(x))
		if err != nil {
			t.Fatalf("marshal %v: %v", x, err)
		}
		finite := !math.IsNaN(x) && !math.IsInf(x, 0)
		if !finite && string(b) != "null" {
			t.Errorf("%v encodes as %s, want null", x, b)
		}
		var y Float
		if err := json.Unmarshal(b, &y); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if finite && float64(y) != x || !finite && !math.IsNaN(float64(y)) {
			t.Errorf("%v -> %s -> %v", x, b, float64(y))
		}
	}
	for s, want := range map[string]float64{`"inf"`: math.Inf(1), `"+inf"`: math.Inf(1), `"-inf"`: math.Inf(-1)} {
		var y Float
		if err := json.Unmarshal([]byte(s), &y); err != nil || float64(y) != want {
			t.Errorf("%s -> %v, %v; want %v", s, float64(y), err, want)
		}
	}
	var y Float
	if err := json.Unmarshal([]byte(`"infinite"`), &y); err == nil {
		t.Error(`"infinite" decoded without error`)
	}
}

func rec(cell string, trial int, mse float64) Record {
	return Record{Experiment: "e", CellKey: cell, Dataset: "d", Mechanism: "m", Label: "M",
		Epsilon: 1, Trial: trial, Status: StatusOK, Metrics: map[string]Float{"test_mse": Float(mse)},
		Privacy: Privacy{EpsTarget: 1, EpsSpent: 0.9, Delta: 1e-6, Accountant: "rdp", Tuning: "none"}}
}

func TestStoreResumesAndDropsTornLine(t *testing.T) {
	dir := t.TempDir()
	s, got, err := openAll(dir, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Open empty: %v, %d records", err, len(got))
	}
	for i := 0; i < 3; i++ {
		if err := s.Append(rec("c1", i, float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Simulate a kill in the middle of writing a fourth record.
	path := filepath.Join(dir, TrialsFile)
	full, _ := json.Marshal(rec("c1", 3, 3))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(full[:len(full)/2])
	f.Close()

	var warnings []string
	s, got, err = openAll(dir, func(w string) { warnings = append(warnings, w) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(warnings) != 1 || !strings.Contains(warnings[0], "torn") {
		t.Fatalf("after torn write: %d records, warnings %q", len(got), warnings)
	}
	if !s.Done(Key{"c1", 2}) || s.Done(Key{"c1", 3}) {
		t.Fatal("Done does not reflect the stored trials")
	}
	if err := s.Append(rec("c1", 3, 3)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	all, err := Read(dir, func(w string) { t.Errorf("unexpected warning %q", w) })
	if err != nil || len(all) != 4 {
		t.Fatalf("Read after repair: %d records, %v", len(all), err)
	}
	for i, r := range all {
		if r.Trial != i || r.Schema != SchemaVersion {
			t.Errorf("record %d: trial %d schema %d", i, r.Trial, r.Schema)
		}
	}
}

// TestSummarize checks against values computed by hand (and with numpy 1.24:
// np.mean, np.std(ddof=1), np.percentile with the default linear method;
// scipy.stats.t.ppf(0.975, 4) = 2.7764451051977987).
func TestSummarize(t *testing.T) {
	xs := []float64{3, 1, 4, 1, 5}
	tests := []struct {
		name string
		ci   CIMethod
		z    float64
	}{
		{"normal", CINormal, 1.96},
		{"student-t", CIStudentT, 2.7764451051977987},
		{"auto, 5 < 30 values: student-t", CIAuto, 2.7764451051977987},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(xs, tc.ci)
			sd := math.Sqrt(((3-2.8)*(3-2.8) + 2*(1-2.8)*(1-2.8) + (4-2.8)*(4-2.8) + (5-2.8)*(5-2.8)) / 4)
			want := map[string][2]float64{
				"mean": {s.Mean, 2.8}, "sd": {s.SD, sd}, "se": {s.SE, sd / math.Sqrt(5)},
				"ci": {s.CIHalf, tc.z * sd / math.Sqrt(5)}, "median": {s.Median, 3},
				"q1": {s.Q1, 1}, "q3": {s.Q3, 4}, "min": {s.Min, 1}, "max": {s.Max, 5},
			}
			for k, v := range want {
				if math.Abs(v[0]-v[1]) > 1e-12*math.Max(1, math.Abs(v[1])) {
					t.Errorf("%s = %.15g, want %.15g", k, v[0], v[1])
				}
			}
			if s.Count != 5 {
				t.Errorf("count = %d", s.Count)
			}
		})
	}
	// numpy: np.percentile([1,2,3,4], [25, 50, 75]) = [1.75, 2.5, 3.25]
	s := Summarize([]float64{4, 2, 1, 3}, CINormal)
	if s.Q1 != 1.75 || s.Median != 2.5 || s.Q3 != 3.25 {
		t.Errorf("quartiles of 1..4: %v %v %v", s.Q1, s.Median, s.Q3)
	}
}

// TestCIAutoQuantiles: the default interval (CIAuto) is Student-t's below
// 30 values and 1.96·SE from 30 on. The quantiles t_{0.975, ν} are checked
// against closed forms, ν = 1: tan(π(p − ½)) (the Cauchy quantile) and ν = 2:
// (2p − 1)/√(2p(1 − p)) [Abramowitz & Stegun 26.7.5, the t quantiles of
// one and two degrees of freedom], and against the printed t table for
// ν = 4, 9, 28, 29 (NIST/SEMATECH e-Handbook of Statistical Methods,
// §1.3.6.7.2, upper 0.025 critical values: 2.776, 2.262, 2.048, 2.045).
func TestCIAutoQuantiles(t *testing.T) {
	const p = 0.975
	tests := []struct {
		n    int
		want float64
		tol  float64
	}{
		{2, math.Tan(math.Pi * (p - 0.5)), 1e-9},
		{3, (2*p - 1) / math.Sqrt(2*p*(1-p)), 1e-9},
		{5, 2.776, 5e-4},
		{10, 2.262, 5e-4},
		{29, 2.048, 5e-4},
		{30, 1.96, 1e-12}, // auto: normal from 30 values on
		{100, 1.96, 1e-12},
	}
	for _, tc := range tests {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = float64(i % 3) // a sample with a positive SD
		}
		s := Summarize(xs, CIAuto)
		if z := s.CIHalf / s.SE; math.Abs(z-tc.want) > tc.tol*math.Max(1, tc.want) {
			t.Errorf("n = %d: CI half-width / SE = %.10g, want %.10g", tc.n, z, tc.want)
		}
		if tc.n == 30 {
			if z := Summarize(xs, CIStudentT).CIHalf / s.SE; math.Abs(z-2.045) > 5e-4 {
				t.Errorf("n = 30, ci = t: %.6g, want t_{0.975, 29} = 2.045", z)
			}
		}
	}
	if err := CIMethod("wald").Validate(); err == nil || !strings.Contains(err.Error(), `"auto"`) {
		t.Errorf("unknown method: %v", err)
	}
}

func TestAggregateUsesLatestOKRecordPerTrial(t *testing.T) {
	failed := rec("c", 0, 100)
	failed.Status = StatusFailed
	recs := []Record{rec("c", 0, 1), rec("c", 1, 3), failed, rec("b", 0, 7)}
	cells := Aggregate(recs, CINormal)
	if len(cells) != 2 || cells[0].Key != "b" || cells[1].Key != "c" {
		t.Fatalf("cells = %+v", cells)
	}
	if m := cells[1].Metrics["test_mse"]; m.Count != 2 || m.Mean != 2 {
		t.Errorf("cell c test_mse: %+v", m)
	}
	if cells[1].EpsSpentMax != 0.9 {
		t.Errorf("eps spent max = %v", cells[1].EpsSpentMax)
	}
}

// openAll is Open keeping the records it reads.
func openAll(dir string, warn func(string)) (*Store, []Record, error) {
	var recs []Record
	s, err := Open(dir, warn, func(r *Record) { recs = append(recs, *r) })
	return s, recs, err
}

// openShardAll is OpenShard keeping the records it reads.
func openShardAll(dir string, i, n int, warn func(string)) (*Store, []Record, error) {
	var recs []Record
	s, err := OpenShard(dir, i, n, warn, func(r *Record) { recs = append(recs, *r) })
	return s, recs, err
}
