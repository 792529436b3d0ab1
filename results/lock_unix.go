//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dplab/dplab/internal/fileutil"
)

// lockDir takes the exclusive advisory lock (flock) of the lock file name
// in the result directory dir without waiting, and records the holder's pid
// in it. If another process holds the lock it returns a *BusyError and
// changes nothing. The kernel releases the lock when the holder dies, even
// by SIGKILL, so a killed run never blocks its rerun.
func lockDir(dir, name string) (*os.File, error) {
	f, err := flockDir(dir, name, syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	// The pid is only for the message a second run prints: failing to
	// record it is not an error.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// lockDirShared takes the shared advisory lock of the lock file name in
// dir without waiting: any number of readers hold it at once, none while a
// writer holds the exclusive lock (lockDir), whose pid the *BusyError then
// names. It records no pid.
func lockDirShared(dir, name string) (*os.File, error) {
	return flockDir(dir, name, syscall.LOCK_SH)
}

// flockDir opens (creating) the lock file name in dir and takes its flock
// how (LOCK_EX or LOCK_SH) without waiting. When the lock is held, the
// *BusyError names the holder: the pid it recorded, or a render when only
// readers hold it (they record no pid, and a shared lock is then granted).
func flockDir(dir, name string, how int) (*os.File, error) {
	path := filepath.Join(dir, name)
	f, err := fileutil.OpenFileIn(dir, name, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("results: lock %s: %w", dir, err)
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if err == nil {
		return f, nil
	}
	defer f.Close()
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) {
			// No lock manager (an NFS mount without lockd) or no flock at
			// all (Lustre mounted with noflock).
			err = fmt.Errorf("%w: %w", errLockUnsupported, err)
		}
		return nil, fmt.Errorf("results: lock %s: %w", path, err)
	}
	if how == syscall.LOCK_EX && syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		return nil, &BusyError{Dir: dir, Holder: "dplab render"}
	}
	return nil, &BusyError{Dir: dir, PID: readPID(path)}
}

// unlockDir releases a lock taken by lockDir or lockDirShared; nil is a
// no-op.
func unlockDir(f *os.File) {
	if f == nil {
		return
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// readPID returns the pid recorded in the lock file at path, 0 if none.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
