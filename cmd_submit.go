package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/dplab/dplab/experiments/run"
	"github.com/dplab/dplab/results"
)

var submitCommand = &command{
	Name:      "submit",
	UsageLine: "submit slurm|k8s SPEC.toml --shards N [flags]",
	Short:     "run a spec's shards on Slurm (job array + merge job) or Kubernetes (Indexed Job)",
	Long: `Submit runs a spec as N shards (dplab run --shard i/N) on a cluster's own
scheduler; "dplab merge" then joins them (see docs/cluster.md).

  submit slurm SPEC --shards N [--time T] [--mem M] [--partition P] [--account A]
               [--cpus-per-task C] [--out DIR] [--quick] [--trials N] [--data-dir D]
               [--dplab PATH] [--dry-run]
writes DIR/shards/array.sbatch (an sbatch script with --array=0-(N-1) whose
task i runs "dplab run SPEC --shard i/N -j $SLURM_CPUS_PER_TASK") and
DIR/shards/merge.sbatch ("dplab merge DIR"), submits the array with sbatch and
the merge with --dependency=afterok:<array job>, and prints the job ids. With
--dry-run it prints both scripts and submits nothing. Paths are made
absolute; the result directory must be on a file system every node sees.
A failed task reruns alone: sbatch --array=<ids> DIR/shards/array.sbatch,
then sbatch DIR/shards/merge.sbatch (merge names the shards to rerun).

  submit k8s SPEC --shards N --pvc CLAIM --image IMAGE [--mount /results]
             [--cpus-per-task C] [--mem QUANTITY] [--parallelism P] [--name NAME]
             [--quick] [--trials N] [--data-dir D] [--dplab PATH]
prints a batch/v1 Job with completionMode Indexed and N completions: pod i
runs shard $JOB_COMPLETION_INDEX/N of SPEC (a path inside the image) into
MOUNT/<result name> on the persistent volume claim CLAIM. Apply it with
kubectl apply -f -, wait for it to complete, then run dplab merge on the
claim (docs/cluster.md).`,
	Run: cmdSubmit,
}

//go:embed templates/slurm_array.sbatch.tmpl templates/slurm_merge.sbatch.tmpl templates/k8s_job.yaml.tmpl
var submitTemplates embed.FS

var submitTmpl = template.Must(template.New("").Funcs(template.FuncMap{
	"json": func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err },
}).ParseFS(submitTemplates, "templates/*.tmpl"))

// submitJob holds the values the submit templates read.
type submitJob struct {
	Name, JobName, Label string // spec name; scheduler job name; k8s label value
	Shards, LastIndex    int
	CPUs                 int
	Time, Mem            string
	Partition, Account   string
	Dir, DirQ            string // result directory: as is (for #SBATCH lines) and shell-quoted
	Spec, Dplab          string // shell-quoted
	RunFlags             string // " --quick --trials N --data-dir D", shell-quoted
	DataEnv              string // DPLAB_DATA to export (slurm: shell-quoted)
	Command              string // the dplab submit command line, for the header
	ArrayScript          string
	MergeScript          string
	// k8s
	Image, PVC, Mount         string
	Parallelism, BackoffLimit int
	Command0, Args            []string
}

// sbatchSafe matches values that may go on an #SBATCH line unquoted.
var sbatchSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]*$`)

// Resource values checked at submission, so that a typo fails here and not
// in the scheduler (or, for Kubernetes, when the manifest is applied):
//   - slurmTime: sbatch --time's formats (minutes, minutes:seconds,
//     hours:minutes:seconds, days-hours, days-hours:minutes,
//     days-hours:minutes:seconds; sbatch(1)), or INFINITE / UNLIMITED;
//   - slurmMem: sbatch --mem, a size with an optional unit K, M, G or T
//     (megabytes without one; sbatch(1));
//   - k8sQuantity: a Kubernetes resource quantity for memory: a decimal
//     with an optional binary (Ki … Ei) or decimal (k, M … E) suffix or an
//     exponent (the Kubernetes API's resource.Quantity format).
var (
	slurmTime   = regexp.MustCompile(`^(?i:infinite|unlimited)$|^\d+(:\d+){0,2}$|^\d+-\d+(:\d+){0,2}$`)
	slurmMem    = regexp.MustCompile(`^\d+[KMGTkmgt]?$`)
	k8sQuantity = regexp.MustCompile(`^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[kMGTPE])?$`)
)

func cmdSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "slurm" && args[0] != "k8s") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return newFlagSet("submit", stdout).Parse(args[:1]) // prints the usage: flag.ErrHelp
		}
		return usagef("submit needs an engine: dplab submit slurm|k8s SPEC.toml --shards N")
	}
	engine := args[0]
	fs := newFlagSet("submit", stdout)
	shards := fs.Int("shards", 0, "number of shards (array tasks, Job completions)")
	out := fs.String("out", "", "result directory (default results/<name>)")
	quick := fs.Bool("quick", false, "apply the spec's [quick] overrides")
	trials := fs.Int("trials", 0, "override the spec's trial count")
	dataDir := fs.String("data-dir", "", "datasets directory on the nodes (default: $DPLAB_DATA at submission, exported to the jobs)")
	dplab := fs.String("dplab", "", "dplab binary on the nodes (default: this binary's absolute path; k8s: dplab)")
	cpus := fs.Int("cpus-per-task", 1, "CPUs per shard (its -j)")
	mem := fs.String("mem", "", "memory per shard (slurm: --mem, e.g. 4G; k8s: a quantity, e.g. 4Gi)")
	var timeLimit, partition, account, pvc, image, mount, name *string
	var dryRun *bool
	var parallelism *int
	if engine == "slurm" {
		timeLimit = fs.String("time", "", "time limit per task (sbatch --time)")
		partition = fs.String("partition", "", "sbatch --partition")
		account = fs.String("account", "", "sbatch --account")
		dryRun = fs.Bool("dry-run", false, "print the scripts, submit nothing")
	} else {
		pvc = fs.String("pvc", "", "persistent volume claim holding the results (required)")
		image = fs.String("image", "", "container image with dplab (required)")
		mount = fs.String("mount", "/results", "where the claim is mounted in the pods")
		name = fs.String("name", "", "Job name (default dplab-<spec name>)")
		parallelism = fs.Int("parallelism", 0, "pods at once (default: all shards)")
	}
	lim := limitFlags(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("submit %s takes one SPEC.toml", engine)
	}
	if err := run.CheckShards(*shards); err != nil {
		return usagef("%v", err)
	}
	if err := checkTrialsFlag(fs, *trials); err != nil {
		return err
	}
	if *cpus < 1 || *trials < 0 {
		return usagef("--cpus-per-task must be ≥ 1 and --trials ≥ 0")
	}
	switch {
	case engine == "slurm" && *timeLimit != "" && !slurmTime.MatchString(*timeLimit):
		return usagef("submit slurm: --time %q: want minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (sbatch --time), e.g. 2:00:00", *timeLimit)
	case engine == "slurm" && *mem != "" && !slurmMem.MatchString(*mem):
		return usagef("submit slurm: --mem %q: want a size with an optional unit K, M, G or T (sbatch --mem), e.g. 4G", *mem)
	case engine == "k8s" && *mem != "" && !k8sQuantity.MatchString(*mem):
		return usagef("submit k8s: --mem %q: want a Kubernetes quantity, e.g. 4Gi or 4G", *mem)
	}
	if err := checkLimitFlags(lim); err != nil {
		return err
	}
	// The spec is checked here, so that a bad spec fails at submission,
	// not in N tasks.
	s, err := loadSpec(ctx, pos[0], *quick, *lim)
	if err != nil {
		return err
	}
	if err := overrideTrials(s, *trials); err != nil {
		return err
	}
	j := &submitJob{Name: s.Name, Shards: *shards, LastIndex: *shards - 1, CPUs: *cpus, Mem: *mem,
		Label: dnsLabel(s.Name), Command: strings.Join(append([]string{"dplab", "submit"}, args...), " ")}
	if engine == "k8s" {
		return submitK8s(stdout, j, k8sOptions{spec: pos[0], out: *out, defaultOut: filepath.Base(run.ResultDir(s, "")),
			quick: *quick, trials: *trials, dataDir: *dataDir, dplab: *dplab, pvc: *pvc, image: *image, mount: *mount,
			name: *name, parallelism: *parallelism})
	}
	// Slurm: absolute paths, as the tasks may start elsewhere.
	dir := *out
	if dir == "" {
		dir = run.ResultDir(s, "results")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	specPath, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	bin := *dplab
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("submit: locate the dplab binary (give --dplab): %w", err)
		}
	}
	for _, v := range []struct{ flag, val string }{{"--out", dir}, {"--time", *timeLimit}, {"--mem", *mem},
		{"--partition", *partition}, {"--account", *account}} {
		if !sbatchSafe.MatchString(v.val) {
			return usagef("submit slurm: %s %q: only letters, digits and _@%%+=:,./- may appear on an #SBATCH line", v.flag, v.val)
		}
	}
	if err := results.CheckDir(dir); err != nil {
		return storeError(err)
	}
	j.JobName = "dplab-" + j.Label
	j.Time, j.Partition, j.Account = *timeLimit, *partition, *account
	j.Dir, j.DirQ, j.Spec, j.Dplab = dir, shellQuote(dir), shellQuote(specPath), shellQuote(bin)
	j.RunFlags = runFlags(*quick, *trials, *dataDir, shellQuote)
	if *dataDir == "" && os.Getenv("DPLAB_DATA") != "" {
		j.DataEnv = shellQuote(os.Getenv("DPLAB_DATA"))
	}
	j.ArrayScript = filepath.Join(dir, results.ShardsDir, "array.sbatch")
	j.MergeScript = filepath.Join(dir, results.ShardsDir, "merge.sbatch")
	var array, merge bytes.Buffer
	if err := submitTmpl.ExecuteTemplate(&array, "slurm_array.sbatch.tmpl", j); err != nil {
		return err
	}
	if err := submitTmpl.ExecuteTemplate(&merge, "slurm_merge.sbatch.tmpl", j); err != nil {
		return err
	}
	if *dryRun {
		fmt.Fprintf(stdout, "# %s\n%s\n# %s (sbatch --dependency=afterok:<array job id>)\n%s", j.ArrayScript, array.String(), j.MergeScript, merge.String())
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(j.ArrayScript), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(j.ArrayScript, array.Bytes(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(j.MergeScript, merge.Bytes(), 0o755); err != nil {
		return err
	}
	arrayID, err := sbatch(ctx, j.ArrayScript)
	if err != nil {
		return err
	}
	mergeID, err := sbatch(ctx, "--dependency=afterok:"+arrayID, j.MergeScript)
	if err != nil {
		return fmt.Errorf("%w (the array job %s was submitted; submit the merge with: sbatch --dependency=afterok:%s %s)", err, arrayID, arrayID, j.MergeScript)
	}
	fmt.Fprintf(stdout, "array job %s: %d tasks (%s)\nmerge job %s: after the array succeeds (%s)\nresults: %s\n",
		arrayID, *shards, j.ArrayScript, mergeID, j.MergeScript, dir)
	return nil
}

// sbatch submits a script with sbatch --parsable and returns the job id.
func sbatch(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("submit slurm: sbatch not found on PATH (use --dry-run to print the scripts): %w", err)
		}
		return "", fmt.Errorf("submit slurm: sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("submit slurm: sbatch printed %q, not a job id", strings.TrimSpace(string(out)))
	}
	return id, nil
}

// k8sOptions are the flags of dplab submit k8s.
type k8sOptions struct {
	spec, out, defaultOut   string
	quick                   bool
	trials                  int
	dataDir, dplab          string
	pvc, image, mount, name string
	parallelism             int
}

// submitK8s prints the Indexed Job of j's shards.
func submitK8s(w io.Writer, j *submitJob, o k8sOptions) error {
	pvc, image, mount, name, dplab, parallelism := o.pvc, o.image, o.mount, o.name, o.dplab, o.parallelism
	if pvc == "" || image == "" {
		return usagef("submit k8s needs --pvc CLAIM and --image IMAGE")
	}
	if !strings.HasPrefix(mount, "/") {
		return usagef("submit k8s: --mount %q must be an absolute path", mount)
	}
	if parallelism < 0 {
		return usagef("--parallelism must be ≥ 0")
	}
	if name == "" {
		name = "dplab-" + j.Label
	}
	if dnsLabel(name) != name || len(name) > 63 {
		return usagef("submit k8s: --name %q is not a DNS-1123 label (lowercase letters, digits, '-', at most 63)", name)
	}
	if dplab == "" {
		dplab = "dplab"
	}
	// The result directory is on the claim: MOUNT/<out or the spec's result name>.
	rel := o.out
	if rel == "" {
		rel = o.defaultOut
	}
	dir := rel
	if !filepath.IsAbs(rel) {
		dir = filepath.Join(mount, rel)
	}
	if !strings.HasPrefix(dir, mount+"/") {
		return usagef("submit k8s: --out %q is not under the claim's mount %s", o.out, mount)
	}
	j.JobName, j.PVC, j.Image, j.Mount, j.Dir = name, pvc, image, mount, dir
	j.Parallelism = j.Shards
	if parallelism > 0 {
		j.Parallelism = min(parallelism, j.Shards)
	}
	j.BackoffLimit = j.Shards // one retry per shard on average
	j.Command0 = []string{dplab}
	j.Args = []string{"run", o.spec, "--out", dir, "--shard", fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", j.Shards), "-j", strconv.Itoa(j.CPUs)}
	if o.quick {
		j.Args = append(j.Args, "--quick")
	}
	if o.trials > 0 {
		j.Args = append(j.Args, "--trials", strconv.Itoa(o.trials))
	}
	if o.dataDir != "" {
		j.Args = append(j.Args, "--data-dir", o.dataDir)
	} else {
		j.DataEnv = os.Getenv("DPLAB_DATA")
	}
	return submitTmpl.ExecuteTemplate(w, "k8s_job.yaml.tmpl", j)
}

// runFlags are the dplab run flags a shard repeats from the submission,
// each value through quote.
func runFlags(quick bool, trials int, dataDir string, quote func(string) string) string {
	var b strings.Builder
	if quick {
		b.WriteString(" --quick")
	}
	if trials > 0 {
		fmt.Fprintf(&b, " --trials %d", trials)
	}
	if dataDir != "" {
		b.WriteString(" --data-dir " + quote(dataDir))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell: single quotes, with each ' as '\”.
func shellQuote(s string) string {
	if s != "" && sbatchSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dnsLabel maps s to a DNS-1123 label (Kubernetes names, Slurm job names):
// lowercase letters, digits and '-', starting and ending alphanumeric, at
// most 63 characters.
func dnsLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 50 {
		out = strings.TrimRight(out[:50], "-")
	}
	if out == "" {
		out = "spec"
	}
	return out
}
