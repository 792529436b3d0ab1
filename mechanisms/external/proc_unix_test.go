//go:build unix

package external

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/rngs"
)

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
