package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
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
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// WriteFileAtomic writes data to path through a synced temporary file and a
// rename, so readers never see a partial file and a crash leaves the old or
// the new content. The file gets mode 0666 less the umask (0644 under the
// usual umask 022), as os.WriteFile would give it.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := createTemp(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return nil
}

// tempSeq numbers the temporary files of this process.
var tempSeq atomic.Uint64

// createTemp creates a new file beside path, named after it, with mode 0666
// less the umask. (os.CreateTemp would give 0600, which the rename would
// carry over to the rendered file.)
func createTemp(path string) (*os.File, error) {
	for try := 0; ; try++ {
		name := fmt.Sprintf("%s.tmp%d-%d", path, os.Getpid(), tempSeq.Add(1))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue // left by a killed process with the same pid
		}
		return f, err
	}
}
