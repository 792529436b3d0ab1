package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// The files a render writes in a result directory for a spec with [[claim]]
// blocks (claims.go): the same verdicts and evidence as Markdown (to read),
// CSV (one row per point) and JSON (Claims, for programs: dplab report,
// make docs).
const (
	ClaimsMarkdown = "claims.md"
	ClaimsCSV      = "claims.csv"
	ClaimsJSON     = "claims.json"
)

// ClaimsVersion is the version of the claims.json format; a reader refuses
// a newer one.
const ClaimsVersion = 1

// Verdicts of a claim (Claim.Verdict) and outcomes of one of its points
// (ClaimPoint.Outcome; every verdict but Partly).
const (
	// Holds: every point evaluated holds (with require = "any": at least
	// one does).
	Holds = "holds"
	// Partly: no point contradicts, some hold and some tie ("holds at k of
	// n points"). Never an outcome of a point.
	Partly = "partly"
	// Tie: every point evaluated ties: the 95% CIs cannot decide.
	Tie = "tie"
	// Contradicted: some point contradicts the claim (with require =
	// "any": every point does).
	Contradicted = "contradicted"
	// NotRun: nothing to evaluate (the data are missing, the target was
	// infeasible, the cells were excluded or dropped by --quick); Why says
	// why.
	NotRun = "not_run"
)

// NoPaperValue is a claim's Paper when the paper gives no number (the
// spec reads its words; Reading says how).
const NoPaperValue = "paper gives no value"

// Claims is the content of claims.json: a spec's paper claims, each checked
// against the trials stored in the result directory (experiments/README.md,
// "Paper claims", states the rules).
type Claims struct {
	Version int    `json:"version"` // ClaimsVersion
	Spec    string `json:"spec"`    // the spec's name
	Title   string `json:"title"`   // the spec's title
	// Quick is set for a --quick run (the spec's [quick] overrides: few
	// trials, a smaller grid): its verdicts may differ from the full run's.
	Quick bool `json:"quick"`
	// Only holds the --only filters of a subset render (dplab render
	// --only, written to the result directory's subset folder): its
	// verdicts are judged on the selected cells alone.
	Only []string `json:"only,omitempty"`
	// CI is the spec's confidence interval method (auto, normal or t) of
	// every half-width below: 95% intervals of the mean over trials.
	CI     string  `json:"ci"`
	Claims []Claim `json:"claims"` // in spec order
}

// Claim is one [[claim]] block and its verdict.
type Claim struct {
	ID    string `json:"id"`
	Quote string `json:"quote"` // the paper's words
	Where string `json:"where"` // where the paper says it: version, section, figure, page
	Check string `json:"check"` // the check kind: better, ratio, difference, value, crossover, monotone
	// Statement is what is checked, in words: "Relative lower than
	// Clipped high in trace excess_objective at the last iteration".
	Statement string `json:"statement"`
	// Reading is how the spec reads words of the paper that give no number
	// ("close to" read as "within a factor 3"); "" when none.
	Reading string `json:"reading,omitempty"`
	// Paper is the paper's number with the tolerance it is compared at
	// ("1e-34, within a factor 10"), or NoPaperValue.
	Paper string `json:"paper"`
	// Verdict is Holds, Partly, Tie, Contradicted or NotRun; Summary says
	// it with the counts ("holds at 2 of 3 points; 1 point not run").
	Verdict string `json:"verdict"`
	Summary string `json:"summary"`
	// The points by outcome.
	Held          int `json:"held"`
	Tied          int `json:"tied"`
	Contradicting int `json:"contradicting"`
	NotRun        int `json:"not_run"`
	// Why is, for a claim not run, why none of its points could be
	// evaluated.
	Why string `json:"why,omitempty"`
	// Timing is set when the quantity is a wall-clock time (wall_s, or a
	// diagnostic "wall_…", results.IsTimingKey): its numbers, and so its
	// outcomes, vary from run to run and with the machine's load (the
	// golden test leaves them out).
	Timing bool         `json:"timing,omitempty"`
	Points []ClaimPoint `json:"points"`
}

// ClaimPoint is the evidence at one point of a claim: a dataset, ε, sweep
// point, node or curve abscissa, as the claim selects.
type ClaimPoint struct {
	Point   string `json:"point"`         // "split = random, ε = 0.1"
	Outcome string `json:"outcome"`       // Holds, Tie, Contradicted or NotRun
	Why     string `json:"why,omitempty"` // why not run
	// A and B are the compared cells' values (B is nil for value checks;
	// for monotone checks A is the earlier point and B the later one).
	A *ClaimSide `json:"a,omitempty"`
	B *ClaimSide `json:"b,omitempty"`
	// Estimate is the number checked: A (value), A/B (ratio), A − B
	// (better, difference, crossover) or B − A (monotone); Low and High
	// bound its interval, formed from the sides' 95% CIs (null: unbounded).
	Estimate results.Float `json:"estimate"`
	Low      results.Float `json:"low"`
	High     results.Float `json:"high"`
	// Expect is the region where the point holds ("< 0", "[0.774, 0.946]").
	Expect string `json:"expect"`
	// Paper is the paper's value at this point; null when it gives none.
	Paper results.Float `json:"paper"`

	coords []coord // the point's coordinates: what any_of groups by
	shown  []coord // those its name shows (not the sides' mechanisms)
	step   string  // a monotone check's step along its axis: "ε = 1 → 2"
}

// ClaimSide is one compared value at a point: the quantity's mean over the
// cell's trials, the half-width of its 95% CI (0 for exact values such as
// a curve's or ε spent; null without an interval: a single trial) and the
// number of trials (0 for a curve).
type ClaimSide struct {
	Label string        `json:"label"` // "Relative (split = random)"
	Mean  results.Float `json:"mean"`
	Half  results.Float `json:"half"`
	N     int           `json:"n"`
	// Count is, for a proportion (quantity proportion:KEY), the number of
	// the N trials whose indicator is 1 (Mean is Count/N); its interval is
	// the exact binomial one (Clopper–Pearson, 95%), not Mean ± Half (Half
	// is null). Absent for every other quantity.
	Count *int `json:"count,omitempty"`
}

// ReadClaims reads dir's claims.json; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist) (the spec has no [[claim]] block, or was
// rendered before claims existed). A file that is not JSON of this shape
// is an error naming it and, where JSON gives the offset, its line; one
// without a format version (not written by dplab) or with a newer one is
// refused.
func ReadClaims(dir string) (*Claims, error) {
	path := filepath.Join(dir, ClaimsJSON)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Claims
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", jsonPlace(path, b, err), err)
	}
	switch {
	case c.Version > ClaimsVersion:
		return nil, fmt.Errorf("%s: format version %d is newer than this dplab's (%d)", path, c.Version, ClaimsVersion)
	case c.Version < 1:
		return nil, fmt.Errorf("%s: no format version: not a claims file dplab wrote (version %d)", path, ClaimsVersion)
	}
	return &c, nil
}

// jsonPlace is path, with ":LINE" when err, from decoding b, gives the
// offset of the fault.
func jsonPlace(path string, b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, 1+bytes.Count(b[:min(off, int64(len(b)))], []byte("\n")))
}

// ClaimsQuickBanner opens every claims file of a --quick run (and the
// claims dplab report shows of one).
const ClaimsQuickBanner = "QUICK RUN (--quick: the spec's [quick] overrides, few trials): these verdicts are the smoke run's and may differ from the full run's."

// subsetTag returns "SUBSET (--only F...)" for the claims of a subset
// render (Only set), "" for a full one.
func (c *Claims) subsetTag() string {
	if len(c.Only) == 0 {
		return ""
	}
	return "SUBSET (--only " + strings.Join(c.Only, " --only ") + ")"
}

// SubsetBanner returns the banner that opens claims.md (and the claims
// dplab report shows) of a subset render, "" for a full one.
func (c *Claims) SubsetBanner() string {
	if len(c.Only) == 0 {
		return ""
	}
	return c.subsetTag() + ": these verdicts are judged on the selected cells alone and may differ from the whole spec's."
}

// JSON returns claims.json's bytes.
func (c *Claims) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// claimsCSVHeader is claims.csv's header: a row per point.
var claimsCSVHeader = []string{"run", "claim", "verdict", "point", "outcome", "why",
	"a", "a_mean", "a_half", "a_n", "b", "b_mean", "b_half", "b_n",
	"estimate", "low", "high", "expect", "paper"}

// CSV returns claims.csv's bytes: a row per point of every claim (numbers
// at full precision; "" where none applies, "-inf" and "inf" for an
// unbounded interval), its first column "QUICK RUN" for a --quick run's
// points, "full" otherwise, followed by "SUBSET (--only F...)" for a subset
// render's.
func (c *Claims) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	run := "full"
	if c.Quick {
		run = "QUICK RUN"
	}
	if t := c.subsetTag(); t != "" {
		run = strings.TrimPrefix(run+" "+t, "full ")
	}
	w.Write(claimsCSVHeader)
	side := func(s *ClaimSide) []string {
		if s == nil {
			return []string{"", "", "", ""}
		}
		return []string{s.Label, results.StatNum(float64(s.Mean)), results.StatNum(float64(s.Half)), strconv.Itoa(s.N)}
	}
	for _, cl := range c.Claims {
		for _, p := range cl.Points {
			row := []string{run, cl.ID, cl.Verdict, p.Point, p.Outcome, p.Why}
			row = append(row, side(p.A)...)
			row = append(row, side(p.B)...)
			row = append(row, results.StatNum(float64(p.Estimate)), bound(float64(p.Low), -1), bound(float64(p.High), 1),
				p.Expect, results.StatNum(float64(p.Paper)))
			w.Write(row)
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// bound formats an interval's end: "-inf" or "inf" when unbounded (sign:
// the side it bounds).
func bound(x float64, sign int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if sign < 0 {
			return "-inf"
		}
		return "inf"
	}
	return results.StatNum(x)
}

// Markdown returns claims.md's bytes: the verdict of every claim in one
// table, then each claim's evidence point by point. A claims.json read
// back (ReadClaims) gives the same bytes.
func (c *Claims) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Paper claims: %s\n\n", c.Spec)
	if c.Quick {
		b.WriteString("**" + ClaimsQuickBanner + "**\n\n")
	}
	if sb := c.SubsetBanner(); sb != "" {
		b.WriteString("**" + sb + "**\n\n")
	}
	if c.Title != "" {
		fmt.Fprintf(&b, "%s.\n\n", strings.TrimSuffix(c.Title, "."))
	}
	fmt.Fprintf(&b, "Each claim is checked on the stored trials with 95%% confidence intervals of the mean (ci = %q); overlapping intervals are a tie. The rules: experiments/README.md, \"Paper claims\".\n\n", c.CI)
	b.WriteString("| claim | where | the paper says | checked | verdict |\n|---|---|---|---|---|\n")
	for _, cl := range c.Claims {
		timing := ""
		if cl.Timing {
			timing = " (timing)"
		}
		fmt.Fprintf(&b, "| %s | %s | “%s” | %s | **%s**%s |\n", mdCell(cl.ID), mdCell(cl.Where), mdCell(cl.Quote), mdCell(cl.Statement), mdCell(cl.Summary), timing)
	}
	for _, cl := range c.Claims {
		fmt.Fprintf(&b, "\n## %s: %s\n\n", cl.ID, cl.Summary)
		fmt.Fprintf(&b, "> “%s” (%s)\n\n", cl.Quote, cl.Where)
		fmt.Fprintf(&b, "Checked: %s. Paper: %s.", cl.Statement, cl.Paper)
		if cl.Reading != "" {
			fmt.Fprintf(&b, " Reading: %s.", strings.TrimSuffix(cl.Reading, "."))
		}
		if cl.Timing {
			b.WriteString(" Timing: wall-clock times of this run, on this machine under its load; they vary from run to run.")
		}
		b.WriteString("\n\n")
		if len(cl.Points) == 0 {
			fmt.Fprintf(&b, "Not run: %s.\n", cl.Why)
			continue
		}
		b.WriteString("| point | a | b | checked value [interval] | holds if | paper | outcome |\n|---|---|---|---|---|---|---|\n")
		for _, p := range cl.Points {
			out := p.Outcome
			if p.Outcome == NotRun {
				out = "not run: " + p.Why
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(p.Point), mdCell(sideText(p.A)), mdCell(sideText(p.B)),
				mdCell(estimateText(p)), mdCell(p.Expect), numText(float64(p.Paper)), mdCell(out))
		}
	}
	return []byte(b.String())
}

// sideText is a side as claims.md prints it: "Relative: 0.0033 ± 0.0015
// (n = 3)", the interval as the tables print it.
func sideText(s *ClaimSide) string {
	if s == nil {
		return "—"
	}
	if math.IsNaN(float64(s.Mean)) {
		return s.Label
	}
	if s.Count != nil {
		lo, hi := clopperPearson(*s.Count, s.N)
		return fmt.Sprintf("%s: %d of %d = %s [%s, %s]", s.Label, *s.Count, s.N, numText(float64(s.Mean)), numText(lo), numText(hi))
	}
	e := plotting.Entry{Mean: float64(s.Mean), Half: float64(s.Half), Present: true}
	n := ""
	if s.N > 0 {
		n = fmt.Sprintf(" (n = %d)", s.N)
	}
	return fmt.Sprintf("%s: %s%s", s.Label, e.String(), n)
}

// Interval returns the bounds of the estimate's interval: −∞ and +∞ where
// it is unbounded (null in claims.json).
func (p ClaimPoint) Interval() (lo, hi float64) {
	lo, hi = float64(p.Low), float64(p.High)
	if math.IsNaN(lo) {
		lo = math.Inf(-1)
	}
	if math.IsNaN(hi) {
		hi = math.Inf(1)
	}
	return lo, hi
}

// estimateText is "−0.0016 [−0.0046, 0.0013]" (4 significant digits).
func estimateText(p ClaimPoint) string {
	if math.IsNaN(float64(p.Estimate)) {
		return "—"
	}
	lo, hi := p.Interval()
	if lo == hi {
		return numText(lo)
	}
	return fmt.Sprintf("%s [%s, %s]", numText(float64(p.Estimate)), numText(lo), numText(hi))
}

// Measured says in a few words what the claim's evaluated points measured:
// the number each checks (the value, the ratio a / b, the difference
// a − b, a monotone check's step), the one point's with its interval
// ("1.5 [1.2, 1.9]"; a proportion's with its count of trials, "40 of 40 =
// 1 [0.9119, 1]"), or their range ("1.04 to 2.9 over 3 points"); "—"
// when no point was evaluated. The verdict tables of the generated docs
// print it beside Statement.
func (c *Claim) Measured() string {
	var pts []ClaimPoint
	for _, p := range c.Points {
		if p.Outcome != NotRun && !math.IsNaN(float64(p.Estimate)) {
			pts = append(pts, p)
		}
	}
	var what string
	switch c.Check {
	case "better", "crossover":
		what = "a − b "
	case "monotone":
		what = "steps "
	}
	switch len(pts) {
	case 0:
		return "—"
	case 1:
		if a := pts[0].A; a != nil && a.Count != nil && pts[0].B == nil {
			// A proportion says how many trials: "40 of 40 = 1 [0.9119, 1]".
			return fmt.Sprintf("%d of %d = %s", *a.Count, a.N, estimateText(pts[0]))
		}
		return what + estimateText(pts[0])
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = math.Min(lo, float64(p.Estimate)), math.Max(hi, float64(p.Estimate))
	}
	if numText(lo) == numText(hi) {
		return fmt.Sprintf("%s%s at %d points", what, numText(lo), len(pts))
	}
	return fmt.Sprintf("%s%s to %s over %d points", what, numText(lo), numText(hi), len(pts))
}

// numText is x to 4 significant digits, "−∞"/"∞" when unbounded, "—" when
// NaN (no value).
func numText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.IsInf(x, -1):
		return "−∞"
	case math.IsInf(x, 1):
		return "∞"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// evaluateClaims checks every claim on the view.
func evaluateClaims(s *spec.Spec, claims []*claim, v *view) *Claims {
	ci := s.CI
	if ci == "" { // a spec without trials: its claims read curves, exact
		ci = string(results.CIAuto)
	}
	out := &Claims{Version: ClaimsVersion, Spec: s.Name, Title: s.Title, Quick: s.QuickApplied, CI: ci}
	if s.Only != nil {
		out.Only = s.Only.Filters
	}
	for _, c := range claims {
		out.Claims = append(out.Claims, c.evaluate(v))
	}
	return out
}

// write writes claims.md, claims.csv and claims.json in the result
// directory dir and returns their paths.
func (c *Claims) write(dir string) ([]string, error) {
	js, err := c.JSON()
	if err != nil {
		return nil, err
	}
	csvb, err := c.CSV()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{ClaimsMarkdown, c.Markdown()}, {ClaimsCSV, csvb}, {ClaimsJSON, js}} {
		if err := fileutil.ReplaceFileIn(dir, f.name, f.b); err != nil {
			return paths, err
		}
		paths = append(paths, filepath.Join(dir, f.name))
	}
	return paths, nil
}
