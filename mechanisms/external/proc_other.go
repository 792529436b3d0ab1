//go:build !unix

package external

import "os/exec"

// ownGroup does nothing where process groups are not available.
func ownGroup(*exec.Cmd) {}

// kill kills the worker.
func kill(cmd *exec.Cmd) { cmd.Process.Kill() }
