package mechanisms

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/internal/registry"
)

//go:generate env DPLAB_UPDATE_PARAMDOCS=1 go test -run TestParamDocsGenerated|TestReferencesDocGenerated|TestVersionFingerprints .

// Info describes a registered mechanism.
type Info struct {
	Name  string // registry name, lowercase-hyphen ("adassp", "objpert-amp")
	Title string // legend-ready name ("AdaSSP")
	Ref   string // citation key listed in docs/references.md ("Wang18")
	// Tasks the mechanism fits.
	Tasks []datasets.Task
	// Private is false for non-private reference learners: they run once per
	// dataset (no ε axis) and are drawn as horizontal reference lines.
	Private bool
	// Relation is the neighbouring relation of the ledger Fit reports
	// (accounting.RelationAddRemove, RelationZeroOut or RelationReplaceOne;
	// "" for a non-private learner). TestConformance checks it against
	// accounting.LedgerRelation of what Fit returns.
	Relation string
	// Events are the event kinds ("gaussian", "laplace", …) the ledger may
	// release, whatever the params; the structural kinds with_relation,
	// parallel and noop aside. TestConformance checks that the leaves of
	// Fit's ledger and of EventShapes are among them.
	Events []string
	// Version is bumped whenever the mechanism's output for the same inputs
	// and seed changes; it is part of every cell key, so stored trials of an
	// older version rerun. TestVersionFingerprints fails, asking for the
	// bump, when the release on a fixed input and seed changes while the
	// version stays (testdata/fingerprints.txt).
	Version int
	// Calibration lists configurations and whether each fit claims
	// calibration (TestCalibratedClaims); a private mechanism declares at
	// least one, a non-private one none (its defaults claim nothing).
	Calibration []CalibrationClaim
	// Audits declare how the privacy audit tests a private mechanism and
	// what it measured (package audit, docs/trust.md's generated table): the
	// mechanism's own audit (Name "") first, then any further pairs. A
	// non-private mechanism declares none.
	Audits []Audit
	// Quantities say how tables print each key of the noise parameters
	// and diagnostics its fits report, by stored key without its group
	// ("gamma" for "node1/gamma"); solver counters and tuning's keys are
	// harness/report's (TestQuantitiesCoverMechanisms).
	Quantities map[string][]Quantity
	// QuantityParams are further configurations, each the body of a TOML
	// inline table over the defaults (as CalibrationClaim.Params), under
	// which its fits report keys its test params do not (a preset, a
	// test): TestQuantitiesCoverMechanisms fits them too, so that each
	// declared quantity is seen reported.
	QuantityParams []string
}

// Supports reports whether the mechanism fits task t.
func (i Info) Supports(t datasets.Task) bool {
	for _, s := range i.Tasks {
		if s == t {
			return true
		}
	}
	return false
}

// Params is a mechanism's typed parameter struct, decoded strictly from a
// spec's params table. The zero value means the documented defaults.
type Params interface{ Validate() error }

// Entry is a registered mechanism.
type Entry struct {
	Info    Info
	id      string       // set by NewEntry: tells apart entries of one name
	params  reflect.Type // the registered params struct
	example Params       // the test configuration, for tests of the params' documentation
	build   func(decode func(v any) error) (Mechanism, Params, error)
	test    func() (Mechanism, error)
}

var entries = registry.New[Entry]("mechanism")

// Register adds a mechanism: build makes it from validated params P, and test
// is a tiny fast configuration used by the conformance tests. A duplicate or
// malformed name panics (registration happens in init; a clash is a
// programming error).
func Register[P Params](info Info, build func(P) (Mechanism, error), test P) {
	if len(info.Tasks) == 0 {
		panic("mechanisms: " + info.Name + " supports no task")
	}
	name := info.Name
	construct := func(p P) (Mechanism, error) {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("mechanism %s: params: %w", name, err)
		}
		return build(p)
	}
	entries.Add(name, Entry{
		Info:    info,
		params:  reflect.TypeOf(test),
		example: test,
		build: func(decode func(v any) error) (Mechanism, Params, error) {
			var p P
			if decode != nil {
				if err := decode(&p); err != nil {
					return nil, nil, fmt.Errorf("mechanism %s: params: %w", name, err)
				}
			}
			m, err := construct(p)
			return m, p, err
		},
		test: func() (Mechanism, error) { return construct(test) },
	})
}

// Build makes the mechanism from the spec's params: decode strictly fills a
// pointer to the registered params struct (nil decode keeps the zero value,
// i.e. the defaults), which is then validated. It also returns the decoded
// params.
func (e Entry) Build(decode func(v any) error) (Mechanism, Params, error) {
	return e.build(decode)
}

// Params documents the mechanism's params table: every key of the
// registered params struct (embedded structs included) with its TOML type,
// its default and range (the struct tags `default` and `range`) and its doc
// comment (params_doc.go, generated from the source). A key whose `only`
// tag names other mechanisms sharing the struct is left out.
func (e Entry) Params() []fielddoc.Field {
	var out []fielddoc.Field
	for _, f := range e.allParams() {
		if len(f.Only) == 0 || slices.Contains(f.Only, e.Info.Name) {
			out = append(out, f)
		}
	}
	return out
}

// allParams documents every key of the params struct, whichever mechanism
// it applies to.
func (e Entry) allParams() []fielddoc.Field { return fielddoc.Fields(e.params, paramDocs) }

// NewEntry returns an entry that is not in the registry, for a mechanism a
// spec configures itself (an external mechanism, mechanisms/external): id
// tells apart entries sharing info.Name (it keys the runner's built
// mechanisms, ID). It has no test configuration.
func NewEntry[P Params](info Info, id string, build func(P) (Mechanism, error)) Entry {
	e := Entry{Info: info, id: id, params: reflect.TypeFor[P]()}
	e.build = func(decode func(v any) error) (Mechanism, Params, error) {
		var p P
		if decode != nil {
			if err := decode(&p); err != nil {
				return nil, nil, fmt.Errorf("mechanism %s: params: %w", info.Name, err)
			}
		}
		if err := p.Validate(); err != nil {
			return nil, nil, fmt.Errorf("mechanism %s: params: %w", info.Name, err)
		}
		m, err := build(p)
		return m, p, err
	}
	e.test = func() (Mechanism, error) {
		return nil, fmt.Errorf("mechanism %s: configured by its spec, it has no test configuration", info.Name)
	}
	return e
}

// ID identifies the entry: its name, or for an entry made by NewEntry the
// name and its id.
func (e Entry) ID() string {
	if e.id == "" {
		return e.Info.Name
	}
	return e.Info.Name + "\x00" + e.id
}

// Test builds the mechanism with its tiny test configuration.
func (e Entry) Test() (Mechanism, error) { return e.test() }

// Lookup returns the mechanism called name; an unknown name is an error that
// lists the known names.
func Lookup(name string) (Entry, error) { return entries.Lookup(name) }

// List returns every registered mechanism's Info, sorted by name.
func List() []Info {
	var out []Info
	for _, e := range entries.All() {
		out = append(out, e.Info)
	}
	return out
}
