package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dplab/dplab/results"
)

// Options configure Build.
type Options struct {
	// Title is the page's title; "" means "dplab report".
	Title string
	// Warn receives what a folder's store or manifest warns about (a torn
	// line, a missing manifest); nil drops it. Warnings are also shown on
	// the page.
	Warn func(string)
}

// Build reads every result directory in dirs and returns one
// self-contained HTML page showing them. A path that does not exist, is not
// a directory, or holds no trials.jsonl or spec.toml is a *NotResultError.
func Build(dirs []string, opt Options) ([]byte, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("htmlreport: no result directories given")
	}
	p := page{Title: opt.Title}
	if p.Title == "" {
		p.Title = "dplab report"
	}
	folders, errs := loadFolders(dirs)
	for i, d := range dirs {
		// In dirs' order, as loading one by one would: the first failing
		// directory's error, after the warnings of those before it.
		if errs[i] != nil {
			return nil, errs[i]
		}
		f := folders[i]
		f.ID = fmt.Sprintf("r%d", i+1)
		if opt.Warn != nil {
			for _, w := range f.Warnings {
				opt.Warn(d + ": " + w)
			}
		}
		p.Folders = append(p.Folders, f)
	}
	p.summarize()
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, &p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// loadFolders loads dirs on up to GOMAXPROCS goroutines (each folder's
// records are decoded, aggregated and accounted on its own) and returns, for
// each of dirs in order, its folder or its error.
func loadFolders(dirs []string) ([]*folder, []error) {
	folders := make([]*folder, len(dirs))
	errs := make([]error, len(dirs))
	var next atomic.Int64 // the next index of dirs to load
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(dirs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(dirs); i = int(next.Add(1) - 1) {
				folders[i], errs[i] = loadFolder(dirs[i])
			}
		})
	}
	wg.Wait()
	return folders, errs
}

// page is the template's data.
type page struct {
	Title   string
	Folders []*folder
	// The summary table: one row per cell of every folder.
	SumMetrics []string
	SumRows    []summaryRow
}

// summaryRow is one cell in the summary table: each value's text and its
// sort key.
type summaryRow struct {
	Folder *folder
	Cells  []sortCell
}

// sortCell is a table cell with the key the sorting script uses.
type sortCell struct {
	Text, Key string
}

func (p *page) summarize() {
	for _, f := range p.Folders {
		for _, m := range f.Metrics {
			if !slices.Contains(p.SumMetrics, m) {
				p.SumMetrics = append(p.SumMetrics, m)
			}
		}
	}
	for _, f := range p.Folders {
		for _, c := range f.Cells {
			a := &c.Sum
			row := summaryRow{Folder: f, Cells: []sortCell{
				{Text: f.Name, Key: f.Name},
				{Text: a.Dataset, Key: a.Dataset},
				{Text: c.Legend, Key: c.Legend},
				numCell(a.Epsilon),
				{Text: strconv.Itoa(a.Trials), Key: strconv.Itoa(a.Trials)},
			}}
			for _, m := range p.SumMetrics {
				st, ok := a.Metrics[m]
				if !ok {
					row.Cells = append(row.Cells, sortCell{Text: "—"})
					continue
				}
				row.Cells = append(row.Cells, sortCell{Text: statText(st), Key: keyOf(st.Mean)})
			}
			row.Cells = append(row.Cells, numCell(a.EpsSpentMax), numCell(a.Delta),
				sortCell{Text: a.Accountant, Key: a.Accountant}, sortCell{Text: a.Tuning, Key: a.Tuning}, numCell(a.WallMean))
			p.SumRows = append(p.SumRows, row)
		}
	}
}

// numCell is a number's cell: its text with 4 significant digits, ∞ for
// +Inf, and its full-precision sort key.
func numCell(x float64) sortCell { return sortCell{Text: num(x), Key: keyOf(x)} }

func keyOf(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// statText is "mean ± CI half-width": the mean alone without an interval
// or with one at rounding level (identical trials), as plotting prints it.
func statText(st results.Stat) string {
	if math.IsNaN(st.CIHalf) || st.CIHalf <= 1e-12*math.Abs(st.Mean) {
		return num(st.Mean)
	}
	return num(st.Mean) + " ± " + strconv.FormatFloat(st.CIHalf, 'g', 2, 64)
}

// componentsText lists a ledger's per-component ε.
func componentsText(cs []float64) string {
	if len(cs) == 0 {
		return "—"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, num(c))
	}
	return strings.Join(parts, ", ")
}

// assumptionIndex numbers a folder's distinct assumptions in first-seen
// order, so the ledger refers to them by number.
func (f *folder) Assumptions() []string {
	var out []string
	for _, c := range f.Cells {
		for _, a := range c.Sum.Assumptions {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// assumptionRefs is "1, 3" for a cell's assumptions in the folder's list.
func assumptionRefs(all, cell []string) string {
	var refs []string
	for _, a := range cell {
		if i := slices.Index(all, a); i >= 0 {
			refs = append(refs, strconv.Itoa(i+1))
		}
	}
	if len(refs) == 0 {
		return "none"
	}
	return strings.Join(refs, ", ")
}

func dataURI(img image) template.URL {
	// #nosec: the bytes are the result folder's own rendered figure, typed
	// by its extension (image/svg+xml or image/png) and base64-encoded.
	return template.URL("data:" + img.Mime + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
}

//go:embed page.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"num":            num,
	"stat":           statText,
	"components":     componentsText,
	"assumptionRefs": assumptionRefs,
	"dataURI":        dataURI,
	"manifestJSON":   manifestJSON,
	"add1":           func(i int) int { return i + 1 },
	"orNone": func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	},
}).Parse(pageSource))
