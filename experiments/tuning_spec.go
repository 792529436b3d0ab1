package experiments

import (
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Tuning modes.
const (
	TuneNone    = "none"
	TuneOracle  = "oracle"
	TunePrivate = "private"
)

func (s *Spec) validateTuning(i int, e mechanisms.Entry) error {
	t := &s.Mechanisms[i].Tuning
	if t.Mode == "" {
		t.Mode = TuneNone
	}
	switch t.Mode {
	case TuneNone:
		if len(t.Candidates.Keys) > 0 {
			return s.errIn("mechanism", i, "tuning.candidates", "candidates need tuning mode \"oracle\" or \"private\"")
		}
		return nil
	case TuneOracle, TunePrivate:
	default:
		return s.errIn("mechanism", i, "tuning.mode", "tuning mode %q: want none, oracle or private", t.Mode)
	}
	if !e.Info.Private {
		return s.errIn("mechanism", i, "tuning.mode", "mechanism %q is not private; tune only private mechanisms", e.Info.Name)
	}
	if len(t.Candidates.Keys) == 0 {
		return s.errIn("mechanism", i, "tuning.candidates", "tuning needs candidates, e.g. candidates = { learning_rate = { logspace = [-8, -1, 10] } }")
	}
	base, _ := s.Mechanisms[i].Params.Points()
	cands, _ := t.Candidates.Points()
	for _, b := range base {
		for _, c := range cands {
			point := map[string]any{}
			for k, v := range b {
				point[k] = v
			}
			for k, v := range c {
				point[k] = v
			}
			if key, err := buildMechanism(e, point); err != nil {
				return s.errIn("mechanism", i, "tuning.candidates."+key, "%v", err)
			}
		}
	}
	if t.Mode == TuneOracle {
		// Oracle tuning is by definition the best candidate on the test set.
		if t.SelectOn != "" && t.SelectOn != "test" {
			return s.errIn("mechanism", i, "tuning.select_on", "oracle tuning selects on the test set (that is what makes it non-private); use mode = \"private\" to select on a validation split")
		}
		t.SelectOn = "test"
	}
	if t.SelectOn == "" {
		t.SelectOn = "validation"
	}
	switch t.SelectOn {
	case "validation":
		for j, d := range s.Datasets {
			if d.Split.Validation <= 0 {
				return s.errIn("dataset", j, "split.validation", "mechanism %q selects on a validation split: set split.validation > 0 for dataset %q (or select_on = \"test\", the published protocol)", s.Mechanisms[i].Label, d.Label)
			}
		}
	case "test":
	default:
		return s.errIn("mechanism", i, "tuning.select_on", "select_on %q: want validation or test", t.SelectOn)
	}
	if t.Metric != "" {
		m, ok := lookupMetric(t.Metric)
		if !ok {
			return s.errIn("mechanism", i, "tuning.metric", "unknown metric %q (known: %s)", t.Metric, metricNames())
		}
		for _, d := range s.Datasets {
			de, _ := datasets.Lookup(d.Name)
			if de.Info.Task != m.Task {
				return s.errIn("mechanism", i, "tuning.metric", "metric %q is for %s data but dataset %q is %s", t.Metric, m.Task, d.Label, de.Info.Task)
			}
		}
	}
	if t.Sample == "" {
		t.Sample = "grid"
	}
	if t.Sample != "grid" && t.Sample != "loguniform" {
		return s.errIn("mechanism", i, "tuning.sample", "sample %q: want grid or loguniform", t.Sample)
	}
	if t.Sample == "loguniform" {
		for _, k := range t.Candidates.Keys {
			vals, err := t.Candidates.Values[k].Floats()
			if err != nil {
				return s.errIn("mechanism", i, "tuning.candidates."+k, "loguniform sampling needs numeric candidates: %v", err)
			}
			for _, v := range vals {
				if !(v > 0) {
					return s.errIn("mechanism", i, "tuning.candidates."+k, "loguniform sampling needs positive candidates, got %v", v)
				}
			}
		}
	}
	if t.Mode == TuneOracle {
		return nil
	}
	if t.Distribution == "" {
		t.Distribution = "poisson"
	}
	if _, err := accounting.ParseDistribution(t.Distribution); err != nil {
		return s.errIn("mechanism", i, "tuning.distribution", "%v", err)
	}
	if !(t.Mean > 0) || math.IsInf(t.Mean, 0) {
		return s.errIn("mechanism", i, "tuning.mean", "private tuning needs the mean number of runs, mean > 0 (the paper uses 15.4066 for Poisson)")
	}
	if t.Shape < 0 || math.IsNaN(t.Shape) {
		return s.errIn("mechanism", i, "tuning.shape", "shape must be ≥ 0")
	}
	return nil
}
