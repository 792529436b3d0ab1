package run

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
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

// selectionLabel returns the results.Selection* label of a tuning spec ("" for
// no tuning).
func selectionLabel(t spec.TuningSpec) string {
	switch {
	case t.Mode == spec.TuneOracle:
		return results.SelectionOracle
	case t.Mode == spec.TunePrivate && t.SelectOn == "test":
		return results.SelectionTest
	case t.Mode == spec.TunePrivate:
		return results.SelectionValidation
	}
	return ""
}

// Assumptions returns what rec's ε rests on but does not account for (see
// above), from the spec, the cell's dataset and the record's ledger and
// relation: nil when the record claims no guarantee (ε spent +Inf).
func Assumptions(s *spec.Spec, c *plan.Cell, rec *results.Record) []string {
	if !c.Private || math.IsInf(float64(rec.Privacy.EpsSpent), 1) {
		return nil
	}
	d := s.DatasetAt(c.Dataset)
	var out []string
	if e, err := datasets.Lookup(d.Name); err == nil {
		out = append(out, e.Info.DataDependent...)
	}
	out = append(out, plan.Scaling(&d).DataDependent()...)
	if n := publicN(s, rec); n != "" {
		out = append(out, n)
	}
	if a := results.SelectionAssumption(rec.Privacy.Selection); a != "" {
		out = append(out, a)
	}
	return out
}

// withRelease returns a followed by the assumptions the fit itself stated
// (mechanisms.Release.Assumptions: statistics it read from the data without
// noise, such as the relative sensitivities and clipping thresholds of
// dgd-rgm and dgd-clip), each once and in order. Like Assumptions it adds
// nothing to a record that claims no guarantee (ε spent +Inf). a is not
// modified (the runner memoises it per cell).
func withRelease(a []string, rel *mechanisms.Release, rec *results.Record) []string {
	if rel == nil || len(rel.Assumptions) == 0 || math.IsInf(float64(rec.Privacy.EpsSpent), 1) {
		return a
	}
	out := slices.Clip(a)
	for _, s := range rel.Assumptions {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// publicN returns the public-n assumption of rec's ledger: under add/remove
// neighbours the training size n differs between neighbours, so a δ rule in
// n, or a sampling rate and step count computed from n (DP-SGD), treats n as
// public. "" when the relation fixes n or nothing reads it.
func publicN(s *spec.Spec, rec *results.Record) string {
	if rec.Privacy.Relation != accounting.RelationAddRemove {
		return ""
	}
	var uses []string
	if s.Delta.ReadsN() {
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

// hasSampledGaussian reports whether the ledger contains a Poisson-sampled
// Gaussian step, whose rate q = batch/n reads n.
func hasSampledGaussian(e accounting.Event) bool {
	found := false
	accounting.Leaves(e, func(leaf accounting.Event, _ float64) {
		if _, ok := leaf.(accounting.PoissonSampledGaussian); ok {
			found = true
		}
	})
	return found
}
