package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

var mergeCommand = &command{
	Name:      "merge",
	UsageLine: "merge RESULTDIR [--max-cells N] [--max-trials N]",
	Short:     "merge the shard files of a sharded run into the store, check for gaps, render",
	Long: `Merge appends the records of RESULTDIR/shards/shard-i-of-N.jsonl (written by
"dplab run --shard i/N") to RESULTDIR/trials.jsonl, under the directory's lock,
skipping records the store already holds: merging twice changes nothing. It
reports trials with several records identical apart from timing (duplicates)
and every trial of the spec with no ok record,
by dataset, mechanism label, ε and trial index, with the shard that should
have produced it. With no trial missing it writes spec.toml and
manifest.json and renders the figures and tables; with trials missing or
failed it exits non-zero (rerun the shards it names: a resumed shard runs
only what it lacks). The spec and its --quick and --trials settings are
those the shards recorded in RESULTDIR/shards; a shard file without its
manifest (shard-i-of-N.json) is refused. Records of one trial that differ
beyond timing (wall_s, code_version, wall_* diagnostics) fail the merge
(exit 2) naming them and their files, and nothing is appended.`,
	Run: cmdMerge,
}

// parseShardFlag parses run's --shard (empty: no sharding) for nspecs
// specs (run.Resolve refuses it with --force).
func parseShardFlag(v string, nspecs int) (run.Shard, error) {
	if v == "" {
		return run.Shard{}, nil
	}
	sh, err := run.ParseShard(v)
	if err != nil {
		return sh, usagef("%v", err)
	}
	if nspecs != 1 {
		return sh, usagef("--shard runs one SPEC.toml")
	}
	return sh, nil
}

// printShardPlan prints each of n shards' trials and estimated wall time
// on jobs concurrent trials (dplab plan --shards).
func printShardPlan(w io.Writer, s *spec.Spec, p *run.Plan, n, jobs int) error {
	est, err := p.ShardEstimates(n, jobs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nshards: %d (dplab run %s --shard i/%d -j %d)\n", n, s.File, n, jobs)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\ttrials\tcells\testimated wall")
	var sum, largest time.Duration
	for _, e := range est {
		fmt.Fprintf(tw, "%d/%d\t%d\t%d\t%s\n", e.Shard, n, e.Trials, e.Cells, e.Wall.Round(100*time.Millisecond))
		sum += e.Wall
		largest = max(largest, e.Wall)
	}
	tw.Flush()
	mean := sum / time.Duration(n)
	if mean > 0 {
		fmt.Fprintf(w, "mean %s, largest %s (%+.1f%% of the mean); each shard loads the datasets and does the one-off work of every cell it touches\n",
			mean.Round(100*time.Millisecond), largest.Round(100*time.Millisecond), 100*(largest.Seconds()/mean.Seconds()-1))
	}
	return nil
}

// shardSetup is what the shards of a result directory recorded: the spec
// they ran and its settings.
type shardSetup struct {
	specPath string
	quick    bool
	trials   int
	counts   []int               // the shard counts of the files found
	runs     []results.Run       // every shard run, from the shard manifests
	data     map[string]string   // data file -> SHA-256, from the shard manifests
	manifest *results.Manifest   // the first shard manifest found
	files    map[int][]run.Shard // count -> shard files present
}

// readShardSetup reads the shard manifests of dir, checks that every shard
// file has one and that they agree on the spec, --quick and --trials.
func readShardSetup(dir string, shards []results.ShardName) (*shardSetup, error) {
	su := &shardSetup{data: map[string]string{}, files: map[int][]run.Shard{}}
	var first string // "spec sha, quick, trials" of the first manifest
	for _, sh := range shards {
		if !slices.Contains(su.counts, sh.Count) {
			su.counts = append(su.counts, sh.Count)
		}
		su.files[sh.Count] = append(su.files[sh.Count], run.Shard{Index: sh.Index, Count: sh.Count})
		path := results.ShardManifestPath(dir, sh.Index, sh.Count)
		m, err := results.ReadManifestFile(path)
		var corrupt *results.CorruptManifestError
		if errors.As(err, &corrupt) {
			return nil, fmt.Errorf("%w: rerun shard %d/%d to completion (it resumes and rewrites its manifest), then merge", err, sh.Index, sh.Count)
		}
		if err != nil {
			return nil, err
		}
		if len(m.Runs) == 0 {
			// Nothing says which spec its records are of: another spec's
			// records were appended this way.
			return nil, fmt.Errorf("%s has no manifest (%s): nothing says which spec and settings its records are of, so nothing was merged; rerun shard %d/%d to completion (it resumes and writes its manifest) or move the file away",
				sh.Path, path, sh.Index, sh.Count)
		}
		last := m.Runs[len(m.Runs)-1]
		id := fmt.Sprintf("spec sha256 %s, quick %v, trials %d", m.SpecSHA256, last.Quick, last.Trials)
		if len(m.External) > 0 {
			// A worker's files edited between shards give its cells other keys.
			ext, _ := json.Marshal(m.External)
			id += ", external workers " + string(ext)
		}
		if first == "" {
			first = id
			su.manifest = m
			su.quick, su.trials = last.Quick, last.Trials
			su.specPath = results.ShardSpecPath(dir, m.SpecSHA256)
		} else if id != first {
			return nil, fmt.Errorf("the shards of %s ran different setups: %s has %s, another %s; merge shards of one spec and settings only (move the others away)", dir, path, id, first)
		}
		su.runs = append(su.runs, m.Runs...)
		for k, v := range m.Datasets {
			su.data[k] = v
		}
	}
	return su, nil
}

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", stdout)
	lim := limitFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("merge takes one RESULTDIR")
	}
	if err := checkLimitFlags(lim); err != nil {
		return err
	}
	dir := pos[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return badInput(fmt.Errorf("merge: %s is not a directory", dir))
	}
	if err := results.CheckDir(dir); err != nil {
		return storeError(err)
	}
	shards, err := results.ShardFiles(dir)
	if err != nil {
		return err
	}
	if len(shards) == 0 {
		return badInput(fmt.Errorf("merge: %s has no shard files (%s/shard-i-of-N.jsonl, written by dplab run --shard i/N)", dir, results.ShardsDir))
	}
	su, err := readShardSetup(dir, shards)
	if err != nil {
		return badInput(err)
	}
	s, err := loadSpecWith(ctx, su.specPath, su.quick, recordedLoad(su.manifest, *lim))
	if err != nil {
		return err
	}
	grid, _, err := resolveRun(ctx, s, run.Options{OutDir: dir, Trials: su.trials})
	if err != nil {
		return err
	}
	warn := func(w string) { fmt.Fprintln(stderr, "warning:", w) }
	res, err := results.MergeShards(dir, warn)
	if err != nil {
		return storeError(err)
	}
	fmt.Fprintf(stdout, "%s: merged %d shard file(s) into %s: %d records read, %d added (%d already stored)\n",
		s.Name, len(res.Shards), filepath.Join(dir, results.TrialsFile), res.Read, res.Added, res.Read-res.Added)
	for _, d := range res.Duplicates {
		fmt.Fprintf(stdout, "duplicate: %s / %s / %s / trial %d: %d records (%s), identical apart from timing; the last merged is used\n",
			d.Dataset, d.Label, epsLabel(d.Epsilon), d.Key.Trial, len(d.Sources), strings.Join(d.Sources, ", "))
	}
	cells := grid.Cells()
	// One scan of the merged store finds the gaps and collects what the
	// figures and tables need, under the directory's shared lock: a run
	// started since the merge would render newer outputs.
	unlock, err := readLock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	col := report.NewCollector(grid)
	stored := results.FromDir(dir, warn)
	gaps, err := run.Gaps(cells, func(visit func(*results.Record)) error {
		return stored(func(r *results.Record) { col.Add(r); visit(r) })
	}, su.counts)
	if err != nil {
		return storeError(err)
	}
	missing, failed := printGaps(stdout, s, gaps, su)
	if err := writeMergedProvenance(dir, s, su, warn); err != nil {
		return err
	}
	if missing > 0 {
		return fmt.Errorf("%d trial(s) missing (listed above); nothing rendered", missing)
	}
	outs, err := col.Render(dir, stderr)
	sort.Strings(outs)
	for _, p := range outs {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d trial(s) failed (listed above); rendered what ran", failed)
	}
	return nil
}

// gapListMax caps the trials listed per shard; the rest are counted.
const gapListMax = 20

// printGaps lists the missing and failed trials of gaps per shard and
// returns how many are missing and failed.
func printGaps(w io.Writer, s *spec.Spec, gaps []run.Gap, su *shardSetup) (missing, failed int) {
	if len(gaps) == 0 {
		fmt.Fprintln(w, "no gaps: every trial of the spec has an ok record")
		return 0, 0
	}
	type group struct {
		lines []string
		n     int
	}
	byShard := map[string]*group{}
	var order []string
	for _, g := range gaps {
		var names []string
		for _, sh := range g.Shards {
			name := "shard " + sh.String()
			if !slices.Contains(su.files[sh.Count], sh) {
				name += " (no shard file)"
			}
			names = append(names, name)
		}
		key := strings.Join(names, ", ")
		gr := byShard[key]
		if gr == nil {
			gr = &group{}
			byShard[key] = gr
			order = append(order, key)
		}
		gr.n++
		what := "missing"
		if g.Failed {
			what = "failed: " + firstLine(g.Error)
			failed++
		} else {
			missing++
		}
		if len(gr.lines) < gapListMax {
			c := g.Cell
			gr.lines = append(gr.lines, fmt.Sprintf("  %s / %s / %s / trial %d: %s", s.DatasetAt(c.Dataset).Label, c.Label, cellEps(c), g.Trial, what))
		}
	}
	sort.Strings(order)
	var rerun []string
	for _, key := range order {
		gr := byShard[key]
		fmt.Fprintf(w, "%s should have produced %d trial(s) with no ok record:\n", key, gr.n)
		for _, l := range gr.lines {
			fmt.Fprintln(w, l)
		}
		if gr.n > len(gr.lines) {
			fmt.Fprintf(w, "  … and %d more\n", gr.n-len(gr.lines))
		}
	}
	for _, g := range gaps {
		for _, sh := range g.Shards {
			if id := strconv.Itoa(sh.Index); !slices.Contains(rerun, id) && len(g.Shards) == 1 {
				rerun = append(rerun, id)
			}
		}
	}
	if len(rerun) > 0 {
		sort.Slice(rerun, func(i, j int) bool { a, _ := strconv.Atoi(rerun[i]); b, _ := strconv.Atoi(rerun[j]); return a < b })
		fmt.Fprintf(w, "rerun shard(s) %s of %d (Slurm: resubmit the array with --array=%s), then merge again\n",
			strings.Join(rerun, ","), su.counts[0], strings.Join(rerun, ","))
	}
	return missing, failed
}

// writeMergedProvenance writes the spec copy and the manifest of a merged
// directory: the shard runs (each once: a repeated merge adds none) and the
// data files they verified, so that dplab render DIR works as after an
// unsharded run. A manifest there that does not parse is rebuilt from the
// shards', with a warning.
func writeMergedProvenance(dir string, s *spec.Spec, su *shardSetup, warn func(string)) error {
	if err := results.WriteSpecCopy(dir, s.Source); err != nil {
		return err
	}
	m, err := results.ReadManifest(dir)
	var corrupt *results.CorruptManifestError
	if errors.As(err, &corrupt) {
		warn(fmt.Sprintf("%v: rebuilding it from the shards' manifests (runs it alone recorded are lost)", err))
		m, err = &results.Manifest{}, nil
	}
	if err != nil {
		return err
	}
	m.Experiment, m.SpecPath, m.SpecSHA256 = s.Name, su.manifest.SpecPath, su.manifest.SpecSHA256
	if m.Datasets == nil {
		m.Datasets = map[string]string{}
	}
	for k, v := range su.data {
		m.Datasets[k] = v
	}
	m.External = su.manifest.External // the shards agree on them (readShardSetup)
	runs := slices.Clone(su.runs)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Start.Before(runs[j].Start) })
	for _, r := range runs {
		if !slices.ContainsFunc(m.Runs, func(x results.Run) bool { return x.Shard == r.Shard && x.Start.Equal(r.Start) }) {
			m.Runs = append(m.Runs, r)
		}
	}
	return results.WriteManifest(dir, m)
}

// cellEps is a cell's ε for messages: "non-private" for a reference.
func cellEps(c *plan.Cell) string {
	if !c.Private {
		return "non-private"
	}
	return epsLabel(c.Epsilon)
}

func epsLabel(e float64) string {
	if e > 1e300 {
		return "non-private"
	}
	return "ε=" + strconv.FormatFloat(e, 'g', -1, 64)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
