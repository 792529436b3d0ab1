package equivalence

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/report"
)

// cell is a synthetic evidence cell: one metric of n trials with mean and
// sd, and its privacy quantities.
type cell struct {
	key            string
	label          string // "" labels the cell by its key
	metric         string // "" names its metric test_error
	n              int
	mean, sd       float64
	eps, spent     float64
	sigma, ledgerS float64
}

func newCell(i int) cell {
	return cell{key: fmt.Sprintf("k%03d", i), n: 250, mean: 0.2 + 0.001*float64(i), sd: 0.05,
		eps: 1, spent: 0.9999999, sigma: 1.5, ledgerS: 1.5}
}

// evidence builds an evidence file of cells in the format
// report.Evidence.JSON writes, and parses it.
func evidence(t *testing.T, cells []cell) *report.Evidence {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"version":1,"spec":"synthetic","spec_sha256":"","code_versions":["v"],"ci":"t","quick":false,"timing":false,"trials":0,"cells":[`)
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(',')
		}
		n := float64(c.n)
		fmt.Fprintf(&b, `{"key":%q,"summary":{"dataset":"D","mechanism":"m","label":"L%s","epsilon":%v,"trials":%d,`+
			`"eps_spent_max":%v,"eps_per_run_max":null,"delta":1e-6,"accountant":"rdp","alpha_mean":12,"wall_s_mean":null,`+
			`"metrics":{%q:[%d,%v,%v,%v,%v,%v,%v,%v]},"diagnostics":{"iterations":[%d,%v],"wall_fit":[%d,%v,1,1,1,1,0,9]},"noise":{"sigma":[%d,%v]}},`+
			`"ledger":{"event":{"kind":"gaussian","sigma":%v,"sensitivity":1},"delta":1e-6}}`,
			c.key, cmp.Or(c.label, c.key), c.eps, c.n, c.spent,
			cmp.Or(c.metric, "test_error"), c.n, c.mean*n, c.sd, c.mean, c.mean-c.sd, c.mean+c.sd, c.mean-3*c.sd, c.mean+3*c.sd,
			c.n, 40.0, c.n, 5*n, c.n, c.sigma, c.ledgerS)
	}
	b.WriteString("]}")
	e, err := report.ParseEvidence("synthetic", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func cells(m int) []cell {
	out := make([]cell, m)
	for i := range out {
		out[i] = newCell(i)
	}
	return out
}

// claims is a Claims of one claim with the verdict v.
func claims(v string) *report.Claims {
	return &report.Claims{Spec: "synthetic", Claims: []report.Claim{{ID: "a-beats-b", Verdict: v}, {ID: "timed", Verdict: report.Holds, Timing: true}}}
}

func compare(t *testing.T, old, new []cell, oldVerdict, newVerdict string) *Report {
	t.Helper()
	return Compare(Side{Path: "old", Evidence: evidence(t, old), Claims: claims(oldVerdict)},
		Side{Path: "new", Evidence: evidence(t, new), Claims: claims(newVerdict)})
}

// failsNaming checks that r fails with a failure line holding every word.
func failsNaming(t *testing.T, r *Report, words ...string) {
	t.Helper()
	if r.Verdict != Fail {
		t.Fatalf("verdict %s, want fail; report: %+v", r.Verdict, r)
	}
	for _, f := range r.Failures {
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(f, w)
		}
		if ok {
			return
		}
	}
	t.Errorf("no failure names %q: %q", words, r.Failures)
}

func TestIdenticalEvidencePasses(t *testing.T) {
	cs := cells(20)
	r := compare(t, cs, cs, report.Holds, report.Holds)
	if r.Verdict != Pass || len(r.Failures) != 0 {
		t.Fatalf("verdict %s: %q", r.Verdict, r.Failures)
	}
	if r.Metrics.Compared != 20 || r.Metrics.Identical != 20 || r.Metrics.Uncorrected != 0 {
		t.Errorf("metrics %+v: want 20 compared, 20 identical, none differing", r.Metrics)
	}
	// The wall-clock diagnostic is left out, the work counter compared.
	if r.Diagnostics.Compared != 20 {
		t.Errorf("diagnostics compared %d, want 20 (iterations only, not wall_fit)", r.Diagnostics.Compared)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "synthetic: PASS") {
		t.Errorf("text:\n%s", text.String())
	}
}

// A mean moved by 5 standard errors in one cell of ten is found, named
// with its means, half-width and p, and fails the check.
func TestShiftedMeanDetected(t *testing.T) {
	old := cells(10)
	new := cells(10)
	se := old[3].sd / math.Sqrt(float64(old[3].n))
	new[3].mean += 5 * se
	r := compare(t, old, new, report.Holds, report.Holds)
	failsNaming(t, r, "k003", "metric test_error", "Holm")
	if r.Metrics.Uncorrected != 1 || r.Metrics.Holm != 1 || len(r.Metrics.Differing) != 1 {
		t.Fatalf("metrics %+v: want the one shifted cell", r.Metrics)
	}
	d := r.Metrics.Differing[0]
	// t = 5 se / √(2 se²) = 5/√2 on ν = 498: p = 2 P(T > 3.5355).
	wantP := WelchP(250, 0, 1, 250, 5/math.Sqrt2*math.Sqrt(2.0/250), 1)
	if d.OldMean != old[3].mean || math.Abs(d.NewMean-new[3].mean) > 1e-15 || math.Abs(d.P-wantP) > 1e-12*wantP || d.P > 1e-3 {
		t.Errorf("differing %+v, want p = %g", d, wantP)
	}
	if hw := 1.9695 * se; math.Abs(d.HalfWidth-hw) > 1e-4*hw { // t_{0.975, 249} = 1.9695
		t.Errorf("half-width %g, want ≈ %g (Student-t, n = 250)", d.HalfWidth, hw)
	}
}

// Among 400 statistics, four moved by t = 2.8 (p ≈ 0.005) differ at 1%
// uncorrected, but Holm's correction (threshold 0.01/400 for the
// smallest) rejects none: the check passes and reports the four.
func TestChanceShiftsPassUnderHolm(t *testing.T) {
	old, new := cells(400), cells(400)
	for i := range new {
		se := old[i].sd / math.Sqrt(float64(old[i].n))
		z := 0.3 * math.Sin(float64(i)) // p > 0.76
		if i%100 == 7 {
			z = 2.8
		}
		// Between two samples of equal n and sd, a shift of √2·z standard
		// errors is a Welch statistic z.
		new[i].mean += z * math.Sqrt2 * se
	}
	r := compare(t, old, new, report.Holds, report.Holds)
	if r.Verdict != Pass {
		t.Fatalf("verdict %s: %q", r.Verdict, r.Failures)
	}
	if r.Metrics.Uncorrected != 4 || r.Metrics.Holm != 0 {
		t.Errorf("metrics: %d differ uncorrected, %d under Holm; want 4 and 0", r.Metrics.Uncorrected, r.Metrics.Holm)
	}
	for _, d := range r.Metrics.Differing {
		if d.P >= Alpha || d.P < Alpha/400 || d.Holm {
			t.Errorf("%+v: want %g/400 ≤ p < %g, not rejected", d, Alpha, Alpha)
		}
	}
}

// A privacy quantity moved by 1e-6 relative fails, naming the cell and
// the field; one moved by 1e-12 (rounding) passes.
func TestPrivacyChangeFails(t *testing.T) {
	for _, tc := range []struct {
		field string
		move  func(c *cell, f float64)
	}{
		{"eps_spent_max", func(c *cell, f float64) { c.spent *= f }},
		{"noise sigma mean", func(c *cell, f float64) { c.sigma *= f }},
		{"ledger event.sigma", func(c *cell, f float64) { c.ledgerS *= f }},
	} {
		old, new := cells(5), cells(5)
		tc.move(&new[2], 1+1e-6)
		failsNaming(t, compare(t, old, new, report.Holds, report.Holds), "k002", tc.field)
		new = cells(5)
		tc.move(&new[2], 1+1e-12)
		if r := compare(t, old, new, report.Holds, report.Holds); r.Verdict != Pass {
			t.Errorf("%s moved by 1e-12: %q", tc.field, r.Failures)
		}
	}
}

func TestChangedVerdictFails(t *testing.T) {
	cs := cells(5)
	r := compare(t, cs, cs, report.Holds, report.Tie)
	failsNaming(t, r, "claim a-beats-b", "holds → tie")
	timed := Compare(Side{Path: "old", Evidence: evidence(t, cs), Claims: claims(report.Holds)},
		Side{Path: "new", Evidence: evidence(t, cs), Claims: &report.Claims{Claims: []report.Claim{{ID: "a-beats-b", Verdict: report.Holds}, {ID: "timed", Verdict: report.Tie, Timing: true}}}})
	if timed.Verdict != Pass || len(timed.TimingChanged) != 1 || !strings.Contains(timed.TimingChanged[0], "claim timed: verdict holds → tie") {
		t.Errorf("a wall-clock claim's change: verdict %s, listed %q; want pass, listed", timed.Verdict, timed.TimingChanged)
	}
	if len(r.Claims) != 2 || !r.Claims[0].Changed || r.Claims[1].Changed || !r.Claims[1].Timing {
		t.Errorf("claims %+v", r.Claims)
	}
}

func TestMissingCellFails(t *testing.T) {
	old := cells(5)
	new := append([]cell(nil), old[:4]...)
	failsNaming(t, compare(t, old, new, report.Holds, report.Holds), "k004", "only in the old")
	failsNaming(t, compare(t, new, old, report.Holds, report.Holds), "k004", "only in the new")
}

// TestRekeyedCellsCompared: a cell whose key changed (its mechanism's code
// version did) but whose grid point did not is compared with the old cell,
// and a shift in it is still found; a grid point two new cells share is
// not paired.
func TestRekeyedCellsCompared(t *testing.T) {
	old, new := cells(5), cells(5)
	for i := range old {
		old[i].label, new[i].label = old[i].key, old[i].key
	}
	new[2].key = "v2-k002"
	r := compare(t, old, new, report.Holds, report.Holds)
	if r.Verdict != Pass || len(r.Rekeyed) != 1 || !strings.Contains(r.Rekeyed[0], "k002") || !strings.Contains(r.Rekeyed[0], "v2-k002") {
		t.Fatalf("re-keyed cell: verdict %s, failures %q, rekeyed %q", r.Verdict, r.Failures, r.Rekeyed)
	}
	if r.Metrics.Compared != 5 {
		t.Errorf("compared %d metrics, want all 5", r.Metrics.Compared)
	}
	new[2].mean += 5 * new[2].sd / math.Sqrt(float64(new[2].n))
	failsNaming(t, compare(t, old, new, report.Holds, report.Holds), "k002", "metric test_error", "Holm")
	new = cells(5)
	for i := range new {
		new[i].label = old[i].key
	}
	new[2].key = "v2-k002"
	new = append(new, cell(new[2]))
	new[5].key = "v3-k002"
	failsNaming(t, compare(t, old, new, report.Holds, report.Holds), "k002", "only in the old")
}

// TestOneSidedMetricFails: a metric only one evidence holds (dropped or
// renamed) fails the check instead of going uncompared.
func TestOneSidedMetricFails(t *testing.T) {
	old, new := cells(3), cells(3)
	new[1].metric = "train_error"
	r := compare(t, old, new, report.Holds, report.Holds)
	failsNaming(t, r, "k001", "metric test_error is only in the old")
	failsNaming(t, r, "k001", "metric train_error is only in the new")
}

// TestWelchP checks the p-value against closed forms and a numerical
// integration of Student's t density.
func TestWelchP(t *testing.T) {
	// Equal n = 2 and sd: ν = 2(n − 1) = 2, where P(|T| > t) = 1 − t/√(2 + t²).
	for _, d := range []float64{0.3, 1, 4} {
		tt := d / math.Sqrt(2*1.0/2) // (m1 − m2)/√(s²/2 + s²/2) with s = 1
		want := 1 - tt/math.Sqrt(2+tt*tt)
		if got := WelchP(2, 0, 1, 2, d, 1); math.Abs(got-want) > 1e-12 {
			t.Errorf("ν = 2, t = %g: p = %.15g, want %.15g", tt, got, want)
		}
	}
	// n = (10, 20), sd = (1, 2), means 1 and 2: t = −1/√0.3, ν =
	// 0.09/(0.01/9 + 0.04/19); p = 1 − 2∫₀^|t| f_ν by Simpson's rule.
	tt := 1 / math.Sqrt(0.3)
	nu := 0.09 / (0.01/9 + 0.04/19)
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	density := func(x float64) float64 {
		return math.Exp(lg1-lg2-0.5*math.Log(nu*math.Pi)) * math.Pow(1+x*x/nu, -(nu+1)/2)
	}
	const steps = 20000
	h := tt / steps
	sum := density(0) + density(tt)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * density(float64(i)*h)
	}
	want := 1 - 2*sum*h/3
	if got := WelchP(10, 1, 1, 20, 2, 2); math.Abs(got-want) > 1e-10 {
		t.Errorf("Welch p = %.15g, want %.15g (numerical integration)", got, want)
	}
	// No spread: equal means are equal, different ones differ.
	if WelchP(5, 1, 0, 5, 1, 0) != 1 || WelchP(5, 1, 0, 5, 2, 0) != 0 || WelchP(1, 1, math.NaN(), 5, 2, 1) != 0 {
		t.Error("degenerate cases")
	}
}

// TestHolm checks the step-down rule on worked examples at α = 0.05: in
// the first every sorted p(i) ≤ α/(m − i + 1) (0.005 ≤ 0.0125, 0.01 ≤
// 0.0167, 0.015 ≤ 0.025, 0.03 ≤ 0.05), so all four are rejected where
// Bonferroni (p ≤ α/4) rejects two; in the second 0.02 > 0.05/3 stops the
// procedure, so 0.045 is kept although 0.045 ≤ α/1.
func TestHolm(t *testing.T) {
	for _, tc := range []struct {
		ps   []float64
		want []bool
	}{
		{[]float64{0.01, 0.015, 0.03, 0.005}, []bool{true, true, true, true}},
		{[]float64{0.01, 0.02, 0.04, 0.005, 0.045}, []bool{true, false, false, true, false}},
	} {
		got := Holm(tc.ps, 0.05)
		for i := range tc.want {
			if got[i] != tc.want[i] {
				t.Errorf("Holm(%v) = %v, want %v", tc.ps, got, tc.want)
				break
			}
		}
	}
}
