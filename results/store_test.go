package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// line returns r as the appender writes it, with its newline.
func line(t *testing.T, r Record) string {
	t.Helper()
	r.Schema = SchemaVersion
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestTornVersusCorrupt checks the store's one repair rule: only a last line
// without its newline is torn (dropped with a warning, and truncated by
// Open); a complete line that is not a record, wherever it is, is a
// *CorruptError naming the line, and Open then changes nothing (issue 9,
// item 1).
func TestTornVersusCorrupt(t *testing.T) {
	a, b := line(t, rec("c", 0, 1)), line(t, rec("c", 1, 2))
	newer := strings.Replace(b, fmt.Sprintf(`"schema":%d`, SchemaVersion), `"schema":99`, 1)
	if newer == b {
		t.Fatal("the record line has no schema field to raise")
	}
	tests := []struct {
		name      string
		content   string
		records   int // records read when the store is readable
		torn      bool
		wantLine  int    // the CorruptError's line; 0: readable
		truncated string // the file after Open (readable stores only)
	}{
		{"clean", a + b, 2, false, 0, a + b},
		{"blank lines", a + "\n  \n" + b, 2, false, 0, a + "\n  \n" + b},
		{"torn partial record", a + b[:len(b)/2], 1, true, 0, a},
		{"torn complete JSON without its newline", a + strings.TrimSuffix(b, "\n"), 1, true, 0, a},
		{"torn NULs", a + "\x00\x00\x00\x00", 1, true, 0, a},
		{"unparsable complete last line", a + b + "{oops\n", 0, false, 3, ""},
		{"NULs then a newline", a + "\x00\x00\x00\x00\n", 0, false, 2, ""},
		{"NULs before a record", a + "\x00\x00" + b, 0, false, 2, ""},
		{"corrupt middle line", a + "{oops\n" + b, 0, false, 2, ""},
		{"newer schema", a + newer, 0, false, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, TrialsFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			warn := func(w string) { warnings = append(warnings, w) }
			recs, rerr := Read(dir, warn)
			s, orecs, oerr := openAll(dir, warn)
			if s != nil {
				s.Close()
			}
			after, _ := os.ReadFile(path)
			if tc.wantLine > 0 {
				for which, err := range map[string]error{"Read": rerr, "Open": oerr} {
					var ce *CorruptError
					if !errors.As(err, &ce) || ce.Line != tc.wantLine || ce.Path != path {
						t.Errorf("%s: err = %v, want a *CorruptError at %s:%d", which, err, path, tc.wantLine)
					}
				}
				if string(after) != tc.content {
					t.Errorf("Open changed a corrupt store:\n%q\nwant\n%q", after, tc.content)
				}
				return
			}
			if rerr != nil || oerr != nil {
				t.Fatalf("Read: %v; Open: %v", rerr, oerr)
			}
			if len(recs) != tc.records || len(orecs) != tc.records {
				t.Errorf("Read %d records, Open %d, want %d", len(recs), len(orecs), tc.records)
			}
			if wantWarn := map[bool]int{true: 2, false: 0}[tc.torn]; len(warnings) != wantWarn {
				t.Errorf("warnings %q, want %d (one each from Read and Open)", warnings, wantWarn)
			}
			for _, w := range warnings {
				if !strings.Contains(w, "torn") || !strings.Contains(w, TrialsFile+":") {
					t.Errorf("warning %q does not name the torn line", w)
				}
			}
			if string(after) != tc.truncated {
				t.Errorf("after Open the file is\n%q\nwant\n%q", after, tc.truncated)
			}
		})
	}
}

func TestRewriteKeepsSelected(t *testing.T) {
	dir := t.TempDir()
	s, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range []Record{rec("keep", 0, 1), rec("drop", 0, 1), rec("keep", 1, 2)} {
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Rewrite(func(r *Record) bool { return r.CellKey == "keep" }); err != nil {
		t.Fatal(err)
	}
	if kept, err := Read(dir, nil); err != nil || len(kept) != 2 || kept[0].CellKey != "keep" || kept[1].Trial != 1 {
		t.Fatalf("Rewrite kept %+v (%v)", kept, err)
	}
	if s.Done(Key{"drop", 0}) || !s.Done(Key{"keep", 1}) {
		t.Error("Done does not reflect the rewritten store")
	}
	// The store appends to the new file, not the replaced one.
	if err := s.Append(rec("drop", 0, 3)); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	all, err := Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].CellKey != "keep" || all[1].CellKey != "keep" || all[2].CellKey != "drop" || float64(all[2].Metrics["test_mse"]) != 3 {
		t.Fatalf("after Rewrite and Append: %+v", all)
	}
	s.Close()
	if err := s.Rewrite(func(*Record) bool { return true }); err == nil {
		t.Error("Rewrite of a closed store succeeded")
	}
}

// TestCheckDir checks which directories may hold results: new, empty, or
// already dplab's; never a file or a directory of foreign files, and Open
// creates nothing in one it refuses (issue 9, item 9).
func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, files ...string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir     string
		foreign string // "" when the directory is usable; else a word of the reason
	}{
		{filepath.Join(root, "new"), ""},
		{mk("empty"), ""},
		{mk("store", TrialsFile, "summary.csv"), ""},
		{mk("locked", LockFile), ""},
		{mk("foreign", "notes.txt", "main.go"), "notes.txt"},
		{mk("specdir", "spec.toml", "manifest.json"), "spec.toml"},
		{file, "file"},
	}
	for _, tc := range tests {
		err := CheckDir(tc.dir)
		var nr *NotResultDirError
		switch {
		case tc.foreign == "" && err != nil:
			t.Errorf("CheckDir(%s) = %v, want nil", tc.dir, err)
		case tc.foreign != "" && (!errors.As(err, &nr) || !strings.Contains(err.Error(), tc.dir) || !strings.Contains(err.Error(), tc.foreign)):
			t.Errorf("CheckDir(%s) = %v, want a *NotResultDirError naming it and %q", tc.dir, err, tc.foreign)
		}
		if tc.foreign == "" {
			continue
		}
		before := listDir(t, tc.dir)
		if s, _, err := openAll(tc.dir, nil); !errors.As(err, &nr) {
			if s != nil {
				s.Close()
			}
			t.Errorf("Open(%s) = %v, want a *NotResultDirError", tc.dir, err)
		}
		if after := listDir(t, tc.dir); after != before {
			t.Errorf("Open changed %s:\n%s\nwant\n%s", tc.dir, after, before)
		}
	}
}

// listDir describes dir (or a file): names, sizes and contents.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		b, _ := os.ReadFile(dir)
		return string(b)
	}
	var sb strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		sb.WriteString(e.Name() + "=" + string(b) + "\n")
	}
	return sb.String()
}

// TestAppendBatchesWholeLines: appended records reach the file in batches
// of whole lines — after flushDelay without any Sync, at once when
// flushBytes have gathered, and on Close — each line the bytes of
// json.Marshal, in append order.
func TestAppendBatchesWholeLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TrialsFile)
	s, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var want strings.Builder
	appendRec := func(r Record) {
		t.Helper()
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
		want.WriteString(line(t, r))
	}
	wholePrefix := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(want.String(), string(b)) || (len(b) > 0 && b[len(b)-1] != '\n') {
			t.Fatalf("the file is not whole lines of what was appended:\n%q", b)
		}
		return string(b)
	}
	for i := 0; i < 3; i++ {
		appendRec(rec("timer", i, float64(i)))
	}
	wholePrefix()
	deadline := time.Now().Add(10 * time.Second)
	for wholePrefix() != want.String() {
		if time.Now().After(deadline) {
			t.Fatalf("3 records appended were not written %v later without a Sync", 10*time.Second)
		}
		time.Sleep(flushDelay / 4)
	}
	before := want.Len()
	for i := 0; want.Len()-before < flushBytes; i++ {
		appendRec(realisticRecord(i))
	}
	if got := wholePrefix(); len(got)-before < flushBytes {
		t.Errorf("%d bytes appended, %d written: a full batch (%d bytes) must be written at once", want.Len()-before, len(got)-before, flushBytes)
	}
	appendRec(rec("close", 0, 1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := wholePrefix(); got != want.String() {
		t.Errorf("after Close the file holds %d of the %d bytes appended", len(got), want.Len())
	}
}

// TestFailedWriteSticks: once a batch cannot be written, Sync, every later
// Append and Close report it (nothing more is written after a possibly
// torn line), and Close still releases the directory.
func TestFailedWriteSticks(t *testing.T) {
	dir := t.TempDir()
	s, _, err := openAll(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(filepath.Join(dir, TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	good := s.f
	s.f = ro // writes now fail
	s.mu.Unlock()
	defer good.Close()
	if err := s.Append(rec("c", 0, 1)); err != nil {
		t.Fatalf("Append before any write: %v", err)
	}
	if err := s.Sync(); err == nil || !strings.Contains(err.Error(), TrialsFile) {
		t.Fatalf("Sync = %v, want the write error naming %s", err, TrialsFile)
	}
	if err := s.Append(rec("c", 1, 1)); err == nil {
		t.Error("Append after a failed write succeeded")
	}
	if err := s.Close(); err == nil {
		t.Error("Close after a failed write succeeded")
	}
	s2, recs, err := openAll(dir, nil)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer s2.Close()
	if len(recs) != 0 {
		t.Errorf("%d records stored, want none", len(recs))
	}
}

// TestDecodeRecordsInParallel checks that decoding a store's lines on
// several goroutines gives the records of one sequential decode, in order,
// and that with several bad lines in different goroutines' runs the error
// names the first bad line of the file.
func TestDecodeRecordsInParallel(t *testing.T) {
	var lines []recordLine
	for i := range 23 {
		text := strings.TrimSuffix(line(t, rec(fmt.Sprintf("c%d", i%3), i, float64(i)/7)), "\n")
		lines = append(lines, recordLine{text: []byte(text), num: 2*i + 1})
	}
	want := make([]Record, len(lines))
	if err := decodeRecords(want, lines, "p", 1); err != nil {
		t.Fatalf("sequential decode: %v", err)
	}
	for _, workers := range []int{2, 3, 7, 23, 40} {
		got := make([]Record, len(lines))
		if err := decodeRecords(got, lines, "p", workers); err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("workers %d: the records differ from a sequential decode", workers)
		}
	}
	// Bad lines at indices 20, 9 and 15: with 3 workers (runs of 8 lines)
	// they fall in the last two runs, whichever finishes first; the error
	// must name index 9's line.
	bad := slices.Clone(lines)
	bad[20].text = []byte("{oops")
	bad[9].text = []byte(`{"schema":99}`)
	bad[15].text = []byte("[1]")
	for _, workers := range []int{1, 2, 3, 23} {
		err := decodeRecords(make([]Record, len(bad)), bad, "p", workers)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Line != lines[9].num || ce.Path != "p" {
			t.Errorf("workers %d: err = %v, want a *CorruptError at p:%d", workers, err, lines[9].num)
		}
	}
	if err := decodeRecords(nil, nil, "p", 2); err != nil {
		t.Errorf("no lines: %v", err)
	}
}

// TestExperimentCheck: a directory is another experiment's only when it
// holds trials and none is of the spec's name or of one of its cells.
func TestExperimentCheck(t *testing.T) {
	a, b := shardRec("c1", 0, 0.9), shardRec("c2", 0, 0.8)
	b.Experiment = "y"
	spec := func(cell string) bool { return cell == "c3" }
	var oe *OtherExperimentError
	for _, tc := range []struct {
		name   string
		stored []Record
		want   func(string) bool
		other  bool
	}{
		{"x", nil, spec, false},                                             // a new directory
		{"x", []Record{b, a}, spec, false},                                  // x's own
		{"z", []Record{a}, func(c string) bool { return c == "c1" }, false}, // a renamed spec
		{"z", []Record{a, b, a}, spec, true},
	} {
		c := ExperimentCheck{Name: tc.name, Want: tc.want}
		for i := range tc.stored {
			c.Add(&tc.stored[i])
		}
		err := c.Err("d")
		if got := errors.As(err, &oe); got != tc.other {
			t.Errorf("%s over %d records: err = %v, want other experiment %v", tc.name, len(tc.stored), err, tc.other)
		}
	}
	if oe == nil || oe.Trials != 3 || strings.Join(oe.Experiments, ",") != `"x","y"` {
		t.Errorf("error %+v: want 3 trials of \"x\",\"y\"", oe)
	}
}

// TestStoreStartsWriteback: while records are appended, the store asks the
// kernel to start writing the file back once per writebackBytes written
// (startWriteback), so that its closing fsync finds little left to write;
// the file holds every record whole.
func TestStoreStartsWriteback(t *testing.T) {
	var calls int
	prev := startWriteback
	startWriteback = func(f *os.File) {
		calls++
		prev(f) // the real request must leave the file as it is
	}
	t.Cleanup(func() { startWriteback = prev })
	dir := t.TempDir()
	s, err := Open(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 0; want.Len() < 3*writebackBytes+writebackBytes/2; i++ {
		r := rec("c", i, float64(i))
		r.Label = strings.Repeat("x", 1000)
		want.WriteString(line(t, r))
		if err := s.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("writeback started %d times for %d bytes, want 3 (once per %d)", calls, want.Len(), writebackBytes)
	}
	got, err := os.ReadFile(filepath.Join(dir, TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("the file differs from the records appended (%d bytes, want %d)", len(got), want.Len())
	}
}
