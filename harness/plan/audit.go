package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
)

// MaxAuditRuns is the most runs per side an audit takes: each side keeps
// one score per run (10^7 runs: 160 MB for both), and 2^63 − 1 panicked
// allocating them (package audit's MaxTrials).
const MaxAuditRuns = 10_000_000

// The names under which an audit grid's trial stores its audit: the
// bound, the claim and the held-out errors as metrics
// (results.Record.Metrics), the test and its size as diagnostics
// (Record.Diagnostics).
const (
	MetricAuditLowerBound = "audit_lower_bound"     // the lower bound on ε, valid with the cell's confidence
	MetricAuditClaimed    = "audit_claimed_epsilon" // the ε the mechanism's ledger claims at δ
	MetricAuditFP         = "audit_false_positives" // held-out D₀ runs the test called D₁
	MetricAuditFN         = "audit_false_negatives" // held-out D₁ runs the test called D₀

	DiagAuditConfidence = "audit_confidence"
	DiagAuditRuns       = "audit_runs"       // runs per side
	DiagAuditEvaluation = "audit_evaluation" // held-out runs per side
	DiagAuditAlphaUpper = "audit_alpha_upper"
	DiagAuditBetaUpper  = "audit_beta_upper"
	DiagAuditThreshold  = "audit_threshold" // the test: D₁ when sign·statistic ≥ threshold
	DiagAuditSign       = "audit_sign"
)

// DefaultAuditConfidence is the confidence of an audit's lower bound when
// the [audit] table gives none.
const DefaultAuditConfidence = 0.95

// validateAudit checks an audit grid (a spec with an [audit] table): its
// header, its [[mechanism]] blocks (an audit target each: harness/run
// builds them, package audit knows the targets) and its outputs, with the
// defaults of defaultsOf: one trial per cell, confidence 0.95, a block's
// label its name (its runs are the table's: AuditRuns).
func (s *checker) validateAudit() error {
	a := s.Audit
	switch {
	case len(s.Datasets) > 0:
		return s.ErrIn("dataset", 0, "", "an audit grid ([audit]) builds its own worst-case pairs: it takes no [[dataset]] blocks")
	case len(s.Curves) > 0:
		return s.ErrIn("curve", 0, "", "an audit grid ([audit]) takes no [[curve]] blocks")
	case len(s.Claims) > 0:
		return s.ErrIn("claim", 0, "", "an audit grid ([audit]) takes no [[claim]] blocks")
	case s.Trials > 1:
		return s.ErrAt("trials", s.Line("trials"), "an audit grid runs one trial per cell: give the runs per side as [audit] runs, not trials")
	case len(s.Metrics) > 0:
		return s.ErrAt("metrics", s.Line("metrics"), "an audit grid's metrics are the audit's: leave metrics out")
	}
	if !(a.Confidence > 0 && a.Confidence < 1) {
		return s.ErrAt("audit.confidence", s.Line("audit.confidence"), "confidence must be in (0, 1), got %v", a.Confidence)
	}
	if err := CheckAuditRuns(a.Runs); err != nil {
		return s.ErrAt("audit.runs", s.Line("audit.runs"), "%v", err)
	}
	if err := s.checkEpsilons("epsilon", s.Epsilon); err != nil {
		return err
	}
	if eps, _ := s.Epsilon.Floats(); len(eps) == 0 {
		return s.ErrAt("epsilon", s.Line("epsilon"), "an audit grid needs an ε grid")
	}
	if !s.Delta.Set() {
		return s.ErrAt("delta", 0, "δ is required (a number in (0, 1))")
	}
	if err := s.Delta.Check(); err != nil {
		return s.ErrAt("delta", s.Line("delta"), "%v", err)
	}
	if !s.Delta.Constant() {
		return s.ErrAt("delta", s.Line("delta"), "an audit grid's δ must be a number: its pairs' sizes are the audits' own, not a dataset's")
	}
	if len(s.Mechanisms) == 0 {
		return s.ErrAt("mechanism", 0, "at least one [[mechanism]] is required")
	}
	labels := map[string]bool{}
	for i := range s.Mechanisms {
		m := s.Mechanisms[i]
		switch {
		case m.Name == "":
			return s.ErrIn("mechanism", i, "name", "an audit target's name is required")
		case m.Tuning.Mode != "" && m.Tuning.Mode != spec.TuneNone:
			return s.ErrIn("mechanism", i, "tuning", "an audit runs the mechanism as declared: no tuning")
		case len(m.Preprocess) > 0 || m.Pipeline != nil:
			return s.ErrIn("mechanism", i, "preprocess", "an audit's pipelines are audit targets (e.g. \"dpgd+quantize\"), not preprocess keys")
		case len(m.Exclude) > 0:
			return s.ErrIn("mechanism", i, "exclude", "an audit grid has no datasets to exclude")
		}
		if labels[m.Label] {
			return s.ErrIn("mechanism", i, "label", "duplicate mechanism label %q; give each [[mechanism]] its own label", m.Label)
		}
		labels[m.Label] = true
		if err := s.validateExternal(i); err != nil {
			return err
		}
		if m.Runs != 0 {
			if err := CheckAuditRuns(m.Runs); err != nil {
				return s.ErrIn("mechanism", i, "runs", "%v", err)
			}
		}
	}
	if err := s.checkSize(); err != nil {
		return err
	}
	if err := s.checkOutputs(); err != nil {
		return err
	}
	if q := s.Quick; q != nil {
		if q.Runs != 0 {
			if err := CheckAuditRuns(q.Runs); err != nil {
				return s.ErrAt("quick.runs", s.Line("quick.runs"), "%v", err)
			}
		}
		if q.Trials != 0 || len(q.Datasets) > 0 || len(q.DatasetParams) > 0 {
			return s.ErrAt("quick", s.Line("quick"), "an audit grid's [quick] takes runs, epsilon, mechanisms and params only")
		}
	}
	return s.validateQuick()
}

// CheckAuditRuns returns an error unless 4 ≤ n ≤ MaxAuditRuns runs per side.
func CheckAuditRuns(n int) error {
	if n < 4 || n > MaxAuditRuns {
		return fmt.Errorf("want 4..%d runs per side, got %d", MaxAuditRuns, n)
	}
	return nil
}

// AuditRuns returns the runs per side of mechanism block mi of an audit
// grid: its own runs key, or the [audit] table's.
func AuditRuns(s *spec.Spec, mi int) int {
	if r := s.Mechanisms[mi].Runs; r > 0 {
		return r
	}
	return s.Audit.Runs
}

// expandAudit returns an audit grid's cells: mechanisms, then sweep points,
// then ε, each in spec order; Dataset is −1 (an audit builds its own
// pairs) and Trials 1 (one audit per cell).
func (s *checker) expandAudit(ctx context.Context) ([]Cell, error) {
	eps, err := s.Epsilon.Floats()
	if err != nil {
		return nil, fmt.Errorf("epsilon: %w", err)
	}
	var cells []Cell
	for mi, m := range s.Mechanisms {
		var entry mechanisms.Entry
		if m.External != nil {
			// An external target: harness/run audits the entry its table
			// configures (the registry knows the others by name).
			if entry, err = EntryOf(m); err != nil {
				return nil, err
			}
		}
		points, swept := m.Params.Points()
		for _, p := range points {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			label := sweepLabel(m.Label, swept, p)
			for _, e := range eps {
				c := Cell{Dataset: -1, Mechanism: mi, Params: p, Label: label, Epsilon: e, Private: true, Trials: 1, Entry: entry,
					Audit: &AuditCell{Runs: AuditRuns(s.Spec, mi), Confidence: s.Audit.Confidence}}
				c.Key = s.auditKey(m, p, e, c.Audit)
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// AuditCell is what an audit grid's cell adds to a cell: the audit's runs
// per side and the confidence of its lower bound.
type AuditCell struct {
	Runs       int
	Confidence float64
}

// auditedMechanism is the registered mechanism an audit target audits: the
// target's name up to a further pair ("ptr-pca-dpgd/gradient") or a
// pipeline's steps ("dpgd+quantize"); no registered name holds '/' or '+'.
func auditedMechanism(target string) string {
	if i := strings.IndexAny(target, "/+"); i >= 0 {
		return target[:i]
	}
	return target
}

// auditKey hashes everything an audit cell's result depends on: the base
// seed, the target's name and the version its mechanism declares, its
// params, ε, δ, the runs per side and the confidence, and an external
// target's command and files (externalKey). (The audit's pair and statistic
// are the target's declaration, covered by the version.)
func (s *checker) auditKey(m spec.MechanismSpec, params map[string]any, epsilon float64, a *AuditCell) string {
	name := m.Name
	version := 0
	if e, err := mechanisms.Lookup(auditedMechanism(name)); err == nil {
		version = e.Info.Version
	}
	b, _ := json.Marshal(struct {
		V          string         `json:"v"`
		Seed       int64          `json:"seed"`
		Target     string         `json:"target"`
		Version    int            `json:"version"`
		Params     map[string]any `json:"params"`
		Epsilon    keyFloat       `json:"epsilon"`
		Delta      string         `json:"delta"`
		Runs       int            `json:"runs"`
		Confidence float64        `json:"confidence"`
		// Omitted for registered targets, so that their keys are unchanged.
		External json.RawMessage `json:"external,omitempty"`
	}{fmt.Sprintf("audit-%d", cellKeyVersion), s.Seed, name, version, params, keyFloat(epsilon), s.Delta.Text, a.Runs, a.Confidence, externalKey(m)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}
