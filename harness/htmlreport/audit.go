package htmlreport

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/dplab/dplab/audit"
)

// auditRow is one stored audit of an audit folder: a mechanism at a target
// ε, its claimed ε and the audited lower bound.
type auditRow struct {
	audit.Result
	// Refuted: the lower bound exceeds the claimed ε (dplab audit's
	// VIOLATION).
	Refuted bool
}

// addAudits reads the audit folder dir's store (audits.jsonl) into f.Audits,
// in the order of the spec's mechanisms (s, when it loaded) and target ε,
// then runs per side (a store may hold a --quick audit and a full one).
func (f *folder) addAudits(dir string, s *audit.Spec) error {
	stored, tornAt, err := audit.ReadResults(filepath.Join(dir, audit.ResultsFile))
	if err != nil {
		return err
	}
	if tornAt >= 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%s: a torn last line (an interrupted audit) is left out", audit.ResultsFile))
	}
	rank := map[string]int{} // a label (the name when it has none) → its block in the spec
	if s != nil {
		for i, m := range s.Mechanisms {
			rank[cmp.Or(m.Label, m.Name)] = i
		}
	}
	order := func(r audit.Result) int {
		if i, ok := rank[r.Label]; ok {
			return i
		}
		return len(rank)
	}
	for _, r := range stored {
		f.Audits = append(f.Audits, auditRow{Result: r, Refuted: r.LowerBound > r.ClaimedEpsilon})
	}
	slices.SortFunc(f.Audits, func(a, b auditRow) int {
		return cmp.Or(cmp.Compare(order(a.Result), order(b.Result)), cmp.Compare(a.Label, b.Label),
			cmp.Compare(a.TargetEpsilon, b.TargetEpsilon), cmp.Compare(a.Trials, b.Trials), cmp.Compare(a.Key, b.Key))
	})
	return nil
}

// AuditPairs lists each audited mechanism's neighbouring pair once, in the
// order of f.Audits: the label and the pair's description (which names its
// relation).
func (f *folder) AuditPairs() [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	for _, r := range f.Audits {
		p := [2]string{r.Label, r.Pair}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
