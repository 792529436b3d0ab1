package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

//go:generate env DPLAB_UPDATE_PARAMDOCS=1 go test -run TestTrustDocGenerated .

// gaussianAudit is the reference Gaussian mechanism's measured row
// (TestGaussianReference): it is no registered mechanism.
var gaussianAudit = mechanisms.Audit{Trials: 100000, Trust: mechanisms.TrustRow{
	Claimed: "1.000", Real: "**0.587**", Broken: "σ/4: 1.372 (2,000 runs); no clipping: 2.662 (500 runs)", Caught: "yes"}}

// trustTable returns docs/trust.md's table of audit results, generated
// from the registry: a row for the reference Gaussian mechanism, then every
// private mechanism's declared audits (mechanisms.Info.Audits, further
// pairs after their mechanism), then the pipelines (Pipelines). A declared
// row with an empty cell is an error naming the target.
func trustTable() (string, error) {
	var b strings.Builder
	b.WriteString("| mechanism | relation | claimed ε | runs | lower bound, real | lower bound, broken variants | caught |\n|---|---|---|---|---|---|---|\n")
	row := func(name, relation string, a mechanisms.Audit) error {
		r := a.Trust
		for _, c := range []struct{ field, v string }{{"Claimed", r.Claimed}, {"Real", r.Real}, {"Broken", r.Broken}, {"Caught", r.Caught}} {
			if c.v == "" {
				return fmt.Errorf("audit %s: its declared trust row (mechanisms.Audit.Trust) has no %s: copy it from the measured audit (go test -run TestMechanismAudits -v ./audit, without -short)", name, c.field)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, accounting.RelationText(relation), r.Claimed, thousands(a.Trials), r.Real, r.Broken, r.Caught)
		return nil
	}
	if err := row("`"+GaussianName+"` (reference)", accounting.RelationAddRemove, gaussianAudit); err != nil {
		return "", err
	}
	var pipelines []string
	for _, name := range Names() {
		d, err := lookup(name)
		if err != nil {
			return "", err
		}
		if d.pipeline != nil {
			pipelines = append(pipelines, name)
			continue
		}
		if err := row("`"+name+"`", d.entry.Info.Relation, d.audit); err != nil {
			return "", err
		}
	}
	for _, name := range pipelines {
		p := Pipelines[name]
		e, err := mechanisms.Lookup(p.Mechanism)
		if err != nil {
			return "", err
		}
		if err := row("`"+name+"` (pipeline)", e.Info.Relation, p.Audit); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// thousands formats n with comma thousands separators (100,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
