package htmlreport

import (
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"math"
	"strings"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
)

// claims is what the page shows of a folder's claims.json (report.Claims,
// as the run's render wrote it): each claim with its verdict and its
// per-point evidence, and the verdicts counted.
type claims struct {
	Quick  bool   // a --quick run's verdicts (report.ClaimsQuickBanner)
	Banner string // report.ClaimsQuickBanner
	Subset string // a subset render's banner (report.Claims.SubsetBanner), "" for a full one
	CI     string // the spec's CI method
	Items  []claimRow
	Tally  string // "holds 3 · tie 1", unbroken within a count
}

// claimRow is one claim as the page shows it.
type claimRow struct {
	report.Claim
	Class string // the verdict's class: holds, partly, tie, contradicted, notrun, other
	// HasB and HasPaper say whether the evidence has a b side and a paper
	// value at some point (the column is left out otherwise).
	HasB, HasPaper bool
	Evidence       []evidenceRow
}

// evidenceRow is one point of a claim: its columns as HTML, escaped.
type evidenceRow struct {
	Point, Outcome, Class string
	A, B, Estimate, Paper template.HTML
	Expect                string
}

// readClaims reads dir's claims.json with report.ReadClaims; nil without
// one. A malformed file, or one of a newer format, is an error naming it
// (and its line, where JSON gives one).
func readClaims(dir string) (*claims, error) {
	c, err := report.ReadClaims(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := &claims{Quick: c.Quick, Banner: report.ClaimsQuickBanner, Subset: c.SubsetBanner(), CI: c.CI}
	count := map[string]int{}
	for _, cl := range c.Claims {
		row := claimRow{Claim: cl, Class: verdictClass(cl.Verdict)}
		for _, t := range []*string{&row.Statement, &row.Reading, &row.Paper, &row.Why} {
			*t = strings.TrimSuffix(strings.TrimSpace(*t), ".") // the page ends the sentence
		}
		if row.Paper == report.NoPaperValue {
			row.Paper = "" // "The paper gives no value."
		}
		count[row.Class]++
		for _, p := range cl.Points {
			row.HasB = row.HasB || p.B != nil
			row.HasPaper = row.HasPaper || !math.IsNaN(float64(p.Paper))
			ev := evidenceRow{Point: p.Point, Outcome: outcomeText(p.Outcome), Class: verdictClass(p.Outcome),
				A: sideHTML(p.A), B: sideHTML(p.B), Estimate: estimateHTML(p), Expect: p.Expect, Paper: numHTML(float64(p.Paper))}
			if p.Why != "" {
				ev.Outcome += ": " + p.Why
			}
			row.Evidence = append(row.Evidence, ev)
		}
		out.Items = append(out.Items, row)
	}
	out.Tally = tally(count)
	return out, nil
}

// verdictClasses are the verdicts (and point outcomes) in the order their
// counts are shown: the report's constant, the page's class and words.
// A verdict the page does not know is "other".
var verdictClasses = []struct{ verdict, class, words string }{
	{report.Holds, "holds", "holds"}, {report.Partly, "partly", "holds partly"}, {report.Tie, "tie", "tie"},
	{report.Contradicted, "contradicted", "contradicted"}, {report.NotRun, "notrun", "not run"}, {"", "other", "other"},
}

// verdictClass is the page's class of a verdict or point outcome
// (report.Holds …): holds, partly, tie, contradicted, notrun or other.
func verdictClass(v string) string {
	for _, vc := range verdictClasses {
		if vc.verdict == v && v != "" {
			return vc.class
		}
	}
	return "other"
}

// outcomeText is a point's outcome in words: "not run" for report.NotRun.
func outcomeText(o string) string {
	for _, vc := range verdictClasses {
		if vc.verdict == o && o != "" {
			return vc.words
		}
	}
	return o
}

// tally counts the claims by verdict class: "holds 3 · tie 1 ·
// contradicted 1", a line breaking only between counts.
func tally(count map[string]int) string {
	var parts []string
	for _, vc := range verdictClasses {
		if n := count[vc.class]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s\u00a0%d", strings.ReplaceAll(vc.words, " ", "\u00a0"), n)) // unbroken
		}
	}
	if len(parts) == 0 {
		return "no claims"
	}
	return strings.Join(parts, " · ")
}

// sideHTML is a compared value: "Relative (split = random): 0.0033 ±
// 0.0015 (n = 3)", the label escaped and the numbers unbroken; the label alone
// without a value, "—" without a side.
func sideHTML(s *report.ClaimSide) template.HTML {
	if s == nil {
		return notApplicable
	}
	out := template.HTML(html.EscapeString(s.Label))
	if math.IsNaN(float64(s.Mean)) {
		return out
	}
	out += ": " + statHTML(results.Stat{Mean: float64(s.Mean), CIHalf: float64(s.Half)})
	if s.N > 0 {
		out += " " + nowrap(fmt.Sprintf("(n = %d)", s.N))
	}
	return out
}

// estimateHTML is the checked number and its interval: "−0.0016 [−0.0046,
// 0.0013]"; the number alone when the interval's ends print alike (an
// exact value, such as a curve's), "—" without one.
func estimateHTML(p report.ClaimPoint) template.HTML {
	if math.IsNaN(float64(p.Estimate)) {
		return notApplicable
	}
	lo, hi := p.Interval()
	if num(lo) == num(hi) {
		return numHTML(float64(p.Estimate))
	}
	return numHTML(float64(p.Estimate)) + " " + nowrap("["+num(lo)+", "+num(hi)+"]")
}
