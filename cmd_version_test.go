package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBuildsRecordRevision: the binaries of `make build` (and so `make
// quickstart`) and of scripts/reproduce.sh state the git revision they were
// built from, which every manifest and record carries, even where GOFLAGS
// turns VCS stamping off (-buildvcs=false, as on some CI machines: their
// results said "revision unknown"). Each build command is taken from its
// file and run with -o redirected to a temporary directory.
func TestBuildsRecordRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dplab twice: not under -short; CI runs it (make test-process)")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	want := "(revision " + strings.TrimSpace(string(head)) + ")"
	makeBuild, err := exec.Command("make", "-n", "-s", "build", "GO=go").Output()
	if err != nil {
		t.Skipf("no make: %v", err)
	}
	reproduce, err := os.ReadFile("scripts/reproduce.sh")
	if err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{
		"make build":           buildLine(t, "Makefile (make -n build)", string(makeBuild)),
		"scripts/reproduce.sh": buildLine(t, "scripts/reproduce.sh", string(reproduce)),
	}
	for name, cmd := range commands {
		bin := filepath.Join(t.TempDir(), "dplab")
		cmd = strings.Replace(cmd, "-o dplab", "-o "+bin, 1)
		c := exec.Command("sh", "-c", strings.TrimSuffix(cmd, " || exit 1"))
		c.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %s: %v\n%s", name, cmd, err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s (%s) under GOFLAGS=-buildvcs=false: version says %q, want %s", name, cmd, strings.TrimSpace(string(out)), want)
		}
	}
}

// buildLine returns the one line of text that builds ./dplab.
func buildLine(t *testing.T, what, text string) string {
	t.Helper()
	var found []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "go build") && strings.Contains(line, "-o dplab") {
			found = append(found, line)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d lines build ./dplab (%q), want 1", what, len(found), found)
	}
	return found[0]
}

// TestReproduceReadsEstimate: scripts/reproduce.sh's table takes the
// estimate from plan's "estimated wall time" line (printEstimate's form),
// with a range after it or none: without one the wall time is followed by
// a comma, which it printed as part of the time ("2.7s,").
func TestReproduceReadsEstimate(t *testing.T) {
	script, err := os.ReadFile("scripts/reproduce.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`sed -n '(s/\^estimated wall time[^']*)'`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/reproduce.sh: no sed command reading the estimated wall time")
	}
	for line, want := range map[string]string{
		"estimated wall time on 2 concurrent trial(s): 2.7s, on 2 CPUs at 1-minute load average 0.2 (measured now: …)\n":             "2.7s",
		"estimated wall time on 2 concurrent trial(s): 2m15.5s ± 1m2.3s, on 2 CPUs at 1-minute load average 2.0 (measured now: …)\n": "2m15.5s",
		"estimated wall time on 1 concurrent trial(s): 300ms ± 0s, on 2 CPUs at 1-minute load average 1.1 (measured now: …)\n":       "300ms",
	} {
		cmd := exec.Command("sed", "-n", string(m[1]))
		cmd.Stdin = strings.NewReader("dataset  mechanism …\n" + line + "  start-up  10ms\n")
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("no sed: %v", err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%q: read %q, want %q", line, got, want)
		}
	}
}
