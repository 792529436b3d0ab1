package main

import (
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestMaxDataBytesFlag (issue 34, item 5): validate, plan, run and submit
// refuse a spec whose dataset would take more than --max-data-bytes (2 GiB
// by default) before loading anything, and accept it with the limit
// raised; submit gives the raised limit to every shard (which would refuse
// the spec otherwise); datasets info refuses to load such a dataset.
func TestMaxDataBytesFlag(t *testing.T) {
	tmp := t.TempDir()
	path := writeFile(t, filepath.Join(tmp, "wide.toml"), `name = "wide"
seed = 1
trials = 1
epsilon = [1]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
params = { n = 3_000_000, d = 100 }
[[mechanism]]
name = "ridge"
`)
	want := path + ":8: key dataset[0].params: dataset \"Synthetic linear regression (Gaussian features)\" holds n × d = 3000000 × 100: 2424000000 bytes (2.42 GB)"
	for _, args := range [][]string{{"validate", path}, {"plan", path}, {"run", path, "--out", filepath.Join(tmp, "out")},
		{"submit", "slurm", path, "--shards", "2", "--dry-run"}} {
		code, _, stderr := runMain(t, args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", args[0], code, want, stderr)
		}
	}
	if code, _, stderr := runMain(t, "validate", path, "--max-data-bytes", "3GB"); code != 0 {
		t.Errorf("validate --max-data-bytes 3GB: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runMain(t, "submit", "slurm", path, "--shards", "2", "--dry-run", "--max-data-bytes", "3GB", "--max-cells", "500")
	if code != 0 || !strings.Contains(stdout, ` -j "${SLURM_CPUS_PER_TASK:-1}" --max-cells 500 --max-data-bytes 3000000000`+"\n") {
		t.Errorf("submit slurm --max-data-bytes 3GB --max-cells 500: exit %d, the tasks do not repeat the limits:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, "submit", "k8s", path, "--shards", "2", "--pvc", "c", "--image", "i", "--max-data-bytes", "3GB")
	var job struct {
		Spec struct {
			Template struct {
				Spec struct{ Containers []struct{ Args []string } }
			}
		}
	}
	if code != 0 || yaml.Unmarshal([]byte(stdout), &job) != nil || len(job.Spec.Template.Spec.Containers) != 1 ||
		!strings.HasSuffix(strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "), "-j 1 --max-data-bytes 3000000000") {
		t.Errorf("submit k8s --max-data-bytes 3GB: exit %d, the pods do not repeat the limit:\n%s%s", code, stdout, stderr)
	}
	for _, bad := range []string{"0", "lots", "-5"} {
		if code, _, _ := runMain(t, "validate", path, "--max-data-bytes", bad); code != 2 {
			t.Errorf("--max-data-bytes %s: exit %d, want 2", bad, code)
		}
	}
	code, _, stderr = runMain(t, "datasets", "info", "synthetic-linear", "--set", "n=3000000", "--set", "d=100")
	if code != 2 || !strings.Contains(stderr, "holds n × d = 3000000 × 100") {
		t.Errorf("datasets info of 2.4 GB: exit %d:\n%s", code, stderr)
	}
}
