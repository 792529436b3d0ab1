package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// TestDefaultRootRun (issue 36): without --out, run writes its result
// directory under run.DefaultRoot in the working directory, and plan,
// render and report (without arguments) find it there. The default used to
// be results/<name>/, the folder of the results package: `rm -rf
// results/*` deleted code (fails before: the run wrote results/cli).
func TestDefaultRootRun(t *testing.T) {
	wd := t.TempDir()
	path := writeFile(t, filepath.Join(wd, "cli.toml"), cliSpec)
	t.Chdir(wd)
	dir := filepath.Join(run.DefaultRoot, "cli")
	if code, _, stderr := runMain(t, "run", path, "-j", "1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, results.TrialsFile)); err != nil {
		t.Errorf("a run without --out did not write %s: %v", dir, err)
	}
	if _, err := os.Stat("results"); err == nil {
		t.Error("a run without --out wrote results/")
	}
	if code, stdout, stderr := runMain(t, "plan", path); code != 0 || !strings.Contains(stdout, "result directory: "+dir+"\n") {
		t.Errorf("plan: exit %d, stdout %q, stderr %q; want the result directory %s", code, stdout, stderr, dir)
	}
	if code, stdout, stderr := runMain(t, "render", path); code != 0 || !strings.Contains(stdout, "wrote "+filepath.Join(dir, "summary.csv")) {
		t.Errorf("render: exit %d, stdout %q, stderr %q; want %s rendered", code, stdout, stderr, dir)
	}
	if code, stdout, stderr := runMain(t, "report", "-o", filepath.Join(wd, "page.html")); code != 0 || !strings.Contains(stdout, "(1 result folder(s)") {
		t.Errorf("report: exit %d, stdout %q, stderr %q; want the 1 folder under %s", code, stdout, stderr, run.DefaultRoot)
	}
}

// TestDefaultRootIsNoPackage (issue 36): the default output root is no
// source folder — no Go package lives in or below it, none is named like it
// — and git ignores it (fails before, with the root results/: the results
// package lives there).
func TestDefaultRootIsNoPackage(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, run.DefaultRoot)
	for _, p := range modulePackages(t) {
		dir, name := p.Dir, p.Name
		if dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) || name == filepath.Base(run.DefaultRoot) {
			t.Errorf("package %s (%s) is in or named like the default output root %s/: deleting the runs would delete code", name, dir, run.DefaultRoot)
		}
	}
	b, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(b), "\n"), "/"+run.DefaultRoot+"/") {
		t.Errorf(".gitignore has no line /%s/: the runs would show as untracked files", run.DefaultRoot)
	}
}

// TestDocsNameDefaultRoot (issue 36): the README, the docs, the specs'
// README, the Makefile and the scripts name run.DefaultRoot where they name
// dplab run's default output (a results/<spec> path, results/*, or
// "docs --refresh DIR" of make reproduce), so that what they say is what
// the one definition does (fails before: they said results/).
func TestDocsNameDefaultRoot(t *testing.T) {
	files := []string{"README.md", "experiments/README.md", "Makefile"}
	for _, glob := range []string{"docs/*.md", "docs/reproduction/*.md", "scripts/*.sh"} {
		m, err := filepath.Glob(glob)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v (none found)", glob, err)
		}
		files = append(files, m...)
	}
	// A relative results/ path that is not a source file of the results
	// package (results/store.go), and --refresh's folder.
	oldRoot := regexp.MustCompile("(^|[\\s`\"'(])results/([^\\s`\"')]*)")
	refresh := regexp.MustCompile(`--refresh\s+([^\s` + "`" + `"')\]]+)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range oldRoot.FindAllStringSubmatch(line, -1) {
				if !strings.HasSuffix(m[2], ".go") {
					t.Errorf("%s:%d names results/%s as an output path; dplab run's default is %s/", f, i+1, m[2], run.DefaultRoot)
				}
			}
			for _, m := range refresh.FindAllStringSubmatch(line, -1) {
				if m[1] != run.DefaultRoot && m[1] != "RESULTS" {
					t.Errorf("%s:%d: --refresh %s; dplab run's default output root is %s", f, i+1, m[1], run.DefaultRoot)
				}
			}
		}
	}
}

// TestForceShardOneMessage (issue 36): --force with --shard is refused by
// one check with one message, the CLI's being run.Run's (exit 2, nothing
// written). They were refused twice, by the CLI and by run.Run, with two
// messages (fails before: the CLI said "--shard cannot be combined with
// --force (a shard never rewrites the store)").
func TestForceShardOneMessage(t *testing.T) {
	tmp := t.TempDir()
	path := writeFile(t, filepath.Join(tmp, "cli.toml"), cliSpec)
	dir := filepath.Join(tmp, "out")
	s, err := loadSpec(context.Background(), path, false, spec.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, rerr := run.Run(context.Background(), s, run.Options{OutDir: dir, Force: true, Shard: run.Shard{Index: 1, Count: 2}})
	if rerr == nil {
		t.Fatal("run.Run with Force and a Shard ran")
	}
	code, _, stderr := runMain(t, "run", path, "--out", dir, "--shard", "1/2", "--force")
	if code != 2 || !strings.Contains(stderr, "dplab run: "+rerr.Error()+"\n") {
		t.Errorf("run --shard 1/2 --force: exit %d, stderr %q; want 2 and run.Run's message %q", code, stderr, rerr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the refused run created %s", dir)
	}
}

// TestExperimentsHoldSpecsOnly (issue 36): experiments/ is the users' folder
// of specs and their READMEs; the harness's Go packages live under harness/
// (fails before: five packages lived in experiments/).
func TestExperimentsHoldSpecsOnly(t *testing.T) {
	err := filepath.WalkDir("experiments", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(path) == ".go" {
			t.Errorf("%s: experiments/ holds specs only; put Go code under harness/", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
