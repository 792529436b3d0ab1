package spec

// Default grid limits. A spec above them is refused before anything is
// expanded: a million cells already take about a gigabyte to expand and
// minutes to validate, and a hundred million trials are about 150 GB of
// records. Both are raised with --max-cells and --max-trials.
const (
	DefaultMaxCells  = 1_000_000
	DefaultMaxTrials = 100_000_000
)

// DefaultMaxDataBytes bounds one dataset's values (datasets.Shape.Bytes:
// 8 bytes per feature and label) before it is loaded: 2 GiB, n × d ≈
// 2.7·10⁸. A run holds 3.5 to 5 times a dataset's bytes while its trials
// run (run.residentPerByte), so the largest dataset allowed takes up to
// about 10 GB; the shipped specs' datasets are far below (the largest,
// higgs at its default 2·10⁶ rows, is 464 MB). Raised with --max-data-bytes.
const DefaultMaxDataBytes = 2 << 30

// Limits bounds a spec's grid and its datasets. Zero fields mean the
// defaults.
type Limits struct {
	// MaxCells bounds the cells (datasets × sweep points × ε), and, per
	// mechanism, its sweep points × tuning candidates (the grid validate
	// checks and oracle tuning fits in every trial). 0 means
	// DefaultMaxCells.
	MaxCells int64
	// MaxTrials bounds cells × trials. 0 means DefaultMaxTrials.
	MaxTrials int64
	// MaxDataBytes bounds each dataset's bytes (CheckData). 0 means
	// DefaultMaxDataBytes.
	MaxDataBytes int64
}
