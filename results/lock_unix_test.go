//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dplab/dplab/internal/fileutil"
)

// TestOpenBusyDirChangesNothing opens a store while another open store (as
// another run would) holds the directory, in the middle of writing a record:
// the second Open must fail with a *BusyError naming the directory and the
// holder's pid, and leave every byte as it was (issue 9, item 1: the second
// run used to truncate the first run's unfinished line, so the first went on
// writing past the end and left NULs and lost records). The same holds after
// the holder rewrites the store (--force), which replaces trials.jsonl but
// must keep the lock.
func TestOpenBusyDirChangesNothing(t *testing.T) {
	dir := t.TempDir()
	first, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	for i := 0; i < 3; i++ {
		if err := first.Append(rec("c", i, float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Half of a fourth record: what a reader sees while the first run writes.
	path := filepath.Join(dir, TrialsFile)
	half := line(t, rec("c", 3, 3))
	half = half[:len(half)/2]
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(half)
	f.Close()

	busy := func(when string) {
		t.Helper()
		before := listDir(t, dir)
		var warnings []string
		s, _, err := openAll(dir, func(w string) { warnings = append(warnings, w) })
		if s != nil {
			s.Close()
		}
		var be *BusyError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), dir+" is in use") || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Fatalf("%s: second Open: err = %v, want a *BusyError naming %s and pid %d", when, err, dir, os.Getpid())
		}
		if len(warnings) > 0 {
			t.Errorf("%s: second Open read the store: %q", when, warnings)
		}
		if after := listDir(t, dir); after != before {
			t.Errorf("%s: second Open changed the directory:\n%q\nwant\n%q", when, after, before)
		}
	}
	busy("while the first store appends")

	if err := first.Rewrite(func(r *Record) bool { return r.Trial != 1 }); err != nil {
		t.Fatal(err)
	}
	if kept, err := Read(dir, nil); err != nil || len(kept) != 2 {
		t.Fatalf("Rewrite kept %d records (%v), want 2", len(kept), err)
	}
	busy("after the first store rewrote trials.jsonl")
	if err := first.Append(rec("c", 1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	s, recs, err := openAll(dir, nil)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	s.Close()
	if len(recs) != 3 {
		t.Fatalf("store has %d records, want 3", len(recs))
	}
}

// TestOpenShardBusy: a shard held open (as a running shard holds it) is a
// *BusyError naming the shard for a second OpenShard of it, which changes
// nothing, while another shard of the directory opens; once the holder
// closes, the shard opens again (issue 34, item 7).
func TestOpenShardBusy(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenShard(dir, 0, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Append(rec("c", 0, 1)); err != nil {
		t.Fatal(err)
	}
	if err := first.Sync(); err != nil {
		t.Fatal(err)
	}
	list := func() string { return listDir(t, dir) + listDir(t, filepath.Join(dir, ShardsDir)) }
	before := list()
	s, err := OpenShard(dir, 0, 2, nil, nil)
	var be *BusyError
	if want := fmt.Sprintf("%s is in use by another dplab run --shard 0/2 (pid %d)", dir, os.Getpid()); !errors.As(err, &be) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second OpenShard: %v, want a *BusyError saying %q", err, want)
	}
	if s != nil {
		s.Close()
	}
	if after := list(); after != before {
		t.Errorf("the refused OpenShard changed the directory:\n%q\nwant\n%q", after, before)
	}
	other, err := OpenShard(dir, 1, 2, nil, nil)
	if err != nil {
		t.Fatalf("another shard: %v", err)
	}
	other.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, recs, err := openShardAll(dir, 0, 2, nil)
	if err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	again.Close()
	if len(recs) != 1 {
		t.Errorf("the shard holds %d records, want 1", len(recs))
	}
}

// TestWriteFileAtomicMode checks that files written atomically (rendered
// figures and tables, summary.csv, manifest.json, spec.toml), synced or not,
// get mode 0666 less the umask, not os.CreateTemp's 0600 (issue 9, item 9),
// hold exactly the data, and leave no temporary file beside them.
func TestWriteFileAtomicMode(t *testing.T) {
	for name, write := range map[string]func(string, []byte) error{
		"WriteFileAtomic": fileutil.WriteFileAtomic, "ReplaceFile": fileutil.ReplaceFile,
	} {
		dir := t.TempDir()
		for _, umask := range []int{0o022, 0o077, 0o002} {
			old := syscall.Umask(umask)
			path := filepath.Join(dir, fmt.Sprintf("out-%o.csv", umask))
			err := write(path, []byte("a,b\n"))
			if err == nil {
				err = write(path, []byte("c,d\n")) // replaces
			}
			syscall.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := os.FileMode(0o666 &^ umask); st.Mode().Perm() != want {
				t.Errorf("%s, umask %03o: mode %v, want %v", name, umask, st.Mode().Perm(), want)
			}
			if b, _ := os.ReadFile(path); string(b) != "c,d\n" {
				t.Errorf("%s: content %q, want the second write's", name, b)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 3 {
			t.Errorf("%s: %d files in the directory, want the 3 written (no temporaries left)", name, len(ents))
		}
	}
}

// TestReadLockSharedByReadersOnly: renders share a directory's lock (two
// ReadLockDirs at once), a run cannot open the store while one holds it (a
// *BusyError naming a render), and a render cannot take it while a run has
// the store open (a *BusyError naming the run's pid) — issue 34, item 8: a
// render overlapping a run's end rewrote the outputs from part of the
// trials.
func TestReadLockSharedByReadersOnly(t *testing.T) {
	dir := t.TempDir()
	a, err := ReadLockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadLockDir(dir)
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	var busy *BusyError
	if _, err := Open(dir, nil, nil); !errors.As(err, &busy) || busy.Holder != "dplab render" || !strings.Contains(err.Error(), "in use by another dplab render") {
		t.Fatalf("Open beside readers: %v, want a *BusyError naming a render", err)
	}
	a.Unlock()
	if _, err := Open(dir, nil, nil); !errors.As(err, &busy) {
		t.Fatalf("Open beside the remaining reader: %v, want a *BusyError", err)
	}
	b.Unlock()
	s, err := Open(dir, nil, nil)
	if err != nil {
		t.Fatalf("Open once the readers left: %v", err)
	}
	if _, err := ReadLockDir(dir); !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Fatalf("a reader beside an open store: %v, want a *BusyError naming pid %d", err, os.Getpid())
	}
	s.Close()
	l, err := ReadLockDir(dir)
	if err != nil {
		t.Fatalf("a reader once the store closed: %v", err)
	}
	l.Unlock()
}
