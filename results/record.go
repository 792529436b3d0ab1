package results

import "encoding/json"

// SchemaVersion is the version of the Record layout. Readers reject records
// with a newer schema.
const SchemaVersion = 1

// Trial statuses.
const (
	StatusOK      = "ok"      // the trial ran; metrics and privacy are set
	StatusFailed  = "failed"  // the fit returned an error; Error says which
	StatusSkipped = "skipped" // the cell cannot run here (e.g. its data is absent); Error says why
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

	// Privacy actually spent, tuning included.
	Privacy Privacy `json:"privacy"`

	// Work counters of the fit (iterations, gradient evaluations, runs, ...).
	Stats map[string]Float `json:"stats,omitempty"`

	// Provenance.
	WallSeconds float64 `json:"wall_s"` // wall time of the fit (timing field)
	CodeVersion string  `json:"code_version"`
}

// Privacy is a trial's privacy ledger summary.
type Privacy struct {
	EpsTarget  Float            `json:"eps_target"`
	EpsSpent   Float            `json:"eps_spent"` // evaluated from Event by Accountant
	Delta      Float            `json:"delta"`
	Accountant string           `json:"accountant"`           // "rdp", "pld", "exact", "none"
	Relation   string           `json:"relation"`             // neighbouring relation
	AlphaStar  Float            `json:"alpha_star,omitempty"` // optimal RDP order
	Noise      map[string]Float `json:"noise,omitempty"`      // noise parameters
	Tuning     string           `json:"tuning"`               // "none", "oracle", "private"
	TuningNote string           `json:"tuning_note,omitempty"`
	// EpsPerRun is the ε of one run of a tuned mechanism (its base event
	// alone); EpsSpent is the whole procedure's.
	EpsPerRun Float `json:"eps_per_run,omitempty"`
	// Event is the charged ledger event as JSON (accounting's encoding).
	Event json.RawMessage `json:"event,omitempty"`
}

// Key identifies a trial in a store.
type Key struct {
	Cell  string
	Trial int
}

// Key returns r's store key.
func (r *Record) Key() Key { return Key{Cell: r.CellKey, Trial: r.Trial} }
