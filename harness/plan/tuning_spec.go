package plan

import (
	"github.com/dplab/dplab/harness/spec"
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

func (s *checker) validateTuning(i int, e mechanisms.Entry) error {
	t := s.Mechanisms[i].Tuning // with its defaults (tuningDefaults)
	switch t.Mode {
	case spec.TuneNone:
		if len(t.Candidates.Keys) > 0 {
			return s.ErrIn("mechanism", i, "tuning.candidates", "candidates need tuning mode \"oracle\" or \"private\"")
		}
		return nil
	case spec.TuneOracle, spec.TunePrivate:
	default:
		return s.ErrIn("mechanism", i, "tuning.mode", "tuning mode %q: want none, oracle or private", t.Mode)
	}
	if !e.Info.Private {
		return s.ErrIn("mechanism", i, "tuning.mode", "mechanism %q is not private; tune only private mechanisms", e.Info.Name)
	}
	if len(t.Candidates.Keys) == 0 {
		return s.ErrIn("mechanism", i, "tuning.candidates", "tuning needs candidates, e.g. candidates = { learning_rate = { logspace = [-8, -1, 10] } }")
	}
	for _, k := range t.Candidates.Keys {
		if dup, ok := duplicateValue(t.Candidates.Values[k].List); ok {
			return s.ErrIn("mechanism", i, "tuning.candidates."+k, "%s = %s appears twice among the candidates", k, spec.FormatValue(dup))
		}
		// The candidate overrides the fixed value in every run, while the
		// cell's params (its key, legend and records' p_mech) would still
		// show the fixed one.
		if _, fixed := s.Mechanisms[i].Params.Values[k]; fixed {
			return s.ErrIn("mechanism", i, "tuning.candidates."+k, "%s is both a param (params.%s) and a tuning candidate, which would override it in every run: drop one of them", k, k)
		}
	}
	if j := s.allRows(); j >= 0 {
		return s.ErrIn("dataset", j, "split.all", "mechanism %q is tuned (mode %q), which scores candidates on a validation or test part, but dataset %q has split.all = true (every row trains): tune in a spec with a split", s.Mechanisms[i].Label, t.Mode, s.Datasets[j].Label)
	}
	if t.Mode == spec.TuneOracle {
		// Oracle tuning is by definition the best candidate on the test set.
		if t.SelectOn != "" && t.SelectOn != "test" {
			return s.ErrIn("mechanism", i, "tuning.select_on", "oracle tuning selects on the test set (that is what makes it non-private); use mode = \"private\" to select on a validation split")
		}
	}
	switch t.SelectOn {
	case "validation":
		for j, d := range s.Datasets {
			if d.Split.Validation <= 0 {
				return s.ErrIn("dataset", j, "split.validation", "mechanism %q selects on a validation split: set split.validation > 0 for dataset %q (or select_on = \"test\", the published protocol)", s.Mechanisms[i].Label, d.Label)
			}
		}
	case "test":
	default:
		return s.ErrIn("mechanism", i, "tuning.select_on", "select_on %q: want validation or test", t.SelectOn)
	}
	if t.Metric != "" {
		m, ok := LookupMetric(t.Metric)
		if !ok {
			return s.ErrIn("mechanism", i, "tuning.metric", "%s", unknownMetric(t.Metric))
		}
		for _, d := range s.Datasets {
			de, _ := datasets.Lookup(d.Name)
			if de.Info.Task != m.Task {
				return s.ErrIn("mechanism", i, "tuning.metric", "metric %q is for %s data but dataset %q is %s", t.Metric, m.Task, d.Label, de.Info.Task)
			}
		}
	}
	if t.Sample != "grid" && t.Sample != "loguniform" {
		return s.ErrIn("mechanism", i, "tuning.sample", "sample %q: want grid or loguniform", t.Sample)
	}
	if t.Sample == "loguniform" {
		for _, k := range t.Candidates.Keys {
			vals, err := t.Candidates.Values[k].Floats()
			if err != nil {
				return s.ErrIn("mechanism", i, "tuning.candidates."+k, "loguniform sampling needs numeric candidates: %v", err)
			}
			for _, v := range vals {
				if !(v > 0) {
					return s.ErrIn("mechanism", i, "tuning.candidates."+k, "loguniform sampling needs positive candidates, got %v", v)
				}
			}
		}
	}
	if t.Mode == spec.TuneOracle {
		return s.checkTuningGrid(i, e)
	}
	if _, err := accounting.ParseDistribution(t.Distribution); err != nil {
		return s.ErrIn("mechanism", i, "tuning.distribution", "%v", err)
	}
	if t.Mean == 0 {
		return s.ErrIn("mechanism", i, "tuning.mean", "mean is not set: private tuning needs the mean number of runs E[K], in [1, %d] (every trial fits about mean candidates; the paper uses 15.4066 for Poisson)", MaxTuningMean)
	}
	if !(t.Mean >= 1 && t.Mean <= MaxTuningMean) {
		return s.ErrIn("mechanism", i, "tuning.mean", "mean = %v: private tuning needs the mean number of runs E[K] in [1, %d] (every trial fits about mean candidates; the paper uses 15.4066 for Poisson)", t.Mean, MaxTuningMean)
	}
	dist, _ := accounting.ParseDistribution(t.Distribution)
	if dist == accounting.TruncatedNegativeBinomial && !(t.Shape > 0 && !math.IsInf(t.Shape, 0)) {
		return s.ErrIn("mechanism", i, "tuning.shape", "shape = %v: the truncated negative binomial needs a finite shape η > 0", t.Shape)
	}
	if t.Shape < 0 || math.IsNaN(t.Shape) || math.IsInf(t.Shape, 0) {
		return s.ErrIn("mechanism", i, "tuning.shape", "shape = %v must be finite and ≥ 0", t.Shape)
	}
	return s.checkTuningGrid(i, e)
}

// checkTuningGrid builds the mechanism at every (sweep point, candidate)
// pair the tuning may fit and checks each one's ledger against the spec's
// accountant (with the private-tuning wrap). An error names the candidate
// key at fault when the message names one.
func (s *checker) checkTuningGrid(i int, e mechanisms.Entry) error {
	t := s.Mechanisms[i].Tuning
	var err2 error
	s.Mechanisms[i].Params.EachPoint(func(b map[string]any) bool {
		t.Candidates.EachPoint(func(c map[string]any) bool {
			if err2 = s.canceled(); err2 != nil {
				return false
			}
			mech, key, err := buildMechanism(e, spec.MergeParams(b, c))
			if err != nil {
				path := "tuning.candidates"
				if hasKey(b, key) && !hasKey(c, key) {
					path = "params"
				}
				err2 = s.ErrIn("mechanism", i, paramPath(path, key), "%v", err)
				return false
			}
			err2 = s.checkLedger(i, mech)
			return err2 == nil
		})
		return err2 == nil
	})
	return err2
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// MaxTuningMean bounds private tuning's mean number of runs E[K]: each trial
// makes K fits, and the distributions' tails go well beyond the mean
// (Papernot–Steinke's experiments use means up to about 100).
const MaxTuningMean = 1000

// PrivateWrap returns the Budget.Wrap of private tuning t (the
// Papernot–Steinke repeat-and-select event around one run's event). t must
// be valid.
func PrivateWrap(t spec.TuningSpec) func(accounting.Event) accounting.Event {
	dist, _ := accounting.ParseDistribution(t.Distribution)
	return func(e accounting.Event) accounting.Event {
		return accounting.RepeatAndSelect{Event: e, Distribution: dist, Mean: t.Mean, Shape: t.Shape}
	}
}

// ComposeWraps returns the Budget.Wrap outer ∘ inner (nil is the identity):
// private tuning's repeat-and-select (outer) around one pre-processed run
// (inner).
func ComposeWraps(outer, inner func(accounting.Event) accounting.Event) func(accounting.Event) accounting.Event {
	switch {
	case outer == nil:
		return inner
	case inner == nil:
		return outer
	}
	return func(e accounting.Event) accounting.Event { return outer(inner(e)) }
}
