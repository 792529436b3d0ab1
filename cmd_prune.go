package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

var pruneCommand = &command{
	Name:      "prune",
	UsageLine: "prune RESULTDIR|SPEC.toml [--apply [--force]] [--out DIR] [--quick] [--set PATH=VALUE]...",
	Short:     "remove stored trials of cells no longer in the spec (dry run by default)",
	Long: `Prune lists the trials stored in a result directory whose cell is no longer in
the spec's grid (a mechanism, dataset, ε or parameter value removed or changed:
its cell key changed), with their count per old cell. It changes nothing unless
given --apply (or --yes), which rewrites the store without them, atomically and
under the directory's lock (as --force does); the trials of the spec's cells
stay, so a later run resumes as before. The spec is found as render finds it:
a result directory's own copy (its last run's, with its --quick and --set
overrides), or a SPEC.toml (--out, --quick and --set choose as for run).
Unmerged shard files (DIR/shards) are not pruned. --apply refuses, unless
given --force, when no stored trial would be kept, when a run the manifest
records used another --quick or --set than this prune's (compared in
canonical form), or, for a result directory, when the manifest records no
SHA-256 of an external mechanism's files (its cells' keys would be those of
the files beside the copy).`,
	Run: cmdPrune,
}

// staleCell is a cell of the store no longer in the spec: what its records
// say it was, and its trials.
type staleCell struct {
	key, dataset, label, mechanism string
	epsilon                        float64
	trials                         int
}

func cmdPrune(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("prune", stdout)
	apply := fs.Bool("apply", false, "remove the stale trials (default: list them only)")
	yes := fs.Bool("yes", false, "the same as --apply")
	force := fs.Bool("force", false, "with --apply: remove the stale trials even when none would be kept or the runs the manifest records used another --quick or --set")
	tf := addTargetFlags(fs, "prune")
	_, dir, s, err := tf.target(ctx, fs, args, "prune", "pruned")
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, results.TrialsFile)); err != nil {
		return badInput(fmt.Errorf("%s holds no stored trials (%s): nothing to prune", dir, results.TrialsFile))
	}
	// The spec and the store are read under the directory's lock: shared
	// for a dry run (as render), exclusive for --apply (as run --force).
	var store *results.Store
	if *apply || *yes {
		if store, err = results.Open(dir, func(w string) { fmt.Fprintln(stderr, "warning:", w) }, nil); err != nil {
			return storeError(err)
		}
		defer func() { // the rewrite is synced; Close releases the lock
			if cerr := store.Close(); err == nil {
				err = cerr
			}
		}()
	} else {
		unlock, err := readLock(dir)
		if err != nil {
			return err
		}
		defer unlock()
	}
	fromDir := s == nil
	if s == nil {
		if s, err = dirSpec(ctx, dir, *tf.lim, stderr); err != nil {
			return err
		}
	}
	p, err := plan.New(ctx, s, plan.Options{})
	if err != nil {
		return badInput(err)
	}
	keys := make(map[string]bool, len(p.Cells()))
	for _, c := range p.Cells() {
		keys[c.Key] = true
	}
	stale := map[string]*staleCell{}
	kept := 0
	keep := func(r *results.Record) bool {
		if keys[r.CellKey] {
			kept++
			return true
		}
		c := stale[r.CellKey]
		if c == nil {
			c = &staleCell{key: r.CellKey, dataset: r.Dataset, label: r.Label, mechanism: r.Mechanism, epsilon: float64(r.Epsilon)}
			stale[r.CellKey] = c
		}
		c.trials++
		return false
	}
	if err = results.Scan(dir, func(w string) { fmt.Fprintln(stderr, "warning:", w) }, func(r *results.Record) { keep(r) }); err != nil {
		return storeError(err)
	}
	if store != nil && len(stale) > 0 {
		if !*force {
			if err := pruneGuard(dir, s, kept, *tf.quick, *tf.sets, fromDir); err != nil {
				return err
			}
		}
		if err := store.Rewrite(func(r *results.Record) bool { return keys[r.CellKey] }); err != nil {
			return storeError(err)
		}
	}
	printStale(stdout, dir, s, stale, kept, store != nil)
	if st, err := os.Stat(filepath.Join(dir, results.ShardsDir)); err == nil && st.IsDir() {
		fmt.Fprintf(stderr, "warning: the shard files under %s are not pruned\n", filepath.Join(dir, results.ShardsDir))
	}
	return nil
}

// pruneGuard refuses (as bad input naming --force) a prune --apply of the
// result directory dir by spec s that would remove every stored trial
// (none kept), or whose --quick and --set (quick, sets; the last run's when
// the spec is the directory's own, fromDir) differ from those of a run the
// manifest records: that run's trials would all go.
func pruneGuard(dir string, s *spec.Spec, kept int, quick bool, sets []string, fromDir bool) error {
	refuse := func(format string, args ...any) error {
		return badInput(fmt.Errorf("%s: refusing to prune: "+format+"; check the spec, --quick and --set, or give --force to remove them anyway", append([]any{dir}, args...)...))
	}
	if kept == 0 {
		return refuse("no stored trial is of a cell of %s: every one would be removed", s.Name)
	}
	m, err := results.ReadManifest(dir)
	if fromDir {
		// The copy's external cells are keyed on the hashes the manifest
		// records (dirSpec); without them, on the files found beside the
		// copy, which need not be the run's.
		var recorded map[string]results.ExternalCommand
		if err == nil {
			recorded = m.External
		}
		for _, mb := range s.Mechanisms {
			if _, ok := recorded[mb.Label]; mb.External != nil && !ok {
				return refuse("mechanism %q is external and the manifest records no SHA-256 of its files, so its cells are keyed on the files found beside %s, which need not be those its trials ran", mb.Label, filepath.Join(dir, "spec.toml"))
			}
		}
	}
	if err != nil || len(m.Runs) == 0 {
		return nil // nothing to compare with (dirSpec warned of a corrupt one)
	}
	if fromDir {
		last := m.Runs[len(m.Runs)-1]
		quick, sets = last.Quick, last.Set
	}
	variant := map[bool]string{true: "the --quick variant", false: "the full variant"}
	for i, r := range m.Runs {
		switch {
		case r.Quick != quick:
			with := map[bool]string{true: "with", false: "without"}
			return refuse("run %d in the manifest ran %s --quick, this prune is of %s, whose cells its trials may not be", i+1, with[r.Quick], variant[quick])
		case !slices.Equal(canonicalSets(r.Set), canonicalSets(sets)):
			return refuse("run %d in the manifest ran with --set %s, this prune with --set %s", i+1, quoteList(r.Set), quoteList(sets))
		}
	}
	return nil
}

// canonicalSets returns sets in canonical form (spec.CanonicalSet; a
// malformed one as it is), so that typing does not tell two runs apart.
func canonicalSets(sets []string) []string {
	out := make([]string, len(sets))
	for i, set := range sets {
		c, err := spec.CanonicalSet(set)
		if err != nil {
			c = set
		}
		out[i] = c
	}
	return out
}

// quoteList formats strs as a list of quoted strings: ["a", "b"].
func quoteList(strs []string) string {
	q := make([]string, len(strs))
	for i, x := range strs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// printStale prints the stale cells, one line each (by dataset, label and
// ε), and what was or would be removed.
func printStale(w io.Writer, dir string, s *spec.Spec, stale map[string]*staleCell, kept int, applied bool) {
	cells := make([]*staleCell, 0, len(stale))
	n := 0
	for _, c := range stale {
		cells = append(cells, c)
		n += c.trials
	}
	slices.SortFunc(cells, func(a, b *staleCell) int {
		return cmp.Or(cmp.Compare(a.dataset, b.dataset), cmp.Compare(a.label, b.label), cmp.Compare(a.epsilon, b.epsilon), cmp.Compare(a.key, b.key))
	})
	for _, c := range cells {
		eps := "non-private"
		if !math.IsInf(c.epsilon, 1) {
			eps = "ε = " + strconv.FormatFloat(c.epsilon, 'g', -1, 64)
		}
		fmt.Fprintf(w, "  %s  %s / %s (%s) %s: %d trial(s)\n", shortKey(c.key), c.dataset, c.label, c.mechanism, eps, c.trials)
	}
	switch {
	case n == 0:
		fmt.Fprintf(w, "%s: every one of its %d stored trials is of a cell of %s: nothing to prune\n", dir, kept, s.Name)
	case applied:
		fmt.Fprintf(w, "%s: removed %d stored trial(s) of %d cell(s) no longer in %s; %d kept\n", dir, n, len(cells), s.Name, kept)
	default:
		fmt.Fprintf(w, "%s: %d stored trial(s) of %d cell(s) are no longer in %s (%d kept); dry run, nothing removed: --apply removes them\n", dir, n, len(cells), s.Name, kept)
	}
}

// shortKey is the first 12 characters of a cell key.
func shortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}
