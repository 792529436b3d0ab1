//go:build unix

package external

import (
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
// waiting, held until the returned closer closes (or the process ends);
// false when another open file, of any process, holds it.
func tryLock(dir string) (io.Closer, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
