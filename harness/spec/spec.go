package spec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/internal/strictoml"
)

// Spec is an experiment: datasets × mechanisms × ε grid × parameter sweeps ×
// trials, and the figures and tables rendered from the results. The spec
// reference with an annotated example is experiments/README.md.
type Spec struct {
	Name        string          `toml:"name"` // names the result directory (run.ResultDir); [a-z0-9_-]+
	Title       string          `toml:"title"`
	Description string          `toml:"description"`
	Seed        int64           `toml:"seed"`   // base seed of every trial's streams, ≥ 0
	Trials      int             `toml:"trials"` // trials per cell, ≥ 1
	Epsilon     Values          `toml:"epsilon"`
	Delta       DeltaRule       `toml:"delta"`
	CI          string          `toml:"ci"` // "auto" (default: "t" under 30 trials, else "normal"), "normal" (1.96·SE) or "t" (Student-t)
	Accountant  AccountantSpec  `toml:"accountant"`
	Metrics     []string        `toml:"metrics"` // default: every metric of the datasets' tasks (their train metrics when a dataset has split.all)
	Datasets    []DatasetSpec   `toml:"dataset"`
	Mechanisms  []MechanismSpec `toml:"mechanism"`
	Figures     []OutputSpec    `toml:"figure"` // decoded by their kind (harness/report)
	Tables      []OutputSpec    `toml:"table"`
	Curves      []CurveSpec     `toml:"curve"` // analytic curves (no trials)
	// Claims are the paper's claims as checks over the stored cells or the
	// curves, each decoded and checked by harness/report, as figures
	// and tables are (experiments/README.md, "Paper claims").
	Claims []RawTable `toml:"claim"`
	Quick  *QuickSpec `toml:"quick"`
	// Audit, when present, makes the spec an audit grid: each [[mechanism]]
	// block (an audit target: a private mechanism, one of its further pairs,
	// a pipeline or the reference "gaussian") audited at every ε of the
	// grid on the worst-case pair it declares (package audit), one trial per
	// cell; no [[dataset]] blocks.
	Audit *AuditSpec `toml:"audit"`
	// FigureDefaults are the keys every [[figure]] block inherits unless
	// it sets them (width, height, dpi, legend); decoded and checked by
	// harness/report, as the blocks are.
	FigureDefaults RawTable `toml:"figure_defaults"`

	// File is the path the spec was read from; Source its bytes and SHA256
	// their hash.
	File      string `toml:"-"`
	Source    []byte `toml:"-"`
	SHA256    string `toml:"-"`
	keys      keyIndex
	opts      LoadOptions
	auditLike bool
	// QuickApplied records that the [quick] overrides were applied: set in
	// the copy WithQuick returns, never decoded.
	QuickApplied bool `toml:"-"`
	// QuickDropped holds the dataset and mechanism labels the [quick]
	// overrides dropped: figures and tables may still name them.
	QuickDropped map[string]bool `toml:"-"`
	// Warnings are what validation found that a run survives but a user
	// should hear of (δ ≥ 1/n on a dataset; a target a mechanism's
	// calibration cannot meet, whose trials a run records infeasible), one
	// sentence each, in the resolved spec plan.Validate returns (never
	// decoded); the CLI prints them.
	Warnings []string `toml:"-"`
	// Overrides are the --set arguments the spec was decoded with
	// (LoadOptions.Set); Source is then the document they give, and
	// errors are placed on the lines of the original file, lineSrc.
	Overrides []string `toml:"-"`
	// Only, set in the copy a plan's Only returns (never decoded), is the
	// --only subset of the cells that plan holds.
	Only    *Subset `toml:"-"`
	sets    []*override
	lineSrc []byte
}

// AccountantSpec selects the accountant that evaluates every ledger.
type AccountantSpec struct {
	Kind     string  `toml:"kind"`     // "rdp" (default), "pld", "exact"
	Orders   string  `toml:"orders"`   // RDP orders: "default", "grid", "opacus", "tfprivacy", "integer"
	Interval float64 `toml:"interval"` // PLD discretisation; 0 means 1e-4
	// MaxOrder is the largest order of orders = "integer"; 0 means 256.
	MaxOrder int `toml:"max_order" json:",omitempty"`
	// ExtraOrders are added to the order set, e.g. the orders beyond 256
	// that honest DP-SGD needs at ε = 0.025 (objpert.md §2.7). (omitempty
	// keeps the cell keys of specs without them unchanged.)
	ExtraOrders []float64 `toml:"extra_orders" json:",omitempty"`
}

// AuditSpec is the [audit] table of an audit grid.
type AuditSpec struct {
	Runs       int     `toml:"runs"`       // runs per side of each cell's audit (a mechanism's runs key overrides it)
	Confidence float64 `toml:"confidence"` // of the lower bound; 0 means 0.95
}

// DatasetSpec is one [[dataset]] block.
type DatasetSpec struct {
	Name   string    `toml:"name"`  // registry name
	Label  string    `toml:"label"` // panel title; default the registry title
	Params RawTable  `toml:"params"`
	Split  SplitSpec `toml:"split"`
	Scale  ScaleSpec `toml:"scale"`
	// Optional datasets whose files are absent are reported as skipped
	// (in the log, the figures and the tables) instead of failing the run.
	Optional bool `toml:"optional"`
}

// SplitSpec says how a dataset is split into train, validation and test.
// Datasets whose source fixes a split (official files, masks) use it, and a
// validation part is carved from its training part.
type SplitSpec struct {
	Test       float64 `toml:"test"`       // test fraction; 0 means 0.2
	Validation float64 `toml:"validation"` // validation fraction (for tuning); default 0
	// Resample draws a new split in every trial (from the trial's "split"
	// stream); by default one split, seeded by the spec seed, serves every
	// trial.
	Resample bool `toml:"resample"`
	// Ordered cuts the rows in the source's stored order (train first, then
	// validation, then test) instead of a random permutation: the Iyengar et
	// al. benchmark's split of its synthetic data. (omitempty keeps the cell
	// keys of specs without it unchanged.)
	Ordered bool `toml:"ordered" json:",omitempty"`
	// All trains on every row: no test and no validation part, the
	// training part is all rows in the source's stored order (no shuffle;
	// a source with its own train/test files gives its training rows, then
	// its test rows). It excludes the other keys, and metrics or tuning
	// that need a test or validation part (validation refuses them).
	// (omitempty keeps the cell keys of specs without it unchanged.)
	All bool `toml:"all" json:",omitempty"`
	// Indices names a file assigning every row to train or test
	// (datasets.SplitIndices: lines "train 17", "test 0"; 0-based indices
	// into the rows in stored order, parts kept in file order), to run on
	// external code's exact split. A relative path is relative to the spec
	// file's directory; the resolved spec plan.Validate returns holds it
	// absolute. It excludes the other keys.
	// The cell key holds the file's content hash (IndicesSHA256), not its
	// path.
	Indices string `toml:"indices" json:"-"`
	// IndicesSHA256 is the hex SHA-256 of the Indices file, set in the
	// resolved spec plan.Validate returns (never decoded). (omitempty keeps
	// the cell keys of specs without it unchanged.)
	IndicesSHA256 string `toml:"-" json:"indices_sha256,omitempty"`
}

// ScaleSpec is the per-trial scaling, with statistics from the training part.
type ScaleSpec struct {
	X     string  `toml:"x"`     // "max-row-norm" (default), "unit-rows", "clip", "standardize", "none"
	Y     string  `toml:"y"`     // "max-abs" (default for regression), "none"
	Bound float64 `toml:"bound"` // row-norm bound of "clip"
}

// MechanismSpec is one [[mechanism]] block.
type MechanismSpec struct {
	Name   string     `toml:"name"`  // registry name
	Label  string     `toml:"label"` // legend entry; default the registry title
	Params ParamTable `toml:"params"`
	Tuning TuningSpec `toml:"tuning"`
	// Preprocess lists non-private, data-dependent pre-processing steps run
	// on the training rows before the mechanism ([HSS24]; pipeline.go), and
	// Pipeline how they are accounted. Both enter the cell key only when
	// present.
	Preprocess []PreprocessStep `toml:"preprocess"`
	Pipeline   *PipelineSpec    `toml:"pipeline"`
	// Exclude leaves the mechanism out on some datasets: dataset label →
	// why (required, e.g. a measured cost). plan.New makes no cells for those
	// pairs; figures and tables say "not run" with the reason. Not part of
	// any cell key.
	Exclude map[string]string `toml:"exclude"`
	// Runs is, in an audit grid only, the runs per side of this
	// mechanism's audits; 0: the [audit] table's.
	Runs int `toml:"runs"`
	// External configures a mechanism named "external" (external.go).
	External *ExternalSpec `toml:"external"`
}

// Excluded returns the reason the spec gives for leaving mechanism mi out
// on dataset di (MechanismSpec.Exclude), and whether it does.
func (s *Spec) Excluded(di, mi int) (string, bool) {
	why, ok := s.Mechanisms[mi].Exclude[s.Datasets[di].Label]
	return why, ok
}

// TuningSpec is a mechanism's hyperparameter tuning.
type TuningSpec struct {
	// Mode is "none" (default: fixed params), "oracle" (best candidate on the
	// test set, no privacy charged: non-private tuning) or "private"
	// (Papernot–Steinke repeat-and-select, accounted).
	Mode string `toml:"mode"`
	// Distribution of the number of runs K for private tuning: "poisson"
	// (default), "tnb", "geometric", "logarithmic"; Mean is E[K], Shape the
	// truncated negative binomial's η.
	Distribution string  `toml:"distribution"`
	Mean         float64 `toml:"mean"`
	Shape        float64 `toml:"shape"`
	// SelectOn is "validation" (default; a split carved from the training
	// data) or "test" (the published protocol; labelled as such). Neither
	// selection is private: the runs are scored without noise and the
	// scored rows are treated as public (results.Privacy.Selection).
	SelectOn string `toml:"select_on"`
	// Metric scores candidates; default the task's first metric.
	Metric string `toml:"metric"`
	// Candidates: oracle tuning runs the grid of these sweeps; private
	// tuning draws each run's values (see Sample).
	Candidates ParamTable `toml:"candidates"`
	// Sample is how private tuning draws a candidate: "grid" (uniformly from
	// the candidates' grid, default) or "loguniform" (each swept key
	// log-uniformly between its smallest and largest candidate).
	Sample string `toml:"sample"`
}

// OutputSpec is one [[figure]] or [[table]] block: its name (the file stem
// under figures/ or tables/), its kind, and its other keys, kept raw for the
// kind's plug-in in harness/report to decode strictly.
type OutputSpec struct {
	Name   string
	Kind   string   // the plug-in; "epsilon" when absent
	Params RawTable // every key but name and kind
}

// UnmarshalTOML implements toml.Unmarshaler.
func (o *OutputSpec) UnmarshalTOML(raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("a figure or table must be a table, got %v", raw)
	}
	o.Params = RawTable{}
	for k, v := range m {
		switch k {
		case "name", "kind":
			str, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s must be a string, got %v", k, v)
			}
			if k == "name" {
				o.Name = str
			} else {
				o.Kind = str
			}
		default:
			o.Params[k] = v
		}
	}
	if o.Kind == "" {
		o.Kind = "epsilon"
	}
	return nil
}

// QuickSpec is the [quick] block: overrides for a smoke run (--quick).
type QuickSpec struct {
	Trials        int                   `toml:"trials"`
	Epsilon       Values                `toml:"epsilon"`
	Datasets      []string              `toml:"datasets"`   // labels kept; default all
	Mechanisms    []string              `toml:"mechanisms"` // labels kept; default all
	Params        map[string]ParamTable `toml:"params"`     // by mechanism label: keys replaced
	DatasetParams map[string]RawTable   `toml:"dataset_params"`
	// Runs caps an audit grid's runs per side (its mechanisms' included).
	Runs int `toml:"runs"`
}

// RawTable is a table of raw TOML values, decoded later into a registry's
// typed params struct (lists stay lists: dataset params are not swept).
type RawTable map[string]any

// UnmarshalTOML implements toml.Unmarshaler.
func (r *RawTable) UnmarshalTOML(raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("params must be a table, got %v", raw)
	}
	*r = m
	return nil
}

// LoadOptions configures LoadWith and ParseWith. The zero value is the
// default limits and no cancellation.
type LoadOptions struct {
	// Limits bound the grid; they are checked before anything is expanded.
	Limits Limits
	// Context, when done, stops a long validation (a large sweep) with its
	// error; nil never does.
	Context context.Context
	// Set holds --set PATH=VALUE overrides, applied in order to the TOML
	// document before it is decoded (override.go).
	Set []string
	// ExternalSHA256 holds, by mechanism label, the SHA-256 of the files
	// an external block's command and files name as a run recorded them
	// (its manifest): a spec loaded from a result directory keys its
	// external cells on what ran, not on files beside the copy.
	ExternalSHA256 map[string]map[string]string
}

// DecodeFile reads and strictly decodes a spec file (ReadSource, Decode).
func DecodeFile(path string, o LoadOptions) (*Spec, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, src, o)
}

// Decode strictly decodes spec source src (from file name path): the data
// only, without the registries' checks, which harness/plan runs (plan.Parse).
// Source larger than MaxSourceBytes or nested deeper than MaxNesting is
// refused before it is parsed (CheckSource). Every error is a *SpecError
// naming the file, the line when known and the key.
func Decode(path string, src []byte, o LoadOptions) (*Spec, error) {
	// The TOML library parses (a syntax error carries its position); the
	// spec's own decoder fills the structs with per-element key paths
	// (internal/strictoml), placed on their lines by the key index.
	if err := CheckSource(path, src); err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &SpecError{File: path, Line: pe.Position.Line, Key: pe.LastKey, Err: errors.New(pe.Message)}
		}
		return nil, &SpecError{File: path, Err: err}
	}
	s := &Spec{opts: o, File: path, Source: src, keys: indexKeys(src), auditLike: auditLike(raw)}
	source := src // what the spec is: src, or the document the overrides give
	if len(o.Set) > 0 {
		sets, gen, err := withOverrides(path, src, raw, o.Set)
		if err != nil {
			return nil, err
		}
		s.sets, s.Overrides, s.lineSrc, source = sets, slices.Clone(o.Set), src, gen
	}
	if errs := strictoml.Decode(raw, s); len(errs) > 0 {
		// Report the problem that comes first in the file.
		first, line := errs[0], s.keys.linePath(src, errs[0].Key)
		for _, e := range errs[1:] {
			if l := s.keys.linePath(src, e.Key); l < line {
				first, line = e, l
			}
		}
		return nil, s.AuditHint(&SpecError{File: path, Line: line, Key: first.Key, Err: first.Err})
	}
	s.File, s.Source = path, source
	sum := sha256.Sum256(source)
	s.SHA256 = hex.EncodeToString(sum[:])
	return s, nil
}

// Subset is a --only selection of a spec's cells (plan.Plan.Only).
type Subset struct {
	Filters    []string // the --only arguments, DIMENSION=VALUE
	Cells      int      // the cells kept
	LeftCells  int      // the cells left out
	LeftTrials int      // their trials
}

// WithOnly returns a copy of s whose Only is o; s is unchanged.
func (s *Spec) WithOnly(o Subset) *Spec {
	c := s.Clone()
	c.Only = &o
	return c
}

// Options returns the options the spec was decoded with.
func (s *Spec) Options() LoadOptions { return s.opts }

// auditLike reports whether a file has [[mechanism]] blocks but neither
// [[dataset]] nor [[curve]] blocks nor an [audit] table: it looks like an
// audit grid without its [audit] table (the audit spec format before
// issue 36).
func auditLike(raw map[string]any) bool {
	_, data := raw["dataset"]
	_, curves := raw["curve"]
	_, mechs := raw["mechanism"]
	_, audit := raw["audit"]
	return mechs && !data && !curves && !audit
}

// AuditHint adds to e, for a file that looks like an audit grid without its
// [audit] table (with [[mechanism]] blocks but neither [[dataset]] nor
// [[curve]] blocks), how to write one; and, for an error at a key a --set
// override set, that override (overrideHint).
func (s *Spec) AuditHint(e *SpecError) *SpecError {
	e = s.overrideHint(e)
	if !s.auditLike {
		return e
	}
	e.Err = fmt.Errorf("%w (without [[dataset]] blocks this looks like an audit grid: give it an [audit] table with runs and confidence, see experiments/audits/audit_grid.toml)", e.Err)
	return e
}

// ErrAt returns a SpecError at key on line (Line).
func (s *Spec) ErrAt(key string, line int, format string, args ...any) *SpecError {
	return &SpecError{File: s.File, Line: line, Key: key, Err: fmt.Errorf(format, args...)}
}

// KeyError returns a SpecError at a key path of the spec
// ("figure_defaults.width"), with its line when the source shows it.
func (s *Spec) KeyError(path, format string, args ...any) error {
	return s.ErrAt(path, s.keys.linePath(s.lines(), path), format, args...)
}

// Line returns the line that defines key path (a top-level key or table:
// "name", "quick.trials"), 0 when unknown.
func (s *Spec) Line(path string) int { return s.keys.line(path) }

// ErrIn returns a SpecError for key, a path inside the i-th [[table]]
// element ("mechanism", 2, "params.rho"), at the line that defines it.
func (s *Spec) ErrIn(table string, i int, key string, format string, args ...any) *SpecError {
	path := fmt.Sprintf("%s[%d]", table, i)
	if key != "" {
		path += "." + key
	}
	return &SpecError{File: s.File, Line: s.keys.lineIn(s.lines(), table, i, key), Key: path, Err: fmt.Errorf(format, args...)}
}

// lines returns the source the key index was built from: the file's, also
// when overrides gave the spec another Source.
func (s *Spec) lines() []byte {
	if s.lineSrc != nil {
		return s.lineSrc
	}
	return s.Source
}

// DecodeStrict decodes a raw params table (as the spec keeps it) into the
// struct v points to, through its toml tags, with the spec's strict rules:
// it is strictoml.DecodeTable, which returns the key of the first problem
// (an unknown key, a wrong type, a value out of range, in sorted key order)
// with the error.
func DecodeStrict(values map[string]any, v any) (string, error) {
	return strictoml.DecodeTable(values, v)
}
