package report

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/plotting"
)

// Figure and table kinds are plug-ins: each kind's file (a
// kind_<block>_<kind>.go file of this package, or a package of its own
// under harness/report/kinds, written against the exported View only)
// registers, in its init, how a [[figure]] or [[table]] block of its kind
// decodes its keys (strictly: an unknown key is an error naming it), what it
// draws, and an example block of the kind, which TestEveryKindRenders runs.
// harness/spec keeps the blocks' keys raw; Check decodes every block before
// a run, Render before drawing.

// Figure is a decoded [[figure]] block.
type Figure interface {
	// Draw returns the figure from the view of the stored trials.
	Draw(v *View) *plotting.Figure
	// FileFormats returns the formats its files are written in
	// (plotting.Formats).
	FileFormats() []string
}

// Table is a decoded [[table]] block; it may write several tables (one
// per dataset, say).
type Table interface {
	// Build returns the tables from the view of the stored trials.
	Build(v *View) []*plotting.Table
	// FileFormats returns the formats their files are written in
	// (plotting.TableFormats).
	FileFormats() []string
}

// Block is one [[figure]] or [[table]] block being decoded by its kind.
type Block struct {
	Spec  *spec.Spec
	Kind  string // "figure" or "table"
	Index int
	Out   *spec.OutputSpec
}

// Decode decodes the block's keys (all but name and kind) into the struct v
// strictly, through its toml tags; an unknown key or a wrong type is an
// error naming the key and its line.
func (b *Block) Decode(v any) error {
	key, err := spec.DecodeStrict(b.Out.Params, v)
	if err != nil {
		return b.Errorf(key, "%v", err)
	}
	return nil
}

// Errorf is an error at key of the block, naming the file and line.
func (b *Block) Errorf(key, format string, args ...any) error {
	return b.Spec.OutputError(b.Kind, b.Index, key, format, args...)
}

// Labels checks the dataset and mechanism labels the block names and
// returns those a --quick run kept.
func (b *Block) Labels(ds, ms []string) ([]string, []string, error) {
	if err := plan.CheckLabels(b.Spec, b.Kind, b.Index, ds, ms); err != nil {
		return nil, nil, err
	}
	return b.Spec.Kept(ds), b.Spec.Kept(ms), nil
}

// Formats checks the block's file formats against allowed (all of them
// when none are given).
func (b *Block) Formats(formats, allowed []string) ([]string, error) {
	if len(formats) == 0 {
		return allowed, nil
	}
	for _, f := range formats {
		if !slices.Contains(allowed, f) {
			return nil, b.Errorf("formats", "%s format %q: want one of %s", b.Kind, f, strings.Join(allowed, ", "))
		}
	}
	return formats, nil
}

// OneOf checks that value (def when empty) is one of allowed, at key.
func (b *Block) OneOf(key, value, def string, allowed ...string) (string, error) {
	if value == "" {
		value = def
	}
	if !slices.Contains(allowed, value) {
		return "", b.Errorf(key, "%s %q: want %s", key, value, strings.Join(allowed, ", "))
	}
	return value, nil
}

// Kind is a figure kind (T = Figure) or a table kind (T = Table), as its
// kind_<block>_<kind>.go file registers it.
type Kind[T any] struct {
	// Decode decodes the block's keys (strictly: b.Decode) and checks them.
	Decode func(b *Block) (T, error)
	// Example is a small valid block of the kind in TOML: the kind's own
	// keys, without name and kind, at least one of them. It is the kind's
	// test input: TestEveryKindRenders decodes it (strictly), runs it and
	// renders it in every format, twice, in the test spec of kinds_test.go
	// (dataset label "Lin", mechanism labels "AdaSSP" and "Ridge", metric
	// "test_mse", one [[curve]] labelled "RDP" in panel "p"; the test-only
	// iterative mechanisms "Iter", with param split = "random" | "label",
	// and "Iter ref", non-private, whose records carry the trace
	// "excess_objective", diagnostics n, node1/n, node1/eta, node2/… and
	// noise node1/gamma, node2/gamma).
	Example string
	// Params is a zero value of the struct Decode decodes the block into
	// and returns a pointer to: its toml-tagged fields are the block's keys,
	// which "dplab kinds" lists with their doc comments (params_doc.go,
	// generated). TestEveryKindRenders checks that Decode returns a *Params.
	Params any
	// Doc says what the kind draws, for "dplab kinds"; empty means the doc
	// comment of the Params struct.
	Doc string
	// Docs maps "Type.Field" of the toml-tagged struct fields of the
	// kind's package to their doc comments: the package's generated
	// params_doc.go (internal/fielddoc.Generate). A kind of another
	// package sets it; the fields this package declares (Layout's,
	// Selection's) are documented here.
	Docs map[string]string
}

var (
	figureKinds = map[string]Kind[Figure]{}
	tableKinds  = map[string]Kind[Table]{}
)

// RegisterFigure adds a figure kind; call it from init. A duplicate kind, a
// nil Decode or an empty Example panics.
func RegisterFigure(kind string, k Kind[Figure]) { register(figureKinds, "figure", kind, k) }

// RegisterTable adds a table kind; call it from init. A duplicate kind, a
// nil Decode or an empty Example panics.
func RegisterTable(kind string, k Kind[Table]) { register(tableKinds, "table", kind, k) }

func register[T any](kinds map[string]Kind[T], block, kind string, k Kind[T]) {
	_, dup := kinds[kind]
	switch {
	case dup:
		panic("report: duplicate " + block + " kind " + kind)
	case k.Decode == nil:
		panic("report: " + block + " kind " + kind + " registered without Decode")
	case strings.TrimSpace(k.Example) == "":
		panic("report: " + block + " kind " + kind + " registered without an Example")
	case k.Params == nil || reflect.TypeOf(k.Params).Kind() != reflect.Struct:
		panic("report: " + block + " kind " + kind + " registered without its Params struct")
	}
	kinds[kind] = k
}

//go:generate env DPLAB_UPDATE_PARAMDOCS=1 go test -run TestKindDocsGenerated .

// KindDoc documents a registered figure or table kind, or a [[claim]]
// check kind, for "dplab kinds".
type KindDoc struct {
	Block   string           // "figure", "table" or "claim"
	Kind    string           // "epsilon", "privacy", …; a claim's "better", "ratio", …
	Key     string           // the key naming the kind in the block: "kind", or a claim's "check"
	Doc     string           // what the kind draws (a claim's: what it decides)
	Example string           // a small valid block of the kind (its keys, in TOML)
	Params  []fielddoc.Field // the block's keys (besides name and kind; a claim's besides check)
}

// Kinds documents every registered figure kind, then every table kind,
// then every [[claim]] check kind, each sorted by name.
func Kinds() []KindDoc {
	var out []KindDoc
	for _, kind := range FigureKinds() {
		k := figureKinds[kind]
		out = append(out, kindDoc("figure", kind, k.Params, k.Doc, k.Example, k.Docs))
	}
	for _, kind := range TableKinds() {
		k := tableKinds[kind]
		out = append(out, kindDoc("table", kind, k.Params, k.Doc, k.Example, k.Docs))
	}
	return append(out, claimKindDocs()...)
}

// kindDoc documents a kind whose own package's doc comments are docs
// (nil for this package's kinds).
func kindDoc(block, kind string, params any, doc, example string, docs map[string]string) KindDoc {
	t := reflect.TypeOf(params)
	if docs != nil {
		docs = maps.Clone(docs)
		maps.Copy(docs, kindDocs) // the fields of this package's types it embeds
	} else {
		docs = kindDocs
	}
	if doc == "" {
		// "epsilonFigure is the default figure kind: …" → "the default figure kind: …"
		doc = strings.TrimPrefix(docs[t.Name()], t.Name()+" ")
		doc = strings.TrimPrefix(doc, "is ")
	}
	return KindDoc{Block: block, Kind: kind, Key: "kind", Doc: doc, Example: strings.TrimSpace(example), Params: fielddoc.Fields(t, docs)}
}

// FigureKinds and TableKinds list the registered kinds, sorted.
func FigureKinds() []string { return slices.Sorted(maps.Keys(figureKinds)) }

// TableKinds lists the registered table kinds, sorted.
func TableKinds() []string { return slices.Sorted(maps.Keys(tableKinds)) }

// Selection is the block of a table kind that only selects datasets and
// mechanisms and sets a title, formats and a note (the privacy table; the
// runtime table's block embeds it): RegisterSelectionTable decodes it.
type Selection struct {
	Title      string   `toml:"title"`      // table title; default none
	Datasets   []string `toml:"datasets"`   // labels; default all
	Mechanisms []string `toml:"mechanisms"` // labels; default all
	Formats    []string `toml:"formats"`    // default ["md", "tex", "csv"]
	Note       string   `toml:"note"`       // added to the caption file

	// Name is the block's name, the stem of its tables' files.
	Name string `toml:"-"`
}

// WantDataset reports whether the block shows the dataset labelled label.
func (s *Selection) WantDataset(label string) bool {
	return len(s.Datasets) == 0 || slices.Contains(s.Datasets, label)
}

// WantMechanism reports whether the block shows the mechanism labelled
// label.
func (s *Selection) WantMechanism(label string) bool {
	return len(s.Mechanisms) == 0 || slices.Contains(s.Mechanisms, label)
}

// selectionTable is a table kind whose block is a Selection; tablesOf
// makes its tables from the view.
type selectionTable struct {
	Selection
	tablesOf func(v *View, s *Selection) []*plotting.Table
}

// RegisterSelectionTable registers, from init, a table kind whose block is
// a Selection, with what it draws (doc), its example block and the
// function that builds its tables from the view and the decoded block (its
// labels checked and cut to those a --quick run kept, its formats checked,
// plotting.TableFormats by default).
func RegisterSelectionTable(kind, doc, example string, tablesOf func(v *View, s *Selection) []*plotting.Table) {
	RegisterTable(kind, Kind[Table]{Example: example, Doc: doc, Params: selectionTable{}, Decode: func(b *Block) (Table, error) {
		t := selectionTable{tablesOf: tablesOf}
		if err := b.DecodeSelection(&t, &t.Selection); err != nil {
			return nil, err
		}
		return &t, nil
	}})
}

// DecodeSelection decodes the block into v, a table kind's params struct
// embedding the Selection sel (v's own), and completes sel: its formats
// checked (plotting.TableFormats by default), its labels checked and cut
// to those a --quick run kept, its Name the block's.
func (b *Block) DecodeSelection(v any, sel *Selection) error {
	if err := b.Decode(v); err != nil {
		return err
	}
	var err error
	if sel.Formats, err = b.Formats(sel.Formats, plotting.TableFormats); err != nil {
		return err
	}
	if sel.Datasets, sel.Mechanisms, err = b.Labels(sel.Datasets, sel.Mechanisms); err != nil {
		return err
	}
	sel.Name = b.Out.Name
	return nil
}

func (t *selectionTable) Build(v *View) []*plotting.Table { return t.tablesOf(v, &t.Selection) }
func (t *selectionTable) FileFormats() []string           { return t.Formats }

// outputs are a spec's decoded figures, tables and claims.
type outputs struct {
	figures []Figure
	tables  []Table
	claims  []*claim
}

// decodeOutputs decodes every [[figure]] and [[table]] block of s by its
// kind.
func decodeOutputs(s *spec.Spec) (*outputs, error) {
	out := &outputs{}
	if _, err := figureDefaults(s); err != nil {
		return nil, err // checked even when no figure block reads it
	}
	for i := range s.Figures {
		o := &s.Figures[i]
		k, ok := figureKinds[o.Kind]
		if !ok {
			return nil, s.OutputError("figure", i, "kind", "figure kind %q%s: want %s", o.Kind, suggest.DidYouMean(o.Kind, FigureKinds()), strings.Join(FigureKinds(), ", "))
		}
		f, err := k.Decode(&Block{Spec: s, Kind: "figure", Index: i, Out: o})
		if err == nil {
			err = checkFileNames(s, "figure", i, 0, f.FileFormats())
		}
		if err != nil {
			return nil, err
		}
		out.figures = append(out.figures, f)
	}
	for i := range s.Tables {
		o := &s.Tables[i]
		k, ok := tableKinds[o.Kind]
		if !ok {
			return nil, s.OutputError("table", i, "kind", "table kind %q%s: want %s", o.Kind, suggest.DidYouMean(o.Kind, TableKinds()), strings.Join(TableKinds(), ", "))
		}
		t, err := k.Decode(&Block{Spec: s, Kind: "table", Index: i, Out: o})
		if err == nil {
			err = checkFileNames(s, "table", i, 1+maxStem, t.FileFormats())
		}
		if err != nil {
			return nil, err
		}
		out.tables = append(out.tables, t)
	}
	var err error
	if out.claims, err = decodeClaims(s); err != nil {
		return nil, err
	}
	return out, nil
}

// checkFileNames checks that the files of output block i (a figure or a
// table) can be named: its name, a split table's part (split bytes, for a
// table written per dataset or panel), the longest of its formats'
// extensions and the temporary suffix they are first written under must
// fit a file name.
func checkFileNames(s *spec.Spec, block string, i, split int, formats []string) error {
	ext := ""
	for _, f := range formats {
		if len(f)+1 > len(ext) {
			ext = "." + f
		}
	}
	for _, c := range plotting.CaptionFiles { // written beside every figure and table
		if len(c) > len(ext) {
			ext = c
		}
	}
	with := fmt.Sprintf("with its extension %s and the temporary suffix of the file it is first written to", ext)
	if split > 0 {
		with = fmt.Sprintf("with the -<dataset or panel> part of a table split per dataset or panel (at most %d bytes), its extension %s and the temporary suffix of the file it is first written to", split, ext)
	}
	name := s.Figures
	if block == "table" {
		name = s.Tables
	}
	if err := spec.NameFits(name[i].Name, split+len(ext)+fileutil.TempSuffixMax, with); err != nil {
		return s.OutputError(block, i, "name", "%v", err)
	}
	return nil
}

// Check decodes and checks every figure, table and claim block of s, so
// that a spec whose outputs cannot be drawn is refused before anything
// runs.
func Check(s *spec.Spec) error {
	_, err := decodeOutputs(s)
	return err
}

// Load loads the spec at path (plan.LoadWith) and checks its figures and
// tables: what the CLI runs.
func Load(path string, opt spec.LoadOptions) (*spec.Spec, error) {
	s, err := plan.LoadWith(path, opt)
	if err != nil {
		return nil, err
	}
	if err := Check(s); err != nil {
		return nil, err
	}
	return s, nil
}

// CheckCurves checks that a curves figure or table block names existing
// [[curve]] labels and panels (and that the spec has curves).
func (b *Block) CheckCurves(curves, panels []string) error {
	s := b.Spec
	if len(s.Curves) == 0 {
		return b.Errorf("kind", "kind = \"curves\" needs [[curve]] blocks")
	}
	known, knownPanels := s.CurveLabels(), s.CurvePanels()
	for _, l := range curves {
		if !slices.Contains(known, l) {
			return b.Errorf("curves", "%s", plan.UnknownName("curve labelled", l, known))
		}
	}
	for _, p := range panels {
		if !slices.Contains(knownPanels, p) {
			return b.Errorf("panels", "%s", plan.UnknownName("curve panel", p, knownPanels))
		}
	}
	return nil
}

// tableSpec is a decoded epsilon [[table]] block, as the table builder
// reads it: rows ε (or datasets), columns methods, cells mean ± CI
// half-width.
type tableSpec struct {
	Name       string
	Title      string
	Metric     string
	Rows       string    // "epsilon" (default: one table per dataset) or "dataset"
	Datasets   []string  // labels; default all
	Mechanisms []string  // labels; default all
	Epsilon    []float64 // ε values to show; default all
	Formats    []string  // default ["md", "tex", "csv"]
	Note       string
}
