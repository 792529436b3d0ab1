package docgen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// EvidenceFile is the name of a spec's evidence (report.Evidence) in its
// evidence folder, <evidence>/<spec>/. Beside it the folder holds files
// generated from it: summary.csv and, for a spec with [[claim]] blocks,
// claims.md (each claim's evidence point by point, which the verdict
// tables link to).
const EvidenceFile = "evidence.json"

// Config says where the specs and their evidence are.
type Config struct {
	Specs    string // the specs' folder: <Specs>/<name>.toml
	Evidence string // the evidence folders' parent: <Evidence>/<name>/evidence.json
}

// Generator renders sections from the evidence with the current specs and
// code, loading each spec and its evidence once.
type Generator struct {
	cfg  Config
	runs map[string]*run
}

// run is a spec, its evidence and what the evidence renders to.
type run struct {
	spec *spec.Spec
	ev   *report.Evidence
	out  *report.EvidenceOutputs
	err  error
}

// New returns a Generator for cfg.
func New(cfg Config) *Generator { return &Generator{cfg: cfg, runs: map[string]*run{}} }

// SpecPath and EvidencePath are where a spec and its evidence are.
func (g *Generator) SpecPath(name string) string { return filepath.Join(g.cfg.Specs, name+".toml") }

// EvidencePath is the path of the evidence of spec name.
func (g *Generator) EvidencePath(name string) string {
	return filepath.Join(g.cfg.Evidence, name, EvidenceFile)
}

// loadSpec loads the spec name (its figure, table and claim blocks
// checked).
func (g *Generator) loadSpec(name string) (*spec.Spec, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("spec %q: want a spec's name (the file name in %s without .toml)", name, g.cfg.Specs)
	}
	return report.Load(g.SpecPath(name), spec.LoadOptions{})
}

// run returns the outputs of the evidence of spec name.
func (g *Generator) run(name string) (*run, error) {
	if r, ok := g.runs[name]; ok {
		return r, r.err
	}
	r := &run{}
	g.runs[name] = r
	r.spec, r.err = g.loadSpec(name)
	if r.err != nil {
		return r, r.err
	}
	path := g.EvidencePath(name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("no evidence of %s (%s): run the spec at full size and refresh the evidence (make reproduce, or dplab run %s then dplab docs --refresh results)", name, path, g.SpecPath(name))
	}
	if err != nil {
		r.err = err
		return r, err
	}
	r.ev, err = report.ParseEvidence(path, b)
	if err == nil && r.ev.Quick {
		err = fmt.Errorf("%s is the evidence of a --quick run: the docs are generated from full-size runs", path)
	}
	if err == nil {
		r.out, err = r.ev.Outputs(r.spec)
	}
	if err != nil {
		r.err = fmt.Errorf("%s: %w", path, err)
	}
	return r, r.err
}

// Evidence returns the evidence of spec name (EvidencePath) and what it
// renders to with the current spec and code, as the documents' sections
// are generated from it. When the rendering fails (a spec whose grid
// changed: a *report.StaleEvidenceError) the evidence is still returned
// with the error, nil when it could not be read.
func (g *Generator) Evidence(name string) (*report.Evidence, *report.EvidenceOutputs, error) {
	r, err := g.run(name)
	return r.ev, r.out, err
}

// Outputs evaluates evidence ev (figures' data, tables, claims) with the
// current spec name, as the docs do with its committed evidence.
func (g *Generator) Outputs(name string, ev *report.Evidence) (*report.EvidenceOutputs, error) {
	s, err := g.loadSpec(name)
	if err != nil {
		return nil, err
	}
	return ev.Outputs(s)
}

// Refresh makes the evidence of spec name from its full-size run's result
// directory dir and writes it (EvidencePath). The run must be finished
// and not --quick.
func (g *Generator) Refresh(name, dir string) error {
	s, err := g.loadSpec(name)
	if err != nil {
		return err
	}
	if m, err := results.ReadManifest(dir); err == nil && len(m.Runs) > 0 && m.Runs[len(m.Runs)-1].Quick {
		return fmt.Errorf("%s holds a --quick run: the evidence is of full-size runs", dir)
	}
	lock, err := results.ReadLockDir(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	ev, err := report.NewEvidence(s, results.FromDir(dir, nil))
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if m, err := results.ReadManifest(dir); err == nil && ev.Timing {
		ev.Runs = report.RunsOf(m) // the context of the wall times kept
	}
	b, err := ev.JSON()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.cfg.Evidence, 0o777); err != nil {
		return err
	}
	if err := fileutil.MkdirAllIn(g.cfg.Evidence, name); err != nil {
		return err
	}
	delete(g.runs, name)
	return fileutil.WriteFileAtomicIn(filepath.Join(g.cfg.Evidence, name), EvidenceFile, b)
}

// RunDir returns the result directory dplab run writes spec name's run to
// by default under root (root/<the spec's name>, run.ResultDir), which
// --refresh reads: a spec's name need not be its file's.
func (g *Generator) RunDir(root, name string) (string, error) {
	s, err := g.loadSpec(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, s.Name), nil
}

// Specs returns the names of the specs the documents' sections name and
// of those with an evidence folder, sorted.
func (g *Generator) Specs(docs []string) ([]string, error) {
	seen := map[string]bool{}
	for _, path := range docs {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		secs, err := Parse(path, doc)
		if err != nil {
			return nil, err
		}
		for i := range secs {
			for _, n := range secs[i].specs() {
				seen[n] = true
			}
		}
	}
	dirs, err := os.ReadDir(g.cfg.Evidence)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, d := range dirs {
		if _, err := os.Stat(g.EvidencePath(d.Name())); err == nil && d.IsDir() {
			seen[d.Name()] = true
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// specs returns the spec names a section reads.
func (s *Section) specs() []string {
	if s.Kind == "claims" {
		return strings.Split(s.Args["specs"], ",")
	}
	return []string{s.Args["spec"]}
}

// File is a file the generator writes: a document, a figure of a
// document (img/<spec>-<name>.svg beside it) or a generated file of an
// evidence folder, with its content now and as generated.
type File struct {
	Path      string
	Old, New  []byte
	Sections  []Section // a document's sections (nil for an evidence file)
	generated [][]byte  // each section's generated content
}

// Generate returns the documents docs and the generated files of the
// evidence folders of specs, with what the evidence renders to. A file
// that does not exist yet has Old nil.
func (g *Generator) Generate(docs, specs []string) ([]*File, error) {
	var out []*File
	for _, path := range docs {
		old, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f := &File{Path: path, Old: old}
		if f.Sections, err = Parse(path, old); err != nil {
			return nil, err
		}
		var figures []*File
		f.New, err = Replace(old, f.Sections, func(s *Section) ([]byte, error) {
			c, fig, err := g.section(filepath.Dir(path), s)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: section %s: %w", path, s.Line, s, err)
			}
			if fig != nil {
				figures = append(figures, fig)
			}
			f.generated = append(f.generated, c)
			return c, nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		for _, fig := range figures {
			if fig.Old, err = os.ReadFile(fig.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			out = append(out, fig)
		}
	}
	for _, name := range specs {
		r, err := g.run(name)
		if err != nil {
			return nil, err
		}
		files := map[string][]byte{results.SummaryFile: r.out.Summary}
		if r.out.Claims != nil {
			files[report.ClaimsMarkdown] = r.out.Claims.Markdown()
		}
		for _, base := range slices.Sorted(maps.Keys(files)) {
			path := filepath.Join(g.cfg.Evidence, name, base)
			old, err := os.ReadFile(path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			out = append(out, &File{Path: path, Old: old, New: files[base]})
		}
	}
	return out, nil
}

// Write writes the files of fs that differ from what they hold and
// returns their paths.
func Write(files []*File) ([]string, error) {
	var written []string
	for _, f := range files {
		if f.Old != nil && bytes.Equal(f.Old, f.New) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o777); err != nil {
			return written, err
		}
		if err := fileutil.ReplaceFileIn(filepath.Dir(f.Path), filepath.Base(f.Path), f.New); err != nil {
			return written, err
		}
		written = append(written, f.Path)
	}
	return written, nil
}

// section renders a section's content, and the figure file a figure
// section draws; docDir is the folder of its document (the links to the
// evidence and the figure are relative to it).
func (g *Generator) section(docDir string, s *Section) ([]byte, *File, error) {
	switch s.Kind {
	case "table":
		c, err := g.tableSection(docDir, s.Args["spec"], s.Args["name"], s.Args["rows"], s.Args["caption"] == "yes")
		return c, nil, err
	case "figure":
		return g.figureSection(docDir, s.Args["spec"], s.Args["name"])
	case "claims":
		c, err := g.claimsSection(docDir, s.specs())
		return c, nil, err
	}
	return nil, nil, fmt.Errorf("section kind %q", s.Kind)
}

// figureDir is the folder, beside a document, of the figures its figure
// sections draw.
const figureDir = "img"

// figureSection draws the [[figure]] block fig of spec name from the
// evidence as the SVG file img/<name>-<fig>.svg beside the document, and
// returns the section (the image, its caption, the evidence line) and the
// file.
func (g *Generator) figureSection(docDir, name, fig string) ([]byte, *File, error) {
	r, err := g.run(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := r.out.Figure(fig)
	if err != nil {
		return nil, nil, err
	}
	svg, err := plotting.Render(f, "svg")
	if err != nil {
		return nil, nil, err
	}
	rel := figureDir + "/" + name + "-" + fig + ".svg"
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n![%s](%s)\n\n", cell(f.Title), rel)
	b.Write(f.MarkdownCaption())
	fmt.Fprintf(&b, "\n_Generated by `make docs` from %s with the current spec and code, as %s._\n\n",
		g.evidenceLink(docDir, "evidence/"+name, name, ""), rel)
	return b.Bytes(), &File{Path: filepath.Join(docDir, filepath.FromSlash(rel)), New: svg}, nil
}

// wallText says, for evidence that keeps wall-clock times, which runs
// they are of ("" otherwise): "; wall-clock times of the run of …".
func (g *Generator) wallText(r *run) string {
	if !r.ev.Timing || len(r.ev.Runs) == 0 {
		return ""
	}
	var runs []string
	for _, x := range r.ev.Runs {
		t := fmt.Sprintf("%s–%s UTC, %d trials at -j %d", x.Start.Format("2006-01-02 15:04:05"), x.End.Format("15:04:05"), x.Trials, x.Jobs)
		if len(x.Load) == 2 {
			t += fmt.Sprintf(", load average %g at its start and %g at its end", x.Load[0], x.Load[1])
		}
		runs = append(runs, t)
	}
	return "; wall-clock times are of the run of " + strings.Join(runs, " and of ")
}

// evidenceLink is a Markdown link, reading text, from docDir to file in
// the evidence folder of spec name (the folder when file is "").
func (g *Generator) evidenceLink(docDir, text, name, file string) string {
	target := filepath.Join(g.cfg.Evidence, name, file)
	if rel, err := filepath.Rel(docDir, target); err == nil {
		target = rel
	}
	target = filepath.ToSlash(target)
	if file == "" {
		target += "/"
	}
	return fmt.Sprintf("[%s](%s)", text, target)
}

// tableSection is the table name of spec's render, as tables/<name>.md
// holds it without its caption (only the rows whose label contains rows,
// when not ""), then a line naming its evidence and intervals.
func (g *Generator) tableSection(docDir, name, table, rows string, caption bool) ([]byte, error) {
	r, err := g.run(name)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(r.out.Tables, func(t *plotting.Table) bool { return t.Name == table })
	if i < 0 {
		var names []string
		for _, t := range r.out.Tables {
			names = append(names, t.Name)
		}
		return nil, fmt.Errorf("spec %s renders no table %q%s (its tables: %s)", name, table, suggest.DidYouMean(table, names), strings.Join(names, ", "))
	}
	t := r.out.Tables[i]
	captioned := *t
	captioned.Title, captioned.Caption = "", r.out.Captions[i] // the title is the table's
	if rows != "" {
		kept := *t
		kept.Rows, kept.Cells = nil, nil
		for j, row := range t.Rows {
			if strings.Contains(row, rows) {
				kept.Rows, kept.Cells = append(kept.Rows, row), append(kept.Cells, t.Cells[j])
			}
		}
		if len(kept.Rows) == 0 {
			return nil, fmt.Errorf("no row of table %s of %s contains %q (its rows: %s)", table, name, rows, strings.Join(t.Rows, "; "))
		}
		t = &kept
	}
	var b bytes.Buffer
	b.WriteString("\n")
	if err := t.WriteMarkdown(&b); err != nil {
		return nil, err
	}
	if caption {
		b.WriteString("\n")
		b.Write(captioned.MarkdownCaption())
	}
	fmt.Fprintf(&b, "\n_Generated by `make docs` from %s with the current spec and code", g.evidenceLink(docDir, "evidence/"+name, name, ""))
	if r.out.Interval != "" {
		fmt.Fprintf(&b, "; ± is the half-width of the 95%% CI of the mean over trials (%s)", r.out.Interval)
	}
	if slices.ContainsFunc(t.Columns, func(c string) bool { return strings.Contains(strings.ToLower(c), "wall") }) {
		b.WriteString(g.wallText(r)) // the table shows wall times
	}
	b.WriteString("._\n\n")
	return b.Bytes(), nil
}

// claimsSection is the verdict table of the claims of specs.
func (g *Generator) claimsSection(docDir string, specs []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("\n| claim | the paper says | where | paper | checked: measured | verdict |\n|---|---|---|---|---|---|\n")
	cis := map[string][]string{} // CI method -> specs
	var order []string
	for _, name := range specs {
		r, err := g.run(name)
		if err != nil {
			return nil, err
		}
		cl := r.out.Claims
		if cl == nil {
			return nil, fmt.Errorf("spec %s has no [[claim]] block", name)
		}
		if cis[cl.CI] == nil {
			order = append(order, cl.CI)
		}
		cis[cl.CI] = append(cis[cl.CI], name)
		for _, c := range cl.Claims {
			measured := c.Measured()
			if c.Timing {
				measured += " (wall-clock: the committed run's)"
			}
			fmt.Fprintf(&b, "| %s (%s) | “%s” | %s | %s | %s: %s | **%s** |\n", cell(c.ID), g.evidenceLink(docDir, name, name, report.ClaimsMarkdown),
				cell(c.Quote), cell(c.Where), cell(c.Paper), cell(c.Statement), cell(measured), cell(c.Summary))
		}
	}
	var walls []string
	for _, name := range specs {
		if r, _ := g.run(name); g.wallText(r) != "" && slices.ContainsFunc(r.out.Claims.Claims, func(c report.Claim) bool { return c.Timing }) {
			walls = append(walls, fmt.Sprintf("%s's%s", name, strings.TrimPrefix(g.wallText(r), ";")))
		}
	}
	var methods []string
	for _, ci := range order {
		m := fmt.Sprintf("ci = %q", ci)
		if len(order) > 1 {
			m += " (" + strings.Join(cis[ci], ", ") + ")"
		}
		methods = append(methods, m)
	}
	fmt.Fprintf(&b, "\n_Generated by `make docs` from the evidence of the full-size runs with the current specs and code; each claim's points are in the linked claims.md. Intervals: 95%% CIs of the mean, %s; overlapping intervals are a tie (experiments/README.md, \"Paper claims\")%s._\n\n",
		strings.Join(methods, "; "), strings.Join(append([]string{""}, walls...), "; "))
	return b.Bytes(), nil
}

// cell escapes a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
