package equivalence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
	"gonum.org/v1/gonum/stat/distuv"
)

// The check's thresholds (issue 37).
const (
	// PrivacyTol is the relative tolerance of the privacy quantities.
	PrivacyTol = 1e-9
	// Tenth: a mean within Tenth × the old 95% CI half-width of the old
	// mean is close, without a test.
	Tenth = 0.1
	// Alpha is the level of the two-sample tests, and the family-wise
	// level of Holm's correction.
	Alpha = 0.01
)

// Verdicts of a Report.
const (
	Pass = "pass"
	Fail = "fail"
)

// Report is the outcome of the check for one spec: the content of
// runs/equivalence/<spec>/equivalence.json.
type Report struct {
	Spec string `json:"spec"`
	// Old and New name the committed evidence and the new one.
	Old string `json:"old"`
	New string `json:"new"`
	// OldCode and NewCode are the code versions of their records.
	OldCode []string `json:"old_code_versions"`
	NewCode []string `json:"new_code_versions"`
	Verdict string   `json:"verdict"` // Pass or Fail
	// Failures says why the verdict is Fail, one line each.
	Failures []string `json:"failures"`
	// TimingChanged lists the claims on wall-clock times whose verdict
	// changed: reported, not in the verdict (like the wall-clock metrics).
	TimingChanged []string `json:"timing_claims_changed,omitempty"`
	// Missing are the cells only the old evidence holds, Extra those only
	// the new one holds.
	Missing []string `json:"missing_cells,omitempty"`
	Extra   []string `json:"extra_cells,omitempty"`
	// Rekeyed are the cells compared across a key change: the same grid
	// point whose mechanism's code version changed (rekey).
	Rekeyed []string          `json:"rekeyed_cells,omitempty"`
	newKeys map[string]string // a re-keyed cell's new key by its old one
	// OneSided lists the metrics, derived quantities and traces only one
	// side holds (diagnostics may come and go).
	OneSided []string `json:"one_sided,omitempty"`
	// Privacy lists the privacy quantities that differ beyond PrivacyTol.
	Privacy []PrivacyDiff `json:"privacy"`
	// Metrics is the comparison of the metrics, derived quantities and
	// traces (the verdict's family); Diagnostics that of the diagnostics
	// (reported only).
	Metrics     Family `json:"metrics"`
	Diagnostics Family `json:"diagnostics"`
	// Claims lists every claim's verdicts, old and new.
	Claims []ClaimDiff `json:"claims"`
	// ClaimsError is why the claims could not be compared ("" when they
	// were).
	ClaimsError string `json:"claims_error,omitempty"`
}

// PrivacyDiff is a privacy quantity of a cell that differs.
type PrivacyDiff struct {
	Cell  string `json:"cell"`
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Family is the comparison of a family of statistics.
type Family struct {
	// Compared counts the statistics compared, Identical those whose
	// means are equal (bit for bit, or both NaN), Close those within Tenth
	// of the old half-width (the identical ones too).
	Compared  int `json:"compared"`
	Identical int `json:"identical"`
	Close     int `json:"close"`
	// Uncorrected counts those that differ at Alpha without correction,
	// Holm those Holm's correction rejects at family-wise Alpha.
	Uncorrected int `json:"differ_uncorrected"`
	Holm        int `json:"differ_holm"`
	// Differing lists the statistics that differ at Alpha uncorrected,
	// smallest p first.
	Differing []StatDiff `json:"differing"`
}

// StatDiff is one statistic of one cell in both evidences.
type StatDiff struct {
	Cell      string  `json:"cell"`
	Statistic string  `json:"statistic"` // "metric test_error", "trace loss[10]"
	OldN      int     `json:"old_n"`
	NewN      int     `json:"new_n"`
	OldMean   float64 `json:"old_mean"`
	NewMean   float64 `json:"new_mean"`
	OldSD     float64 `json:"old_sd"`
	NewSD     float64 `json:"new_sd"`
	HalfWidth float64 `json:"half_width"` // the old 95% CI half-width
	P         float64 `json:"p"`          // Welch's two-sided p-value
	Holm      bool    `json:"holm"`       // rejected by Holm's correction
	close     bool
}

// ClaimDiff is a claim's verdict in both evidences.
type ClaimDiff struct {
	ID      string `json:"id"`
	Old     string `json:"old"` // "" when the old evidence has no such claim
	New     string `json:"new"`
	Timing  bool   `json:"timing,omitempty"`
	Changed bool   `json:"changed"`
}

// Side is one evidence of a spec: the evidence, its claims as the current
// spec and code evaluate them (nil without [[claim]] blocks) and why they
// could not be (ClaimsErr: a stale evidence).
type Side struct {
	Path      string
	Evidence  *report.Evidence
	Claims    *report.Claims
	ClaimsErr error
}

// Compare compares the new evidence of a spec with the old (committed)
// one.
func Compare(old, new Side) *Report {
	r := &Report{Spec: old.Evidence.Spec, Old: old.Path, New: new.Path, OldCode: old.Evidence.CodeVersions,
		NewCode: new.Evidence.CodeVersions, Privacy: []PrivacyDiff{}, Claims: []ClaimDiff{}}
	ci := results.CIMethod(old.Evidence.CI)
	if ci == "" {
		ci = results.CIAuto
	}
	oldCells, newCells := byKey(old.Evidence.Cells()), byKey(new.Evidence.Cells())
	r.Rekeyed, r.newKeys = rekey(oldCells, newCells)
	var metrics, diags []StatDiff
	for _, key := range slices.Sorted(maps.Keys(oldCells)) {
		o := oldCells[key]
		n, ok := newCells[key]
		if !ok {
			r.Missing = append(r.Missing, cellName(&o))
			continue
		}
		name := cellName(&o)
		r.Privacy = append(r.Privacy, privacyDiffs(name, &o, &n)...)
		m, d, one := statDiffs(name, &o, &n, ci)
		metrics, diags, r.OneSided = append(metrics, m...), append(diags, d...), append(r.OneSided, one...)
	}
	for _, key := range slices.Sorted(maps.Keys(newCells)) {
		if _, ok := oldCells[key]; !ok {
			c := newCells[key]
			r.Extra = append(r.Extra, cellName(&c))
		}
	}
	r.Metrics, r.Diagnostics = family(metrics), family(diags)
	switch {
	case old.ClaimsErr != nil:
		r.ClaimsError = "the old evidence: " + old.ClaimsErr.Error()
	case new.ClaimsErr != nil:
		r.ClaimsError = "the new evidence: " + new.ClaimsErr.Error()
	default:
		r.Claims = claimDiffs(old.Claims, new.Claims)
	}
	r.verdict()
	return r
}

// verdict sets Verdict and Failures.
func (r *Report) verdict() {
	r.Failures = []string{}
	fail := func(format string, args ...any) { r.Failures = append(r.Failures, fmt.Sprintf(format, args...)) }
	for _, c := range r.Missing {
		fail("cell %s is only in the old evidence (the spec's grid changed: not comparable)", c)
	}
	for _, c := range r.Extra {
		fail("cell %s is only in the new evidence (the spec's grid changed: not comparable)", c)
	}
	for _, o := range r.OneSided {
		fail("%s", o)
	}
	for _, p := range r.Privacy {
		fail("cell %s: privacy quantity %s changed: %s → %s", p.Cell, p.Field, p.Old, p.New)
	}
	for _, d := range r.Metrics.Differing {
		if d.Holm {
			fail("cell %s: %s differs (Holm at family-wise %g): mean %.6g → %.6g, half-width %.3g, p = %.3g", d.Cell, d.Statistic, Alpha, d.OldMean, d.NewMean, d.HalfWidth, d.P)
		}
	}
	// A claim on wall-clock times is left out of the verdict, as the
	// wall-clock metrics are: speed is what the changes this check guards
	// are meant to move, and its verdict also moves with the machines' load.
	// Its change is listed (TimingChanged) for the commit to state.
	for _, c := range r.Claims {
		switch {
		case c.Changed && c.Timing:
			r.TimingChanged = append(r.TimingChanged, fmt.Sprintf("claim %s: verdict %s → %s", c.ID, verdictText(c.Old), verdictText(c.New)))
		case c.Changed:
			fail("claim %s: verdict %s → %s", c.ID, verdictText(c.Old), verdictText(c.New))
		}
	}
	if r.ClaimsError != "" {
		fail("claims not compared: %s", r.ClaimsError)
	}
	r.Verdict = Pass
	if len(r.Failures) > 0 {
		r.Verdict = Fail
	}
}

func verdictText(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// rekey pairs the cells whose key changed but whose grid point did not: a
// mechanism whose behaviour changes gets a new code version
// (TestVersionFingerprints), which is part of its cells' keys and seeds, so
// every change this check exists for re-keys that mechanism's cells. An
// old cell missing from the new evidence is paired with the new cell that
// has the same identity (identity: dataset, mechanism, label, params, ε,
// δ, accountant, tuning, selection and trials), when exactly one old and one new cell have it;
// the new cell is then filed under the old key. It returns the pairs,
// "name → new key", and the new keys by the old.
func rekey(oldCells, newCells map[string]report.EvidenceCell) ([]string, map[string]string) {
	unmatched := func(a, b map[string]report.EvidenceCell) map[string][]string {
		ids := map[string][]string{}
		for key, c := range a {
			if _, ok := b[key]; !ok {
				if id, ok := identity(&c); ok {
					ids[id] = append(ids[id], key)
				}
			}
		}
		return ids
	}
	oldIDs, newIDs := unmatched(oldCells, newCells), unmatched(newCells, oldCells)
	var pairs []string
	newKeys := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(oldIDs)) {
		o, n := oldIDs[id], newIDs[id]
		if len(o) != 1 || len(n) != 1 {
			continue
		}
		c := newCells[n[0]]
		delete(newCells, n[0])
		newCells[o[0]] = c
		old := oldCells[o[0]]
		pairs = append(pairs, fmt.Sprintf("%s → %s", cellName(&old), n[0]))
		newKeys[o[0]] = n[0]
	}
	return pairs, newKeys
}

// identity is a cell's grid point without its code version: what a cell
// key hashes but the version (the key itself is a hash, so this is rebuilt
// from the summary); ok is false for a cell without a summary.
func identity(c *report.EvidenceCell) (string, bool) {
	s := c.Summary
	if s == nil {
		s = c.Derived
	}
	if s == nil {
		return "", false
	}
	b, err := json.Marshal(struct {
		Dataset, Mechanism, Label     string
		Params                        map[string]any
		Epsilon, Delta                results.Float
		Accountant, Tuning, Selection string
		Trials                        int
	}{s.Dataset, s.Mechanism, s.Label, s.MechParams, results.Float(s.Epsilon), results.Float(s.Delta), s.Accountant, s.Tuning, s.Selection, s.Trials})
	return string(b), err == nil
}

// byKey indexes cells by key.
func byKey(cells []report.EvidenceCell) map[string]report.EvidenceCell {
	m := make(map[string]report.EvidenceCell, len(cells))
	for _, c := range cells {
		m[c.Key] = c
	}
	return m
}

// cellName names a cell: "dataset | label | ε = 0.1 (key)".
func cellName(c *report.EvidenceCell) string {
	s := c.Summary
	if s == nil {
		s = c.Derived
	}
	if s == nil {
		return c.Key
	}
	return fmt.Sprintf("%s | %s | ε = %s (%s)", s.Dataset, s.Label, strconv.FormatFloat(s.Epsilon, 'g', 4, 64), c.Key)
}

// equalRel reports whether a and b are equal to PrivacyTol relative (both
// NaN, or both the same infinity, are equal).
func equalRel(a, b float64) bool {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.IsNaN(a) && math.IsNaN(b)
	case math.IsInf(a, 0) || math.IsInf(b, 0):
		return a == b
	}
	return math.Abs(a-b) <= PrivacyTol*math.Max(math.Abs(a), math.Abs(b))
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// privacyDiffs returns the privacy quantities of cell name that differ
// between o and n.
func privacyDiffs(name string, o, n *report.EvidenceCell) []PrivacyDiff {
	var out []PrivacyDiff
	add := func(field, a, b string) { out = append(out, PrivacyDiff{Cell: name, Field: field, Old: a, New: b}) }
	float := func(field string, a, b float64) {
		if !equalRel(a, b) {
			add(field, num(a), num(b))
		}
	}
	os, ns := o.Summary, n.Summary
	switch {
	case (os == nil) != (ns == nil):
		add("summary", fmt.Sprint(os != nil), fmt.Sprint(ns != nil))
	case os != nil:
		float("eps_spent_max", os.EpsSpentMax, ns.EpsSpentMax)
		float("eps_per_run_max", os.EpsPerRunMax, ns.EpsPerRunMax)
		float("delta", os.Delta, ns.Delta)
		float("alpha_mean", os.AlphaMean, ns.AlphaMean)
		if os.Accountant != ns.Accountant {
			add("accountant", os.Accountant, ns.Accountant)
		}
		for _, k := range slices.Sorted(maps.Keys(union(os.Noise, ns.Noise))) {
			a, okA := os.Noise[k]
			b, okB := ns.Noise[k]
			if okA != okB {
				add("noise "+k, fmt.Sprint(okA), fmt.Sprint(okB))
				continue
			}
			if a.Count != b.Count {
				add("noise "+k+" count", strconv.Itoa(a.Count), strconv.Itoa(b.Count))
			}
			float("noise "+k+" mean", a.Mean, b.Mean)
			float("noise "+k+" min", a.Min, b.Min)
			float("noise "+k+" max", a.Max, b.Max)
			// The sd of equal values is rounding: compare it on the
			// scale of the mean.
			if sa, sb := a.SD, b.SD; !equalRel(sa, sb) && math.Abs(sa-sb) > PrivacyTol*math.Abs(a.Mean) {
				add("noise "+k+" sd", num(sa), num(sb))
			}
		}
	}
	if (o.LedgerEvent == nil) != (n.LedgerEvent == nil) {
		add("ledger", string(o.LedgerEvent), string(n.LedgerEvent))
	} else if o.LedgerEvent != nil {
		float("ledger delta", o.LedgerDelta, n.LedgerDelta)
		var a, b any
		errA, errB := json.Unmarshal(o.LedgerEvent, &a), json.Unmarshal(n.LedgerEvent, &b)
		if errA != nil || errB != nil {
			if !bytes.Equal(o.LedgerEvent, n.LedgerEvent) {
				add("ledger event", string(o.LedgerEvent), string(n.LedgerEvent))
			}
		} else {
			jsonDiffs("ledger event", a, b, add)
		}
	}
	oi, ni := o.Infeasible, n.Infeasible
	switch {
	case (oi == nil) != (ni == nil):
		add("infeasible", fmt.Sprint(oi != nil), fmt.Sprint(ni != nil))
	case oi != nil:
		if oi.Trials != ni.Trials {
			add("infeasible trials", strconv.Itoa(oi.Trials), strconv.Itoa(ni.Trials))
		}
		float("infeasible lo", oi.Lo, ni.Lo)
		float("infeasible hi", oi.Hi, ni.Hi)
		float("infeasible order", oi.Order, ni.Order)
	}
	return out
}

// union returns the keys of a and b.
func union[V any](a, b map[string]V) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// jsonDiffs calls add for each place where the JSON values a and b (as
// encoding/json decodes them) differ at path: numbers beyond PrivacyTol
// relative, anything else when not equal.
func jsonDiffs(path string, a, b any, add func(field, a, b string)) {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			if !equalRel(x, y) {
				add(path, num(x), num(y))
			}
			return
		}
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(union(x, y))) {
				jsonDiffs(path+"."+k, x[k], y[k], add)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				jsonDiffs(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], add)
			}
			return
		}
	default:
		if a == b {
			return
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	add(path, string(ja), string(jb))
}

// statDiffs returns the comparisons of cell name's statistics: those of
// the verdict's family (metrics, derived quantities, trace points) and the
// diagnostics. Wall-clock times are left out.
func statDiffs(name string, o, n *report.EvidenceCell, ci results.CIMethod) (metrics, diags []StatDiff, oneSided []string) {
	each := func(out *[]StatDiff, kind string, a, b map[string]results.Stat) {
		for _, k := range slices.Sorted(maps.Keys(union(a, b))) {
			if results.IsTimingKey(k) {
				continue
			}
			x, inOld := a[k]
			y, inNew := b[k]
			switch {
			case inOld && inNew:
				*out = append(*out, statDiff(name, kind+" "+k, x, y, ci))
			case kind != "diagnostic": // a work counter may come and go
				oneSided = append(oneSided, fmt.Sprintf("cell %s: %s %s is only in the %s evidence", name, kind, k, map[bool]string{true: "old", false: "new"}[inOld]))
			}
		}
	}
	if o.Summary != nil && n.Summary != nil {
		each(&metrics, "metric", o.Summary.Metrics, n.Summary.Metrics)
		each(&diags, "diagnostic", o.Summary.Diagnostics, n.Summary.Diagnostics)
		for _, k := range slices.Sorted(maps.Keys(union(o.Summary.Traces, n.Summary.Traces))) {
			a, b := o.Summary.Traces[k], n.Summary.Traces[k]
			if len(a) != len(b) {
				oneSided = append(oneSided, fmt.Sprintf("cell %s: trace %s has %d points in the old evidence, %d in the new", name, k, len(a), len(b)))
			}
			for i := range min(len(a), len(b)) {
				if a[i].Count > 0 && b[i].Count > 0 { // a pruned iteration is empty
					metrics = append(metrics, statDiff(name, fmt.Sprintf("trace %s[%d]", k, i), a[i], b[i], ci))
				}
			}
		}
	}
	if o.Derived != nil && n.Derived != nil {
		each(&metrics, "derived", o.Derived.Metrics, n.Derived.Metrics)
		each(&metrics, "derived", o.Derived.Diagnostics, n.Derived.Diagnostics)
	}
	return metrics, diags, oneSided
}

// statDiff compares one statistic.
func statDiff(cell, name string, a, b results.Stat, ci results.CIMethod) StatDiff {
	hw := a.WithCI(ci).CIHalf
	d := StatDiff{Cell: cell, Statistic: name, OldN: a.Count, NewN: b.Count, OldMean: a.Mean, NewMean: b.Mean,
		OldSD: a.SD, NewSD: b.SD, HalfWidth: hw}
	diff := math.Abs(a.Mean - b.Mean)
	// Within a tenth of the half-width, or equal to PrivacyTol relative
	// (a constant statistic, whose half-width is 0, moved by rounding).
	d.close = diff <= Tenth*hw || equalRel(a.Mean, b.Mean)
	d.P = 1
	if !d.close {
		d.P = WelchP(a.Count, a.Mean, a.SD, b.Count, b.Mean, b.SD)
	}
	return d
}

// WelchP is the two-sided p-value of Welch's t-test of equal means from
// two samples' counts, means and standard deviations (n−1): t = (m1 −
// m2)/√(s1²/n1 + s2²/n2) against Student's t with the Welch–Satterthwaite
// degrees of freedom ν = (s1²/n1 + s2²/n2)² / ((s1²/n1)²/(n1−1) +
// (s2²/n2)²/(n2−1)) [Wel47]. With no
// spread to test against (both variances 0, or a sample of fewer than two
// values) it is 0 when the means differ and 1 when they are equal; NaN
// means are equal only to each other.
func WelchP(n1 int, m1, s1 float64, n2 int, m2, s2 float64) float64 {
	if math.IsNaN(m1) || math.IsNaN(m2) {
		if math.IsNaN(m1) && math.IsNaN(m2) {
			return 1
		}
		return 0
	}
	if m1 == m2 {
		return 1
	}
	if n1 < 2 || n2 < 2 || math.IsNaN(s1) || math.IsNaN(s2) {
		return 0
	}
	v1, v2 := s1*s1/float64(n1), s2*s2/float64(n2)
	if v1+v2 == 0 {
		return 0
	}
	t := (m1 - m2) / math.Sqrt(v1+v2)
	nu := (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Survival(math.Abs(t))
}

// Holm returns which of the hypotheses with p-values ps Holm's step-down
// procedure rejects at family-wise level alpha: with the p-values sorted,
// p(1) ≤ … ≤ p(m), it rejects H(1), …, H(k) for the largest k such that
// p(i) ≤ alpha/(m − i + 1) for every i ≤ k [Hol79].
func Holm(ps []float64, alpha float64) []bool {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]bool, m)
	for i, j := range idx {
		if !(ps[j] <= alpha/float64(m-i)) {
			break
		}
		out[j] = true
	}
	return out
}

// family summarises the comparisons ds.
func family(ds []StatDiff) Family {
	f := Family{Compared: len(ds), Differing: []StatDiff{}}
	ps := make([]float64, len(ds))
	for i, d := range ds {
		ps[i] = d.P
		if d.close {
			f.Close++
		}
		if d.OldMean == d.NewMean || math.IsNaN(d.OldMean) && math.IsNaN(d.NewMean) {
			f.Identical++
		}
	}
	holm := Holm(ps, Alpha)
	for i := range ds {
		d := ds[i]
		d.Holm = holm[i]
		if d.Holm {
			f.Holm++
		}
		if d.P < Alpha {
			f.Uncorrected++
			f.Differing = append(f.Differing, d)
		}
	}
	sort.SliceStable(f.Differing, func(a, b int) bool { return f.Differing[a].P < f.Differing[b].P })
	return f
}

// claimDiffs pairs the claims of old and new by ID, in old's order then
// new's.
func claimDiffs(old, new *report.Claims) []ClaimDiff {
	out := []ClaimDiff{}
	byID := map[string]*report.Claim{}
	if new != nil {
		for i := range new.Claims {
			byID[new.Claims[i].ID] = &new.Claims[i]
		}
	}
	seen := map[string]bool{}
	if old != nil {
		for _, c := range old.Claims {
			seen[c.ID] = true
			d := ClaimDiff{ID: c.ID, Old: c.Verdict, Timing: c.Timing}
			if n := byID[c.ID]; n != nil {
				d.New, d.Timing = n.Verdict, d.Timing || n.Timing
			}
			d.Changed = d.Old != d.New
			out = append(out, d)
		}
	}
	if new != nil {
		for _, c := range new.Claims {
			if !seen[c.ID] {
				out = append(out, ClaimDiff{ID: c.ID, New: c.Verdict, Timing: c.Timing, Changed: true})
			}
		}
	}
	return out
}
