package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// schemaNode is one node of the pinned schema excerpt
// (testdata/k8s/batch-v1-job.schema.json).
type schemaNode struct {
	Ref                  string                 `json:"$ref"`
	Type                 string                 `json:"type"`
	Required             []string               `json:"required"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties *schemaNode            `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Enum                 []string               `json:"enum"`
	Pattern              string                 `json:"pattern"`
	Minimum              *float64               `json:"minimum"`
	MinItems             int                    `json:"minItems"`
}

type schemaDoc struct {
	Root        string                 `json:"root"`
	Definitions map[string]*schemaNode `json:"definitions"`
}

// check validates v (decoded YAML) against n, appending problems with their
// paths to errs: unknown keys, wrong types, missing required keys, values
// outside an enum, a pattern or a minimum.
func (d *schemaDoc) check(n *schemaNode, v any, path string, errs *[]string) {
	if n.Ref != "" {
		def, ok := d.Definitions[n.Ref]
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: schema has no %s", path, n.Ref))
			return
		}
		n = def
	}
	bad := func(format string, args ...any) { *errs = append(*errs, path+": "+fmt.Sprintf(format, args...)) }
	switch n.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("want an object, got %T", v)
			return
		}
		for _, k := range n.Required {
			if _, ok := m[k]; !ok {
				bad("missing required %q", k)
			}
		}
		for k, x := range m {
			sub := n.Properties[k]
			if sub == nil {
				sub = n.AdditionalProperties
			}
			if sub == nil {
				if n.Properties != nil {
					bad("unknown field %q", k)
				}
				continue
			}
			d.check(sub, x, path+"."+k, errs)
		}
	case "array":
		xs, ok := v.([]any)
		if !ok {
			bad("want an array, got %T", v)
			return
		}
		if len(xs) < n.MinItems {
			bad("%d items, want ≥ %d", len(xs), n.MinItems)
		}
		for i, x := range xs {
			d.check(n.Items, x, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			bad("want a string, got %T (%v)", v, v)
			return
		}
		if len(n.Enum) > 0 && !slices.Contains(n.Enum, s) {
			bad("%q not one of %v", s, n.Enum)
		}
		if n.Pattern != "" && !regexp.MustCompile(n.Pattern).MatchString(s) {
			bad("%q does not match %s", s, n.Pattern)
		}
	case "integer":
		i, ok := v.(int)
		if !ok {
			bad("want an integer, got %T (%v)", v, v)
			return
		}
		if n.Minimum != nil && float64(i) < *n.Minimum {
			bad("%d < %v", i, *n.Minimum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("want a boolean, got %T", v)
		}
	case "quantity":
		switch q := v.(type) {
		case int:
		case string:
			if !regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i?|m|k)?$`).MatchString(q) {
				bad("%q is not a resource quantity", q)
			}
		default:
			bad("want a quantity, got %T", v)
		}
	default:
		bad("schema type %q unknown to the test", n.Type)
	}
}

func loadJobSchema(t *testing.T) *schemaDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "k8s", "batch-v1-job.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d schemaDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestSchemaCheckerRejects makes sure the schema check can fail: a wrong
// type, an unknown key, a bad enum value and a missing required key are
// each reported.
func TestSchemaCheckerRejects(t *testing.T) {
	d := loadJobSchema(t)
	root := &schemaNode{Ref: d.Root}
	for _, doc := range []string{
		"apiVersion: batch/v1\nkind: Job\nspec: {completions: \"4\", template: {spec: {containers: [{name: a}]}}}",
		"apiVersion: batch/v1\nkind: Job\nspec: {completionIndex: 4, template: {spec: {containers: [{name: a}]}}}",
		"apiVersion: batch/v1\nkind: Job\nspec: {completionMode: Indexd, template: {spec: {containers: [{name: a}]}}}",
		"apiVersion: batch/v1\nkind: Job\nspec: {template: {spec: {containers: [{image: a}]}}}",
	} {
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		var errs []string
		d.check(root, v, "job", &errs)
		if len(errs) == 0 {
			t.Errorf("accepted:\n%s", doc)
		}
	}
}

// TestSubmitK8sIndexedJob (issue 15, Done when 3): dplab submit k8s prints a
// manifest that parses as YAML, passes the pinned batch/v1 schema excerpt,
// and is an Indexed Job of N completions whose pods run their shard
// $(JOB_COMPLETION_INDEX)/N on the claim named by --pvc.
func TestSubmitK8sIndexedJob(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"submit", "k8s", "experiments/quickstart.toml", "--shards", "6", "--pvc", "dplab-results",
		"--image", "registry.example/dplab:1", "--cpus-per-task", "2", "--mem", "4Gi", "--quick"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var v any
	if err := yaml.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, stdout.String())
	}
	d := loadJobSchema(t)
	var errs []string
	d.check(&schemaNode{Ref: d.Root}, v, "job", &errs)
	if len(errs) > 0 {
		t.Fatalf("manifest does not match the batch/v1 schema excerpt:\n%s\n%s", strings.Join(errs, "\n"), stdout.String())
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Image   string
						Command []string
						Args    []string
						Env     []struct {
							Name      string
							ValueFrom struct {
								FieldRef struct {
									FieldPath string `yaml:"fieldPath"`
								} `yaml:"fieldRef"`
							} `yaml:"valueFrom"`
						}
						VolumeMounts []struct {
							Name      string
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					}
					Volumes []struct {
						Name                  string
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(stdout.Bytes(), &job); err != nil {
		t.Fatal(err)
	}
	sp := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || sp.CompletionMode != "Indexed" || sp.Completions != 6 || sp.Parallelism != 6 {
		t.Fatalf("job header: %+v", job)
	}
	pod := sp.Template.Spec
	if pod.RestartPolicy != "Never" || len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
		t.Fatalf("pod: %+v", pod)
	}
	c := pod.Containers[0]
	cmd := strings.Join(append(c.Command, c.Args...), " ")
	if c.Image != "registry.example/dplab:1" || !strings.Contains(cmd, "dplab run experiments/quickstart.toml --out /results/quickstart-quick --shard $(JOB_COMPLETION_INDEX)/6 -j 2") || !strings.Contains(cmd, "--quick") {
		t.Fatalf("container: %+v", c)
	}
	if len(c.Env) == 0 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Fatalf("env: %+v", c.Env)
	}
	if pod.Volumes[0].PersistentVolumeClaim.ClaimName != "dplab-results" || len(c.VolumeMounts) != 1 ||
		c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/results" {
		t.Fatalf("volume: %+v, mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	// A memory that is not a Kubernetes quantity is refused.
	for _, mem := range []string{"lots", "4GB", "4 Gi"} {
		args := []string{"submit", "k8s", "experiments/quickstart.toml", "--shards", "2", "--pvc", "c", "--image", "i", "--mem", mem}
		if code := Main(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("--mem %q: exit %d, want 2", mem, code)
		}
	}
	// Required flags.
	for _, missing := range [][]string{{"--pvc", "x"}, {"--image", "x"}} {
		args := []string{"submit", "k8s", "experiments/quickstart.toml", "--shards", "2"}
		args = append(args, missing...)
		if code := Main(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestSubmitSlurmDryRun: the printed array script runs shard
// $SLURM_ARRAY_TASK_ID/N with -j $SLURM_CPUS_PER_TASK over --array=0-(N-1)
// with the resource flags given, and the merge script merges the result
// directory; nothing is submitted or written.
func TestSubmitSlurmDryRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	var stdout, stderr bytes.Buffer
	args := []string{"submit", "slurm", "experiments/quickstart.toml", "--shards", "5", "--out", out, "--dry-run",
		"--time", "01:00:00", "--mem", "2G", "--partition", "short", "--account", "dp-lab", "--cpus-per-task", "4", "--trials", "7"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	s := stdout.String()
	for _, want := range []string{
		"#SBATCH --array=0-4\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --time=01:00:00\n", "#SBATCH --mem=2G\n",
		"#SBATCH --partition=short\n", "#SBATCH --account=dp-lab\n",
		` --shard "${SLURM_ARRAY_TASK_ID}/5" -j "${SLURM_CPUS_PER_TASK:-1}" --trials 7` + "\n",
		" merge " + out + "\n", "--dependency=afterok:",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("scripts lack %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--dry-run created the result directory")
	}
	// A value that would break an #SBATCH line is refused.
	args = []string{"submit", "slurm", "experiments/quickstart.toml", "--shards", "2", "--dry-run", "--partition", "a b"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != 2 {
		t.Errorf("--partition 'a b': exit %d, want 2", code)
	}
	// --time and --mem in sbatch's formats only: a typo fails here, not in
	// the scheduler.
	for _, tc := range []struct {
		flag, val string
		ok        bool
	}{
		{"--time", "90", true}, {"--time", "30:00", true}, {"--time", "2:00:00", true}, {"--time", "1-12", true},
		{"--time", "1-12:30", true}, {"--time", "1-12:30:00", true}, {"--time", "UNLIMITED", true},
		{"--time", "forever", false}, {"--time", "2h", false}, {"--time", "1:2:3:4", false},
		{"--mem", "4000", true}, {"--mem", "4G", true}, {"--mem", "4GB", false}, {"--mem", "lots", false},
	} {
		stderr.Reset()
		args := []string{"submit", "slurm", "experiments/quickstart.toml", "--shards", "2", "--dry-run", tc.flag, tc.val}
		code := Main(context.Background(), args, &stdout, &stderr)
		if tc.ok && code != 0 || !tc.ok && (code != 2 || !strings.Contains(stderr.String(), tc.flag+" \""+tc.val+"\"")) {
			t.Errorf("%s %s: exit %d, want ok = %v\n%s", tc.flag, tc.val, code, tc.ok, stderr.String())
		}
	}
}
