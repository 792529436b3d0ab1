package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// verifyFixture writes a data directory with a plain and a gzip-stored
// registered file (modified an hour ago, outside the racy window) and
// returns it with an Entry registering both, plus an optional file that is
// corrupt (optional files are not verified).
func verifyFixture(t *testing.T) (string, Entry) {
	t.Helper()
	dir := t.TempDir()
	a, b := "x,y\n1,2\n3,4\n", "5 6\n7 8\n"
	writeFiles(t, dir, map[string]string{"t/a.csv": a, "t/b.txt.gz": b, "t/doc.txt": "not the registered text"})
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"t/a.csv", "t/b.txt.gz", "t/doc.txt"} {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	e := Entry{Info: Info{Name: "vt", Files: []File{
		{Path: "t/a.csv", SHA256: sha256Hex([]byte(a))},
		{Path: "t/b.txt", SHA256: sha256Hex([]byte(b))},
		{Path: "t/doc.txt", SHA256: sha256Hex([]byte("the registered text")), Optional: true},
		{Path: "t/absent.csv", SHA256: sha256Hex([]byte("absent"))},
	}}}
	return dir, e
}

// TestVerifyFilesCache: the present, non-optional files are verified and
// their stored-byte SHA-256s returned; a second cache reading the same cache
// file hashes nothing (hits by path, size and mtime); a changed byte (same
// size, new mtime) is refused with both checksums, the file and the fix; a
// file modified within the racy window is verified but never remembered.
func TestVerifyFilesCache(t *testing.T) {
	dir, e := verifyFixture(t)
	cacheFile := filepath.Join(t.TempDir(), "sub", "verified.json")

	c := NewVerifyCache(cacheFile)
	got, err := e.VerifyFiles(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hashed() != 2 || len(got) != 2 {
		t.Fatalf("hashed %d, verified %+v; want 2 files (optional and absent ones skipped)", c.Hashed(), got)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "t", "b.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if got[1].Rel != "t/b.txt.gz" || got[1].SHA256 != sha256Hex(raw) || got[1].ContentSHA256 != e.Info.Files[1].SHA256 {
		t.Errorf("gzip file: %+v", got[1])
	}
	if _, err := os.Stat(cacheFile); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}

	c2 := NewVerifyCache(cacheFile)
	again, err := e.VerifyFiles(dir, c2)
	if err != nil || c2.Hashed() != 0 || len(again) != 2 || again[1].SHA256 != got[1].SHA256 {
		t.Fatalf("second cache: hashed %d, %+v, %v; want 0 hashed (cache file hit)", c2.Hashed(), again, err)
	}

	// One byte changed, same size; the new mtime invalidates the entry.
	p := filepath.Join(dir, "t", "a.csv")
	flipped := []byte("x,y\n1,2\n3,5\n")
	if err := os.WriteFile(p, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	_, err = e.VerifyFiles(dir, c2)
	var ce *ChecksumError
	var fe *FileError
	if !errors.As(err, &ce) || !errors.As(err, &fe) || fe.Path != p {
		t.Fatalf("flipped byte: err = %v, want a *FileError for %s wrapping a *ChecksumError", err, p)
	}
	for _, want := range []string{p, e.Info.Files[0].SHA256, sha256Hex(flipped), "dplab datasets fetch vt"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if c2.Hashed() != 1 {
		t.Errorf("hashed %d after the change, want 1", c2.Hashed())
	}

	// Fresh (just written) files are verified every time, never remembered.
	fresh := []byte("x,y\n1,2\n3,4\n")
	if err := os.WriteFile(p, fresh, 0o644); err != nil {
		t.Fatal(err)
	}
	c3 := NewVerifyCache("")
	for i := 0; i < 2; i++ {
		if _, err := e.VerifyFiles(dir, c3); err != nil {
			t.Fatal(err)
		}
	}
	if c3.Hashed() != 3 { // b.txt.gz once, a.csv (racy) twice
		t.Errorf("hashed %d, want 3 (a racily fresh file is re-hashed)", c3.Hashed())
	}
}

// TestVerifyCacheUnwritable: a cache file that cannot be written (its
// directory is a file) keeps the results in memory; a corrupt cache file is
// ignored.
func TestVerifyCacheUnwritable(t *testing.T) {
	dir, e := verifyFixture(t)
	block := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(block, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewVerifyCache(filepath.Join(block, "verified.json"))
	for i := 0; i < 2; i++ {
		if _, err := e.VerifyFiles(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	if c.Hashed() != 2 {
		t.Errorf("hashed %d, want 2 (second call from memory)", c.Hashed())
	}
	bad := filepath.Join(t.TempDir(), "verified.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = NewVerifyCache(bad)
	if _, err := e.VerifyFiles(dir, c); err != nil || c.Hashed() != 2 {
		t.Fatalf("corrupt cache file: hashed %d, %v", c.Hashed(), err)
	}
	if c2 := NewVerifyCache(bad); func() bool { _, err := e.VerifyFiles(dir, c2); return err != nil || c2.Hashed() != 0 }() {
		t.Error("the corrupt cache file was not replaced by a valid one")
	}
}

// BenchmarkVerifyFiles measures the verification a run does before loading
// Fashion-MNIST (the largest registered files present in the shared folder:
// 30.9 MB stored, gzip): "hash" hashes every file (a cold cache), "cached"
// is a later run whose cache file holds them (stat only).
func BenchmarkVerifyFiles(b *testing.B) {
	dir := benchDir(b)
	e, err := Lookup("fashion-mnist")
	if err != nil {
		b.Fatal(err)
	}
	if miss := e.Missing(dir); len(miss) > 0 {
		b.Skipf("missing %v", miss)
	}
	b.Run("hash", func(b *testing.B) {
		for range b.N {
			if _, err := e.VerifyFiles(dir, NewVerifyCache("")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "verified.json")
		if _, err := e.VerifyFiles(dir, NewVerifyCache(path)); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			c := NewVerifyCache(path)
			if _, err := e.VerifyFiles(dir, c); err != nil || c.Hashed() != 0 {
				b.Fatalf("hashed %d: %v", c.Hashed(), err)
			}
		}
	})
}
