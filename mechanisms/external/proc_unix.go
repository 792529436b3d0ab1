//go:build unix

package external

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the worker in a process group of its own, so that a
// terminal's interrupt goes to dplab alone (which cancels the trial and
// stops the worker) rather than killing the worker under a running trial,
// and so that stopping the worker kills what it started (kill).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// kill kills the worker's process group: the worker and what it started.
// The group outlives an exited worker while a member runs, and its id
// stays reserved with it (the kernel does not give a process group's id to
// a new process); a group with no member left is ESRCH.
func kill(cmd *exec.Cmd) {
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill() // gone already (os.ErrProcessDone) or no group
	}
}

// tryLock takes an exclusive flock(2) of the directory dir without
// waiting, held until the returned closer closes (or the process ends). It
// fails when another open file, of any process, holds it (EWOULDBLOCK), and
// with errNoLocks where the file system has no flock (EOPNOTSUPP, ENOTSUP, ENOSYS;
// EINVAL and EBADF, as NFS's emulation answers a directory).
func tryLock(dir string) (io.Closer, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		for _, no := range []syscall.Errno{syscall.EOPNOTSUPP, syscall.ENOTSUP, syscall.ENOSYS, syscall.EINVAL, syscall.EBADF} {
			if err == no {
				return nil, fmt.Errorf("flock %s: %w (%w)", dir, errNoLocks, err)
			}
		}
		return nil, fmt.Errorf("flock %s: %w", dir, err)
	}
	return f, nil
}
