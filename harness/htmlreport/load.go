// Package htmlreport builds one self-contained static HTML page from result
// directories: each folder's figures (inlined as data URIs) and tables, the
// privacy ledger of each cell, the provenance (manifest.json), the spec that
// produced it, and one sortable summary table of every cell. The page loads
// nothing from the network and needs no other file.
package htmlreport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// NotResultError reports a path given as a result directory that is not one.
type NotResultError struct {
	Path   string
	Reason string
}

func (e *NotResultError) Error() string {
	return fmt.Sprintf("%s is not a result directory: %s", e.Path, e.Reason)
}

// folder is what the page shows of one result directory (an audit grid's
// is a run's).
type folder struct {
	Dir      string
	ID       string // HTML id prefix
	Name     string // the experiment's name
	Title    string
	SpecText string
	SpecErr  string // why the spec could not be loaded ("" when it was)
	Manifest *results.Manifest
	Claims   *claims // nil: no claims file
	Figures  []image
	Tables   []table
	Cells    []cellRow
	Metrics  []string
	Rows     []summaryRow // Cells in the sortable summary
	Warnings []string
}

// image is one figure file, inlined.
type image struct {
	Name, Alt, Mime string
	Data            []byte
	Caption         template.HTML // its caption file, rendered ("" without one)
	// Width is the CSS width in px the page shows the figure at on a
	// screen (screenWidth); 0: its own size.
	Width int
}

// screenScale is how much larger than its print size the page shows a
// figure on a screen: a 4.2-inch panel's 8-pt footnote is hard to read at
// 96 px per inch. The figure never exceeds the page's width; printed, it
// takes its own size.
const screenScale = 1.5

var svgWidthPt = regexp.MustCompile(`<svg[^>]*?\swidth="([0-9.]+)pt"`)

// screenWidth returns the CSS width in px at which the page shows an SVG
// figure: screenScale times its width in points (4/3 px each), or 0 when
// its root element gives no width in points.
func screenWidth(svg []byte) int {
	m := svgWidthPt.FindSubmatch(svg[:min(len(svg), 1024)])
	if m == nil {
		return 0
	}
	pt, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil || !(pt > 0 && pt < 1e5) {
		return 0
	}
	return int(math.Round(screenScale * pt * 4 / 3))
}

// cellRow is one cell's aggregate and ledger.
type cellRow struct {
	Sum        results.CellSummary
	Legend     string
	Relation   string
	Components []float64
	Private    bool
}

// loadFolder reads dir: its store, manifest, spec copy, claims, figures and
// tables.
func loadFolder(dir string) (*folder, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &NotResultError{Path: dir, Reason: "no such directory"}
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, &NotResultError{Path: dir, Reason: "it is a file, not a directory"}
	}
	f := &folder{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	if _, err := os.Stat(filepath.Join(dir, results.TrialsFile)); err != nil {
		return nil, &NotResultError{Path: dir, Reason: "it holds no " + results.TrialsFile + " (run 'dplab run SPEC.toml' to make one)"}
	}
	warn := func(w string) { f.Warnings = append(f.Warnings, w) }
	specPath := filepath.Join(dir, "spec.toml")
	src, err := spec.ReadSource(specPath)
	if err != nil && !errors.Is(err, spec.ErrSourceTooLarge) {
		return nil, &NotResultError{Path: dir, Reason: "it holds no readable spec.toml: " + err.Error()}
	}
	f.SpecText = string(src)
	if err = f.loadRun(dir, src, err, warn); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if f.Claims, err = readClaims(dir); err != nil {
		warn(err.Error())
	}
	if f.Figures, err = readFigures(filepath.Join(dir, "figures")); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if f.Tables, err = readTables(filepath.Join(dir, "tables")); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return f, nil
}

// loadRun reads a run's folder: its manifest and its stored cells under
// the spec copy src (srcErr: why it could not be read).
func (f *folder) loadRun(dir string, src []byte, srcErr error, warn func(string)) error {
	if m, err := results.ReadManifest(dir); err == nil {
		f.Manifest = m
	} else {
		warn(fmt.Sprintf("manifest: %v", err))
	}
	var s *spec.Spec
	err := srcErr
	if err == nil { // a spec.toml above the bound is shown as a spec error, without its text
		s, err = plan.Parse(filepath.Join(dir, "spec.toml"), src)
	}
	if err == nil && f.Manifest != nil && len(f.Manifest.Runs) > 0 && f.Manifest.Runs[len(f.Manifest.Runs)-1].Quick {
		s, err = plan.ApplyQuick(s)
	}
	if err != nil {
		// The records are still shown, aggregated without the spec's cells.
		f.SpecErr = err.Error()
		s = nil
	}
	if err := f.addCells(s, results.FromDir(dir, warn)); err != nil {
		return err
	}
	f.summarize()
	return nil
}

// addCells aggregates the stored records of s's current cells (every
// record's cell when s is nil) in the spec's expansion order, with each
// cell's ledger, in one scan of the store that keeps no record.
func (f *folder) addCells(s *spec.Spec, stored results.Source) error {
	ci := results.CINormal
	var order []string // cell keys
	var keep map[string]bool
	var legends *report.Legends
	if s != nil {
		f.Name, f.Title, f.Metrics = s.Name, s.Title, s.Metrics
		if s.CI != "" {
			ci = results.CIMethod(s.CI)
		}
		p, err := plan.New(context.Background(), s, plan.Options{})
		if err != nil {
			return err
		}
		cells := p.Cells()
		keep = make(map[string]bool, len(cells))
		for _, c := range cells {
			order = append(order, c.Key)
			keep[c.Key] = true
		}
		legends = report.NewLegends(s, cells)
	}
	type ledger struct {
		relation string
		event    []byte
	}
	first := map[string]ledger{} // of the first ok record per cell
	listed := map[string]bool{}  // the cells in order
	agg := results.NewAggregator(ci)
	err := stored(func(r *results.Record) {
		if keep != nil && !keep[r.CellKey] {
			return
		}
		if legends != nil {
			legends.Add(r)
		}
		if _, ok := first[r.CellKey]; !ok && r.Status == results.StatusOK {
			first[r.CellKey] = ledger{r.Privacy.Relation, r.Privacy.Event}
		}
		if s == nil && !listed[r.CellKey] {
			listed[r.CellKey] = true
			order = append(order, r.CellKey)
		}
		agg.Add(r)
	})
	if err != nil {
		return err
	}
	legend := map[string]string{}
	if legends != nil {
		legend = legends.ByKey()
	}
	sums := map[string]results.CellSummary{}
	for _, c := range agg.Cells() {
		sums[c.Key] = c
	}
	metrics := map[string]bool{}
	for _, key := range order {
		a, ok := sums[key]
		if !ok {
			continue
		}
		row := cellRow{Sum: a, Legend: legend[key], Private: !math.IsInf(a.Epsilon, 1)}
		if row.Legend == "" {
			row.Legend = a.Label + report.TuningMark(a.Tuning)
		}
		if l, ok := first[key]; ok {
			row.Relation = l.relation
			if row.Private && len(l.event) > 0 {
				cfg := accounting.Config{Kind: a.Accountant}
				if s != nil {
					cfg = plan.AccountingConfig(s)
				}
				row.Components = report.LedgerComponents(cfg, l.event, a.Delta)
			}
		}
		for m := range a.Metrics {
			metrics[m] = true
		}
		f.Cells = append(f.Cells, row)
	}
	if len(f.Metrics) == 0 {
		for m := range metrics {
			f.Metrics = append(f.Metrics, m)
		}
		slices.Sort(f.Metrics)
	}
	return nil
}

// readFigures inlines every figure of dir: its SVG when there is one, else
// its PNG, in name order. A missing directory has no figures.
func readFigures(dir string) ([]image, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byStem := map[string]map[string]string{} // stem -> ext -> path
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || ext != ".svg" && ext != ".png" {
			continue
		}
		stem := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		if byStem[stem] == nil {
			byStem[stem] = map[string]string{}
		}
		byStem[stem][ext] = filepath.Join(dir, e.Name())
	}
	var out []image
	for _, stem := range slices.Sorted(maps.Keys(byStem)) {
		path, mime := byStem[stem][".svg"], "image/svg+xml"
		if path == "" {
			path, mime = byStem[stem][".png"], "image/png"
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		img := image{Name: stem, Alt: "figure " + stem, Mime: mime, Data: b}
		if img.Caption, err = readCaption(dir, stem); err != nil {
			return nil, err
		}
		if mime == "image/svg+xml" {
			img.Width = screenWidth(b)
		}
		out = append(out, img)
	}
	return out, nil
}

// manifestJSON is the manifest, indented, for the provenance section.
func manifestJSON(m *results.Manifest) string {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}
