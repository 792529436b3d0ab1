package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSchema1RecordsUpgrade: schema-1 lines (counters under "stats", an
// oracle trial's one-run ε as eps_spent, no selection, no assumptions)
// decode as current-schema records: Schema is SchemaVersion, counters are
// Diagnostics, the oracle's eps_spent is +Inf with the run's ε as
// eps_per_run, selections follow the tuning mode and note, and a record that
// claims a guarantee lists its selection's assumption and AssumeUnrecorded
// (the oracle's, which claims none, lists nothing), so that no reader needs
// the schema to state them. Decoding is idempotent: re-encoding and decoding
// again changes nothing.
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
		assumptions   []string
	}{
		{math.Inf(1), 0.97, SelectionOracle, "runs", 10, nil},
		{0.99, 0.2, SelectionValidation, "runs", 14, []string{AssumeValidationPublic, AssumeUnrecorded}},
		{0.99, 0.2, SelectionTest, "runs", 17, []string{AssumeTestPublic, AssumeUnrecorded}},
		{0.9, 0, "", "iterations", 7, []string{AssumeUnrecorded}},
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
			if r.Schema != SchemaVersion || !slices.Equal(p.Assumptions, w.assumptions) {
				t.Errorf("line %d, pass %d: schema %d, assumptions %q; want %d, %q", i+1, pass, r.Schema, p.Assumptions, SchemaVersion, w.assumptions)
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

// TestSchema2RecordsReadAsCurrent: a schema-2 line (a non-private
// reference's ε fields as the string "inf", δ as "nan") decodes as a
// current record — Schema SchemaVersion, the ε fields +Inf — and encodes as
// one (null), so a store rewritten from it (--force) states its layout
// truthfully.
func TestSchema2RecordsReadAsCurrent(t *testing.T) {
	line := `{"schema":2,"cell_key":"r","label":"ridge","epsilon":"inf","trial":0,"status":"ok","privacy":{"eps_target":"inf","eps_spent":"inf","delta":"nan","accountant":"none","tuning":"none"},"wall_s":0.5,"code_version":"v"}`
	var r Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != SchemaVersion || !math.IsInf(float64(r.Epsilon), 1) || !math.IsInf(float64(r.Privacy.EpsSpent), 1) || r.Privacy.Assumptions != nil {
		t.Errorf("read as schema %d, ε %v, ε spent %v, assumptions %q", r.Schema, r.Epsilon, r.Privacy.EpsSpent, r.Privacy.Assumptions)
	}
	b, err := AppendRecord(nil, &r)
	want := fmt.Sprintf(`{"schema":%d,"experiment":"","cell_key":"r","dataset":"","mechanism":"","label":"ridge","epsilon":null,"trial":0,"seed":"","status":"ok","privacy":{"eps_target":null,"eps_spent":null,"delta":null,"accountant":"none","relation":"","tuning":"none"},"wall_s":0.5,"code_version":"v"}`, SchemaVersion)
	if err != nil || string(b) != want {
		t.Errorf("encoded as %s (%v)\nwant %s", b, err, want)
	}
}

// TestSummaryPrivacyColumns: summary.csv says in its own columns what
// eps_spent_max guarantees: oracle cells +Inf with the run's ε apart and
// "NOT PRIVATE", privately tuned cells their selection and "training rows
// only", every cell its assumptions, a cell that spent more than its
// target ε a warning (it had none: only eps_spent_max showed it).
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
	over := rec("s", 0, 1)
	over.Privacy.EpsSpent = 1.5
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, Aggregate([]Record{oracle, tuned, tuned2, plain, over}, CINormal)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, c := range []struct{ key, want string }{
		{"o", `,oracle,false,,0.97,"not private: oracle, best candidate on the test set, not charged","NOT PRIVATE: oracle tuning`},
		{"p", `,private,true,0.99,0.2,not private: validation rows scored without noise,"eps_spent_max protects the training rows only`},
		{"p", `,a | b | c,`},
		{"q", `,none,true,0.9,,,eps_spent_max covers the whole procedure,,`},
		{"s", `,none,true,1.5,,,eps_spent_max covers the whole procedure; WARNING: eps_spent_max exceeds the target epsilon,,`},
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

// TestSummaryTidy: summary.csv is tidy — one type per column, an empty
// field where a column does not apply (a non-private reference has no ε,
// δ, accountant or α*, and no ε bounds it), one p_<key> column per
// mechanism param of any cell (empty where a cell lacks it), and the
// dataset's registry name beside its label.
func TestSummaryTidy(t *testing.T) {
	a := rec("a", 0, 1)
	a.MechParams = map[string]any{"rho": 1e-4, "calibration": "box"}
	a.Privacy.AlphaStar = 12.5
	b := rec("b", 0, 2)
	b.MechParams = map[string]any{"rho": 0.05, "steps": int64(3)}
	ref := rec("r", 0, 3)
	ref.Mechanism, ref.Epsilon = "ridge", Float(math.Inf(1))
	ref.Privacy = Privacy{EpsTarget: Float(math.Inf(1)), EpsSpent: Float(math.Inf(1)), Delta: 1e-6, Accountant: "rdp", Tuning: TuningNone}
	cells := Aggregate([]Record{a, b, ref}, CINormal)
	for i := range cells {
		cells[i].DatasetName = "synthetic-linear"
	}
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, cells); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"dataset_name", "p_calibration", "p_rho", "p_steps", "private"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("no column %q in %q", h, rows[0])
		}
	}
	byCell := map[string][]string{}
	for _, r := range rows[1:] {
		byCell[r[col["cell_key"]]] = r
	}
	get := func(cell, h string) string { return byCell[cell][col[h]] }
	for _, c := range []struct{ cell, h, want string }{
		{"a", "p_rho", "0.0001"}, {"a", "p_calibration", "box"}, {"a", "p_steps", ""}, {"a", "alpha_star_mean", "12.5"},
		{"b", "p_steps", "3"}, {"b", "p_calibration", ""}, {"a", "dataset_name", "synthetic-linear"},
		{"a", "private", "true"}, {"a", "epsilon", "1"}, {"a", "delta", "1e-06"},
		{"r", "private", "false"}, {"r", "epsilon", ""}, {"r", "delta", ""}, {"r", "accountant", ""},
		{"r", "eps_spent_max", ""}, {"r", "alpha_star_mean", ""},
	} {
		if got := get(c.cell, c.h); got != c.want {
			t.Errorf("cell %s, %s = %q, want %q", c.cell, c.h, got, c.want)
		}
	}
	// One type per numeric column: every field parses as a finite number or is empty.
	for _, h := range []string{"epsilon", "delta", "eps_spent_max", "eps_per_run_max", "alpha_star_mean", "mean", "sd", "p_rho", "p_steps"} {
		for _, r := range rows[1:] {
			if f := r[col[h]]; f != "" {
				if x, err := strconv.ParseFloat(f, 64); err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
					t.Errorf("column %s holds %q: not a finite number", h, f)
				}
			}
		}
	}
}

// TestNotApplicableIsNull: a schema-3 record writes what does not apply as
// JSON null — a non-private reference's ε, ε target, ε spent and δ, an
// oracle trial's ε spent — never a string, and reads the ε fields back as
// +Inf ("no guarantee", "no ε axis"), δ as NaN.
func TestNotApplicableIsNull(t *testing.T) {
	ref := rec("r", 0, 1)
	ref.Schema, ref.Epsilon = SchemaVersion, Float(math.Inf(1))
	ref.Privacy = Privacy{EpsTarget: Float(math.Inf(1)), EpsSpent: Float(math.Inf(1)), Delta: Float(math.NaN()), Accountant: "rdp", Tuning: TuningNone}
	oracle := rec("o", 0, 1)
	oracle.Schema = SchemaVersion
	oracle.Privacy = Privacy{EpsTarget: 1, EpsSpent: Float(math.Inf(1)), EpsPerRun: 0.97, Delta: 1e-5, Accountant: "rdp", Tuning: TuningOracle, Selection: SelectionOracle}
	for _, c := range []struct {
		r    Record
		want []string
	}{
		{ref, []string{`"epsilon":null`, `"eps_target":null`, `"eps_spent":null`, `"delta":null`}},
		{oracle, []string{`"epsilon":1`, `"eps_spent":null`, `"delta":1e-05`, `"eps_per_run":0.97`}},
	} {
		b, err := AppendRecord(nil, &c.r)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("%s lacks %s", b, w)
			}
		}
		if bytes.Contains(b, []byte(`"inf"`)) || bytes.Contains(b, []byte(`"nan"`)) {
			t.Errorf("%s holds a number as a string", b)
		}
		var back Record
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !math.IsInf(float64(back.Privacy.EpsSpent), 1) || !math.IsInf(float64(back.Epsilon), 1) != (c.r.CellKey == "o") {
			t.Errorf("%s read back: ε %v, ε spent %v", b, back.Epsilon, back.Privacy.EpsSpent)
		}
	}
}

// TestFloatReadsNumbersAsEncodingJSON checks Float.UnmarshalJSON's number
// path against encoding/json's float64 decoding, bit for bit, and that
// what is not a JSON number in float64's range is an error.
func TestFloatReadsNumbersAsEncodingJSON(t *testing.T) {
	for _, text := range []string{
		"0", "-0", "1", "-1", "0.1", "1e-7", "1E+5", "2.5e-300", "5e-324", "1e-320",
		"2.2250738585072011e-308", "1.7976931348623157e308", "123456789012345678901234567890",
		"0.30000000000000004", "9007199254740993", "-4.9406564584124654e-324",
	} {
		var want float64
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatalf("%s: encoding/json: %v", text, err)
		}
		var got Float
		if err := json.Unmarshal([]byte(text), &got); err != nil || math.Float64bits(float64(got)) != math.Float64bits(want) {
			t.Errorf("%s: got %v (%v), want %v", text, float64(got), err, want)
		}
	}
	for _, text := range []string{"1e400", "-1e400", "true", "{}", "[1]", "Inf", "NaN", "+1", "0x1p-2", "1_0", ""} {
		var got Float
		if err := got.UnmarshalJSON([]byte(text)); err == nil {
			t.Errorf("%q: read as %v, want an error", text, float64(got))
		}
	}
}
