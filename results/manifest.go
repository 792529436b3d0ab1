package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dplab/dplab/internal/fileutil"
)

// ManifestFile is the provenance file of a result directory.
const ManifestFile = "manifest.json"

// Manifest records where a result directory's trials came from. Each run
// (including resumed ones) appends to Runs.
type Manifest struct {
	Experiment string            `json:"experiment"`
	SpecPath   string            `json:"spec_path"`
	SpecSHA256 string            `json:"spec_sha256"`
	Datasets   map[string]string `json:"datasets,omitempty"` // data file (relative path) -> SHA-256 of its bytes
	// External holds each external mechanism's command and the SHA-256 of
	// the files it names, by mechanism label (docs/external.md).
	External map[string]ExternalCommand `json:"external,omitempty"`
	Runs     []Run                      `json:"runs"`
}

// ExternalCommand is an external mechanism's worker command, as the spec
// writes it, its privacy mode and the SHA-256 of each file it names.
type ExternalCommand struct {
	Command []string          `json:"command"`
	Mode    string            `json:"mode"`
	SHA256  map[string]string `json:"sha256,omitempty"`
}

// Run is one invocation of dplab run on the directory.
type Run struct {
	Build     Build     `json:"build"`
	Args      []string  `json:"args"`
	Jobs      int       `json:"jobs"`
	Quick     bool      `json:"quick"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	TrialsRun int       `json:"trials_run"`
	Failed    int       `json:"failed"`
	Skipped   int       `json:"skipped"`
	// Infeasible counts trials recorded infeasible (StatusInfeasible).
	Infeasible int    `json:"infeasible,omitempty"`
	Status     string `json:"status"` // "complete", "interrupted", "failed"
	// Trials is the --trials override of the spec's trial count (0: none).
	Trials int `json:"trials,omitempty"`
	// Shard is "i/N" for a run of shard i of N (dplab run --shard).
	Shard string `json:"shard,omitempty"`
	// Set holds the run's --set PATH=VALUE overrides of the spec, in
	// order (the spec.toml it saved is the spec they give).
	Set []string `json:"set,omitempty"`
	// Only holds the run's --only filters: it ran only the cells matching
	// them, and left out LeftOutCells cells of the spec, LeftOutTrials
	// trials.
	Only          []string `json:"only,omitempty"`
	LeftOutCells  int      `json:"left_out_cells,omitempty"`
	LeftOutTrials int      `json:"left_out_trials,omitempty"`
	// Load holds the machine's 1-minute load average (LoadAverage) at the
	// run's start and, when it ended, at its end: the context of its
	// trials' wall times. Empty where the system reports none.
	Load []float64 `json:"load,omitempty"`
}

// AddLoad appends the machine's load average now to r.Load, when the
// system reports one.
func (r *Run) AddLoad() {
	if x, ok := LoadAverage(); ok {
		r.Load = append(r.Load, x)
	}
}

// CorruptManifestError is a manifest file that does not parse. The trials
// do not depend on it: a run (or merge) that finds it warns and writes a
// new one from itself, and dplab render warns and goes on.
type CorruptManifestError struct {
	Path string
	Err  error
}

func (e *CorruptManifestError) Error() string {
	return fmt.Sprintf("results: %s is not a readable manifest (%v)", e.Path, e.Err)
}

func (e *CorruptManifestError) Unwrap() error { return e.Err }

// ReadManifest reads dir's manifest; a missing file gives an empty manifest.
func ReadManifest(dir string) (*Manifest, error) {
	return ReadManifestFile(filepath.Join(dir, ManifestFile))
}

// ReadManifestFile reads the manifest at path (a result directory's, or a
// shard's: ShardManifestPath); a missing file gives an empty manifest, one
// that does not parse a *CorruptManifestError.
func ReadManifestFile(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &CorruptManifestError{Path: path, Err: err}
	}
	return &m, nil
}

// WriteManifest writes m to dir's ManifestFile atomically.
func WriteManifest(dir string, m *Manifest) error { return writeManifest(dir, ManifestFile, m) }

// WriteShardManifest writes m to shard i of n's manifest in dir
// (ShardManifestPath) atomically.
func WriteShardManifest(dir string, i, n int, m *Manifest) error {
	return writeManifest(dir, shardManifestName(i, n), m)
}

// writeManifest writes m to the file name in the result directory dir
// atomically.
func writeManifest(dir, name string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return fileutil.WriteFileAtomicIn(dir, name, append(b, '\n'))
}
