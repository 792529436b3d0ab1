package results

import (
	"encoding/json"
	"math"
	"strings"
)

// SchemaVersion is the version of the Record layout. Readers reject records
// with a newer schema and upgrade older ones as they decode them (see
// Record.UnmarshalJSON).
//
// Version 2: the fit's work counters moved from "stats" to
// "diagnostics_nonprivate"; an oracle-tuned trial records eps_spent = +Inf
// and its selected run's ε as eps_per_run; privacy gained "selection" and
// "assumptions".
//
// Still version 2 (issue 11): "traces" and privacy's "target_scope" were
// added as omitempty fields. A record without them encodes byte for byte as
// before, a schema-2 reader that predates them ignores them (encoding/json
// drops unknown keys), and a new reader reads an older record as one without
// traces and with the normal target: nothing an older reader could misread,
// so no reader needs a new version. (A record with a target scope read by an
// older dplab would be flagged as overspending where the new one states the
// scope; it is never mistaken for a smaller ε, which stays eps_spent.)
//
// Version 3 (issue 13): non-finite and not-applicable numbers are JSON null
// instead of the strings "inf"/"nan" (one type per field, as pandas reads
// it): a non-private reference's epsilon, eps_target, eps_spent and delta,
// an oracle-tuned trial's eps_spent. Readers map null ε fields back to
// +Inf (Record.UnmarshalJSON), so nothing reads "no guarantee" as a
// number.
const SchemaVersion = 3

// Trial statuses.
const (
	StatusOK      = "ok"      // the trial ran; metrics and privacy are set
	StatusFailed  = "failed"  // the fit returned an error; Error says which
	StatusSkipped = "skipped" // the cell cannot run here (e.g. its data is absent); Error says why
	// StatusInfeasible: the mechanism cannot reach the cell's target ε on
	// this trial's data (no noise level calibrates to it); Error says why
	// and Diagnostics[InfeasibleFloor] holds the smallest ε the
	// calibration found (an RDP ε at Diagnostics[InfeasibleOrder] when that
	// is set). Nothing was released. A rerun does not repeat it
	// (Settled).
	StatusInfeasible = "infeasible"
)

// Diagnostics keys of an infeasible trial (StatusInfeasible).
const (
	// InfeasibleFloor is the smallest ε the calibration reached: the
	// target must be at least this for the mechanism to run on the data.
	InfeasibleFloor = "infeasible_eps_floor"
	// InfeasibleOrder is the RDP order when the target was an RDP ε at that
	// order (InfeasibleFloor is then an RDP ε too); absent otherwise.
	InfeasibleOrder = "infeasible_order"
)

// Settled reports whether the trial's outcome is final: ok, or infeasible
// (the same data and target give the same answer). A rerun repeats every
// other trial (failed, skipped).
func (r *Record) Settled() bool { return r.Status == StatusOK || r.Status == StatusInfeasible }

// DiagRuns is the diagnostics key of a tuned trial's number of runs: K for
// private tuning, the candidates for oracle tuning.
const DiagRuns = "runs"

// DataIndependent reports whether the trial released private tuning's
// data-independent model: repeat-and-select drew K = 0 runs [PS22], so no
// run was selected and the zero model (mechanisms.DataIndependentModel) was
// released, as the protocol requires. Such a record has diagnostics runs =
// 0 and no noise of its own; its metrics are the zero model's.
func (r *Record) DataIndependent() bool {
	runs, ok := r.Diagnostics[DiagRuns]
	return ok && runs == 0 && r.Privacy.Tuning == TuningPrivate
}

// Tuning modes, as Privacy.Tuning records them.
const (
	TuningNone    = "none"
	TuningOracle  = "oracle"
	TuningPrivate = "private"
)

// Selections: how a tuned trial chose the run it released (Privacy.Selection).
// None of them is private: the candidates are scored without noise on rows
// that the guarantee then treats as public, or (oracle) not charged at all.
const (
	// SelectionValidation: repeat-and-select scored the runs without noise
	// on the validation rows; EpsSpent covers the training rows only.
	SelectionValidation = "not private: validation rows scored without noise"
	// SelectionTest: repeat-and-select scored the runs without noise on the
	// test rows (the published protocol); EpsSpent covers the training rows only.
	SelectionTest = "not private: test rows scored without noise"
	// SelectionOracle: every candidate was fitted and the best on the test
	// set released, uncharged; EpsSpent is +Inf.
	SelectionOracle = "not private: oracle, best candidate on the test set, not charged"
)

// Record is one trial: which cell it belongs to, what it measured, and the
// privacy it spent. Field groups follow STYLE §2.9: identity, params, metrics,
// privacy, provenance.
type Record struct {
	Schema int `json:"schema"`

	// Identity.
	Experiment string `json:"experiment"`
	CellKey    string `json:"cell_key"`  // hash of everything that defines the cell
	Dataset    string `json:"dataset"`   // the dataset's label in the spec
	Mechanism  string `json:"mechanism"` // registry name
	Label      string `json:"label"`     // the mechanism's label in the spec (legend entry)
	Epsilon    Float  `json:"epsilon"`   // the grid's ε; +Inf for a non-private reference
	Trial      int    `json:"trial"`
	Seed       string `json:"seed"` // hex of the trial seed
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`

	// Parameters, as resolved for this cell (sweeps expanded).
	MechParams map[string]any `json:"p_mech,omitempty"`
	DataParams map[string]any `json:"p_data,omitempty"`

	// Metrics measured on held-out data (test_mse, test_accuracy, ...).
	Metrics map[string]Float `json:"metrics,omitempty"`

	// Traces are an iterative fit's per-iteration evaluation values, by name
	// (e.g. "excess_objective"): index t is the value after t steps, t = 0
	// the starting point (mechanisms.Release.Trace). Like a train metric they
	// are computed from the training data WITHOUT noise: not covered by
	// Privacy.EpsSpent, for evaluation only, never released. Nil for fits
	// that are not iterative.
	Traces map[string][]Float `json:"traces,omitempty"`

	// Privacy actually spent, tuning included, and what it rests on.
	Privacy Privacy `json:"privacy"`

	// Diagnostics are the fit's work counters and solver state (iterations,
	// gradient evaluations, clip counts, gradient norms, tuning runs, the
	// selected candidate sel_<key>, ...). They are read from the private
	// training data WITHOUT noise: they are not covered by Privacy.EpsSpent,
	// are not differentially private, and are for diagnosing runs only,
	// never for release. Keys starting with "wall_" (e.g.
	// "wall_ns_per_iter") are wall-clock measurements, like WallSeconds:
	// they vary from run to run. JSON key "diagnostics_nonprivate" (schema 1:
	// "stats").
	Diagnostics map[string]Float `json:"diagnostics_nonprivate,omitempty"`

	// Provenance.
	WallSeconds float64 `json:"wall_s"` // wall time of the fit (timing field)
	CodeVersion string  `json:"code_version"`
}

// Privacy is a trial's privacy ledger summary.
type Privacy struct {
	EpsTarget Float `json:"eps_target"`
	// TargetScope says what EpsTarget meant to the fit when it is not the
	// (ε, δ) target of the whole procedure, e.g. "per-step RDP ε at α = 2"
	// (mechanisms.Release.TargetScope); "" when it is. EpsSpent is the whole
	// ledger's (ε, δ) either way, so a scoped record whose EpsSpent exceeds
	// EpsTarget is not an overspend: figures and tables state the scope
	// instead of warning.
	TargetScope string `json:"target_scope,omitempty"`
	// EpsSpent is the ε of the whole procedure at Delta, evaluated from Event
	// by Accountant: +Inf when no guarantee holds (a non-private mechanism,
	// oracle tuning). It holds under Assumptions, and for a tuned trial only
	// as far as Selection says.
	EpsSpent   Float            `json:"eps_spent"`
	Delta      Float            `json:"delta"`
	Accountant string           `json:"accountant"`           // "rdp", "pld", "exact", "none"
	Relation   string           `json:"relation"`             // neighbouring relation
	AlphaStar  Float            `json:"alpha_star,omitempty"` // optimal RDP order
	Noise      map[string]Float `json:"noise,omitempty"`      // noise parameters
	Tuning     string           `json:"tuning"`               // "none", "oracle", "private"
	TuningNote string           `json:"tuning_note,omitempty"`
	// Selection is how a tuned trial chose its released run (one of the
	// Selection constants); "" for an untuned trial.
	Selection string `json:"selection,omitempty"`
	// EpsPerRun is the ε of one run of a tuned mechanism (its base event
	// alone, or the released run of an oracle trial); EpsSpent is the whole
	// procedure's.
	EpsPerRun Float `json:"eps_per_run,omitempty"`
	// Assumptions are what EpsSpent rests on but does not account for, one
	// phrase each: statistics the preprocessing read from the data without
	// noise (the dataset's loader and the spec's scaling), the training
	// size n treated as public under add/remove neighbours, rows that a
	// non-private selection treats as public. Empty for a non-private trial.
	Assumptions []string `json:"assumptions,omitempty"`
	// Pipeline says how EpsSpent covers the non-private, data-dependent
	// pre-processing the mechanism ran behind ([HSS24]; a spec's
	// preprocess key); nil when there was none. (omitempty: records without
	// it encode as before.)
	Pipeline *Pipeline `json:"pipeline,omitempty"`
	// Event is the charged ledger event as JSON (accounting's encoding).
	Event json.RawMessage `json:"event,omitempty"`
}

// Pipeline is how a trial's ε covers a non-private, data-dependent
// pre-processing of its training rows ([HSS24] Theorem 2 or group privacy,
// accounting.Preprocessed). Its values describe one run of the mechanism
// (a tuned trial's EpsSpent is the repeat-and-select of such runs).
type Pipeline struct {
	Steps string `json:"steps"` // the fitted steps in order, "quantize[eta=0.1]", "impute-mean→pca-rank[k=5]"
	Mode  string `json:"mode"`  // the sensitivities: "safe" or "paper" (as [HSS24] prints them)
	// Analysis is the analysis that gives the run's ε at its optimal order
	// (accounting.Analysis*: "tight_pq", "group", …); "" for a
	// non-private mechanism.
	Analysis string `json:"analysis,omitempty"`
	DeltaInf int    `json:"delta_inf"` // Δ∞ charged (n when the collection was violated)
	Delta2   Float  `json:"delta_2"`   // Δ₂ charged
	// Group says why only group privacy was considered: no smooth-RDP
	// result for the mechanism, or data violating the declared collection
	// (then over all n rows, unconditionally); "" when Theorem 2 was.
	Group string `json:"group,omitempty"`
	// PerAnalysis is each applicable analysis' ε alone for one run, at
	// Delta (the record's ε uses their pointwise minimum in RDP).
	PerAnalysis map[string]Float `json:"per_analysis,omitempty"`
}

// AppendRecord appends r's line in a store, json.Marshal's encoding of r
// (field order of Record's tags, omitempty, map keys sorted, Float as its
// MarshalJSON writes it), to dst. On error dst is returned unchanged.
//
// Cost (issue 36, 2 loaded cores): 14 µs a realistic record
// (BenchmarkAppendRecord; the hand encoder it replaced, with its per-cell
// cache, took 7 µs), which is 25% more CPU for the cheapest real panel
// (BenchmarkRunBostonPanel: 5250 trials of about 50 µs) and nothing
// measurable for a whole spec (gaussmix_fig5: 4000 trials, 15 s of CPU).
func AppendRecord(dst []byte, r *Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// Assumption phrases (Privacy.Assumptions) that a record's own fields
// determine.
const (
	// AssumeValidationPublic and AssumeTestPublic: the rows a tuning
	// selection scores without noise are treated as public
	// (SelectionAssumption).
	AssumeValidationPublic = "validation rows treated as public: the tuning selection scores runs on them without noise"
	AssumeTestPublic       = "test rows treated as public: the tuning selection scores runs on them without noise (the published protocol)"
	// AssumeUnrecorded stands, in a schema-1 record that claims a
	// guarantee, for the assumptions that only its spec could tell: that
	// schema did not record them.
	AssumeUnrecorded = "not recorded (schema-1 record): ε may also rest on statistics read from the data without noise and on a public training size n"
)

// SelectionAssumption returns the assumption a tuning selection adds to a
// trial's guarantee (one of the Selection constants; "" for none or for
// oracle selection, which claims no guarantee).
func SelectionAssumption(selection string) string {
	switch selection {
	case SelectionValidation:
		return AssumeValidationPublic
	case SelectionTest:
		return AssumeTestPublic
	}
	return ""
}

// recordJSON has Record's layout without its methods, plus the fields of
// older schemas.
type recordJSON Record

// UnmarshalJSON implements json.Unmarshaler. It reads every schema up to
// SchemaVersion and returns a record of the current schema (Schema is then
// SchemaVersion), so that every reader — a resumed run, render, report,
// merge, audit — reads old stores as new ones and no reader can mistake an
// old oracle record's one-run ε for a total:
//
//   - the null ε fields of schema 3 and the strings "inf"/"nan" of schema 2
//     read as +Inf (Float.UnmarshalJSON, then here);
//   - schema 1: "stats" becomes Diagnostics; an oracle record's finite
//     EpsSpent moves to EpsPerRun and EpsSpent becomes +Inf; a tuned
//     record's Selection is set from its tuning mode and note; an ok record
//     that claims a guarantee gets the Assumptions it did not record: its
//     selection's (SelectionAssumption) and AssumeUnrecorded for those
//     only its spec could give.
//
// The upgrade is idempotent. A record of a newer schema keeps its Schema
// (a store reader refuses it).
func (r *Record) UnmarshalJSON(b []byte) error {
	var aux struct {
		*recordJSON
		Stats map[string]Float `json:"stats,omitempty"` // schema 1
	}
	aux.recordJSON = (*recordJSON)(r)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if r.Diagnostics == nil && aux.Stats != nil {
		r.Diagnostics = aux.Stats
	}
	// Schema 3 writes "no guarantee" and "no ε axis" as null (read as NaN):
	// they mean +Inf. (An ε field is never a NaN otherwise: the accountant
	// refuses one.)
	for _, f := range []*Float{&r.Epsilon, &r.Privacy.EpsTarget, &r.Privacy.EpsSpent} {
		if math.IsNaN(float64(*f)) {
			*f = Float(math.Inf(1))
		}
	}
	if r.Schema < 2 {
		r.upgradeV1()
	}
	if r.Schema < SchemaVersion {
		r.Schema = SchemaVersion
	}
	return nil
}

// upgradeV1 applies the schema-2 privacy conventions to a schema-1 record.
func (r *Record) upgradeV1() {
	p := &r.Privacy
	switch p.Tuning {
	case TuningOracle:
		if !math.IsInf(float64(p.EpsSpent), 1) && r.Status == StatusOK {
			p.EpsPerRun, p.EpsSpent = p.EpsSpent, Float(math.Inf(1))
		}
		if p.Selection == "" {
			p.Selection = SelectionOracle
		}
	case TuningPrivate:
		if p.Selection == "" {
			// Schema-1 notes read "... best by <metric> on the <part> split".
			p.Selection = SelectionValidation
			if strings.Contains(p.TuningNote, "on the test split") {
				p.Selection = SelectionTest
			}
		}
	}
	// Schema 1 predates Assumptions. A guarantee rests on some whenever the
	// selection scores rows without noise, and may on statistics and on n
	// that the spec alone can tell (harness/run.Assumptions): say so rather
	// than let an empty list read as "none".
	if p.Assumptions == nil && r.Status == StatusOK && !math.IsInf(float64(p.EpsSpent), 1) {
		if a := SelectionAssumption(p.Selection); a != "" {
			p.Assumptions = append(p.Assumptions, a)
		}
		p.Assumptions = append(p.Assumptions, AssumeUnrecorded)
	}
}

// Key identifies a trial in a store.
type Key struct {
	Cell  string
	Trial int
}

// Key returns r's store key.
func (r *Record) Key() Key { return Key{Cell: r.CellKey, Trial: r.Trial} }
