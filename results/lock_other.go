//go:build !unix

package results

import (
	"fmt"
	"os"

	"github.com/dplab/dplab/internal/fileutil"
)

// lockDir creates the lock file name in dir (it marks a result directory)
// but cannot lock it where flock is unavailable: do not run two dplab runs
// on the same result directory at once there.
func lockDir(dir, name string) (*os.File, error) {
	f, err := fileutil.OpenFileIn(dir, name, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("results: lock %s: %w", dir, err)
	}
	return f, nil
}

// lockDirShared is lockDir: nothing is locked where flock is unavailable.
func lockDirShared(dir, name string) (*os.File, error) { return lockDir(dir, name) }

// unlockDir closes a lock file opened by lockDir; nil is a no-op.
func unlockDir(f *os.File) {
	if f != nil {
		f.Close()
	}
}
