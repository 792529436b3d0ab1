package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetsOneAtATimePeakRSS (issue 34, item 5) measures the peak RSS of
// real runs: four generated datasets of 82 MB each (n = 200,000, d = 50)
// under GOMEMLIMIT=700MiB, whose half is less than the four would take at
// once, are loaded one at a time, so the run's peak stays near that of a
// run of one of them, where loading all four took about 800 MB. (In make
// test-process.)
func TestDatasetsOneAtATimePeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dplab and measures runs of 330 MB of data: not under -short; CI runs it in make test-process")
	}
	bin := buildDplab(t)
	tmp := t.TempDir()
	spec := func(n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "name = \"rss%d\"\nseed = 1\ntrials = 2\nepsilon = [1.0]\ndelta = 1e-6\n", n)
		for i := range n {
			fmt.Fprintf(&b, "[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"d%d\"\nparams = { n = 200000, d = 50, seed = %d }\n", i, i)
		}
		b.WriteString("[[mechanism]]\nname = \"ridge\"\nparams = { lambda = 1e-6 }\n")
		return writeFile(t, filepath.Join(tmp, fmt.Sprintf("rss%d.toml", n)), b.String())
	}
	peak := func(n int) (int64, string) {
		return peakRSSEnv(t, []string{"GOMEMLIMIT=700MiB"}, bin, "run", spec(n), "-j", "2", "--out", filepath.Join(tmp, fmt.Sprintf("out%d", n)))
	}
	one, _ := peak(1)
	four, log := peak(4)
	t.Logf("peak RSS: one dataset %d MB, four %d MB", one>>20, four>>20)
	if !strings.Contains(log, "loading one dataset at a time") {
		t.Errorf("the run of four datasets did not load them one at a time:\n%s", log)
	}
	if four > one*3/2 {
		t.Errorf("peak RSS of four datasets %d MB, above 1.5 × one dataset's %d MB", four>>20, one>>20)
	}
}
