package plan

import (
	"os"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/spec"
)

// TestAuditGridPlan: the shipped audit grid is an ordinary spec (an [audit]
// table) that plans to one cell per (mechanism, ε), each one trial without
// a dataset, with its runs per side (a mechanism's own, else the table's;
// --quick caps them) and the confidence in its key: keys differ from cell
// to cell and change with the runs. (Before issue 36 the audit grid had its
// own format, which Parse refused.)
func TestAuditGridPlan(t *testing.T) {
	src, err := os.ReadFile("../../experiments/audits/audit_grid.toml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("audit_grid.toml", src)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := planCells(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 16 {
		t.Fatalf("%d cells, want 4 mechanisms × 4 ε", len(cells))
	}
	keys := map[string]bool{}
	for i, c := range cells {
		runs := 4000
		if c.Mechanism == 0 {
			runs = 20000 // the Gaussian block's own runs
		}
		if c.Dataset != -1 || c.Trials != 1 || c.Audit == nil || c.Audit.Runs != runs || c.Audit.Confidence != 0.95 ||
			c.Mechanism != i/4 || c.Epsilon != []float64{0.5, 1, 2, 4}[i%4] {
			t.Errorf("cell %d: %+v (audit %+v)", i, c, c.Audit)
		}
		keys[c.Key] = true
	}
	if len(keys) != len(cells) {
		t.Errorf("%d distinct keys for %d cells", len(keys), len(cells))
	}
	q, err := Parse("audit_grid.toml", src)
	if err == nil {
		q, err = ApplyQuick(q)
	}
	if err != nil {
		t.Fatal(err)
	}
	quick, err := planCells(q)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range quick {
		if c.Audit.Runs != 300 || keys[c.Key] {
			t.Errorf("quick cell %d: runs %d, key shared with the full run: %v", i, c.Audit.Runs, keys[c.Key])
		}
	}
}

// TestAuditGridErrors: what an audit grid may not hold, and an audit key
// in an experiment, is refused naming the file, line and key.
func TestAuditGridErrors(t *testing.T) {
	const grid = "name = \"a\"\nseed = 1\ndelta = 1e-5\nepsilon = [1]\n[audit]\nruns = 100\n[[mechanism]]\nname = \"gaussian\"\n"
	for _, tc := range []struct {
		name, src, key, msg string
	}{
		{"few runs", strings.Replace(grid, "runs = 100", "runs = 2", 1), "audit.runs", "4..10000000 runs per side, got 2"},
		{"confidence", strings.Replace(grid, "runs = 100", "runs = 100\nconfidence = 1.5", 1), "audit.confidence", "(0, 1)"},
		{"delta rule", strings.Replace(grid, "delta = 1e-5", `delta = "1/n^2"`, 1), "delta", "must be a number"},
		{"trials", strings.Replace(grid, "seed = 1", "seed = 1\ntrials = 5", 1), "trials", "one trial per cell"},
		{"dataset", grid + "[[dataset]]\nname = \"synthetic-linear\"\n", "dataset[0]", "no [[dataset]] blocks"},
		{"mechanism runs", strings.Replace(grid, "name = \"gaussian\"", "name = \"gaussian\"\nruns = 3", 1), "mechanism[0].runs", "got 3"},
		{"duplicate label", grid + "[[mechanism]]\nname = \"gaussian\"\n", "mechanism[1].label", "duplicate"},
		{"quick trials", grid + "[quick]\ntrials = 2\n", "quick", "runs, epsilon, mechanisms and params"},
		{"runs in an experiment", strings.Replace(validSpec, "[[mechanism]]\nname = \"adassp\"", "[[mechanism]]\nname = \"adassp\"\nruns = 10", 1), "mechanism[0].runs", "audit grid's key"},
	} {
		_, err := Parse("a.toml", []byte(tc.src))
		se, ok := err.(*spec.SpecError)
		if !ok {
			t.Errorf("%s: err = %v (%T), want *SpecError", tc.name, err, err)
			continue
		}
		if se.Key != tc.key || se.File != "a.toml" || !strings.Contains(se.Error(), tc.msg) {
			t.Errorf("%s: %q (key %q), want key %q and %q", tc.name, se.Error(), se.Key, tc.key, tc.msg)
		}
	}
}
