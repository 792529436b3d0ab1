//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair (Linux: /dev/ptmx, unlocked, and
// /dev/pts/N).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		master.Close()
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		master.Close()
		t.Skipf("ptsname: %v", e)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open pts: %v", err)
	}
	return master, slave
}

// TestRunProgressOnTerminal: dplab run redraws a progress bar ("\r", the
// bar's blocks) when stderr is a terminal, and prints plain lines when it
// is not (a file, as in CI). The run's log writer wraps stderr in a lock,
// which hid the terminal from the progress line: it printed plain lines on
// a terminal too.
func TestRunProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.toml"), cliSpec)

	master, slave := openPTY(t)
	defer master.Close()
	var term bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&term, master) // ends with EIO once the slave is closed
	}()
	code := Main(context.Background(), []string{"run", spec, "--out", filepath.Join(dir, "tty")}, io.Discard, slave)
	slave.Close()
	<-read
	if code != 0 {
		t.Fatalf("run on a terminal: exit %d: %s", code, term.String())
	}
	if got := term.String(); !strings.Contains(got, "\r█") || !strings.Contains(got, "2/2 trials") {
		t.Errorf("on a terminal, no redrawn bar in %q", got)
	}

	f, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code = Main(context.Background(), []string{"run", spec, "--out", filepath.Join(dir, "file")}, io.Discard, f)
	f.Close()
	plain, _ := os.ReadFile(f.Name())
	if code != 0 {
		t.Fatalf("run into a file: exit %d: %s", code, plain)
	}
	if got := string(plain); strings.ContainsAny(got, "\r█") || !strings.Contains(got, "2/2 trials") {
		t.Errorf("into a file, want plain progress lines, got %q", got)
	}
}
