package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/run"
)

var docsCommand = &command{
	Name:      "docs",
	UsageLine: "docs [--check] [--refresh RESULTS] [--specs DIR] [--evidence DIR] [DOC.md...]",
	Short:     "regenerate the reproduction docs' tables and verdicts from the committed evidence of full-size runs",
	Long: `Docs regenerates the marked sections of the documents (default
docs/reproduction/*.md) from the evidence of full-size runs committed in
docs/reproduction/evidence/<spec>/evidence.json, with the current specs
(experiments/<spec>.toml) and code: a section

  <!-- dplab:begin table spec=SPEC name=TABLE -->  ...  <!-- dplab:end -->

gets the table tables/TABLE.md a render of SPEC writes, and

  <!-- dplab:begin claims specs=SPEC1,SPEC2 -->  ...  <!-- dplab:end -->

the verdicts of their [[claim]] blocks, and

  <!-- dplab:begin figure spec=SPEC name=FIGURE -->  ...  <!-- dplab:end -->

its [[figure]] FIGURE drawn into img/SPEC-FIGURE.svg beside the document,
with its caption (a table section with caption=yes gets its caption too).
The evidence folders' summary.csv and claims.md are regenerated too. Text
outside the sections is left alone. docs/external.md is generated the same
way with --specs examples/external --evidence examples/external/evidence
(make docs does both).

With --refresh RESULTS it first makes the evidence of every spec the
documents name (and of every spec with an evidence folder) from its
finished full-size run in RESULTS/<the spec's name>/ (specs without one keep their
evidence; RESULTS is ` + run.DefaultRoot + ` for dplab run's default result directories):
make reproduce does this after running every spec.

With --check it writes nothing and fails (exit 1) when a file or section
differs from what it would generate, naming each with a diff excerpt (make
test runs the same check: TestReproductionDocsGenerated).`,
	Run: cmdDocs,
}

// evidenceFlags adds --specs and --evidence to fs: where the specs and the
// committed evidence folders are.
func evidenceFlags(fs *flag.FlagSet) (specs, evidence *string) {
	specs = fs.String("specs", "experiments", "the specs' `folder`")
	evidence = fs.String("evidence", filepath.Join("docs", "reproduction", "evidence"), "the committed evidence folders' parent `folder`")
	return specs, evidence
}

func cmdDocs(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("docs", stdout)
	check := fs.Bool("check", false, "write nothing; fail when a file or section is not what the evidence generates")
	refresh := fs.String("refresh", "", "first make the evidence from the full-size runs in `RESULTS`/<spec>/")
	specs, evidence := evidenceFlags(fs)
	docs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *check && *refresh != "" {
		return usagef("docs: --check writes nothing; --refresh writes the evidence")
	}
	if len(docs) == 0 {
		if docs, err = filepath.Glob(filepath.Join("docs", "reproduction", "*.md")); err != nil || len(docs) == 0 {
			return usagef("docs: no DOC.md given and none in docs/reproduction (run it from the repository's root)")
		}
	}
	g := docgen.New(docgen.Config{Specs: *specs, Evidence: *evidence})
	names, err := g.Specs(docs)
	if err != nil {
		return badInput(err)
	}
	if *refresh != "" {
		for _, name := range names {
			dir, err := g.RunDir(*refresh, name)
			if err != nil {
				return badInput(err)
			}
			if _, err := os.Stat(filepath.Join(dir, "trials.jsonl")); errors.Is(err, iofs.ErrNotExist) {
				fmt.Fprintf(stdout, "kept the evidence of %s (no run in %s)\n", name, dir)
				continue
			}
			if err := g.Refresh(name, dir); err != nil {
				return badInput(err)
			}
			fmt.Fprintf(stdout, "wrote %s (from %s)\n", g.EvidencePath(name), dir)
		}
	}
	files, err := g.Generate(docs, names)
	if err != nil {
		return badInput(err)
	}
	if *check {
		stale := docgen.Check(files)
		for _, s := range stale {
			fmt.Fprintln(stderr, s)
		}
		if len(stale) > 0 {
			return fmt.Errorf("%d files or sections are not what the evidence generates: run make docs (and review the diff)", len(stale))
		}
		fmt.Fprintf(stdout, "%d documents and %d evidence folders are up to date\n", len(docs), len(names))
		return nil
	}
	written, err := docgen.Write(files)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", p)
	}
	if err != nil {
		return err
	}
	if len(written) == 0 {
		fmt.Fprintf(stdout, "%s: up to date\n", strings.Join(docs, ", "))
	}
	return nil
}
