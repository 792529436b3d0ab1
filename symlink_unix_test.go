//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoWriteThroughSymlinks plants a symbolic link to a file or folder
// outside the result directory at each kind of path dplab writes there —
// the lock, the store, an atomically replaced file, an output folder, the
// shards folder, a shard's file, a generated script, an audit grid's
// folders — and checks that the command refuses with exit 2, naming the
// link, and that the link's target is unchanged (issue 34, item 2). Before,
// the lock's target was truncated, the stores' targets and the shards,
// figures and tables folders' targets received records and files, and
// array.sbatch's target was overwritten; the atomically replaced files
// (spec.toml, manifest.json, summary.csv) replaced the link itself, with
// exit 0.
func TestNoWriteThroughSymlinks(t *testing.T) {
	spec := writeFile(t, filepath.Join(t.TempDir(), "spec.toml"), outputsSpec)
	auditSpec := auditGridSpec
	t.Setenv("PATH", t.TempDir()) // no sbatch: dplab submit must stop before it
	ran := filepath.Join(t.TempDir(), "ran")
	if code, _, errs := runMain(t, "run", spec, "--out", ran); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	audited := quickAuditGridCopy(t)
	for _, c := range []struct {
		name string
		from string // a result directory to start from ("": a new one)
		link string // the link's path in the result directory
		dir  bool   // the link's target is a folder (else a file)
		file string // the target file's content ("" for a store)
		args []string
	}{
		{"lock", "", ".lock", false, "precious\n", []string{"run", spec}},
		{"store", "", "trials.jsonl", false, "", []string{"run", spec}},
		{"spec copy", ran, "spec.toml", false, "precious\n", []string{"run", spec}},
		{"manifest", ran, "manifest.json", false, "precious\n", []string{"run", spec}},
		{"summary", ran, "summary.csv", false, "precious\n", []string{"render"}},
		{"figures", ran, "figures", true, "", []string{"render"}},
		{"tables", ran, "tables", true, "", []string{"render"}},
		{"shards", "", "shards", true, "", []string{"run", spec, "--shard", "0/2"}},
		{"shard file", "", "shards/shard-0-of-2.jsonl", false, "", []string{"run", spec, "--shard", "0/2"}},
		{"shard manifest", "", "shards/shard-0-of-2.json", false, "precious\n", []string{"run", spec, "--shard", "0/2"}},
		{"sbatch script", "", "shards/array.sbatch", false, "precious\n", []string{"submit", "slurm", spec, "--shards", "2"}},
		{"audit figures", audited, "figures", true, "", []string{"audit", auditSpec, "--quick"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if c.from != "" {
				if err := os.CopyFS(dir, os.DirFS(c.from)); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(dir, c.link)
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if c.dir {
				if err := os.Mkdir(victim, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, victim, c.file)
			}
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			args := c.args
			switch args[0] {
			case "render":
				args = append(args, dir)
			default:
				args = append(args, "--out", dir)
			}
			code, out, errs := runMain(t, args...)
			if want := link + " is a symbolic link"; code != 2 || !strings.Contains(errs, want) {
				t.Errorf("%v: exit %d, want 2 and %q\nstdout: %s\nstderr: %s", args, code, want, out, errs)
			}
			if c.dir {
				if ents, err := os.ReadDir(victim); err != nil || len(ents) > 0 {
					t.Errorf("the linked folder outside the result directory was written: %d entries (%v)", len(ents), err)
				}
			} else if b, err := os.ReadFile(victim); err != nil || string(b) != c.file {
				t.Errorf("the linked file outside the result directory holds %q (%v), want %q", tail(b, 200), err, c.file)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link at %s was replaced (%v)", c.link, err)
			}
		})
	}
}
