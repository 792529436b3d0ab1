package plan

import (
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms/external"
)

// predictionsKey is what an external table's output adds to its cells'
// keys: "predictions", or nothing for a linear model (the keys of specs
// written before outputs existed stay).
func predictionsKey(x *spec.ExternalSpec) string {
	if x.Output == external.OutputPredictions {
		return x.Output
	}
	return ""
}

// validatePredictions refuses what an external block i of output
// "predictions" cannot do: be scored by a metric that needs a linear model
// (the spec's metrics, its tuning's selection metric), fit behind
// pre-processing (its predictions would be on rows the pipeline did not
// map), or be audited (the audit's statistic is ⟨θ, x*⟩).
func (s *checker) validatePredictions(i int) error {
	m := s.Mechanisms[i]
	if m.External.Output != external.OutputPredictions {
		return nil
	}
	why := "mechanism %q answers with predictions (external.output = \"predictions\"), but metric %q (%s) is computed from a linear model's θ: leave it out of %s or give the block a linear output"
	for _, name := range s.Metrics {
		if mt, ok := LookupMetric(name); ok && mt.Linear {
			return s.ErrIn("mechanism", i, "external.output", why, m.Label, name, mt.Title, "metrics")
		}
	}
	if mt, ok := LookupMetric(m.Tuning.Metric); ok && mt.Linear {
		return s.ErrIn("mechanism", i, "external.output", why, m.Label, mt.Name, mt.Title, "tuning.metric")
	}
	if len(m.Preprocess) > 0 || m.Pipeline != nil {
		return s.ErrIn("mechanism", i, "external.output", "mechanism %q answers with predictions: it cannot run behind preprocess (its predictions would be on rows the pipeline did not map)", m.Label)
	}
	if s.Audit != nil {
		return s.ErrIn("mechanism", i, "external.output", "mechanism %q answers with predictions: it cannot be audited (an audit's statistic is ⟨θ, x*⟩ of a linear model)", m.Label)
	}
	return nil
}
