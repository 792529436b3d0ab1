package plotting

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
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
	Cells     [][]Entry // Cells[row][column]
	Better    Better
	Note      string // accountant, δ, tuning mode
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

// WriteTable writes t into dir as <Name>.<format> for each format and returns
// the paths written.
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
		if err := fileutil.WriteFileAtomic(path, buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
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
	for i, r := range t.Cells {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("plotting: table %q, row %q: %d cells for %d columns", t.Name, t.Rows[i], len(r), len(t.Columns))
		}
	}
	return nil
}

// best returns, for row i, which columns hold the best mean (ties all win).
func (t *Table) best(i int) []bool {
	out := make([]bool, len(t.Columns))
	if t.Better == NoBest {
		return out
	}
	bestVal := math.NaN()
	for _, c := range t.Cells[i] {
		if !c.Present || c.Text != "" || math.IsNaN(c.Mean) {
			continue
		}
		if math.IsNaN(bestVal) || t.Better == Lower && c.Mean < bestVal || t.Better == Higher && c.Mean > bestVal {
			bestVal = c.Mean
		}
	}
	for j, c := range t.Cells[i] {
		out[j] = c.Present && c.Text == "" && c.Mean == bestVal
	}
	return out
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

// WriteMarkdown writes t as a GitHub Markdown table; best entries are bold.
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
		best := t.best(i)
		b.WriteString("| " + mdEscape(row))
		for j, c := range t.Cells[i] {
			s := c.format(" ± ", t.digits())
			if c.Text != "" {
				s = mdEscape(s)
			}
			if best[j] {
				s = "**" + s + "**"
			}
			b.WriteString(" | " + s)
		}
		b.WriteString(" |\n")
	}
	if t.Note != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteLaTeX writes t as a booktabs table environment; best entries are bold.
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% Generated by dplab. Requires \\usepackage{booktabs}.\n")
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	caption := t.Title
	if t.Note != "" {
		if caption != "" && !strings.HasSuffix(caption, ".") {
			caption += "."
		}
		caption += " " + t.Note
	}
	if caption != "" {
		fmt.Fprintf(&b, "\\caption{%s}\n", texEscape(strings.TrimSpace(caption)))
	}
	fmt.Fprintf(&b, "\\label{tab:%s}\n", texEscape(t.Name))
	b.WriteString("\\begin{tabular}{l" + strings.Repeat("r", len(t.Columns)) + "}\n\\toprule\n")
	b.WriteString(texEscape(t.RowHeader))
	for _, c := range t.Columns {
		b.WriteString(" & " + texEscape(c))
	}
	b.WriteString(" \\\\\n\\midrule\n")
	for i, row := range t.Rows {
		best := t.best(i)
		b.WriteString(texEscape(row))
		for j, c := range t.Cells[i] {
			s := c.format(" $\\pm$ ", t.digits())
			switch {
			case !c.Present:
				s = "---"
			case c.Text != "":
				s = texEscape(c.Text)
			}
			if best[j] {
				s = "\\textbf{" + s + "}"
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
// half-width for each column (empty when absent).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{t.RowHeader}
	for _, c := range t.Columns {
		header = append(header, c+" mean", c+" ci")
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
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	"ε", `$\varepsilon$`, "δ", `$\delta$`, "α", `$\alpha$`, "σ", `$\sigma$`, "γ", `$\gamma$`,
	"λ", `$\lambda$`, "±", `$\pm$`, "≤", `$\le$`, "×", `$\times$`, "—", `---`,
)

func texEscape(s string) string { return texReplacer.Replace(s) }
