package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/results"
)

// TestManifestRecordsLoad: where the system reports a load average
// (/proc/loadavg), a run's manifest records it at the run's start and end,
// the context of its trials' wall times (docs/README.md, generated docs).
func TestManifestRecordsLoad(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg: the system reports no load average")
	}
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(context.Background(), spectest.MustParse(t, spectest.Valid), Options{Jobs: 1, OutDir: dir, Cache: &DataCache{}}); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || len(m.Runs[0].Load) != 2 {
		t.Fatalf("manifest runs %+v: want one run with the load at its start and end", m.Runs)
	}
	for _, x := range m.Runs[0].Load {
		if x < 0 {
			t.Errorf("load %v < 0", x)
		}
	}
}
