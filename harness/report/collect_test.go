package report

import (
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// newView returns the view of recs, records in store order, as a render
// draws it.
func newView(s *spec.Spec, recs []results.Record) (*view, error) {
	c, err := collectorOf(s)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		c.Add(&recs[i])
	}
	return c.view(), nil
}
