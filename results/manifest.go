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
	Runs       []Run             `json:"runs"`
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
	Status    string    `json:"status"` // "complete", "interrupted", "failed"
}

// ReadManifest reads dir's manifest; a missing file gives an empty manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("results: %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}

// WriteManifest writes m to dir atomically.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return fileutil.WriteFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
}
