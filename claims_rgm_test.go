package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
)

// TestRGMClaimsFullSize runs the RGM specs whose claims issue 35 names at
// full size (seconds each; they read the shared ijcnn1) and checks that
// the statements the old docs got wrong come out as the data says: rgm.md's
// "RGM beats Clipped high by 1.5×" (Fig. 2, paper preset) is a tie under
// the spec's Student-t intervals (0.00331 ± 0.00147 against 0.00495 ±
// 0.00152), PTR's δ is 8.8e-28 against the paper's 1e-34 (contradicted,
// not "the same order of magnitude"), and the methods of Fig. 1 do not
// spend an equivalent total ε; Theorem 1 v1's bound fails in 3 of the 4
// cases of the table, Corollary 1's example gives ε ≈ 0.87.
func TestRGMClaimsFullSize(t *testing.T) {
	if testing.Short() || os.Getenv("DPLAB_DATA") == "" {
		t.Skip("full-size RGM runs: not under -short, and they need DPLAB_DATA")
	}
	claims := fullSizeClaims(t, "rgm_fig2_ijcnn1", "rgm_fig1", "rgm_theory")
	find := func(spec, id string) report.Claim { t.Helper(); return findClaim(t, claims, spec, id) }
	near := func(x results.Float, want, rel float64) bool { return math.Abs(float64(x)-want) <= rel*math.Abs(want) }

	c := find("rgm_fig2_ijcnn1", "fig2-rgm-below-clipped-high")
	p := c.Points[0]
	if p.Point != "preset = paper" || p.Outcome != report.Tie ||
		!near((p.A.Mean), 0.00331, 0.005) || !near((p.A.Half), 0.00147, 0.01) ||
		!near((p.B.Mean), 0.00495, 0.005) || !near((p.B.Half), 0.00152, 0.01) {
		t.Errorf("Fig. 2, RGM vs Clipped high (paper preset): %q %s, a %+v, b %+v", p.Point, p.Outcome, *p.A, *p.B)
	}
	c = find("rgm_fig1", "ptr-delta")
	if c.Verdict != report.Contradicted || c.Paper != "1e-34, compared within a factor 10" || !near((c.Points[0].A.Mean), 8.78e-28, 0.01) {
		t.Errorf("PTR δ: %s, paper %q, node1 %+v", c.Summary, c.Paper, *c.Points[0].A)
	}
	if c = find("rgm_fig1", "fig1-equivalent-guarantees"); c.Verdict != report.Contradicted {
		t.Errorf("Fig. 1 equivalent guarantees: %s", c.Summary)
	}
	if c = find("rgm_theory", "thm1-v1-bound"); c.Summary != "contradicted at 3 of 4 points" {
		t.Errorf("Theorem 1 v1: %s", c.Summary)
	}
	if c = find("rgm_theory", "thm1-v2-bound"); c.Verdict != report.Holds {
		t.Errorf("Theorem 1 v2: %s", c.Summary)
	}
	if c = find("rgm_theory", "corollary1-example"); c.Verdict != report.Holds || !near((c.Points[0].A.Mean), 0.8701, 1e-4) {
		t.Errorf("Corollary 1 example: %s, %+v", c.Summary, *c.Points[0].A)
	}
}

// fullSizeClaims runs the named specs of experiments/ at full size (-j 2,
// each into a new directory) and returns their claims by spec and id.
func fullSizeClaims(t *testing.T, names ...string) map[string]map[string]report.Claim {
	t.Helper()
	out := map[string]map[string]report.Claim{}
	for _, name := range names {
		dir := filepath.Join(t.TempDir(), name)
		if code, _, errs := runMain(t, "run", filepath.Join("experiments", name+".toml"), "--out", dir, "-j", "2"); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		c, err := report.ReadClaims(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c.Quick {
			t.Fatalf("%s: a --quick run", name)
		}
		out[name] = map[string]report.Claim{}
		for _, cl := range c.Claims {
			out[name][cl.ID] = cl
		}
	}
	return out
}

// findClaim returns claim id of spec, failing the test when there is none.
func findClaim(t *testing.T, claims map[string]map[string]report.Claim, spec, id string) report.Claim {
	t.Helper()
	cl, ok := claims[spec][id]
	if !ok {
		t.Fatalf("%s has no claim %s", spec, id)
	}
	return cl
}
