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
	"unicode/utf8"

	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
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
               [--set PATH=VALUE]... [--dplab PATH] [--dry-run]
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
             [--quick] [--trials N] [--data-dir D] [--set PATH=VALUE]... [--dplab PATH]
prints a batch/v1 Job with completionMode Indexed and N completions: pod i
runs shard $JOB_COMPLETION_INDEX/N of SPEC (a path inside the image) into
MOUNT/<result name> on the persistent volume claim CLAIM. Apply it with
kubectl apply -f -, wait for it to complete, then run dplab merge on the
claim (docs/cluster.md).

Each shard runs with the submission's --quick, --trials, --data-dir, limits
and --set overrides (checked here; the manifest records them). --only is
refused: a sharded run runs the whole grid; narrow the spec with --set
(e.g. --set 'epsilon=[1]') instead.`,
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
	RunFlags             string // " --quick --trials N --data-dir D …" (shardFlags), shell-quoted
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
	out := fs.String("out", "", "result directory (default "+run.DefaultRoot+"/<name>)")
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
	sets := setFlag(fs)
	var only multiFlag // refused below, with the reason
	fs.Var(&only, "only", "refused: a sharded run runs the whole grid (narrow the spec with --set)")
	// Every argument goes into the generated files (the command line in
	// their header, the values in their commands): one that could end a
	// line there is refused before anything else is done.
	for i, a := range args[1:] {
		what := "the first argument"
		if i > 0 {
			what = "the argument after " + args[i]
		}
		if err := checkScriptText(what, a); err != nil {
			return err
		}
	}
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
	if len(only) > 0 {
		return usagef("submit: --only and --shards: a sharded run runs the whole grid; narrow the spec with --set instead (e.g. --set 'epsilon=[1]'), or run the subset unsharded with dplab run --only")
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
	s, err := loadSpec(ctx, pos[0], *quick, *lim, *sets...)
	if err != nil {
		return err
	}
	// The options the tasks will run with, resolved here so that a
	// --trials that takes the grid over the limits fails at submission.
	_, opt, err := resolveRun(ctx, s, run.Options{OutDir: *out, Trials: *trials})
	if err != nil {
		return err
	}
	command := []string{"dplab", "submit"}
	for _, a := range args {
		command = append(command, shellQuote(a))
	}
	j := &submitJob{Name: s.Name, Shards: *shards, LastIndex: *shards - 1, CPUs: *cpus, Mem: *mem,
		Label: dnsLabel(s.Name), Command: strings.Join(command, " ")}
	// Values not given as arguments but found here: absolute paths (the
	// working directory's), this binary's path, $DPLAB_DATA.
	if err := checkScriptText("$DPLAB_DATA", os.Getenv("DPLAB_DATA")); err != nil {
		return err
	}
	if engine == "k8s" {
		return submitK8s(stdout, j, k8sOptions{spec: pos[0], out: *out, defaultOut: filepath.Base(run.ResultDir(s, "")),
			flags: shardFlags(*quick, *trials, *dataDir, *lim, *sets), dataDir: *dataDir, dplab: *dplab, pvc: *pvc, image: *image,
			mount: *mount, name: *name, parallelism: *parallelism})
	}
	// Slurm: absolute paths, as the tasks may start elsewhere.
	dir, err := filepath.Abs(opt.OutDir)
	if err != nil {
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
	for _, v := range []struct{ what, val string }{{"the result directory", dir}, {"the spec's path", specPath}, {"the dplab binary's path", bin}} {
		if err := checkScriptText(v.what, v.val); err != nil {
			return err
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
	for _, f := range shardFlags(*quick, *trials, *dataDir, *lim, *sets) {
		j.RunFlags += " " + shellQuote(f)
	}
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
	// The scripts go inside the result directory, never through a link
	// there (fileutil.WriteScriptIn).
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := fileutil.MkdirAllIn(dir, results.ShardsDir); err != nil {
		return storeError(err)
	}
	for _, sc := range []struct {
		path string
		text []byte
	}{{j.ArrayScript, array.Bytes()}, {j.MergeScript, merge.Bytes()}} {
		if err := fileutil.WriteScriptIn(dir, filepath.Join(results.ShardsDir, filepath.Base(sc.path)), sc.text); err != nil {
			return storeError(err)
		}
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
	flags                   []string // shardFlags
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
	j.Args = append(j.Args, o.flags...)
	if o.dataDir == "" {
		j.DataEnv = os.Getenv("DPLAB_DATA")
	}
	return submitTmpl.ExecuteTemplate(w, "k8s_job.yaml.tmpl", j)
}

// shardFlags are the dplab run flags a shard repeats from the submission:
// --quick, --trials, --data-dir, the limits raised or lowered from their
// defaults (a shard would refuse what the submission accepted) and the
// --set overrides, in order.
func shardFlags(quick bool, trials int, dataDir string, lim spec.Limits, sets []string) []string {
	var out []string
	if quick {
		out = append(out, "--quick")
	}
	if trials > 0 {
		out = append(out, "--trials", strconv.Itoa(trials))
	}
	if dataDir != "" {
		out = append(out, "--data-dir", dataDir)
	}
	for _, l := range []struct {
		flag   string
		v, def int64
	}{{"--max-cells", lim.MaxCells, spec.DefaultMaxCells}, {"--max-trials", lim.MaxTrials, spec.DefaultMaxTrials},
		{"--max-data-bytes", lim.MaxDataBytes, spec.DefaultMaxDataBytes}} {
		if l.v != l.def {
			out = append(out, l.flag, strconv.FormatInt(l.v, 10))
		}
	}
	for _, set := range sets {
		out = append(out, "--set", set)
	}
	return out
}

// checkScriptText refuses a value that is to be written into a generated
// script or manifest (what names it) when it holds a character that could
// end a line there or is not text: a control character (U+0000–U+001F,
// U+007F–U+009F, among them U+0085 NEL), a line or paragraph separator
// (U+2028, U+2029) or bytes that are not UTF-8. bash ends a line at '\n'
// only, and quoting keeps that one inside a command, but the files also
// hold comments (the command line that made them), #SBATCH lines and YAML,
// whose readers differ on what ends a line (YAML 1.1 also breaks at NEL,
// U+2028 and U+2029): such a value would run its rest as a command or add
// manifest documents. No path, name or flag needs them.
func checkScriptText(what, v string) error {
	for i, r := range v {
		bad := r < 0x20 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029'
		if r == utf8.RuneError && !strings.HasPrefix(v[i:], "\uFFFD") {
			return usagef("%s, %q, is not UTF-8 text (byte %d): it would be written into the generated scripts and manifests", what, v, i)
		}
		if bad {
			return usagef("%s, %q, holds %U, a control character or line break: it would be written into the generated scripts and manifests, where it could end a line", what, v, r)
		}
	}
	return nil
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
