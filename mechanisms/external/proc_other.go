//go:build !unix

package external

import (
	"io"
	"os/exec"
)

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// kill kills the worker.
func kill(cmd *exec.Cmd) { cmd.Process.Kill() }

// tryLock holds no lock where flock is not available: no directory is
// taken for stale (newStaging).
func tryLock(string) (io.Closer, error) { return nil, errNoLocks }
