package audit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinySpec = `
name = "tiny"
seed = 3
delta = 1e-5
trials = 200
epsilon = [1, 4]

[[mechanism]]
name = "gaussian"

[[mechanism]]
name = "dpsgd"
label = "DP-SGD"
params = { learning_rate = 0.5 }
`

func writeSpec(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.toml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAuditSpecRunsResumesAndRenders runs a small audit spec, reruns it
// (nothing is audited twice: the store is unchanged), renders it twice,
// byte-identically, and resumes after a torn last line of the store.
func TestAuditSpecRunsResumesAndRenders(t *testing.T) {
	s, err := LoadSpec(writeSpec(t, tinySpec))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := RunSpec(context.Background(), s, RunOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results, want 4 (2 mechanisms × 2 ε)", len(res))
	}
	for _, r := range res {
		if r.LowerBound > r.ClaimedEpsilon || r.Trials != 200 || r.Test == nil {
			t.Errorf("%s at ε = %g: %+v", r.Label, r.TargetEpsilon, r)
		}
	}
	if res[2].Label != "DP-SGD" || !strings.Contains(strings.Join(res[2].Params, ","), "learning_rate=0.5") {
		t.Errorf("dpsgd result: label %q, params %v", res[2].Label, res[2].Params)
	}
	store := filepath.Join(dir, ResultsFile)
	before, _ := os.ReadFile(store)
	again, err := RunSpec(context.Background(), s, RunOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(store)
	if !bytes.Equal(before, after) || len(again) != 4 || again[3].LowerBound != res[3].LowerBound {
		t.Errorf("a second run changed the store or the results")
	}
	var first [][]byte
	for round := 0; round < 2; round++ {
		paths, err := Render(s, again, dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: %v (%d bytes)", p, err, len(b))
			}
			if round == 0 {
				first = append(first, b)
			} else if !bytes.Equal(first[i], b) && !strings.HasSuffix(p, ".png") {
				t.Errorf("%s differs between two renders", p)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "tables", "audit.md"))
	for _, want := range []string{"DP-SGD audited", "RDP accountant at δ = 1e-05", "never certify"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	// An audit killed while appending its result leaves a torn last line:
	// the rerun drops it with a warning, audits that cell again and
	// appends on a fresh line (it failed: "not an audit result"). The
	// audit is seeded, so the store comes back byte for byte.
	lastLine := before[bytes.LastIndexByte(before[:len(before)-1], '\n')+1:]
	if err := os.WriteFile(store, before[:len(before)-len(lastLine)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	if _, err := RunSpec(context.Background(), s, RunOptions{Dir: dir, Progress: &progress}); err != nil {
		t.Fatalf("rerun after a torn last line: %v", err)
	}
	if repaired, _ := os.ReadFile(store); !bytes.Equal(repaired, before) {
		t.Errorf("store after the torn line's rerun:\n%s\nwant:\n%s", repaired, before)
	}
	if !strings.Contains(progress.String(), "dropping a torn last line") {
		t.Errorf("no warning of the torn line: %q", progress.String())
	}
	if err := os.WriteFile(store, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunSpec(context.Background(), s, RunOptions{Dir: dir}); err == nil || !strings.Contains(err.Error(), ResultsFile+":1") {
		t.Errorf("corrupt store: %v, want an error naming %s:1", err, ResultsFile)
	}
}

// TestAuditSpecErrors checks that bad audit specs are refused with the
// line and the key at fault (before, errors named the key but no line), and
// that the shipped spec loads.
func TestAuditSpecErrors(t *testing.T) {
	if _, err := LoadSpec("../experiments/audits/audit_grid.toml"); err != nil {
		t.Errorf("shipped audit spec: %v", err)
	}
	for _, c := range []struct{ edit, want string }{
		{strings.Replace(tinySpec, "trials = 200", "trials = 200\nfrobnicate = 1", 1), "a.toml:6: key frobnicate: unknown key"},
		{strings.Replace(tinySpec, "delta = 1e-5", "delta = 0", 1), "a.toml:4: key delta: must be in (0, 1), got 0"},
		{strings.Replace(tinySpec, "epsilon = [1, 4]", "epsilon = [1, -4]", 1), "a.toml:6: key epsilon: epsilon[1] = -4: must be positive and finite"},
		{strings.Replace(tinySpec, `name = "dpsgd"`, `name = "nosuch"`, 1), "a.toml:11: key mechanism[1]: unknown mechanism \"nosuch\""},
		{strings.Replace(tinySpec, "learning_rate = 0.5", "bogus = 0.5", 1), "a.toml:11: key mechanism[1]: "},
		{strings.Replace(tinySpec, "trials = 200", "trials = 2", 1), "a.toml:5: key trials: want 4..10000000 runs per side, got 2"},
		// Each side keeps a score per run: 2^63 − 1 panicked allocating them.
		{strings.Replace(tinySpec, "trials = 200", "trials = 9223372036854775807", 1), "a.toml:5: key trials: want 4..10000000 runs per side, got 9223372036854775807"},
		{strings.Replace(tinySpec, `label = "DP-SGD"`, "label = \"DP-SGD\"\ntrials = 100000000", 1), "a.toml:14: key mechanism[1].trials: want 4..10000000 runs per side, got 100000000"},
		{strings.Replace(tinySpec, "seed = 3", `seed = "x"`, 1), "a.toml:3: key seed: "},
		{tinySpec + "\n[[mechanism]]\nname = \"dpgd\"\nlabel = \"DP-SGD\"\n", "a.toml:18: key mechanism[2].label: \"DP-SGD\" used twice"},
		{"name = [", "a.toml:1"},
		// An experiment spec given to dplab audit says which command runs it.
		{tinySpec + "\n[[dataset]]\nname = \"synthetic-linear\"\n", "a.toml:16: key dataset: unknown key; valid keys: confidence, delta, epsilon, mechanism, name, quick, seed, title, trials (a [[dataset]] block makes this an experiment spec: run it with dplab run)"},
	} {
		_, err := LoadSpec(writeSpec(t, c.edit))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error containing %q", err, c.want)
		}
	}
}
