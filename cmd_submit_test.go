package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dplab/dplab/results"
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

// lineBreakers are the characters a value must not carry into a generated
// script or manifest: every C0 control character, DEL, NEL (U+0085) and the
// Unicode line and paragraph separators.
func lineBreakers() []rune {
	var rs []rune
	for r := rune(0); r < 0x20; r++ {
		rs = append(rs, r)
	}
	return append(rs, 0x7f, 0x85, 0x2028, 0x2029)
}

// injected is v followed by a command on a line of its own, as a value
// smuggling a line break c would put it: "v<c>touch pwned<c>".
func injected(v string, c rune) string {
	return v + string(c) + "touch pwned" + string(c)
}

// submitArgs is "submit ENGINE" with the arguments of base (pairs of a flag
// and its value: flag "" is the positional SPEC, --quick is given as
// --quick=value), the value at index at replaced by v.
func submitArgs(engine string, base [][2]string, at int, v string) []string {
	args := []string{"submit", engine}
	for i, fv := range base {
		val := fv[1]
		if i == at {
			val = v
		}
		switch fv[0] {
		case "":
			args = append(args, val)
		case "--quick":
			args = append(args, "--quick="+val)
		default:
			args = append(args, fv[0], val)
		}
	}
	return args
}

// stubCommands puts sbatch, srun and dplab stubs first on PATH: each
// appends its name and arguments, one line per call, to the returned log;
// sbatch prints the job id 42.
func stubCommands(t *testing.T) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(dir, "calls.log")
	for _, name := range []string{"sbatch", "srun", "dplab"} {
		body := fmt.Sprintf("#!/bin/sh\n{ printf '%%s' %s; for a in \"$@\"; do printf ' [%%s]' \"$a\"; done; echo; } >> %s\n", name, shellQuote(log))
		if name == "sbatch" {
			body += "echo 42\n"
		}
		writeFile(t, filepath.Join(dir, name), body)
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir, log
}

// runSbatchScripts runs a result directory's array.sbatch (as task 1, with
// 2 CPUs) and merge.sbatch under bash in a fresh working directory and
// returns it: an injected "touch pwned" would leave the file pwned there.
func runSbatchScripts(t *testing.T, dir string) string {
	t.Helper()
	work := t.TempDir()
	for _, script := range []string{"array.sbatch", "merge.sbatch"} {
		cmd := exec.Command("bash", filepath.Join(dir, "shards", script))
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=2")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("bash %s: %v\n%s", script, err, out)
		}
	}
	return work
}

// TestSubmitSlurmRefusesLineBreaks (issue 34, item 1): a line break in any
// argument of dplab submit slurm, or in a value it finds ($DPLAB_DATA, the
// working directory), used to reach array.sbatch and merge.sbatch raw (the
// "# Generated by:" comment), where bash ran the rest of the line as a
// command. Every argument with every control character, DEL, NEL, U+2028
// and U+2029 is refused, naming the character, before anything is written;
// a submission that is accepted anyway has its scripts run under bash with
// sbatch, srun and dplab stubbed, and must not run the injected command.
// Shell-hostile values without line breaks are accepted, and the scripts
// run dplab with exactly those values.
func TestSubmitSlurmRefusesLineBreaks(t *testing.T) {
	_, log := stubCommands(t)
	t.Setenv("DPLAB_DATA", "")
	tmp := t.TempDir()
	src, specPath := copyQuickstart(t, tmp)
	base := [][2]string{{"", specPath}, {"--shards", "2"}, {"--out", ""}, {"--quick", "true"}, {"--trials", "3"},
		{"--data-dir", "/data"}, {"--dplab", "/opt/dplab"}, {"--cpus-per-task", "2"}, {"--mem", "1G"},
		{"--time", "10"}, {"--partition", "short"}, {"--account", "lab"}, {"--max-cells", "1000"}, {"--max-trials", "100000"}}
	argsWith := func(out string, at int, v string) []string {
		b := slices.Clone(base)
		b[slices.IndexFunc(b, func(f [2]string) bool { return f[0] == "--out" })][1] = out
		return submitArgs("slurm", b, at, v)
	}
	n := 0
	check := func(name string, args []string, out string) {
		t.Helper()
		n++
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, &stdout, &stderr)
		if code == 0 {
			work := runSbatchScripts(t, out)
			if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
				t.Errorf("%s: accepted, and running its scripts ran the injected command", name)
			} else {
				t.Errorf("%s: accepted", name)
			}
			return
		}
		if code != 2 || !strings.Contains(stderr.String(), "line break") && !strings.Contains(stderr.String(), "not UTF-8") {
			t.Errorf("%s: exit %d, want 2 naming the line break:\n%s", name, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: refused, but wrote %s", name, out)
		}
	}
	for _, c := range lineBreakers() {
		for i, fv := range base {
			out := filepath.Join(tmp, fmt.Sprintf("out%d", n))
			v := injected(fv[1], c)
			switch fv[0] {
			case "--out":
				v, out = injected(out, c), injected(out, c)
			case "":
				// A spec file whose name holds the line break (NUL
				// cannot be in a file name).
				v = filepath.Join(tmp, injected(fmt.Sprintf("s%d", n), c)+".toml")
				if c != 0 {
					writeFile(t, v, src)
				}
			}
			check(fmt.Sprintf("%U in %s", c, cmp.Or(fv[0], "SPEC")), argsWith(out, i, v), out)
		}
		// Values dplab finds rather than is given: $DPLAB_DATA (exported by
		// the scripts when --data-dir is not given), and the working
		// directory (in the spec's absolute path).
		out := filepath.Join(tmp, fmt.Sprintf("out%d", n))
		args := argsWith(out, -1, "")
		i := slices.Index(args, "--data-dir")
		if c == 0 {
			continue // neither an environment variable nor a file name holds NUL
		}
		t.Setenv("DPLAB_DATA", injected("/data", c))
		check(fmt.Sprintf("%U in $DPLAB_DATA", c), slices.Delete(slices.Clone(args), i, i+2), out)
		t.Setenv("DPLAB_DATA", "")
		wd := filepath.Join(tmp, injected(fmt.Sprintf("wd%d", n), c))
		writeFile(t, filepath.Join(wd, "s.toml"), src)
		t.Chdir(wd)
		out = filepath.Join(tmp, fmt.Sprintf("out%d", n))
		check(fmt.Sprintf("%U in the working directory", c), argsWith(out, 0, "s.toml"), out)
	}
	t.Logf("%d submissions refused", n)

	// The shell's other metacharacters are quoted, not refused: the
	// scripts run dplab with these values exactly, and nothing else.
	t.Chdir(tmp)
	hostile := `$(touch pwned) ';touch pwned;' "x" \ *`
	bin := filepath.Join(tmp, hostile, "dplab")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(log), "dplab"), bin); err != nil {
		t.Fatal(err)
	}
	spec2 := writeFile(t, filepath.Join(tmp, hostile, "s.toml"), src)
	out := filepath.Join(tmp, "ok")
	var stdout, stderr bytes.Buffer
	args := []string{"submit", "slurm", spec2, "--shards", "2", "--out", out, "--dplab", bin, "--data-dir", hostile}
	if code := Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	work := runSbatchScripts(t, out)
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Error("running the scripts ran an injected command")
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("dplab [run] [%s] [--out] [%s] [--shard] [1/2] [-j] [2] [--data-dir] [%s]\ndplab [merge] [%s]\n", spec2, out, hostile, out)
	if string(calls) != want {
		t.Errorf("the scripts ran\n%s\nwant\n%s", calls, want)
	}
}

// TestSubmitK8sRefusesLineBreaks (issue 34, item 1): dplab submit k8s
// --out $'x\n---\n…' printed extra YAML documents (the comment at the top
// holds the command line and the result directory). Every argument with
// every control character, DEL, NEL, U+2028 and U+2029 is refused; an
// accepted one must still print exactly one YAML document. Values with
// YAML's own syntax in them are accepted and come out exactly.
func TestSubmitK8sRefusesLineBreaks(t *testing.T) {
	t.Setenv("DPLAB_DATA", "")
	tmp := t.TempDir()
	src, specPath := copyQuickstart(t, tmp)
	base := [][2]string{{"", specPath}, {"--shards", "2"}, {"--pvc", "claim"}, {"--image", "img:1"}, {"--mount", "/results"},
		{"--out", "res"}, {"--quick", "true"}, {"--trials", "3"}, {"--data-dir", "/data"}, {"--dplab", "dplab"},
		{"--cpus-per-task", "2"}, {"--mem", "1Gi"}, {"--parallelism", "1"}, {"--name", "job"},
		{"--max-cells", "1000"}, {"--max-trials", "100000"}}
	argsWith := func(at int, v string) []string { return submitArgs("k8s", base, at, v) }
	documents := func(y []byte) (int, error) {
		dec := yaml.NewDecoder(bytes.NewReader(y))
		n := 0
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				return n, nil
			} else if err != nil {
				return n, err
			}
			n++
		}
	}
	check := func(name string, args []string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, &stdout, &stderr)
		if code == 0 {
			n, err := documents(stdout.Bytes())
			t.Errorf("%s: accepted, printing %d YAML document(s) (%v)", name, n, err)
			return
		}
		if code != 2 || !strings.Contains(stderr.String(), "line break") {
			t.Errorf("%s: exit %d, want 2 naming the line break:\n%s", name, code, stderr.String())
		}
	}
	for _, c := range lineBreakers() {
		for i, fv := range base {
			v := injected(fv[1], c)
			switch fv[0] {
			case "--out":
				v = "x" + string(c) + "---" + string(c) + "apiVersion: v1" + string(c) + "kind: Pod"
			case "":
				v = filepath.Join(tmp, injected(fmt.Sprintf("s%d", i), c)+".toml")
				if c != 0 {
					writeFile(t, v, src)
				}
			}
			check(fmt.Sprintf("%U in %s", c, cmp.Or(fv[0], "SPEC")), argsWith(i, v))
		}
		args := argsWith(-1, "")
		i := slices.Index(args, "--data-dir")
		args = slices.Delete(args, i, i+2)
		if c != 0 { // no environment variable holds NUL
			t.Setenv("DPLAB_DATA", injected("/data", c))
			check(fmt.Sprintf("%U in $DPLAB_DATA", c), args)
			t.Setenv("DPLAB_DATA", "")
		}
	}

	// YAML's syntax in values is quoted: one document, the values exact.
	hostile := `x" --- #y: [z] {a: 'b'} &c *d`
	var stdout, stderr bytes.Buffer
	args := []string{"submit", "k8s", specPath, "--shards", "2", "--pvc", hostile, "--image", hostile, "--out", hostile, "--data-dir", hostile}
	if code := Main(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n, err := documents(stdout.Bytes()); n != 1 || err != nil {
		t.Fatalf("%d documents (%v):\n%s", n, err, stdout.String())
	}
	var job struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image string
						Args  []string
					}
					Volumes []struct {
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
	pod := job.Spec.Template.Spec
	want := []string{"run", specPath, "--out", "/results/" + hostile, "--shard", "$(JOB_COMPLETION_INDEX)/2", "-j", "1", "--data-dir", hostile}
	if len(pod.Containers) != 1 || pod.Containers[0].Image != hostile || !slices.Equal(pod.Containers[0].Args, want) ||
		len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim.ClaimName != hostile {
		t.Errorf("job: %+v\nwant image and claim %q, args %q", pod, hostile, want)
	}
}

// copyQuickstart copies experiments/quickstart.toml into dir as s.toml and
// returns its text and the copy's path, which the injection tests then
// vary.
func copyQuickstart(t *testing.T, dir string) (src, path string) {
	t.Helper()
	b, err := os.ReadFile("experiments/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b), writeFile(t, filepath.Join(dir, "s.toml"), string(b))
}

// TestSubmitForwardsSet: dplab submit slurm and k8s pass each --set to
// every shard's dplab run, in order (a shard ran the spec without them, so
// merge joined shards of another grid than the one checked at submission);
// a bad --set fails at submission naming its path; --only, which a sharded
// run refuses, is refused at submission saying why. Long mode also runs
// the written array and merge scripts (sbatch stubbed) with the real
// binary: the merged store holds the overridden grid's trials only and
// the manifest records the overrides. Before, submit had no --set flag.
func TestSubmitForwardsSet(t *testing.T) {
	tmp := t.TempDir()
	spec := writeFile(t, filepath.Join(tmp, "s.toml"), strings.Replace(cliSpec, "epsilon = [1]", "epsilon = [1, 2]", 1))
	out := filepath.Join(tmp, "res")
	sets := []string{"--set", "trials=1", "--set", "epsilon=[2]"}
	code, stdout, stderr := runMain(t, append([]string{"submit", "slurm", spec, "--shards", "2", "--out", out, "--dry-run"}, sets...)...)
	if code != 0 || !strings.Contains(stdout, ` -j "${SLURM_CPUS_PER_TASK:-1}" --set trials=1 --set 'epsilon=[2]'`+"\n") {
		t.Errorf("submit slurm --set: exit %d; the array script does not forward the overrides:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, append([]string{"submit", "k8s", spec, "--shards", "2", "--pvc", "c", "--image", "i"}, sets...)...)
	var job struct {
		Spec struct {
			Template struct {
				Spec struct{ Containers []struct{ Args []string } }
			}
		}
	}
	if err := yaml.Unmarshal([]byte(stdout), &job); code != 0 || err != nil || len(job.Spec.Template.Spec.Containers) != 1 ||
		!strings.HasSuffix(strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "), " -j 1 --set trials=1 --set epsilon=[2]") {
		t.Errorf("submit k8s --set: exit %d (%v); the Job's args do not forward the overrides:\n%s%s", code, err, stdout, stderr)
	}
	for _, tc := range []struct{ arg, want string }{
		{"--set=nosuch=1", "nosuch"},
		{"--only=epsilon=1", "--only and --shards: a sharded run runs the whole grid"},
	} {
		code, _, stderr := runMain(t, "submit", "slurm", spec, "--shards", "2", "--dry-run", tc.arg)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("submit slurm %s: exit %d, want 2 saying %q\n%s", tc.arg, code, tc.want, stderr)
		}
	}
	if testing.Short() {
		return // the scripts' run below builds the binary
	}
	bin := buildDplab(t)
	stubCommands(t) // sbatch prints a job id
	if code, stdout, stderr := runMain(t, append([]string{"submit", "slurm", spec, "--shards", "2", "--out", out, "--dplab", bin}, sets...)...); code != 0 {
		t.Fatalf("submit slurm: exit %d\n%s%s", code, stdout, stderr)
	}
	for i, script := range []string{"array.sbatch", "array.sbatch", "merge.sbatch"} {
		cmd := exec.Command("bash", filepath.Join(out, "shards", script))
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+strconv.Itoa(i), "SLURM_CPUS_PER_TASK=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bash %s (task %d): %v\n%s", script, i, err, b)
		}
	}
	recs := readRecords(t, out)
	if len(recs) != 1 || recs[0].Epsilon != 2 || recs[0].Trial != 0 {
		t.Errorf("merged store: %d records, want the one trial at ε = 2 of the overridden grid: %+v", len(recs), recs)
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Runs {
		if !slices.Equal(r.Set, []string{"trials=1", "epsilon=[2]"}) {
			t.Errorf("manifest run %s records --set %q", r.Shard, r.Set)
		}
	}
}
