//go:build unix

package fileutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWritesInRefuseSymlinks: each function that writes into a result
// directory refuses a symbolic link at the file or at a folder on its way,
// with a *SymlinkError naming it, and leaves the link's target outside the
// directory unchanged (issue 34, item 2); the directory itself may be a
// link.
func TestWritesInRefuseSymlinks(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	writes := map[string]func(dir, name string) error{
		"OpenFileIn": func(dir, name string) error {
			f, err := OpenFileIn(dir, name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
			if err == nil {
				_, err = f.WriteString("written")
				f.Close()
			}
			return err
		},
		"WriteFileAtomicIn": func(dir, name string) error { return WriteFileAtomicIn(dir, name, []byte("written")) },
		"ReplaceFileIn":     func(dir, name string) error { return ReplaceFileIn(dir, name, []byte("written")) },
		"WriteScriptIn":     func(dir, name string) error { return WriteScriptIn(dir, name, []byte("written")) },
		"ReplaceFileInFolder": func(dir, name string) error {
			return ReplaceFileInFolder(filepath.Join(dir, filepath.Dir(name)), filepath.Base(name), []byte("written"))
		},
	}
	for fn, write := range writes {
		for _, c := range []struct{ link, name string }{
			{"f", "f"},       // the file is a link to a file outside
			{"sub", "sub/f"}, // a folder on the way is a link to a folder outside
			{"in", "in"},     // a link to a file inside the directory
		} {
			if fn == "ReplaceFileInFolder" && c.name == "f" {
				continue // needs a folder
			}
			dir := t.TempDir()
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "f"), []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := map[string]string{"f": victim, "sub": outside, "in": filepath.Join(dir, "real")}[c.link]
			if c.link == "in" {
				if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(dir, c.link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			err := write(dir, c.name)
			var se *SymlinkError
			if !errors.As(err, &se) || se.Path != link {
				t.Errorf("%s(%s): err = %v, want a *SymlinkError naming %s", fn, c.name, err, link)
			}
			for _, p := range []string{victim, filepath.Join(outside, "f"), target} {
				if b, err := os.ReadFile(p); err == nil && string(b) != "precious" {
					t.Errorf("%s(%s): %s now holds %q", fn, c.name, p, b)
				}
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s(%s): the link was replaced (%v)", fn, c.name, err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(left) > 0 {
				t.Errorf("%s(%s): temporary files left: %v", fn, c.name, left)
			}
		}
	}

	// A result directory reached through a link is written normally.
	real := t.TempDir()
	viaLink := filepath.Join(t.TempDir(), "results")
	if err := os.Symlink(real, viaLink); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAllIn(viaLink, "a/b"); err != nil {
		t.Fatal(err)
	}
	for fn, write := range writes {
		if err := write(viaLink, "a/b/"+fn); err != nil {
			t.Errorf("%s through a linked directory: %v", fn, err)
		} else if b, err := os.ReadFile(filepath.Join(real, "a/b", fn)); err != nil || string(b) != "written" {
			t.Errorf("%s through a linked directory wrote %q (%v)", fn, b, err)
		}
	}
}

// TestMkdirAllIn: MkdirAllIn makes missing folders, accepts existing ones,
// and refuses a link or a file on the way and a name leaving the directory.
func TestMkdirAllIn(t *testing.T) {
	dir := t.TempDir()
	if err := MkdirAllIn(dir, "a/b/c"); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAllIn(dir, "a/b"); err != nil {
		t.Fatalf("existing folder: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "a/b/c")); err != nil || !st.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "a/link")); err != nil {
		t.Fatal(err)
	}
	var se *SymlinkError
	if err := MkdirAllIn(dir, "a/link/x"); !errors.As(err, &se) || se.Path != filepath.Join(dir, "a/link") {
		t.Errorf("through a link: %v, want a *SymlinkError naming a/link", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("a folder was made outside: %v", ents)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAllIn(dir, "file/x"); err == nil {
		t.Error("below a file: no error")
	}
	for _, name := range []string{"../x", "/abs", "a/../../x"} {
		if err := MkdirAllIn(dir, name); err == nil {
			t.Errorf("%q: no error", name)
		}
		if _, err := OpenFileIn(dir, name, os.O_RDWR|os.O_CREATE, 0o666); err == nil {
			t.Errorf("OpenFileIn %q: no error", name)
		}
	}
}

// TestWriteScriptInMode: a script gets mode 0755 under umask 022, other
// files 0644.
func TestWriteScriptInMode(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	err1 := WriteScriptIn(dir, "s.sh", []byte("#!/bin/sh\n"))
	err2 := WriteFileAtomicIn(dir, "f", nil)
	syscall.Umask(old)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for name, want := range map[string]os.FileMode{"s.sh": 0o755, "f": 0o644} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, st.Mode().Perm(), want)
		}
	}
}
