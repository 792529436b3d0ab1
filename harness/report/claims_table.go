package report

// Claims over the entries of a [[table]] block (quantity = "table:NAME"):
// what a table kind computes without stored cells, such as the sensitivity
// probes' bounds and observed values, or prints from them. A selection
// names rows (row; '*' matches any text) and columns (column) of the
// tables the block builds; a point is one row and column, of one part when
// the block is split per dataset or panel. An entry's interval is the
// table's: its mean ± half-width (0: exact). experiments/README.md, "Paper
// claims", documents the keys.

import (
	"fmt"
	"math"
	"strings"

	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// checkTableName checks that name is one of the spec's [[table]] blocks.
func checkTableName(b *Block, name string) error {
	var names []string
	for _, t := range b.Spec.Tables {
		if t.Name == name {
			return nil
		}
		names = append(names, t.Name)
	}
	return b.Errorf("quantity", "no [[table]] named %q%s (tables: %s)", name, suggest.DidYouMean(name, names), strings.Join(names, ", "))
}

// wildcard reports whether s matches the pattern p, in which '*' matches
// any run of characters and every other character itself ("*, paper"
// matches "dedup[eta=0.1], Δ_∞, paper": no other character is special).
func wildcard(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// matchPattern reports whether a selection of row or column labels
// (empty: all) holds l, each selected label a wildcard pattern.
func matchPattern(vals []string, l string) bool {
	if vals == nil {
		return true
	}
	for _, p := range vals {
		if wildcard(p, l) {
			return true
		}
	}
	return false
}

// tableRows returns the entries side s selects in the tables of the block
// c reads, row by row and column by column; a selection that matches no
// row or column is one row not run, saying which the table has.
func (v *view) tableRows(c *claim, s *side) []row {
	name := c.q.name
	parts := v.built[name]
	rowSel, colSel := textValues(s.sel.Row), textValues(s.sel.Column)
	var out []row
	var rows, cols []string
	for _, tab := range parts {
		rows, cols = append(rows, tab.Rows...), append(cols, tab.Columns...)
		for i, rl := range tab.Rows {
			if !matchPattern(rowSel, rl) {
				continue
			}
			for j, cl := range tab.Columns {
				if !matchPattern(colSel, cl) {
					continue
				}
				out = append(out, tableRow(tab, i, j, len(parts) > 1, s))
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	why := fmt.Sprintf("table %s built nothing", name)
	switch {
	case len(rows) == 0:
	case !anyMatch(rowSel, rows):
		why = fmt.Sprintf("table %s has no row %s%s (rows: %s)", name, quoteList(rowSel), didYouMeanAll(rowSel, rows), strings.Join(rows, "; "))
	default:
		why = fmt.Sprintf("table %s has no column %s%s (columns: %s)", name, quoteList(colSel), didYouMeanAll(colSel, cols), strings.Join(cols, ", "))
	}
	nan := results.Float(math.NaN())
	return []row{{eps: math.NaN(), x: math.NaN(), axis: math.NaN(), di: -1, why: why, side: ClaimSide{Label: "table " + name, Mean: nan, Half: nan}}}
}

// tableRow is the row of entry (i, j) of tab: its row and column as
// coordinates (but those side s pins), the part's name when the block
// built several, and the entry's mean and half-width, or why it has none.
func tableRow(tab *plotting.Table, i, j int, split bool, s *side) row {
	rl, cl := tab.Rows[i], tab.Columns[j]
	r := row{eps: math.NaN(), x: math.NaN(), axis: math.NaN(), di: -1}
	if split {
		r.coords = append(r.coords, coord{"part", tab.Name, tab.Name})
	}
	label := cl
	if s.pinned["row"] {
		label += " (" + rl + ")"
	} else {
		r.coords = append(r.coords, coord{"row", rl, rl})
	}
	if !s.pinned["column"] {
		r.coords = append(r.coords, coord{"column", cl, cl})
	}
	r.side = ClaimSide{Label: label, Mean: results.Float(math.NaN()), Half: results.Float(math.NaN())}
	var e plotting.Entry
	if i < len(tab.Cells) && j < len(tab.Cells[i]) {
		e = tab.Cells[i][j]
	}
	switch {
	case !e.Present:
		r.why = fmt.Sprintf("table %s has no entry in row %q, column %q", tab.Name, rl, cl)
	case e.Text != "":
		r.why = fmt.Sprintf("table %s's entry in row %q, column %q is text (%q), not a number", tab.Name, rl, cl, e.Text)
	default:
		r.side.Mean, r.side.Half = results.Float(e.Mean), results.Float(e.Half)
	}
	return r
}

// anyMatch reports whether some label matches the selection.
func anyMatch(sel, labels []string) bool {
	for _, l := range labels {
		if matchPattern(sel, l) {
			return true
		}
	}
	return false
}

// quoteList writes selected labels: "a" or "a", "b".
func quoteList(sel []string) string {
	var q []string
	for _, s := range sel {
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}

// didYouMeanAll is the "did you mean" of the first selected label that has
// a close one.
func didYouMeanAll(sel, known []string) string {
	for _, s := range sel {
		if d := suggest.DidYouMean(s, known); d != "" {
			return d
		}
	}
	return ""
}
