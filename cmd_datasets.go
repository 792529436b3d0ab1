package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/strictoml"
)

var datasetsCommand = &command{
	Name:      "datasets",
	UsageLine: "datasets list | fetch NAME...|--all | verify [NAME...] | info NAME [--set key=value]... | clean-cache [--data-dir DIR]",
	Short:     "list, fetch, verify and describe the registered datasets",
	Long: `Subcommands:

  list            every registered dataset: name, task, n × d after preprocessing
                  (default params), papers, and whether its files are present
  fetch NAME...   download the named datasets' files (--all: every dataset) into
                  the data directory, verify their SHA-256 and write them
                  atomically; --mirror URL tries a data-directory-shaped mirror first
  verify [NAME...] check the SHA-256 of every registered file present (exit 2 on
                  a mismatch, printing the expected and actual checksums, or
                  when the data directory does not exist)
  info NAME       load the dataset (params with --set key=value, repeatable) and
                  print its shape, label balance or target range, max row norm
                  and λ_min(XᵀX)
  clean-cache     remove the parse cache: the datasets that runs parsed once
                  and read back since (os.UserCacheDir()/dplab/parsed;
                  DPLAB_NO_PARSE_CACHE=1 keeps runs from using it)

The data directory is --data-dir, else $DPLAB_DATA, else the user cache
directory (dplab/datasets). Files may be stored plain, .gz or .bz2.`,
	Run: cmdDatasets,
}

func cmdDatasets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("datasets: missing subcommand (list, fetch, verify, info or clean-cache)")
	}
	sub, rest := args[0], args[1:]
	if sub == "-h" || sub == "--help" || sub == "-help" {
		newFlagSet("datasets", stdout).Usage()
		return flag.ErrHelp
	}
	fs := newFlagSet("datasets", stdout)
	dataDir := fs.String("data-dir", "", "data directory (default $DPLAB_DATA, else the user cache directory)")
	switch sub {
	case "list":
		pos, err := parseInterleaved(fs, rest)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return usagef("datasets list takes no arguments, got %q", pos)
		}
		return datasetsList(stdout, datasets.DataDir(*dataDir))
	case "fetch":
		all := fs.Bool("all", false, "fetch every registered dataset")
		mirror := fs.String("mirror", "", "base URL of a mirror laid out like a data directory, tried first")
		pos, err := parseInterleaved(fs, rest)
		if err != nil {
			return err
		}
		if *all == (len(pos) > 0) {
			return usagef("datasets fetch: give dataset names or --all, not both or neither")
		}
		return datasetsFetch(ctx, stdout, stderr, datasets.DataDir(*dataDir), *mirror, pos)
	case "verify":
		pos, err := parseInterleaved(fs, rest)
		if err != nil {
			return err
		}
		return datasetsVerify(stdout, datasets.DataDir(*dataDir), pos)
	case "info":
		var sets multiFlag
		fs.Var(&sets, "set", "dataset param as key=value (repeatable), e.g. --set split=3")
		maxEig := fs.Int("max-eig-dim", 2000, "compute λ_min(XᵀX) only up to this many features")
		maxData := byteSize(spec.DefaultMaxDataBytes)
		fs.Var(&maxData, "max-data-bytes", "refuse to load more (the dataset's values, 8 bytes each); a number of bytes, or with a unit: 500MB, 4GB, 4GiB")
		pos, err := parseInterleaved(fs, rest)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("datasets info takes one dataset name, got %d", len(pos))
		}
		return datasetsInfo(stdout, datasets.DataDir(*dataDir), pos[0], sets, *maxEig, int64(maxData))
	case "clean-cache":
		pos, err := parseInterleaved(fs, rest)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return usagef("datasets clean-cache takes no arguments, got %q", pos)
		}
		return datasetsCleanCache(stdout, datasets.NewParseCache(datasets.ParseCacheDir()))
	}
	return usagef("datasets: unknown subcommand %q (want list, fetch, verify, info or clean-cache)", sub)
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

// String implements flag.Value.
func (m *multiFlag) String() string { return strings.Join(*m, ",") }

// Set implements flag.Value: each use appends.
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// lookup resolves the named datasets, or all of them when names is empty.
func lookup(names []string) ([]datasets.Entry, error) {
	if len(names) == 0 {
		for _, in := range datasets.List() {
			names = append(names, in.Name)
		}
	}
	var out []datasets.Entry
	for _, n := range names {
		e, err := datasets.Lookup(n)
		if err != nil {
			return nil, badInput(err)
		}
		out = append(out, e)
	}
	return out, nil
}

func datasetsList(w io.Writer, dir string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTASK\tN × D\tPAPERS\tSTATUS")
	for _, in := range datasets.List() {
		e, _ := datasets.Lookup(in.Name)
		status := "present"
		switch miss := e.Missing(dir); {
		case in.Synthetic:
			status = "built-in"
		case in.UserFile:
			status = "user file (params.path)"
		case len(miss) > 0:
			status = "missing " + strings.Join(miss, ", ")
		}
		shape := "?"
		if in.Rows > 0 {
			shape = fmt.Sprintf("%d × %d", in.Rows, in.Cols)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, in.Task, shape, strings.Join(in.Papers, "; "), status)
	}
	fmt.Fprintf(tw, "\ndata directory: %s\n", dir)
	return tw.Flush()
}

func datasetsFetch(ctx context.Context, stdout, stderr io.Writer, dir, mirror string, names []string) error {
	entries, err := lookup(names)
	if err != nil {
		return err
	}
	f := &datasets.Fetcher{Mirror: mirror}
	failed := 0
	for _, e := range entries {
		if e.Info.Synthetic || e.Info.UserFile {
			if len(names) > 0 {
				what := "built-in generator"
				if e.Info.UserFile {
					what = "your own file (the path in the spec's params)"
				}
				fmt.Fprintf(stdout, "%s: %s, nothing to fetch\n", e.Info.Name, what)
			}
			continue
		}
		results, err := f.Fetch(ctx, dir, e.Info.Name)
		for _, r := range results {
			switch {
			case r.Err != nil:
				failed++
				fmt.Fprintf(stderr, "dplab datasets fetch: %v\n", r.Err)
			case r.Action == "downloaded":
				fmt.Fprintf(stdout, "downloaded  %s  from %s\n", r.Stored, r.URL)
			case r.Action == "present":
				fmt.Fprintf(stdout, "present     %s\n", r.Stored)
			default:
				fmt.Fprintf(stdout, "skipped     %s (optional, no download source)\n", r.File.Path)
			}
		}
		if err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d file(s) could not be fetched into %s (reasons above)", failed, dir)
	}
	return nil
}

// datasetsCleanCache removes the parse cache c's entries and says how many.
func datasetsCleanCache(w io.Writer, c *datasets.ParseCache) error {
	if c.Dir() == "" {
		return fmt.Errorf("datasets clean-cache: no user cache directory, so no parse cache")
	}
	n, bytes, err := c.Clear()
	fmt.Fprintf(w, "removed %d parse cache files (%.1f MB) from %s\n", n, float64(bytes)/1e6, c.Dir())
	if err != nil {
		return fmt.Errorf("datasets clean-cache: %w", err)
	}
	return nil
}

func datasetsVerify(w io.Writer, dir string, names []string) error {
	entries, err := lookup(names)
	if err != nil {
		return err
	}
	// Without the directory every file would be "absent" and the command
	// succeed: a mistyped --data-dir would look like a data folder yet to
	// fill.
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return badInput(fmt.Errorf("nothing to verify: data directory %s: %w (--data-dir, else $DPLAB_DATA, else the user cache)", dir, err))
	}
	var ok, unverified, bad, absent int
	for _, e := range entries {
		for _, f := range e.Info.Files {
			p, err := datasets.Verify(dir, e.Info.Name, f)
			var miss *datasets.MissingError
			var unv *datasets.UnverifiedError
			switch {
			case err == nil:
				ok++
				fmt.Fprintf(w, "OK      %s\n", p)
			case errors.As(err, &unv):
				unverified++
				fmt.Fprintf(w, "UNVERIFIED %s (no registered SHA-256; stored bytes %s, content %s)\n", p, unv.SHA256, unv.ContentSHA256)
			case errors.As(err, &miss):
				absent++
				fmt.Fprintf(w, "absent  %s (%s)\n", f.Path, e.Info.Name)
			default:
				bad++
				fmt.Fprintf(w, "FAILED  %v\n", err)
			}
		}
	}
	fmt.Fprintf(w, "%d OK, %d failed, %d absent in %s\n", ok, bad, absent, dir)
	if unverified > 0 {
		fmt.Fprintf(w, "%d file(s) not checksum-verified: no SHA-256 is registered for them (see above)\n", unverified)
	}
	if bad > 0 {
		return badInput(fmt.Errorf("%d file(s) failed verification (see above); delete them and run 'dplab datasets fetch'", bad))
	}
	return nil
}

func datasetsInfo(w io.Writer, dir, name string, sets []string, maxEig int, maxData int64) error {
	e, err := datasets.Lookup(name)
	if err != nil {
		return badInput(err)
	}
	in := e.Info
	fmt.Fprintf(w, "%s: %s\n", in.Name, in.Title)
	fmt.Fprintf(w, "task:        %s\n", in.Task)
	fmt.Fprintf(w, "papers:      %s\n", strings.Join(in.Papers, "; "))
	fmt.Fprintf(w, "source:      %s\n", in.Source)
	fmt.Fprintf(w, "license:     %s\n", in.License)
	fmt.Fprintf(w, "about:       %s\n", in.Description)
	for _, f := range in.Files {
		state := "absent"
		var unv *datasets.UnverifiedError
		if p, err := datasets.Verify(dir, in.Name, f); err == nil {
			state = "present, checksum OK: " + p
		} else if errors.As(err, &unv) {
			state = "present, NOT checksum-verified (no registered SHA-256): " + p
		} else if p != "" {
			state = "present, BAD: " + err.Error()
		}
		opt := ""
		if f.Optional {
			opt = " (optional)"
		}
		fmt.Fprintf(w, "file:        %s%s — %s\n", f.Path, opt, state)
	}
	sh, err := e.Shape(dir, strictoml.DecodeKV(sets))
	if err == nil {
		err = plan.DataTooLarge(name, sh, maxData)
	}
	if err != nil {
		return badInput(err)
	}
	l, err := e.Load(dir, strictoml.DecodeKV(sets))
	if err != nil {
		return badInput(err)
	}
	for _, part := range []struct {
		label string
		d     *datasets.Dataset
	}{{"all", l.All}, {"train", l.Train}, {"test", l.Test}} {
		if part.d == nil {
			continue
		}
		s := datasets.Summarize(part.d, maxEig)
		fmt.Fprintf(w, "%-6s shape %d × %d", part.label+":", s.Rows, s.Cols)
		if in.Task == datasets.Binary {
			fmt.Fprintf(w, ", labels 0: %d (%.1f%%), 1: %d (%.1f%%)", s.Rows-s.Positives, 100*float64(s.Rows-s.Positives)/float64(s.Rows),
				s.Positives, 100*float64(s.Positives)/float64(s.Rows))
		} else {
			fmt.Fprintf(w, ", target range [%.6g, %.6g], mean %.6g", s.YMin, s.YMax, s.YMean)
		}
		fmt.Fprintf(w, ", max row norm %.6g", s.MaxRowNorm)
		if math.IsNaN(s.LambdaMin) {
			fmt.Fprintf(w, ", λ_min(XᵀX) not computed (d > --max-eig-dim %d)\n", maxEig)
		} else {
			fmt.Fprintf(w, ", λ_min(XᵀX) %.6g (%.6g after max-row-norm scaling)\n", s.LambdaMin, s.LambdaMinMax)
		}
	}
	return nil
}
