package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
)

// TestGaussMixClaimsFullSize runs the GaussMix specs that take seconds to
// a minute or two at full size (Figure 1, the heads of Figures 3 and 5,
// the calibrations and the k sweep; they read the shared image features)
// and checks every claim's verdict, so that a change of the data, the
// intervals or the rules that flips one fails here. It pins the statements
// issue 35 found unchecked in gaussmix.md: Figure 1's ratio runs from
// 0.936 (γ = 1.78, where Sheffet '19's bound is the smaller) to 8.79
// (γ = 10⁷); the Gaussian mixing head is more accurate than objective
// perturbation only on Fashion-MNIST at ε = 0.42 (a tie at ε = 0.1,
// objective perturbation better from ε = 1.78 on and at every ε on MNIST);
// the authors' code's constants spend more than the target ε (Wine,
// ε = 1: 2.53). The timing claims ("Faster by") are wall-clock: only their
// direction is pinned, objective perturbation slower on Fashion-MNIST at
// the largest ε; on MNIST, where objective perturbation's warm start
// (objpert-kifer v3) brought the two near 1, only that it is evaluated
// (the docs' run's ratio is in docs/reproduction/gaussmix.md). Figures 2 and
// 4 take 4 to 13 minutes: their verdicts are stated in the commit that
// added their claims.
func TestGaussMixClaimsFullSize(t *testing.T) {
	if testing.Short() || os.Getenv("DPLAB_DATA") == "" {
		t.Skip("full-size GaussMix runs: not under -short, and they need DPLAB_DATA")
	}
	claims := fullSizeClaims(t, "gaussmix_fig1", "gaussmix_fig3", "gaussmix_fig5", "gaussmix_presets", "gaussmix_ksweep")
	find := func(spec, id string) report.Claim { t.Helper(); return findClaim(t, claims, spec, id) }
	// Every claim but the timing ones, by its summary.
	summaries := map[string]map[string]string{
		"gaussmix_fig1": {
			"fig1-lemma1-below-sheffet19":    "contradicted at 1 of 25 points",
			"fig1-ratio-beyond-closed-forms": "contradicted at 1 of 24 points",
		},
		"gaussmix_fig3": {
			"fig3-head-more-accurate-than-objpert":                "contradicted at 3 of 5 points",
			"fig3-head-rdp-calibrated-more-accurate-than-objpert": "contradicted at 2 of 5 points",
		},
		"gaussmix_fig5": {
			"fig5-head-more-accurate-than-objpert":                "contradicted at 5 of 5 points",
			"fig5-head-rdp-calibrated-more-accurate-than-objpert": "contradicted at 5 of 5 points",
		},
		"gaussmix_presets": {
			"thm2-linear-mixing-paper-within-epsilon":                    "holds (10 points)",
			"thm2-linear-mixing-code-within-epsilon":                     "contradicted at 10 of 10 points",
			"same-privacy-paper-baselines":                               "holds (20 points)",
			"same-privacy-sheffet-code":                                  "contradicted at 10 of 20 points",
			"linear-mixing-accountant-beats-adassp":                      "contradicted at 1 of 10 points",
			"linear-mixing-accountant-beats-sheffet17-lemma1-accountant": "tie (10 points)",
		},
		"gaussmix_ksweep": {
			"k-over-d-4-best-at-largest-epsilon": "holds at 8 of 24 points (the others tie)",
		},
	}
	for spec, byID := range summaries {
		for id, want := range byID {
			if cl := find(spec, id); cl.Summary != want || cl.Timing {
				t.Errorf("%s %s: %q (timing %v), want %q", spec, id, cl.Summary, cl.Timing, want)
			}
		}
		timing := 0
		for id, cl := range claims[spec] {
			if _, ok := byID[id]; !ok && !cl.Timing {
				t.Errorf("%s %s: %q is not checked here", spec, id, cl.Summary)
			}
			if cl.Timing {
				timing++
			}
		}
		if want := map[bool]int{true: 1}[spec == "gaussmix_fig3" || spec == "gaussmix_fig5"]; timing != want {
			t.Errorf("%s: %d timing claims, want %d", spec, timing, want)
		}
	}
	near := func(x results.Float, want, rel float64) bool { return math.Abs(float64(x)-want) <= rel*math.Abs(want) }
	// Figure 1's ratio: its smallest and largest value, and the one γ > 5/2
	// below 2.
	c := find("gaussmix_fig1", "fig1-lemma1-below-sheffet19")
	if first, last := c.Points[0], c.Points[24]; first.Point != "gamma = 1.778" || first.Outcome != report.Contradicted || !near(first.Estimate, 0.9360, 1e-4) ||
		last.Point != "gamma = 1e+07" || !near(last.Estimate, 8.7902, 1e-4) {
		t.Errorf("Fig. 1 ratio: %+v … %+v", first, last)
	}
	if p := find("gaussmix_fig1", "fig1-ratio-beyond-closed-forms").Points[0]; p.Point != "gamma = 3.397" || p.Outcome != report.Contradicted || !near(p.Estimate, 1.8315, 1e-4) {
		t.Errorf("Fig. 1 ratio above 2: %+v", p)
	}
	// Figure 3: a tie at ε = 0.1, the head better at ε = 0.42, objective
	// perturbation better at the largest ε.
	c = find("gaussmix_fig3", "fig3-head-more-accurate-than-objpert")
	outcomes := []string{report.Tie, report.Holds, report.Contradicted, report.Contradicted, report.Contradicted}
	for i, p := range c.Points {
		if p.Outcome != outcomes[i] {
			t.Errorf("Fig. 3 accuracy, %s: %s, want %s", p.Point, p.Outcome, outcomes[i])
		}
	}
	// Its two means at ε = 31.6 against the docs' committed run: within
	// that run's 95% half-widths (results are equivalent in distribution,
	// not frozen bits: a change of draws moves them within their CIs).
	_, docs, err := docgen.New(docgen.Config{Specs: "experiments", Evidence: filepath.Join("docs", "reproduction", "evidence")}).Evidence("gaussmix_fig3")
	if err != nil {
		t.Fatal(err)
	}
	var committed report.Claim
	for _, cl := range docs.Claims.Claims {
		if cl.ID == c.ID {
			committed = cl
		}
	}
	if len(committed.Points) != len(c.Points) {
		t.Fatalf("Fig. 3 accuracy: %d points in the docs' run, %d here", len(committed.Points), len(c.Points))
	}
	if p, q := c.Points[4], committed.Points[4]; math.Abs(float64(p.A.Mean-q.A.Mean)) > float64(q.A.Half) || math.Abs(float64(p.B.Mean-q.B.Mean)) > float64(q.B.Half) {
		t.Errorf("Fig. 3 at ε = 31.6: %+v vs %+v; the docs' run: %+v vs %+v", *p.A, *p.B, *q.A, *q.B)
	}
	// The authors' code's linear mixing at Wine, ε = 1.
	if p := find("gaussmix_presets", "thm2-linear-mixing-code-within-epsilon").Points[2]; p.Point != "Wine, ε = 1" || !near(p.A.Mean, 2.533, 1e-3) {
		t.Errorf("code preset at Wine, ε = 1: %+v", p)
	}
	// Timing: objective perturbation's fit over the head's at the largest
	// ε, with its interval from the trials' wall times.
	if c := find("gaussmix_fig3", "fig3-head-faster-than-objpert"); !c.Timing || c.Verdict != report.Holds || c.Points[0].Point != "ε = 31.62" || !(c.Points[0].Low > 1) {
		t.Errorf("Fig. 3 Faster by: %s, %+v", c.Summary, c.Points)
	}
	if c := find("gaussmix_fig5", "fig5-head-faster-than-objpert"); !c.Timing || c.Verdict == report.NotRun {
		t.Errorf("Fig. 5 Faster by: %s, %+v", c.Summary, c.Points)
	}
}
