package plotting

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/internal/fileutil"
)

// Better says which direction of a metric is better, for bolding.
type Better int

const (
	// NoBest bolds nothing.
	NoBest Better = iota
	// Lower is better (errors, MSE).
	Lower
	// Higher is better (accuracy).
	Higher
)

// Table is a grid of mean ± CI cells: typically rows ε, columns methods.
type Table struct {
	Name      string // file stem: <Name>.md, <Name>.tex, <Name>.csv
	Title     string
	RowHeader string // header of the first column, e.g. "ε"
	Rows      []string
	Columns   []string
	// TeXColumns, when set, are the LaTeX headers of the columns, written
	// as they are (math as math: `$\sqrt{\gamma}$`); else Columns, escaped.
	TeXColumns []string
	Cells      [][]Entry // Cells[row][column]
	Better     Better
	// Caption is the caption line printed under the table (accountant,
	// δ, tuning marks) and the notes of its caption files.
	Caption Caption
	// Digits is the number of significant digits of an entry printed
	// without an interval (a value identical over trials, such as a row
	// count); 0 means 4.
	Digits int
}

// Entry is one entry: a mean and the half-width of its interval, or a text
// (a formula, a reference) printed as it is. Absent cells print as "—".
type Entry struct {
	Mean, Half float64
	Present    bool
	// Text, when not empty, is the cell's content instead of the number
	// (Present must be set); it never counts as a best entry.
	Text string
}

// TableFormats are the table formats WriteTable accepts.
var TableFormats = []string{"md", "tex", "csv"}

// WriteTable writes t into dir as <Name>.<format> for each format, and
// its caption files <Name>.caption.md and <Name>.caption.tex, and returns
// the paths written. Neither dir nor a file is written through a symbolic
// link (fileutil.ReplaceFileInFolder).
func WriteTable(t *Table, dir string, formats ...string) ([]string, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	var paths []string
	for _, format := range formats {
		var buf bytes.Buffer
		var err error
		switch format {
		case "md":
			err = t.WriteMarkdown(&buf)
		case "tex":
			err = t.WriteLaTeX(&buf)
		case "csv":
			err = t.WriteCSV(&buf)
		default:
			return paths, fmt.Errorf("plotting: unknown table format %q (want md, tex or csv)", format)
		}
		if err != nil {
			return paths, err
		}
		path := filepath.Join(dir, t.Name+"."+format)
		if err := fileutil.ReplaceFileInFolder(dir, t.Name+"."+format, buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	notes, title := t.CaptionNotes(), captionTitle(t.Name, t.Title, t.Caption)
	for i, b := range [][]byte{t.MarkdownCaption(), captionTeX("tables/"+t.Name+".tex", "tab", t.Name, title, t.Caption, notes)} {
		name := t.Name + CaptionFiles[i]
		if err := fileutil.ReplaceFileInFolder(dir, name, b); err != nil {
			return paths, err
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	return paths, nil
}

// MarkdownCaption returns t's Markdown caption file (<name>.caption.md):
// the title in bold and the caption line, then one list item per note.
func (t *Table) MarkdownCaption() []byte {
	return captionMarkdown(captionTitle(t.Name, t.Title, t.Caption), t.Caption, t.CaptionNotes())
}

// CaptionNotes returns the notes of t's caption files: its caption's,
// each once, then how bold and † read when a row has a winner or a tie.
func (t *Table) CaptionNotes() []string {
	if n := t.markNote(); n != "" {
		return t.Caption.notes(n)
	}
	return t.Caption.notes()
}

func (t *Table) validate() error {
	if t.Name == "" {
		return fmt.Errorf("plotting: table without a name")
	}
	if err := checkStem(t.Name); err != nil {
		return fmt.Errorf("plotting: table %q: %w", t.Name, err)
	}
	if len(t.Cells) != len(t.Rows) {
		return fmt.Errorf("plotting: table %q: %d rows of cells for %d row labels", t.Name, len(t.Cells), len(t.Rows))
	}
	if t.TeXColumns != nil && len(t.TeXColumns) != len(t.Columns) {
		return fmt.Errorf("plotting: table %q: %d LaTeX headers for %d columns", t.Name, len(t.TeXColumns), len(t.Columns))
	}
	for i, r := range t.Cells {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("plotting: table %q, row %q: %d cells for %d columns", t.Name, t.Rows[i], len(r), len(t.Columns))
		}
	}
	return nil
}

// rowRank is how a row's entries compare by the table's Better.
type rowRank struct {
	// win is the column of the row's winner: the best mean, whose 95% CI
	// overlaps no other entry's; -1 when there is none.
	win int
	// tied holds the columns tied for best, in column order, when the
	// best mean's CI overlaps another entry's: the best and every entry
	// whose CI overlaps the best's. Overlapping CIs are a tie, not a win.
	tied []int
}

// rank compares the numeric entries of row i (text and absent entries
// never compete). An entry's interval is mean ± half; an unknown half-width
// (NaN: a single trial) overlaps everything. A row with fewer than two
// numeric entries has no winner and no tie.
func (t *Table) rank(i int) rowRank {
	r := rowRank{win: -1}
	if t.Better == NoBest {
		return r
	}
	var cols []int
	for j, c := range t.Cells[i] {
		if c.Present && c.Text == "" && !math.IsNaN(c.Mean) {
			cols = append(cols, j)
		}
	}
	if len(cols) < 2 {
		return r
	}
	best := cols[0]
	for _, j := range cols[1:] {
		m, b := t.Cells[i][j].Mean, t.Cells[i][best].Mean
		if t.Better == Lower && m < b || t.Better == Higher && m > b {
			best = j
		}
	}
	interval := func(c Entry) (lo, hi float64) {
		if math.IsNaN(c.Half) {
			return math.Inf(-1), math.Inf(1)
		}
		return c.Mean - c.Half, c.Mean + c.Half
	}
	blo, bhi := interval(t.Cells[i][best])
	for _, j := range cols {
		if lo, hi := interval(t.Cells[i][j]); lo <= bhi && blo <= hi {
			r.tied = append(r.tied, j)
		}
	}
	if len(r.tied) == 1 {
		r.win, r.tied = best, nil
	}
	return r
}

// tieMark follows an entry tied for best; tieNote explains it under a
// table with a tie.
const (
	tieMark = "†"
	tieNote = "Bold: the best mean, whose 95% CI overlaps no other entry's; † tied for best (the CIs overlap)."
)

// hasTie reports whether a row of t has a tie for best.
func (t *Table) hasTie() bool {
	for i := range t.Rows {
		if len(t.rank(i).tied) > 0 {
			return true
		}
	}
	return false
}

// markNote is how bold and † read, when a row has a winner or a tie; ""
// otherwise.
func (t *Table) markNote() string {
	explain := t.hasTie()
	for i := range t.Rows {
		explain = explain || t.rank(i).win >= 0
	}
	if !explain {
		return ""
	}
	return tieNote
}

// line is what is printed under the table: its caption line, then how
// bold and † read.
func (t *Table) line() string {
	return strings.TrimSpace(sentence(t.Caption.Line) + " " + t.markNote())
}

// String prints the cell as "mean ± half".
func (c Entry) String() string { return c.format(" ± ", 4) }

// format prints mean ± half with the decimals set by two significant digits of
// the half-width (so the mean is not printed more precisely than it is
// known), or the mean alone with digits significant digits.
func (c Entry) format(pm string, digits int) string {
	if !c.Present {
		return "—"
	}
	if c.Text != "" {
		return c.Text
	}
	// A half-width at rounding level (identical trials, e.g. a deterministic
	// non-private fit) prints as no interval.
	if math.IsNaN(c.Half) || c.Half <= 1e-12*math.Abs(c.Mean) || math.IsInf(c.Half, 0) {
		return strconv.FormatFloat(c.Mean, 'g', digits, 64)
	}
	dec := 0
	if c.Half < 10 {
		dec = int(math.Ceil(-math.Log10(c.Half))) + 1
	}
	dec = min(max(dec, 0), 12)
	return strconv.FormatFloat(c.Mean, 'f', dec, 64) + pm + strconv.FormatFloat(c.Half, 'f', dec, 64)
}

// digits is the table's significant digits of entries without an interval.
func (t *Table) digits() int {
	if t.Digits > 0 {
		return t.Digits
	}
	return 4
}

// WriteMarkdown writes t as a GitHub Markdown table; a row's winner is
// bold and entries tied for best carry a † (see rank), explained under it.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Title)
	}
	b.WriteString("| " + mdEscape(t.RowHeader))
	for _, c := range t.Columns {
		b.WriteString(" | " + mdEscape(c))
	}
	b.WriteString(" |\n|---")
	for range t.Columns {
		b.WriteString("|---:")
	}
	b.WriteString("|\n")
	for i, row := range t.Rows {
		rank := t.rank(i)
		b.WriteString("| " + mdEscape(row))
		for j, c := range t.Cells[i] {
			s := c.format(" ± ", t.digits())
			if c.Text != "" {
				s = mdEscape(s)
			}
			switch {
			case j == rank.win:
				s = "**" + s + "**"
			case slices.Contains(rank.tied, j):
				s += " " + tieMark
			}
			b.WriteString(" | " + s)
		}
		b.WriteString(" |\n")
	}
	if line := t.line(); line != "" {
		fmt.Fprintf(&b, "\n%s\n", line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteLaTeX writes t as a booktabs table environment; a row's winner is
// bold and entries tied for best carry a dagger (see rank), explained in
// the caption.
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% Generated by dplab. Requires \\usepackage{booktabs}.\n")
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	caption := strings.TrimSpace(sentence(t.Title) + " " + t.line())
	if caption != "" {
		fmt.Fprintf(&b, "\\caption{%s}\n", texEscape(strings.TrimSpace(caption)))
	}
	fmt.Fprintf(&b, "\\label{tab:%s}\n", texEscape(t.Name))
	b.WriteString("\\begin{tabular}{l" + strings.Repeat("r", len(t.Columns)) + "}\n\\toprule\n")
	b.WriteString(texEscape(t.RowHeader))
	for j, c := range t.Columns {
		if t.TeXColumns != nil {
			b.WriteString(" & " + t.TeXColumns[j])
			continue
		}
		b.WriteString(" & " + texEscape(c))
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for i, row := range t.Rows {
		rank := t.rank(i)
		b.WriteString(texEscape(row))
		for j, c := range t.Cells[i] {
			s := c.format(" $\\pm$ ", t.digits())
			switch {
			case !c.Present:
				s = "---"
			case c.Text != "":
				s = texEscape(c.Text)
			}
			switch {
			case j == rank.win:
				s = "\\textbf{" + s + "}"
			case slices.Contains(rank.tied, j):
				s += "$^\\dagger$"
			}
			b.WriteString(" & " + s)
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes one row per table row: the row label, then mean and CI
// half-width for each column (empty when absent); a table that compares
// its entries (Better) ends each row with "best", the winner's column (the
// best mean, whose CI overlaps no other's), and "tied_for_best", the
// columns tied for best joined by "; " (each empty when there is none).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{t.RowHeader}
	for _, c := range t.Columns {
		header = append(header, c+" mean", c+" ci")
	}
	if t.Better != NoBest {
		header = append(header, "best", "tied_for_best")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i, row := range t.Rows {
		rec := []string{row}
		for _, c := range t.Cells[i] {
			switch {
			case c.Present && c.Text != "":
				rec = append(rec, c.Text, "")
			case c.Present:
				rec = append(rec, strconv.FormatFloat(c.Mean, 'g', -1, 64), strconv.FormatFloat(c.Half, 'g', -1, 64))
			default:
				rec = append(rec, "", "")
			}
		}
		if t.Better != NoBest {
			rank := t.rank(i)
			var best string
			if rank.win >= 0 {
				best = t.Columns[rank.win]
			}
			var tied []string
			for _, j := range rank.tied {
				tied = append(tied, t.Columns[j])
			}
			rec = append(rec, best, strings.Join(tied, "; "))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// TeXEscape returns s as LaTeX text: special characters escaped, the math
// markup as sub- and superscripts, Greek letters and symbols as math
// (texEscape).
func TeXEscape(s string) string { return texEscape(s) }
