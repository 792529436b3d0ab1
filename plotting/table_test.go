package plotting

import (
	"strings"
	"testing"
)

// TestTextCells: a text entry prints verbatim (escaped per format), never
// competes in its row (the lone number is then no winner), and fills the
// CSV's value column.
func TestTextCells(t *testing.T) {
	tab := &Table{Name: "f", RowHeader: "case", Rows: []string{"a"}, Columns: []string{"formula", "value"}, Better: Lower,
		Cells: [][]Entry{{{Present: true, Text: "α|τ ε² & 50%"}, {Present: true, Mean: 2}}}}
	var md, tex, csvb strings.Builder
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteLaTeX(&tex); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteCSV(&csvb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| α\\|τ ε² & 50% | 2 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if !strings.Contains(tex.String(), `$\alpha$\textbar{}$\tau$ $\varepsilon$\textsuperscript{2} \& 50\%`) {
		t.Errorf("latex:\n%s", tex.String())
	}
	if !strings.Contains(csvb.String(), "a,α|τ ε² & 50%,,2,0,,\n") {
		t.Errorf("csv:\n%s", csvb.String())
	}
}

// TestTeXColumns: LaTeX headers given as math are written as they are (the
// Markdown and CSV keep the Unicode labels), and a count that differs
// from the columns' is refused.
func TestTeXColumns(t *testing.T) {
	tab := &Table{Name: "d", RowHeader: "node", Rows: []string{"1"}, Columns: []string{"γ_code = √γ", "c/n"},
		TeXColumns: []string{`$\gamma_{\mathrm{code}} = \sqrt{\gamma}$`, `$c/n$`}, Better: NoBest,
		Cells: [][]Entry{{{Present: true, Mean: 0.5}, {Present: true, Mean: 2}}}}
	var tex, md strings.Builder
	if err := tab.WriteLaTeX(&tex); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tex.String(), "node & $\\gamma_{\\mathrm{code}} = \\sqrt{\\gamma}$ & $c/n$ \\\\") {
		t.Errorf("latex:\n%s", tex.String())
	}
	if !strings.Contains(md.String(), "| node | γ_code = √γ | c/n |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	tab.TeXColumns = tab.TeXColumns[:1]
	if _, err := WriteTable(tab, t.TempDir(), "tex"); err == nil || !strings.Contains(err.Error(), "1 LaTeX headers for 2 columns") {
		t.Errorf("WriteTable with 1 LaTeX header for 2 columns: %v", err)
	}
}
