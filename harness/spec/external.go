package spec

// ExternalSpec is the [mechanism.external] table of a [[mechanism]] block
// named "external": a mechanism run as a separate worker process
// (docs/external.md, package mechanisms/external).
type ExternalSpec struct {
	// Command is the worker's argv, e.g. ["python3", "my_mech.py"]; an
	// argument naming a file relative to the spec's directory (or an
	// absolute one) is that file. The worker runs in the spec's directory.
	Command []string `toml:"command"`
	// Mode is "declare" (the worker chooses its noise and declares its
	// ledger) or "calibrate" (dplab calibrates the noise of Event).
	Mode string `toml:"mode"`
	// Event is, in mode "calibrate", the event family: the JSON of a dplab
	// event (as dplab account json prints it) with the string "$noise"
	// where the calibrated noise goes.
	Event string `toml:"event"`
	// Timeout bounds each trial's round trip, in seconds; 0 means 600.
	Timeout float64 `toml:"timeout"`
	// Tasks are the tasks the worker fits, "regression" and/or "binary";
	// default both. The first is the task of its audit's canary pair.
	Tasks []string `toml:"tasks"`
	// Files are further files the worker reads (its modules), relative to
	// the spec's directory: hashed into the cell key as the command's are.
	Files []string `toml:"files"`
	// Output is what the worker answers with: "linear" (θ and intercept,
	// the default) or "predictions" (predictions on a features-only
	// evaluation file dplab writes: protocol version 2).
	Output string `toml:"output"`

	// Resolved by plan.Validate, never decoded: the spec's directory, the
	// argv with its file arguments made absolute, and the SHA-256 of each
	// file the command and Files name, by path as written.
	Dir      string            `toml:"-" json:"-"`
	Argv     []string          `toml:"-" json:"-"`
	SHA256   map[string]string `toml:"-" json:"-"`
	Missing  []string          `toml:"-" json:"-"` // entries of Files that could not be read
	Resolved bool              `toml:"-" json:"-"`
}
