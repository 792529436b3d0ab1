package experiments

import (
	"fmt"
	"math"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// What a recorded ε does not cover. The ledger accounts for the noise a
// mechanism adds; it does not account for (1) statistics the preprocessing
// reads from the data without noise (the loader's, datasets.Info
// .DataDependent, and the spec's scaling, datasets.Scaling.DataDependent),
// (2) the training size n, which add/remove neighbours change but which δ
// rules and DP-SGD's sampling rate read as if it were public, and (3) rows a
// tuning selection scores without noise. Each trial lists them in
// Privacy.Assumptions and every figure and table footnote repeats them.

// Assumption phrases of a tuning selection: the scored rows are treated as
// public.
const (
	assumeValidationPublic = "validation rows treated as public: the tuning selection scores runs on them without noise"
	assumeTestPublic       = "test rows treated as public: the tuning selection scores runs on them without noise (the published protocol)"
)

// selectionLabel returns the results.Selection* label of a tuning spec ("" for
// no tuning).
func selectionLabel(t TuningSpec) string {
	switch {
	case t.Mode == TuneOracle:
		return results.SelectionOracle
	case t.Mode == TunePrivate && t.SelectOn == "test":
		return results.SelectionTest
	case t.Mode == TunePrivate:
		return results.SelectionValidation
	}
	return ""
}

// assumptions returns what rec's ε rests on but does not account for (see
// above), from the spec, the cell's dataset and the record's ledger and
// relation: nil when the record claims no guarantee (ε spent +Inf).
func (s *Spec) assumptions(c *Cell, rec *results.Record) []string {
	if !c.Private || math.IsInf(float64(rec.Privacy.EpsSpent), 1) {
		return nil
	}
	d := s.Datasets[c.Dataset]
	var out []string
	if e, err := datasets.Lookup(d.Name); err == nil {
		out = append(out, e.Info.DataDependent...)
	}
	out = append(out, d.scaling().DataDependent()...)
	if n := s.publicN(rec); n != "" {
		out = append(out, n)
	}
	switch rec.Privacy.Selection {
	case results.SelectionValidation:
		out = append(out, assumeValidationPublic)
	case results.SelectionTest:
		out = append(out, assumeTestPublic)
	}
	return out
}

// publicN returns the public-n assumption of rec's ledger: under add/remove
// neighbours the training size n differs between neighbours, so a δ rule in
// n, or a sampling rate and step count computed from n (DP-SGD), treats n as
// public. "" when the relation fixes n or nothing reads it.
func (s *Spec) publicN(rec *results.Record) string {
	if rec.Privacy.Relation != accounting.RelationAddRemove {
		return ""
	}
	var uses []string
	if deltaReadsN(s.Delta) {
		uses = append(uses, "δ = "+s.Delta.Text)
	}
	if ev, err := accounting.UnmarshalEvent(rec.Privacy.Event); err == nil && hasSampledGaussian(ev) {
		uses = append(uses, "the sampling rate q and step count")
	}
	if len(uses) == 0 {
		return ""
	}
	return fmt.Sprintf("public n: the training size n, which sets %s, is treated as public (add/remove neighbours)", strings.Join(uses, " and "))
}

// deltaReadsN reports whether the δ rule's value changes with n (at a fixed
// d) anywhere on a grid of n up to 10⁹: a rule such as min(1e-6, 0.01/n) is
// flat for small n but still reads it (DeltaRule.Constant, which compares two
// small points, would call it constant).
func deltaReadsN(r DeltaRule) bool {
	if r.expr == nil {
		return false
	}
	ns := []int{1, 2, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 1000000000}
	first, _ := r.Eval(ns[0], 10)
	for _, n := range ns[1:] {
		if v, _ := r.Eval(n, 10); v != first {
			return true
		}
	}
	return false
}

// hasSampledGaussian reports whether the ledger contains a Poisson-sampled
// Gaussian step, whose rate q = batch/n reads n.
func hasSampledGaussian(e accounting.Event) bool {
	switch e := e.(type) {
	case accounting.PoissonSampledGaussian:
		return true
	case accounting.SelfComposed:
		return hasSampledGaussian(e.Event)
	case accounting.RepeatAndSelect:
		return hasSampledGaussian(e.Event)
	case accounting.Composed:
		for _, x := range e.Events {
			if hasSampledGaussian(x) {
				return true
			}
		}
	}
	return false
}
