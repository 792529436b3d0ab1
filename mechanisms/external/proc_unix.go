//go:build unix

package external

import (
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
