package datasets

import (
	"os"
	"path/filepath"
)

// DataDir resolves the data directory: flag when non-empty, else the
// DPLAB_DATA environment variable, else os.UserCacheDir()/dplab/datasets (and
// os.TempDir()/dplab/datasets on a system without a user cache directory).
func DataDir(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("DPLAB_DATA"); env != "" {
		return env
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "dplab", "datasets")
}
