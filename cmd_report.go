package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/htmlreport"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/results"
)

var reportCommand = &command{
	Name:      "report",
	UsageLine: "report [RESULTDIR...] [-o report.html] [--title TEXT]",
	Short:     "build one self-contained HTML page from result folders",
	Long: `Report writes one static HTML page showing every given result folder
(dplab run's, an audit grid's included): its claims and their verdicts
(claims.json) first, then its figures (inlined) and tables, each with its
caption file, a sortable table of its cells, the privacy ledger of each cell (accountant, δ, α*, ε spent per
ledger component, tuning), provenance (manifest.json) and the spec that
produced it. A side table of contents folds away. The page needs no network
and no other file; it prints cleanly.

Without RESULTDIR it shows every result folder under ` + run.DefaultRoot + `/. Arguments that
are plain files are skipped with a warning (so that 'dplab report DIR/*'
passes over a folder's plain files); any other directory that is not
a result folder (no trials.jsonl) is an error. The page (-o)
must be written outside every result folder: a path in or below one is
refused.`,
	Run: cmdReport,
}

func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	out := fs.String("o", "report.html", "output file")
	title := fs.String("title", "", `page title (default "dplab report")`)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := checkOutputFile(*out); err != nil {
		return badInput(err)
	}
	dirs, err := reportDirs(pos, stderr)
	if err != nil {
		return err
	}
	page, err := htmlreport.Build(dirs, htmlreport.Options{Title: *title,
		Warn: func(w string) { fmt.Fprintln(stderr, "warning:", w) }})
	if err != nil {
		var nr *htmlreport.NotResultError
		if errors.As(err, &nr) {
			return badInput(err)
		}
		return err
	}
	if err := fileutil.ReplaceFile(*out, page); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d result folder(s), %d bytes)\n", *out, len(dirs), len(page))
	return nil
}

// checkOutputFile returns an error naming -o when the page could not be
// written there for a reason known before it is built: its folder is missing
// or not a folder, or the path is a folder. (A page of many result folders
// takes seconds to build.) It also refuses a path in or below a result
// folder: the page would replace one of its files or sit among them (-o
// DIR/trials.jsonl replaced the store with the page; issue 34, item 3).
func checkOutputFile(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("-o %s is a directory; give a file name such as %s", path, filepath.Join(path, "report.html"))
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-o %s: its folder %s: %w", path, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("-o %s: %s is not a folder", path, dir)
	}
	in, err := resultDirAround(dir)
	if err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	if in != "" {
		return fmt.Errorf("-o %s is inside the result folder %s: the page would replace or sit among its files; write it outside (e.g. -o report.html)", path, in)
	}
	return nil
}

// resultDirAround returns the result folder (a run's, a sharded run's or an
// audit's) that the existing folder dir is, or is below, once links are
// resolved; "" if none.
func resultDirAround(dir string) (string, error) {
	dir, err := filepath.EvalSymlinks(dir)
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return "", err
	}
	for !isResultFolder(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
	return dir, nil
}

// isResultFolder reports whether dir holds a store (trials.jsonl) or shard
// files.
func isResultFolder(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, results.TrialsFile)); err == nil {
		return true
	}
	shards, _ := results.ShardFiles(dir)
	return len(shards) > 0
}

// reportDirs returns the result folders to show: the arguments, without
// plain files (warned about), or every folder under run.DefaultRoot holding a
// store (trials.jsonl: an audit grid's folder is a run's) when there are
// none.
func reportDirs(args []string, stderr io.Writer) ([]string, error) {
	if len(args) == 0 {
		entries, err := os.ReadDir(run.DefaultRoot)
		if err != nil {
			return nil, usagef("no RESULTDIR given and no %s/ folder here: %v", run.DefaultRoot, err)
		}
		var dirs []string
		for _, e := range entries {
			// os.Stat follows a symbolic link to a result folder elsewhere.
			d := filepath.Join(run.DefaultRoot, e.Name())
			if hasStore(d) {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) == 0 {
			return nil, usagef("no RESULTDIR given and no result folder under %s/ (run 'dplab run SPEC.toml' first)", run.DefaultRoot)
		}
		return dirs, nil
	}
	var dirs, files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err == nil && !st.IsDir() {
			files = append(files, a)
			continue
		}
		if !slices.Contains(dirs, a) {
			dirs = append(dirs, a) // missing paths: htmlreport names them
		}
	}
	if len(files) > 0 {
		fmt.Fprintf(stderr, "warning: skipping %d file(s), not result folders: %s\n", len(files), strings.Join(files, " "))
	}
	if len(dirs) == 0 {
		return nil, badInput(fmt.Errorf("none of the %d argument(s) is a result folder", len(args)))
	}
	return dirs, nil
}

// hasStore reports whether dir holds a store (trials.jsonl).
func hasStore(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, results.TrialsFile))
	return err == nil
}
