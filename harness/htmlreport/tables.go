package htmlreport

import (
	"errors"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// table is one rendered table, read back from its Markdown file (the
// richest of its formats: text cells and bold best entries survive).
type table struct {
	Name   string
	Title  string
	Header []string
	Rows   [][]tableCell
	Notes  []string
	// Caption is its caption file, rendered ("" without one).
	Caption template.HTML
}

// tableCell is one cell of a table; Bold marks a best entry.
type tableCell struct {
	Text string
	Bold bool
}

// readTables reads every tables/*.md of a result directory but the caption
// files, in name order, each with its caption file. A missing directory has
// no tables.
func readTables(dir string) ([]table, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && !strings.HasSuffix(e.Name(), CaptionSuffix) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var out []table
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		t := parseMarkdownTable(strings.TrimSuffix(n, ".md"), string(b))
		if t.Caption, err = readCaption(dir, t.Name); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// parseMarkdownTable reads the Markdown plotting.Table.WriteMarkdown writes:
// an optional "**title**" line, a pipe table (header, separator, rows; "\|"
// is a literal bar, "**x**" a best entry) and note paragraphs.
func parseMarkdownTable(name, md string) table {
	t := table{Name: name}
	sawRule := false
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "|"):
			cells := splitRow(line)
			switch {
			case t.Header == nil:
				for _, c := range cells {
					t.Header = append(t.Header, c.Text)
				}
			case !sawRule && isRule(cells):
				sawRule = true
			default:
				t.Rows = append(t.Rows, cells)
			}
		case t.Title == "" && t.Header == nil && strings.HasPrefix(line, "**") && strings.HasSuffix(line, "**") && len(line) > 4:
			t.Title = line[2 : len(line)-2]
		default:
			t.Notes = append(t.Notes, line)
		}
	}
	return t
}

// splitRow splits "| a | b \| c |" into its cells, unescaping "\|".
func splitRow(line string) []tableCell {
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []tableCell
	var cur strings.Builder
	flush := func() {
		s := strings.TrimSpace(cur.String())
		c := tableCell{Text: s}
		if len(s) > 4 && strings.HasPrefix(s, "**") && strings.HasSuffix(s, "**") {
			c = tableCell{Text: s[2 : len(s)-2], Bold: true}
		}
		cells = append(cells, c)
		cur.Reset()
	}
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			flush()
		default:
			cur.WriteByte(line[i])
		}
	}
	flush()
	return cells
}

// isRule reports whether a row is the header separator ("---", "---:").
func isRule(cells []tableCell) bool {
	for _, c := range cells {
		if strings.Trim(c.Text, "-:") != "" || c.Text == "" {
			return false
		}
	}
	return true
}
