package mechanisms

import (
	"math"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// CalibrationClaim is one configuration of a mechanism and whether its fit
// claims calibration (Release.Calibrated): TestCalibratedClaims fits it and
// checks the claim, and that a claiming fit's ledger meets the target.
type CalibrationClaim struct {
	// Params are the params beyond the defaults, as the body of a TOML
	// inline table (`epsilon_scope = "total", mu = 1`); "" keeps the
	// defaults.
	Params string
	// Calibrated is whether the fit calibrates its noise to the budget with
	// the Calibrator (true) or uses a paper's constants (false).
	Calibrated bool
}

// Audit declares how the privacy audit (package audit, docs/trust.md) tests
// a private mechanism on one neighbouring pair, and what the audit measured
// there: the audit test (TestMechanismAudits), `dplab audit` and the
// generated table of docs/trust.md read it from the registry.
type Audit struct {
	// Name is "" for the mechanism's own audit, or a further pair's name:
	// that audit is then called "<mechanism>/<Name>".
	Name  string
	Setup AuditSetup
	// Trials is the runs per side of the full audit (make test-long).
	Trials int
	// Weak, when set, says why the audit cannot catch the under-charged
	// variant at these settings (the test then only checks that the real
	// mechanism is not refuted).
	Weak string
	// Leaks names the audit test's further broken variants (audit's
	// leakVariants) that must be caught.
	Leaks []string
	// Trust is the audit's measured row of docs/trust.md's table.
	Trust TrustRow
}

// AuditSetup is the neighbouring pair an audit uses and the params that
// make it informative (see audit.Setup, which it becomes). Zero fields take
// the defaults: 20 rows, 3 features, the registry's default params, the
// orthogonal layout and the canary pair.
type AuditSetup struct {
	Task   datasets.Task // a task the mechanism does not fit means its first
	Rows   int           // rows of the base dataset (D₀ under add/remove)
	Dim    int           // features; the canary uses the last
	Params []string      // audit params (k=v) over the defaults
	// Layout places D₀'s rows (AuditLayout*; "" is orthogonal).
	Layout string
	// Missing is the number of D₀'s rows whose canary coordinate is missing.
	Missing int
	// Intercept scores the release's prediction at the canary, intercept
	// included, instead of its change from the prediction at 0.
	Intercept bool
	// Pair names a pair built from the mechanism's released statistics
	// (package audit's customPairs: "adassp", "curvature", …); "" is the
	// default canary pair and prediction.
	Pair string
	// Offset, when set, returns the data-independent part of the statistic
	// in the run seeded by seed (public randomness the auditor knows).
	Offset func(seed rngs.Seed, dim int) float64
	// Note says why the pair is worst-case for this mechanism, or why not.
	Note string
}

// AuditCanaryNote is the reasoning shared by every mechanism that releases
// a linear model from bounded rows, audited on the default canary pair.
const AuditCanaryNote = "the canary has the largest norm the bounds allow, on a coordinate no other row touches, so its whole contribution shows in the released θ along that coordinate"

// TrustRow is an audit's measured results at the audit test's settings
// (ε = 1, δ = 1e-5), as docs/trust.md's table shows them; the relation and
// the runs come from the registry and Audit.Trials. The numbers are
// measurements: copy them from the test's log (go test -run
// TestMechanismAudits ./audit -v, without -short).
type TrustRow struct {
	Claimed string // the claimed ε ("1.000")
	Real    string // the real mechanism's lower bound ("0.145")
	Broken  string // the broken variants' lower bounds ("under-charged: 2.122")
	Caught  string // whether they were caught ("yes")
}

// The layouts of AuditSetup.Layout (package audit places the rows).
const (
	// AuditLayoutOrthogonal puts D₀'s rows on the first d − 1 coordinates,
	// never on the canary's (the default).
	AuditLayoutOrthogonal = "orthogonal"
	// AuditLayoutSpread puts them on every coordinate in turn, the canary's
	// included, in pairs whose targets (labels) cancel.
	AuditLayoutSpread = "spread"
	// AuditLayoutCircle puts distinct rows on a half circle in the first
	// two coordinates.
	AuditLayoutCircle = "circle"
	// AuditLayoutAxes is as spread, on the first and the canary's
	// coordinates only.
	AuditLayoutAxes = "axes"
)

// Quantity is how report tables print one stored key of a mechanism's
// noise parameters (Release.Noise, records' privacy.noise) or non-private
// diagnostics (Release.Stats): a column in the notation and units of the
// paper the mechanism reproduces, or, where a reader compares with the
// authors' code, of that code, labelled as such. A key may print as
// several columns (Info.Quantities; the paper's value and the code's).
// TestQuantitiesCoverMechanisms (harness/report) fails on a key a fit
// reports without one.
type Quantity struct {
	// Label is the column header, Unicode math in the source's notation:
	// "γ", "c_code = c/n". Labels are unique among a mechanism's keys.
	Label string
	// TeX is the header in LaTeX: `$\gamma$`.
	TeX string
	// Means says what the printed value is, in a few words.
	Means string
	// Unit is its unit or scale where several are in use; "" otherwise.
	Unit string
	// Ref is where the symbol and its units are defined (a citation key
	// of docs/references.md, with the place in the paper).
	Ref string
	// Of, when set, computes the printed value of one record from the
	// stored values of its row's keys (get reads a key of the same group,
	// "node1/" for "node1/gamma", from the record's noise parameters, then
	// its diagnostics); Formula says how, in stored keys ("√gamma"). Nil:
	// the key's stored value is printed.
	Of      func(get func(key string) (float64, bool)) (float64, bool)
	Formula string
	// When, if set, restricts a derived quantity to the records it holds
	// for, given their mechanism params (as stored) and ledger (nil when
	// the record has none); a derived column no row of a table has is left
	// out.
	When func(params map[string]any, ledger accounting.Event) bool
}

// quantity is a Quantity printed as stored.
func quantity(label, tex, means, ref string) Quantity {
	return Quantity{Label: label, TeX: tex, Means: means, Ref: ref}
}

// derivedQuantity is a Quantity computed from the stored keys by of, as
// formula says.
func derivedQuantity(label, tex, formula, means, ref string, of func(func(string) (float64, bool)) (float64, bool)) Quantity {
	return Quantity{Label: label, TeX: tex, Formula: formula, Means: means, Ref: ref, Of: of}
}

// in returns q with its unit.
func (q Quantity) in(unit string) Quantity {
	q.Unit = unit
	return q
}

// onlyFor returns q printed for the records when holds for.
func (q Quantity) onlyFor(when func(params map[string]any, ledger accounting.Event) bool) Quantity {
	q.When = when
	return q
}

// sqrtOf is the printed √(key).
func sqrtOf(key string) func(func(string) (float64, bool)) (float64, bool) {
	return func(get func(string) (float64, bool)) (float64, bool) {
		x, ok := get(key)
		return math.Sqrt(x), ok
	}
}

// perRow is the printed key/n, n the row's number of records (its "n").
func perRow(key string) func(func(string) (float64, bool)) (float64, bool) {
	return func(get func(string) (float64, bool)) (float64, bool) {
		x, ok := get(key)
		n, okN := get("n")
		return x / n, ok && okN
	}
}
