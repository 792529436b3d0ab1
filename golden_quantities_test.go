package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
)

// checkQuantityLabels fails when a record of dir holds a noise parameter or
// a diagnostic that the tables would print under its raw key: every key a
// spec's run stores has a column label in the paper's (or the authors'
// code's) notation (the mechanism's Info.Quantities or
// harness/report/quantities.go; issue 35).
func checkQuantityLabels(t *testing.T, dir string) {
	t.Helper()
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		for _, m := range []map[string]results.Float{r.Privacy.Noise, r.Diagnostics} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if k == results.InfeasibleFloor || k == results.InfeasibleOrder || seen[r.Mechanism+" "+k] {
					continue // an infeasible record's reason, not a column
				}
				seen[r.Mechanism+" "+k] = true
				if report.ColumnLabels(r.Mechanism, k) == nil {
					t.Errorf("%s stores %q, which neither its Info.Quantities nor harness/report/quantities.go labels", r.Mechanism, k)
				}
			}
		}
	}
}
