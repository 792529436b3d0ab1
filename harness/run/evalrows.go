package run

import (
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/mechanisms"
)

// evalRows returns the parts of data that trial c scores its release on:
// those its metrics read and its tuning selection's. The fit's context
// carries them (mechanisms.WithEvalRows), for a mechanism that answers
// with predictions on them instead of a model (an external block of
// output "predictions").
func (r *runner) evalRows(c *plan.Cell, data *split) mechanisms.EvalRows {
	var e mechanisms.EvalRows
	set := func(part string) {
		switch part {
		case "train":
			e.Train = data.train
		case "validation":
			e.Validation = data.val
		default:
			e.Test = data.test
		}
	}
	for _, m := range r.metricsFor(data.train.Task) {
		set(m.On)
	}
	if t := r.spec.Mechanisms[c.Mechanism].Tuning; t.Mode == spec.TuneOracle || t.Mode == spec.TunePrivate {
		if _, part := r.selection(t, data); part == data.val {
			e.Validation = part
		} else {
			e.Test = part
		}
	}
	return e
}
