//go:build unix

package external

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/rngs"
	"gonum.org/v1/gonum/mat"
)

// stageEnv makes the test binary write a training split as a run does and
// wait to be killed (TestStagingOfAKilledRunIsRemoved).
const stageEnv = "DPLAB_EXTERNAL_STAGE_AND_WAIT"

func init() {
	if os.Getenv(stageEnv) != "1" {
		return
	}
	train := &datasets.Dataset{Task: datasets.Regression, X: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Y: []float64{1, -1}}
	files, err := poolFor(Config{Command: []string{"stage"}}).data(train)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(filepath.Dir(files.X))
	time.Sleep(time.Hour)
	os.Exit(0)
}

// alive reports whether process pid runs (a zombie does not: it has exited
// and waits for its parent, or a reaper, to collect it).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no procfs: kill's answer stands
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || fields[0] != "Z"
}

// TestStoppedWorkersChildrenDie runs testdata/forking.py, a worker that
// starts a sleeping child process, then stops it as a run's end does
// (Close: its stdin closes and it exits): within 5 s its child is gone. Before, the worker's
// process group was killed only when the worker itself outlived its stdin
// (a hang), so the child of a worker that exited on its stdin's close
// slept on after the run.
func TestStoppedWorkersChildrenDie(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Command = []string{c.Command[0], "forking.py"}
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 20, 2)
	rel, err := build(t, c, map[string]any{}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("fork")))
	if err != nil {
		t.Fatal(err)
	}
	child := int(rel.Stats["child"])
	if child <= 0 || !alive(child) {
		t.Fatalf("the worker's child %d does not run", child)
	}
	closePool(c)
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the child %d of a stopped worker still runs 5 s after Close", child)
		}
	}
}

// TestStagingOfAKilledRunIsRemoved starts a process (this test binary)
// that writes a training split into its data directory, as a run does,
// and SIGKILLs it: the next process to make a data directory (here, this
// one, in the same temporary directory) removes the killed one's, once it
// is older than a minute (its time is set back), and leaves a live
// process's alone. Before, a SIGKILLed run's directory stayed in /tmp for
// good, one more per killed run.
func TestStagingOfAKilledRunIsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := func() (*exec.Cmd, string) {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), stageEnv+"=1")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		dir := strings.TrimSpace(line)
		if err != nil || !strings.HasPrefix(dir, tmp) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the staging process printed %q (%v), not a directory under %s", line, err, tmp)
		}
		old := time.Now().Add(-2 * staleAge)
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
		return cmd, dir
	}
	live, liveDir := child()
	defer func() { live.Process.Kill(); live.Wait() }()
	killed, killedDir := child()
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if _, err := os.Stat(killedDir); err != nil {
		t.Fatalf("the killed process's directory: %v", err)
	}
	c := Config{Command: []string{"stage-parent"}}
	defer closePool(c)
	if _, err := poolFor(c).data(datatest.Tiny(t, datasets.Regression, 10, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killedDir); !os.IsNotExist(err) {
		t.Errorf("the killed process's data directory %s is left: %v", killedDir, err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("the live process's data directory %s: %v", liveDir, err)
	}
}

// TestStagingUnlockedIsAnError: a data directory whose lock could not be
// taken for a reason other than the file system's having no locks (here
// EMFILE: no file descriptor left to hold it) is an error, and the
// directory is removed. Before, it was used unlocked, as on a file system
// without locks: another dplab, whose locks work, would take it for stale
// a minute later and remove it under the running trials.
func TestStagingUnlockedIsAnError(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	defer func(f func(string) (io.Closer, error)) { lockDir = f }(lockDir)
	lockDir = func(string) (io.Closer, error) { return nil, syscall.EMFILE }
	dir, l, err := newStaging()
	if err == nil {
		l.Close()
		t.Fatalf("newStaging without its lock (EMFILE): directory %s, no error", dir)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), stagingPrefix+"*")); len(left) > 0 {
		t.Errorf("directories left: %v", left)
	}
	lockDir = func(string) (io.Closer, error) { return nil, errNoLocks }
	dir, l, err = newStaging()
	if err != nil {
		t.Fatalf("newStaging where the file system has no locks: %v", err)
	}
	l.Close()
	os.RemoveAll(dir)
}
