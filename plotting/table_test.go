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
