package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"math"
	"strconv"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
)

// cellKeyVersion is bumped when the meaning of a cell key's content changes;
// it invalidates every stored trial.
const cellKeyVersion = 1

// Cell is one point of the grid: a dataset, a mechanism with one point of its
// parameter sweep, and one ε (+Inf for a non-private reference).
type Cell struct {
	Key       string
	Dataset   int // index into Spec.Datasets
	Mechanism int // index into Spec.Mechanisms
	Params    map[string]any
	Label     string // legend label: the mechanism's label plus swept values
	Epsilon   float64
	Private   bool
	Trials    int
	Entry     mechanisms.Entry // the mechanism's registry entry
	// Pipeline is the mechanism block's pre-processing; nil without.
	Pipeline *Pipeline
	// Audit is an audit grid's cell's audit (Dataset is then −1); nil in
	// an experiment.
	Audit *AuditCell
}

// expand returns the spec's cells in a deterministic order: datasets, then
// mechanisms, then sweep points, then ε, each in spec order. Only New
// calls it: every other step reads the plan's
// cells (TestExpandCalledOnlyByPlan). It stops with
// ctx's error when ctx is done, and returns the first error of a value that
// does not expand (validation reports those first, with their positions).
func (s *checker) expand(ctx context.Context) ([]Cell, error) {
	if s.Audit != nil {
		return s.expandAudit(ctx)
	}
	eps, err := s.Epsilon.Floats()
	if err != nil {
		return nil, fmt.Errorf("epsilon: %w", err)
	}
	var cells []Cell
	for di, d := range s.Datasets {
		dsKey := DatasetKey(d)
		for mi, m := range s.Mechanisms {
			if _, out := s.Excluded(di, mi); out {
				continue
			}
			e, err := EntryOf(m)
			if err != nil {
				return nil, fmt.Errorf("mechanism %q: %w", m.Label, err)
			}
			points, swept := m.Params.Points()
			grid := eps
			if !e.Info.Private {
				grid = []float64{math.Inf(1)}
			}
			for _, p := range points {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				label := sweepLabel(m.Label, swept, p)
				for _, epsilon := range grid {
					c := Cell{Dataset: di, Mechanism: mi, Params: p, Label: label, Epsilon: epsilon,
						Private: e.Info.Private, Trials: s.Trials, Entry: e}
					c.Key = s.cellKey(dsKey, m, e.Info, p, epsilon)
					cells = append(cells, c)
				}
			}
		}
	}
	return cells, nil
}

// sweepLabel is a cell's legend label: the block's label, with the swept
// keys' values of its sweep point p ("DP-SGD[lr=0.1]").
func sweepLabel(label string, swept []string, p map[string]any) string {
	if len(swept) == 0 {
		return label
	}
	var parts []string
	for _, k := range swept {
		parts = append(parts, k+"="+spec.FormatValue(p[k]))
	}
	return label + "[" + strings.Join(parts, ",") + "]"
}

// DatasetKey is the canonical JSON of everything that defines a dataset's
// train/test data.
func DatasetKey(d spec.DatasetSpec) string {
	b, _ := json.Marshal(struct {
		Name   string         `json:"name"`
		Params spec.RawTable  `json:"params"`
		Split  spec.SplitSpec `json:"split"`
		Scale  spec.ScaleSpec `json:"scale"`
	}{d.Name, d.Params, d.Split, d.Scale})
	return string(b)
}

// cellKey hashes everything that determines a cell's trials: the base seed,
// the dataset, the mechanism (name, version, params, tuning, pre-processing
// when it has any), ε, the δ rule and the accountant. Labels, titles, figures and tables are not part of it,
// so editing them reuses stored trials.
func (s *checker) cellKey(dsKey string, m spec.MechanismSpec, info mechanisms.Info, params map[string]any, epsilon float64) string {
	tuning, _ := json.Marshal(tuningKey(m.Tuning))
	b, _ := json.Marshal(struct {
		V          int                 `json:"v"`
		Seed       int64               `json:"seed"`
		Dataset    json.RawMessage     `json:"dataset"`
		Mechanism  string              `json:"mechanism"`
		Version    int                 `json:"version"`
		Params     map[string]any      `json:"params"`
		Tuning     json.RawMessage     `json:"tuning"`
		Epsilon    keyFloat            `json:"epsilon"`
		Delta      string              `json:"delta"`
		Accountant spec.AccountantSpec `json:"accountant"`
		// Pre-processing (pipeline.go): omitted when the block has none,
		// so the keys of such cells are unchanged.
		Preprocess json.RawMessage `json:"preprocess,omitempty"`
		// An external mechanism's command, mode, event family and the
		// SHA-256 of its files (external.go): omitted for the others.
		External json.RawMessage `json:"external,omitempty"`
	}{cellKeyVersion, s.Seed, json.RawMessage(dsKey), info.Name, info.Version, params, tuning,
		keyFloat(epsilon), s.Delta.Text, s.Accountant, pipelineKey(m), externalKey(m)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// keyFloat is ε as cell keys have always encoded it: a JSON number, or the
// string "inf" for a non-private reference. (results.Float writes null for
// +Inf since schema 3; a key must not follow an output format, or every
// stored reference cell would rerun.)
type keyFloat float64

// MarshalJSON implements json.Marshaler.
func (x keyFloat) MarshalJSON() ([]byte, error) {
	switch f := float64(x); {
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(f):
		return []byte(`"nan"`), nil
	}
	return strconv.AppendFloat(nil, float64(x), 'g', -1, 64), nil
}

// tuningKey is the part of a tuning spec that changes results.
func tuningKey(t spec.TuningSpec) any {
	if t.Mode == spec.TuneNone || t.Mode == "" {
		return nil
	}
	cands := map[string][]any{}
	for _, k := range t.Candidates.Keys {
		cands[k] = t.Candidates.Values[k].List
	}
	return struct {
		Mode, Distribution, SelectOn, Metric, Sample string
		Mean, Shape                                  float64
		Candidates                                   map[string][]any
	}{t.Mode, t.Distribution, t.SelectOn, t.Metric, t.Sample, t.Mean, t.Shape, cands}
}

// metricsFor returns the metrics recorded for a dataset of task t: the
// spec's list restricted to the task, or all of the task's metrics.
func (s *checker) metricsFor(t datasets.Task) []Metric {
	names := s.Metrics
	if len(names) == 0 {
		names = DefaultMetrics(t)
	}
	var out []Metric
	for _, n := range names {
		if m, ok := LookupMetric(n); ok && m.Task == t {
			out = append(out, m)
		}
	}
	return out
}

func limDataBytes(l spec.Limits) int64 {
	if l.MaxDataBytes > 0 {
		return l.MaxDataBytes
	}
	return spec.DefaultMaxDataBytes
}

func limCells(l spec.Limits) int64 {
	if l.MaxCells > 0 {
		return l.MaxCells
	}
	return spec.DefaultMaxCells
}

func limTrials(l spec.Limits) int64 {
	if l.MaxTrials > 0 {
		return l.MaxTrials
	}
	return spec.DefaultMaxTrials
}

// mulSat returns a·b for a, b ≥ 0, saturating at math.MaxInt64.
func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// addSat returns a+b for a, b ≥ 0, saturating at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// count returns the number of points of the table's sweep (the product of
// its lists' lengths), saturating, without building them.
func pointCount(p spec.ParamTable) int64 {
	n := int64(1)
	for _, k := range p.Keys {
		n = mulSat(n, int64(len(p.Values[k].List)))
	}
	return n
}

// mechanismCells returns the number of cells of mechanism block i on one
// dataset. An unknown mechanism counts as private (its name is an error
// reported separately).
func (s *checker) mechanismCells(i int) int64 {
	m := s.Mechanisms[i]
	eps := int64(len(s.Epsilon.List))
	if e, err := EntryOf(m); err == nil && !e.Info.Private {
		eps = 1
	}
	return mulSat(pointCount(m.Params), eps)
}

// size returns the number of cells and trials the spec expands to,
// computed from the sweep sizes without expanding anything (saturating at
// math.MaxInt64).
func (s *checker) size() (cells, trials int64) {
	for i := range s.Mechanisms {
		on := int64(len(s.Datasets))
		if s.Audit != nil {
			on = 1 // an audit grid's cells have no dataset
		}
		for di := range s.Datasets {
			if _, out := s.Excluded(di, i); out {
				on--
			}
		}
		cells = addSat(cells, mulSat(on, s.mechanismCells(i)))
	}
	return cells, mulSat(cells, int64(max(s.Trials, 0)))
}

// checkSize checks the grid against the limits the spec was loaded with
// (LoadOptions.Limits): the cells, the trials and each mechanism's tuning
// grid. Its error is a *SpecError.
func (s *checker) checkSize() error { return s.checkSizeWith(s.Trials) }

// checkSizeWith is checkSize with perCell trials per cell (a --trials
// override: New).
func (s *checker) checkSizeWith(perCell int) error {
	lim := s.Options().Limits
	cells, _ := s.size()
	trials := mulSat(cells, int64(max(perCell, 0)))
	if cells > limCells(lim) {
		// Name the block that contributes most.
		big, most := 0, int64(-1)
		for i := range s.Mechanisms {
			if c := s.mechanismCells(i); c > most {
				big, most = i, c
			}
		}
		return s.ErrIn("mechanism", big, "params",
			"the spec expands to %s cells (%d dataset(s) × each mechanism's sweep points × ε; mechanism[%d] %q alone has %s per dataset), above the limit of %d cells: narrow the sweeps, or raise the limit with --max-cells",
			countText(cells), len(s.Datasets), big, s.Mechanisms[big].Name, countText(most), limCells(lim))
	}
	if trials > limTrials(lim) {
		return s.ErrAt("trials", s.Line("trials"),
			"the spec has %s cells × %d trials = %s trials, above the limit of %d trials: lower trials, or raise the limit with --max-trials",
			countText(cells), perCell, countText(trials), limTrials(lim))
	}
	for i, m := range s.Mechanisms {
		if m.Tuning.Mode == "" || m.Tuning.Mode == spec.TuneNone {
			continue
		}
		if g := mulSat(pointCount(m.Params), pointCount(m.Tuning.Candidates)); g > limCells(lim) {
			return s.ErrIn("mechanism", i, "tuning.candidates",
				"%s sweep points × %s candidates = %s tuning configurations, above the limit of %d: narrow the candidates, or raise the limit with --max-cells",
				countText(pointCount(m.Params)), countText(pointCount(m.Tuning.Candidates)), countText(g), limCells(lim))
		}
	}
	return nil
}

// countText prints a saturated count as "more than 9223372036854775806".
func countText(n int64) string {
	if n == math.MaxInt64 {
		return "more than 9.2e18"
	}
	return strconv.FormatInt(n, 10)
}
