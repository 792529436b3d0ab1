package plan

import (
	"context"
	"errors"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/spec"
)

// Plan is a spec with its cells. It is read-only: its accessors return the
// plan's own spec and cells, which no caller may modify.
type Plan struct {
	spec   *spec.Spec
	cells  []Cell
	trials int
	pipes  []*Pipeline
}

// Options resolve what a run may override in the spec.
type Options struct {
	// Trials is the number of trials per cell; 0 means the spec's.
	Trials int
}

// Load reads, strictly decodes and validates a spec file with the default
// limits, and returns the resolved spec (Validate). Every error is a
// *spec.SpecError naming the file, the line when known and the key.
func Load(path string) (*spec.Spec, error) { return LoadWith(path, spec.LoadOptions{}) }

// LoadWith is Load with options (grid limits, cancellation).
func LoadWith(path string, o spec.LoadOptions) (*spec.Spec, error) {
	src, err := spec.ReadSource(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(path, src, o)
}

// Parse decodes spec source src (from file name path) strictly
// (spec.Decode) and validates it with the default limits, returning the
// resolved spec (Validate).
func Parse(path string, src []byte) (*spec.Spec, error) {
	return ParseWith(path, src, spec.LoadOptions{})
}

// ParseWith is Parse with options (grid limits, cancellation).
func ParseWith(path string, src []byte, o spec.LoadOptions) (*spec.Spec, error) {
	s, err := spec.Decode(path, src, o)
	if err != nil {
		return nil, err
	}
	return Validate(s)
}

// Validate checks a decoded spec against the registries: values in range,
// names known to the registries, params decodable for every sweep point,
// ledgers accountable, pre-processing accountable, labels unique and
// references between blocks resolved. It returns the resolved spec: a copy
// of s with the documented defaults (defaultsOf) and its Warnings
// (spec.Spec.Resolved); s itself is unchanged. Its error is a
// *spec.SpecError, with the audit-spec hint when the file looks like one.
func Validate(s *spec.Spec) (*spec.Spec, error) {
	r, err := resolve(s)
	var se *spec.SpecError
	if errors.As(err, &se) {
		return nil, s.AuditHint(se)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ApplyQuick returns the resolved spec of a --quick run of s (a resolved
// spec: Validate): a copy with the [quick] overrides applied
// (spec.Spec.WithQuick), validated again; s is unchanged. A spec without
// [quick] runs as is (with its full trial count). A --set that [quick]
// would silently replace is an error (spec.Spec.CheckQuickSets).
func ApplyQuick(s *spec.Spec) (*spec.Spec, error) {
	if err := s.CheckQuickSets(); err != nil {
		return nil, err
	}
	q := s.WithQuick()
	if s.Quick == nil {
		return q, nil
	}
	return resolve(q)
}

// New returns the plan of s (loaded and validated: Load) under o: the cells
// of the grid, expanded once, each with the resolved trial count and its
// mechanism block's pre-processing. A trial count that takes the grid over
// the spec's limits is a *spec.SpecError. It stops with ctx's error when
// ctx is done.
func New(ctx context.Context, s *spec.Spec, o Options) (*Plan, error) {
	c := newChecker(s)
	trials := s.Trials
	if s.Audit != nil && o.Trials > 1 {
		return nil, s.ErrAt("audit", s.Line("audit"), "an audit grid runs one trial per cell (got %d trials per cell): give the runs per side as [audit] runs", o.Trials)
	}
	if o.Trials > 0 && o.Trials != s.Trials {
		trials = o.Trials
		if err := c.checkSizeWith(trials); err != nil {
			return nil, err
		}
	}
	for i := range s.Mechanisms {
		if err := c.validatePipeline(i); err != nil {
			return nil, err
		}
	}
	cells, err := c.expand(ctx)
	if err != nil {
		return nil, err
	}
	for i := range cells {
		cells[i].Trials = trials
		cells[i].Pipeline = c.pipes[cells[i].Mechanism]
	}
	return &Plan{spec: s, cells: cells, trials: trials, pipes: c.pipes}, nil
}

// Spec returns the plan's spec (read-only).
func (p *Plan) Spec() *spec.Spec { return p.spec }

// Cells returns the plan's cells in expansion order: datasets, then
// mechanisms, then sweep points, then ε (read-only; shared, not copied).
func (p *Plan) Cells() []Cell { return p.cells }

// Trials returns the trials per cell: the spec's, or the override the plan
// was made with.
func (p *Plan) Trials() int { return p.trials }

// Preprocessing returns mechanism block mi's pre-processing, or nil when it
// declares none.
func (p *Plan) Preprocessing(mi int) *Pipeline { return p.pipes[mi] }

// checker runs the registries' checks on a spec (validate.go): the spec's
// data with the line lookups of its source (Spec.Line, ErrAt, ErrIn).
type checker struct {
	*spec.Spec
	pipes []*Pipeline // mechanism block i's pre-processing (validatePipeline)
	// warnings are what validate found that a run survives (the resolved
	// spec's Warnings); indexErrs why dataset block i's split indices file
	// could not be read (defaultsOf).
	warnings  []string
	indexErrs map[int]error
}

// newChecker returns a checker of s.
func newChecker(s *spec.Spec) *checker {
	return &checker{Spec: s, pipes: make([]*Pipeline, len(s.Mechanisms))}
}

// CheckData checks dataset block i of s against its declared size: see
// checker.checkData.
func CheckData(s *spec.Spec, i int, dir string) (datasets.Shape, error) {
	return newChecker(s).checkData(i, dir)
}

// MetricsFor returns the spec's metrics that apply to task t: see
// checker.metricsFor.
func MetricsFor(s *spec.Spec, t datasets.Task) []Metric {
	return newChecker(s).metricsFor(t)
}

// Size returns the number of cells and trials s expands to, computed from
// the sweep sizes without expanding anything (saturating at
// math.MaxInt64).
func Size(s *spec.Spec) (cells, trials int64) { return newChecker(s).size() }
