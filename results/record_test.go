package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestSchema1RecordsUpgrade: schema-1 lines (counters under "stats", an
// oracle trial's one-run ε as eps_spent, no selection) decode as schema 2
// does: counters as Diagnostics, the oracle's eps_spent +Inf with the run's ε
// as eps_per_run, selections from the tuning mode and note. Decoding is
// idempotent: re-encoding and decoding again changes nothing.
func TestSchema1RecordsUpgrade(t *testing.T) {
	lines := []string{
		`{"schema":1,"cell_key":"o","label":"oracle","epsilon":1,"trial":0,"status":"ok","privacy":{"eps_target":1,"eps_spent":0.97,"delta":1e-5,"accountant":"rdp","tuning":"oracle","tuning_note":"non-private tuning: best of 10 candidates by test_accuracy on the test set; ε covers one run only"},"stats":{"runs":10}}`,
		`{"schema":1,"cell_key":"v","label":"honest","epsilon":1,"trial":0,"status":"ok","privacy":{"eps_target":1,"eps_spent":0.99,"delta":1e-5,"accountant":"rdp","tuning":"private","tuning_note":"private tuning: K ~ poisson(mean 15.4066) runs, best by test_accuracy on the validation split","eps_per_run":0.2},"stats":{"runs":14}}`,
		`{"schema":1,"cell_key":"t","label":"published","epsilon":1,"trial":0,"status":"ok","privacy":{"eps_target":1,"eps_spent":0.99,"delta":1e-5,"accountant":"rdp","tuning":"private","tuning_note":"private tuning: K ~ poisson(mean 15.4066) runs, best by test_accuracy on the test split (the published protocol: selection on the test set)","eps_per_run":0.2},"stats":{"runs":17}}`,
		`{"schema":1,"cell_key":"n","label":"plain","epsilon":1,"trial":0,"status":"ok","privacy":{"eps_target":1,"eps_spent":0.9,"delta":1e-5,"accountant":"rdp","tuning":"none"},"stats":{"iterations":7}}`,
	}
	want := []struct {
		spent, perRun float64
		selection     string
		diag          string
		value         float64
	}{
		{math.Inf(1), 0.97, SelectionOracle, "runs", 10},
		{0.99, 0.2, SelectionValidation, "runs", 14},
		{0.99, 0.2, SelectionTest, "runs", 17},
		{0.9, 0, "", "iterations", 7},
	}
	for i, line := range lines {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ {
			w, p := want[i], r.Privacy
			if float64(p.EpsSpent) != w.spent || float64(p.EpsPerRun) != w.perRun || p.Selection != w.selection || float64(r.Diagnostics[w.diag]) != w.value {
				t.Errorf("line %d, pass %d: eps_spent %v, eps_per_run %v, selection %q, diagnostics %v; want %v, %v, %q, %s = %v",
					i+1, pass, p.EpsSpent, p.EpsPerRun, p.Selection, r.Diagnostics, w.spent, w.perRun, w.selection, w.diag, w.value)
			}
			b, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(`"stats"`)) || !bytes.Contains(b, []byte(`"diagnostics_nonprivate"`)) {
				t.Errorf("line %d re-encoded as %s", i+1, b)
			}
			r = Record{}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSummaryPrivacyColumns: summary.csv says in its own columns what
// eps_spent_max guarantees: oracle cells +Inf with the run's ε apart and
// "NOT PRIVATE", privately tuned cells their selection and "training rows
// only", every cell its assumptions.
func TestSummaryPrivacyColumns(t *testing.T) {
	oracle := rec("o", 0, 1)
	oracle.Privacy = Privacy{EpsTarget: 1, EpsSpent: Float(math.Inf(1)), EpsPerRun: 0.97, Tuning: TuningOracle, Selection: SelectionOracle}
	tuned := rec("p", 0, 1)
	tuned.Privacy = Privacy{EpsTarget: 1, EpsSpent: 0.99, EpsPerRun: 0.2, Tuning: TuningPrivate, Selection: SelectionValidation,
		Assumptions: []string{"a", "b"}}
	tuned2 := rec("p", 1, 2)
	tuned2.Privacy = tuned.Privacy
	tuned2.Privacy.Assumptions = []string{"b", "c"}
	plain := rec("q", 0, 1)
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, Aggregate([]Record{oracle, tuned, tuned2, plain}, CINormal)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, c := range []struct{ key, want string }{
		{"o", `,oracle,+Inf,0.97,"not private: oracle, best candidate on the test set, not charged","NOT PRIVATE: oracle tuning`},
		{"p", `,private,0.99,0.2,not private: validation rows scored without noise,"eps_spent_max protects the training rows only`},
		{"p", `,a | b | c,`},
		{"q", `,none,0.9,,,eps_spent_max covers the whole procedure,,`},
	} {
		var found bool
		for _, l := range lines[1:] {
			found = found || strings.HasSuffix(l, ","+c.key) && strings.Contains(l, c.want)
		}
		if !found {
			t.Errorf("no summary row of cell %s contains %s:\n%s", c.key, c.want, buf.String())
		}
	}
}
