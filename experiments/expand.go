package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
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
	entry     mechanisms.Entry
}

// Expand returns the spec's cells in a deterministic order: datasets, then
// mechanisms, then sweep points, then ε, each in spec order.
func (s *Spec) Expand() []Cell {
	eps, _ := s.Epsilon.Floats()
	var cells []Cell
	for di, d := range s.Datasets {
		dsKey := datasetKey(d)
		for mi, m := range s.Mechanisms {
			e, _ := mechanisms.Lookup(m.Name)
			points, swept := m.Params.Points()
			grid := eps
			if !e.Info.Private {
				grid = []float64{math.Inf(1)}
			}
			for _, p := range points {
				label := m.Label
				if len(swept) > 0 {
					var parts []string
					for _, k := range swept {
						parts = append(parts, k+"="+formatValue(p[k]))
					}
					label += "[" + strings.Join(parts, ",") + "]"
				}
				for _, epsilon := range grid {
					c := Cell{Dataset: di, Mechanism: mi, Params: p, Label: label, Epsilon: epsilon,
						Private: e.Info.Private, Trials: s.Trials, entry: e}
					c.Key = s.cellKey(dsKey, m, e.Info, p, epsilon)
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// datasetKey is the canonical JSON of everything that defines a dataset's
// train/test data.
func datasetKey(d DatasetSpec) string {
	b, _ := json.Marshal(struct {
		Name   string    `json:"name"`
		Params RawTable  `json:"params"`
		Split  SplitSpec `json:"split"`
		Scale  ScaleSpec `json:"scale"`
	}{d.Name, d.Params, d.Split, d.Scale})
	return string(b)
}

// cellKey hashes everything that determines a cell's trials: the base seed,
// the dataset, the mechanism (name, version, params, tuning), ε, the δ rule
// and the accountant. Labels, titles, figures and tables are not part of it,
// so editing them reuses stored trials.
func (s *Spec) cellKey(dsKey string, m MechanismSpec, info mechanisms.Info, params map[string]any, epsilon float64) string {
	tuning, _ := json.Marshal(tuningKey(m.Tuning))
	b, _ := json.Marshal(struct {
		V          int             `json:"v"`
		Seed       int64           `json:"seed"`
		Dataset    json.RawMessage `json:"dataset"`
		Mechanism  string          `json:"mechanism"`
		Version    int             `json:"version"`
		Params     map[string]any  `json:"params"`
		Tuning     json.RawMessage `json:"tuning"`
		Epsilon    results.Float   `json:"epsilon"`
		Delta      string          `json:"delta"`
		Accountant AccountantSpec  `json:"accountant"`
	}{cellKeyVersion, s.Seed, json.RawMessage(dsKey), info.Name, info.Version, params, tuning,
		results.Float(epsilon), s.Delta.Text, s.Accountant})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// tuningKey is the part of a tuning spec that changes results.
func tuningKey(t TuningSpec) any {
	if t.Mode == TuneNone || t.Mode == "" {
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
func (s *Spec) metricsFor(t datasets.Task) []metric {
	names := s.Metrics
	if len(names) == 0 {
		names = defaultMetrics(t)
	}
	var out []metric
	for _, n := range names {
		if m, ok := lookupMetric(n); ok && m.Task == t {
			out = append(out, m)
		}
	}
	return out
}
