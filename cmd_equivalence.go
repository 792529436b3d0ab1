package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/equivalence"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/internal/fileutil"
)

// equivalenceDir is where dplab equivalence runs the specs and writes its
// reports by default: <dir>/<spec>/.
var equivalenceDir = filepath.Join(run.DefaultRoot, "equivalence")

var equivalenceCommand = &command{
	Name:      "equivalence",
	UsageLine: "equivalence [SPEC...] [--run DIR] [-j N] [--out DIR] [--data-dir DIR] [--specs DIR] [--evidence DIR]",
	Short:     "rerun specs at full size and check their results against the committed evidence (before regenerating goldens)",
	Long: `Equivalence checks that the current build reproduces the committed results
of each spec (default: every spec with committed evidence in
docs/reproduction/evidence/) in distribution: results are reproducible and
equivalent, not bit-frozen (issue 37). For each SPEC it runs
experiments/SPEC.toml at full size into OUT/SPEC/ (resumable, like dplab
run; or reads the finished full-size run --run DIR, one spec only), makes
the run's evidence OUT/SPEC/evidence.json as dplab docs --refresh does, and
compares it with the committed docs/reproduction/evidence/SPEC/evidence.json:

  - privacy quantities of every cell (ε spent, ε per run, δ, mean RDP
    order, accountant, noise parameters, the ledger, infeasible
    calibrations) equal to 1e-9 relative;
  - every (cell, metric) mean, derived quantity and kept trace point (not
    wall-clock times): within 0.1 × the committed 95% CI half-width, or
    else Welch's two-sample t-test at 1%; the count that differ at 1%
    uncorrected is reported, the verdict uses Holm's correction at
    family-wise 1% (diagnostics, such as iteration counts, are compared
    and reported, not in the verdict);
  - every claim's verdict unchanged (a claim on wall-clock times is listed
    when its verdict changed, not in the verdict, like wall-clock metrics:
    speed is what such changes move, and load moves it too);
  - the same cells in both (a spec whose grid changed is not comparable); a
    cell whose key changed only because its mechanism's code version did
    is compared with the old cell of the same grid point.

It prints a table per spec and writes OUT/SPEC/equivalence.json; it exits 1
when a spec fails. Goldens (testdata/golden) are regenerated only after it
passes for the specs whose outputs moved (make equivalence SPECS="...").`,
	Run: cmdEquivalence,
}

func cmdEquivalence(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("equivalence", stdout)
	runDir := fs.String("run", "", "compare the finished full-size run in `DIR` instead of running the spec (one spec)")
	jobs := fs.Int("j", 0, "concurrent trials of the runs (default: number of CPUs)")
	out := fs.String("out", equivalenceDir, "the runs' and reports' parent `folder`: OUT/<spec>/")
	dataDir := fs.String("data-dir", "", "datasets directory (default $DPLAB_DATA, else the user cache)")
	specs, evidence := evidenceFlags(fs)
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *jobs < 0 {
		return usagef("-j must be ≥ 0 (0: the number of CPUs)")
	}
	committed := docgen.New(docgen.Config{Specs: *specs, Evidence: *evidence})
	fresh := docgen.New(docgen.Config{Specs: *specs, Evidence: *out})
	if len(names) == 0 {
		if names, err = committed.Specs(nil); err != nil {
			return badInput(err)
		}
		if len(names) == 0 {
			return usagef("equivalence: no spec given and no committed evidence in %s", *evidence)
		}
	}
	if *runDir != "" && len(names) != 1 {
		return usagef("equivalence: --run DIR takes one spec, got %d", len(names))
	}
	for i, n := range names {
		names[i] = strings.TrimSuffix(filepath.Base(n), ".toml") // a spec's path also names it
		if _, err := os.Stat(committed.EvidencePath(names[i])); err != nil {
			return badInput(fmt.Errorf("spec %s: no committed evidence: %w", names[i], err))
		}
	}
	var failed []string
	for _, name := range names {
		dir := *runDir
		if dir == "" {
			dir = filepath.Join(*out, name)
			runArgs := []string{committed.SpecPath(name), "--out", dir, "-j", strconv.Itoa(*jobs)}
			if *dataDir != "" {
				runArgs = append(runArgs, "--data-dir", *dataDir)
			}
			// The run's own report goes to stderr: stdout is the check's.
			if err := cmdRun(ctx, runArgs, stderr, stderr); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if err := fresh.Refresh(name, dir); err != nil {
			return badInput(err)
		}
		rep, err := equivalence.Check(committed, fresh, name)
		if err != nil {
			return badInput(err)
		}
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := fileutil.WriteFileAtomicIn(filepath.Join(*out, name), equivalence.ReportFile, b); err != nil {
			return err
		}
		if err := rep.WriteText(stdout); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  wrote %s\n\n", filepath.Join(*out, name, equivalence.ReportFile))
		if rep.Verdict != equivalence.Pass {
			failed = append(failed, name)
		}
	}
	if len(failed) > 0 {
		return errors.New("not equivalent to the committed evidence: " + strings.Join(failed, ", "))
	}
	return nil
}
