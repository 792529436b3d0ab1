package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
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
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, &p); err != nil {
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
}

// summaryRow is one cell in a folder's sortable summary: each value's HTML
// and its sort key.
type summaryRow struct {
	Cells []sortCell
}

// sortCell is a table cell with the key the sorting script uses; Text marks
// a text column (left-aligned, wrapping).
type sortCell struct {
	HTML template.HTML
	Key  string
	Text bool
}

// textCell is a text column's cell.
func textCell(s string) sortCell {
	return sortCell{HTML: template.HTML(html.EscapeString(s)), Key: s, Text: true}
}

// SummaryColumns are the headers of the folder's summary, its metrics
// between the trials and the ε spent.
func (f *folder) SummaryColumns() []string {
	return slices.Concat([]string{"dataset", "mechanism", "ε target", "trials"}, f.Metrics,
		[]string{"ε spent (max)", "δ", "accountant", "tuning", "wall s/trial"})
}

// summarize fills f.Rows: one per cell, in SummaryColumns' order, the ε
// target with what it meant to the fits when not the whole procedure's
// (ε, δ) target (ε spent is then not held to it). The privacy fields that do not apply to a non-private mechanism (ε target, δ,
// accountant) are "—"; its ε spent is ∞, no guarantee.
func (f *folder) summarize() {
	for _, c := range f.Cells {
		a := &c.Sum
		target, delta, accountant := numCell(a.Epsilon), numCell(a.Delta), textCell(a.Accountant)
		if a.TargetScope != "" { // what the target meant, when ε spent is not to be held to it
			target.HTML += `<br><span class="note">` + template.HTML(html.EscapeString(a.TargetScope)) + `</span>`
		}
		if !c.Private {
			target.HTML, delta.HTML, accountant.HTML = notApplicable, notApplicable, notApplicable
		}
		row := summaryRow{Cells: []sortCell{textCell(a.Dataset), textCell(c.Legend), target,
			{HTML: numHTML(float64(a.Trials)), Key: strconv.Itoa(a.Trials)}}}
		for _, m := range f.Metrics {
			st, ok := a.Metrics[m]
			if !ok {
				row.Cells = append(row.Cells, sortCell{HTML: notApplicable})
				continue
			}
			row.Cells = append(row.Cells, sortCell{HTML: statHTML(st), Key: keyOf(st.Mean)})
		}
		row.Cells = append(row.Cells, numCell(a.EpsSpentMax), delta, accountant, textCell(a.Tuning), numCell(a.WallMean))
		f.Rows = append(f.Rows, row)
	}
}

// notApplicable is a field that does not apply to the row.
const notApplicable template.HTML = "—"

// numCell is a number's cell: its text with 4 significant digits, ∞ for
// +Inf, and its full-precision sort key.
func numCell(x float64) sortCell { return sortCell{HTML: numHTML(x), Key: keyOf(x)} }

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

// num is x with 4 significant digits, a power of ten written 10⁻⁶ or
// 7.437×10⁻⁷; "—" for NaN, ∞ and −∞ for the infinities.
func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	}
	return prettyExp(strconv.FormatFloat(x, 'g', 4, 64))
}

// superscripts maps the characters of an exponent to superscripts.
var superscripts = strings.NewReplacer("-", "⁻", "+", "", "0", "⁰", "1", "¹", "2", "²", "3", "³",
	"4", "⁴", "5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹")

// prettyExp writes the exponent of a number formatted by strconv ("1e-06",
// "7.437e-07", "3.2e+10") as a power of ten: "10⁻⁶", "7.437×10⁻⁷",
// "3.2×10¹⁰". Other text is returned as it is.
func prettyExp(s string) string {
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	e, err := strconv.Atoi(exp)
	if err != nil {
		return s
	}
	pow := "10" + superscripts.Replace(strconv.Itoa(e))
	switch mant {
	case "1":
		return pow
	case "-1":
		return "-" + pow
	}
	return mant + "×" + pow
}

// numHTML is num(x) in a span that never wraps (a narrow column broke
// "1e-06" after its minus sign).
func numHTML(x float64) template.HTML { return nowrap(num(x)) }

func nowrap(s string) template.HTML {
	return template.HTML(`<span class="n">` + html.EscapeString(s) + `</span>`)
}

// statHTML is "mean ± CI half-width", each part unbroken, the line free to
// break before "±"; the mean alone without an interval or with one at
// rounding level (identical trials), as plotting prints it.
func statHTML(st results.Stat) template.HTML {
	if math.IsNaN(st.CIHalf) || st.CIHalf <= 1e-12*math.Abs(st.Mean) {
		return numHTML(st.Mean)
	}
	return numHTML(st.Mean) + " " + nowrap("± "+prettyExp(strconv.FormatFloat(st.CIHalf, 'g', 2, 64)))
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

// cellHTML escapes a table cell's text and keeps each word holding a digit
// unbroken, "± x" with it: a narrow column broke "1e-06" after its minus
// sign and "0.07 ± 0.01" after its "±". Lines still break between words.
func cellHTML(s string) template.HTML {
	words := strings.Fields(s)
	var parts []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "±" && i+1 < len(words) {
			i++
			w += " " + words[i]
		}
		if strings.ContainsAny(w, "0123456789") {
			parts = append(parts, string(nowrap(w)))
		} else {
			parts = append(parts, html.EscapeString(w))
		}
	}
	// #nosec: every word is escaped (nowrap escapes its text).
	return template.HTML(strings.Join(parts, " "))
}

// breakable escapes s and lets a line break after each "_" or "/" (long
// metric and folder names: excess_empirical_risk).
func breakable(s string) template.HTML {
	s = html.EscapeString(s)
	s = strings.ReplaceAll(s, "_", "_<wbr>")
	// #nosec: s is escaped; <wbr> is the only markup added.
	return template.HTML(strings.ReplaceAll(s, "/", "/<wbr>"))
}

func dataURI(img image) template.URL {
	// #nosec: the bytes are the result folder's own rendered figure, typed
	// by its extension (image/svg+xml or image/png) and base64-encoded.
	return template.URL("data:" + img.Mime + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
}

//go:embed page.html.tmpl
var pageSource string

// pageTemplate parses the page's template on first use: at package
// initialisation it was a millisecond of every dplab process's start (the
// largest package init, GODEBUG=inittrace=1), which only dplab report uses.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"num":            numHTML,
		"key":            keyOf,
		"breakable":      breakable,
		"cell":           cellHTML,
		"components":     componentsText,
		"assumptionRefs": assumptionRefs,
		"dataURI":        dataURI,
		"manifestJSON":   manifestJSON,
		"add1":           func(i int) int { return i + 1 },
		"isNaN":          math.IsNaN,
		"orNone": func(s string) string {
			if s == "" {
				return "none"
			}
			return s
		},
	}).Parse(pageSource))
})
