//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dplab/dplab/results"
)

// TestExternalCtrlC interrupts a real dplab run whose workers hang, as a
// terminal's Ctrl-C does (SIGINT to the whole foreground process group):
// dplab exits 130 within seconds, stores no record of the interrupted
// trials (a rerun runs them), and no worker outlives it. Long mode (builds
// the binary).
func TestExternalCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildDplab(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	spec := behaveSpec(t, `"hang", pidfile = `+strconv.Quote(pidfile), 2)
	spec2 := strings.Replace(readFile(t, spec), "timeout = 1", "timeout = 60", 1)
	os.WriteFile(spec, []byte(spec2), 0o644)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", spec, "--out", dir, "-j", "2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a foreground job of its own
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for { // until both workers hang in their trial
		if b, _ := os.ReadFile(pidfile); strings.Count(string(b), "\n") >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		t.Fatalf("dplab still running 10 s after Ctrl-C\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d after Ctrl-C, want 130\n%s", code, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, results.TrialsFile)); err == nil && len(bytes.TrimSpace(b)) > 0 {
		t.Errorf("interrupted trials were stored:\n%s", b)
	}
	b, _ := os.ReadFile(pidfile)
	pids := strings.Fields(string(b))
	if len(pids) < 2 {
		t.Fatalf("the workers wrote pids %q", pids)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("worker %d outlived dplab", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
