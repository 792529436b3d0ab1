package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/plotting"
)

// TestWildcard: '*' matches any run of characters, every other character
// (brackets included) only itself.
func TestWildcard(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"dedup[eta=0.1], Δ_∞, paper", "dedup[eta=0.1], Δ_∞, paper", true},
		{"dedup[eta=0.1], Δ_∞, paper", "dedupe, Δ_∞, paper", false},
		{"*, paper", "dedup[eta=0.1], Δ_∞, paper", true},
		{"*, paper", "dedup[eta=0.1], Δ_∞, safe", false},
		{"dedup[eta=0.1], *, paper", "dedup[eta=0.1] (add/remove), Δ_∞, paper", false},
		{"*(add/remove), Δ_∞, paper", "quantize[eta=0.1] (add/remove), Δ_∞, paper", true},
		{"impute-trimmed*, paper", "impute-trimmed[trim=2], Δ_2, paper", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "acb", false},
		{"a*a", "a", false}, // the prefix and the suffix may not overlap
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
	}
	for _, tc := range tests {
		if got := wildcard(tc.p, tc.s); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v, want %v", tc.p, tc.s, got, tc.want)
		}
	}
}

// TestTableRows: the entries a table claim reads, from a hand-made table:
// a number with its half-width, an exact one, an absent entry and a text
// are a value each or a row not run saying why; a side pinning the column
// drops it from the coordinates and names it in the side's label; a
// block split in two parts adds the part; a selection matching no row is
// one row not run listing the rows, with a "did you mean".
func TestTableRows(t *testing.T) {
	tab := &plotting.Table{Name: "probes", Rows: []string{"dedup, Δ_∞, paper", "dedup, Δ_2, paper"}, Columns: []string{"bound", "observed", "verdict"},
		Cells: [][]plotting.Entry{
			{{Mean: 12, Present: true}, {Mean: 40, Half: 2, Present: true}, {Present: true, Text: "REFUTED"}},
			{{Mean: 1, Present: true}, {}, {Present: true, Text: "confirmed"}},
		}}
	v := &view{built: map[string][]*plotting.Table{"probes": {tab}}}
	c := &claim{q: claimQuantity{kind: "table", name: "probes"}}
	sel := func(rows, cols []any) selection {
		var s selection
		s.Row.List, s.Column.List = rows, cols
		return s
	}
	rows := v.tableRows(c, &side{sel: sel([]any{"dedup, *, paper"}, nil), pinned: map[string]bool{}})
	type want struct {
		coords     string
		mean, half float64
		why        string
	}
	wants := []want{
		{"row=dedup, Δ_∞, paper column=bound", 12, 0, ""},
		{"row=dedup, Δ_∞, paper column=observed", 40, 2, ""},
		{"row=dedup, Δ_∞, paper column=verdict", math.NaN(), math.NaN(), `table probes's entry in row "dedup, Δ_∞, paper", column "verdict" is text ("REFUTED"), not a number`},
		{"row=dedup, Δ_2, paper column=bound", 1, 0, ""},
		{"row=dedup, Δ_2, paper column=observed", math.NaN(), math.NaN(), `table probes has no entry in row "dedup, Δ_2, paper", column "observed"`},
		{"row=dedup, Δ_2, paper column=verdict", math.NaN(), math.NaN(), `table probes's entry in row "dedup, Δ_2, paper", column "verdict" is text ("confirmed"), not a number`},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for i, r := range rows {
		var parts []string
		for _, k := range r.coords {
			parts = append(parts, k.name+"="+k.value)
		}
		w := wants[i]
		if got := strings.Join(parts, " "); got != w.coords || !same(float64(r.side.Mean), w.mean) || !same(float64(r.side.Half), w.half) || r.why != w.why {
			t.Errorf("row %d: %s %v ± %v %q, want %s %v ± %v %q", i, got, r.side.Mean, r.side.Half, r.why, w.coords, w.mean, w.half, w.why)
		}
	}
	// A side pinning the column: the column is the side's label.
	rows = v.tableRows(c, &side{sel: sel([]any{"dedup, Δ_∞, paper"}, []any{"observed"}), pinned: map[string]bool{"column": true}})
	if len(rows) != 1 || rows[0].side.Label != "observed" || len(rows[0].coords) != 1 || rows[0].coords[0].name != "row" {
		t.Errorf("pinned column: %+v", rows)
	}
	// Two parts: each row names its part.
	part := *tab
	part.Name = "probes-b"
	v.built["probes"] = []*plotting.Table{tab, &part}
	rows = v.tableRows(c, &side{sel: sel([]any{"dedup, Δ_∞, paper"}, []any{"bound"}), pinned: map[string]bool{}})
	if len(rows) != 2 || rows[0].coords[0] != (coord{"part", "probes", "probes"}) || rows[1].coords[0] != (coord{"part", "probes-b", "probes-b"}) {
		t.Errorf("split table: %+v", rows)
	}
	// Nothing matches.
	v.built["probes"] = []*plotting.Table{tab}
	rows = v.tableRows(c, &side{sel: sel([]any{"dedup, Δ_∞, papr"}, nil), pinned: map[string]bool{}})
	if len(rows) != 1 || !strings.Contains(rows[0].why, `table probes has no row "dedup, Δ_∞, papr" (did you mean "dedup, Δ_∞, paper"?) (rows: dedup, Δ_∞, paper; dedup, Δ_2, paper)`) {
		t.Errorf("no row: %+v", rows)
	}
	rows = v.tableRows(c, &side{sel: sel(nil, []any{"observd"}), pinned: map[string]bool{}})
	if len(rows) != 1 || !strings.Contains(rows[0].why, `table probes has no column "observd" (did you mean "observed"?)`) {
		t.Errorf("no column: %+v", rows)
	}
}

// tableClaimsSpec is a spec of two [[curve]] blocks (Table 2's M_G and
// A_GD behind deduplication, p = 10, at α = 11: 1.05·11·(1 + 10²) = 1166.55
// and 1.05·11·(4 + 10²) = 1201.2) and a curves table of them.
const tableClaimsSpec = `name = "t"
[[curve]]
name = "hss24-table2-gaussian-dedup"
label = "M_G"
panel = "dedup"
x = "alpha"
params = { eps = 1, p = 10, alpha = [11] }

[[curve]]
name = "hss24-table2-dp-gd-dedup"
label = "A_GD"
panel = "dedup"
x = "alpha"
params = { eps = 1, p = 10, alpha = [11] }

[[table]]
name = "t2"
kind = "curves"
rows = "panels"
`

// TestTableClaims runs claims on a [[table]]'s entries end to end: a
// ratio of two columns against the hand-computed 1201.2/1166.55, a value
// per column with a wildcard row, and a claim whose row matches nothing
// (not run, saying which rows the table has).
func TestTableClaims(t *testing.T) {
	s := spectest.MustParse(t, tableClaimsSpec+`
[[claim]]
id = "ratio"
quote = "A_GD costs at most 5% more than M_G behind deduplication"
where = "Table 2"
check = "ratio"
quantity = "table:t2"
row = "dedup; alpha = 11"
a = { column = "A_GD" }
b = { column = "M_G" }
max = 1.05

[[claim]]
id = "values"
quote = "both stay below 1200"
where = "Table 2"
check = "value"
quantity = "table:t2"
row = "dedup*"
max = 1200

[[claim]]
id = "missing-row"
quote = "q"
where = "w"
check = "value"
quantity = "table:t2"
row = "quantization*"
max = 1
`)
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	c, _ := renderClaims(t, s, nil)
	ratio := c.Claims[0]
	if ratio.Verdict != Holds || len(ratio.Points) != 1 || ratio.Statement != "A_GD / M_G in table t2" {
		t.Fatalf("ratio: %s %q, %+v", ratio.Summary, ratio.Statement, ratio.Points)
	}
	if p := ratio.Points[0]; math.Abs(float64(p.Estimate)-1201.2/1166.55) > 1e-12 || p.A.Label != "A_GD" || p.B.Label != "M_G" || p.Point != "dedup; alpha = 11" {
		t.Errorf("ratio point %+v a %+v b %+v", p, p.A, p.B)
	}
	values := c.Claims[1]
	if values.Summary != "contradicted at 1 of 2 points" || values.Points[0].Point != "M_G" || values.Points[1].Point != "A_GD" ||
		values.Points[0].Outcome != Holds || values.Points[1].Outcome != Contradicted || float64(values.Points[0].A.Mean) != 1166.55 {
		t.Errorf("values: %s, %+v", values.Summary, values.Points)
	}
	if m := c.Claims[2]; m.Verdict != NotRun || !strings.Contains(m.Why, `table t2 has no row "quantization*" (rows: dedup; alpha = 11)`) {
		t.Errorf("missing row: %s %q", m.Summary, m.Why)
	}
}
