package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnverifiedFileIsHashedNotMatched: a file registered without a checksum
// (higgs) is, when present, hashed but never reported as a match. Verify
// returns an *UnverifiedError (not a *FileError or *ChecksumError) with the
// stored path and both SHA-256s; VerifyFiles returns it, flagged Unverified,
// with those hashes and without an error (the run may use it), remembered by
// the cache like a match; a copy that does not decompress is a *FileError.
func TestUnverifiedFileIsHashedNotMatched(t *testing.T) {
	e, err := Lookup("higgs")
	if err != nil {
		t.Fatal(err)
	}
	f := e.Info.Files[0]
	if !f.Unverified || f.SHA256 != "" || f.StoredSHA256 != "" {
		t.Fatalf("higgs file %+v: want Unverified without checksums", f)
	}
	dir := t.TempDir()
	content := []byte(higgsCSVText(5))
	gz := gzipBytes(t, content)
	p := filepath.Join(dir, "higgs", "HIGGS.csv.gz")
	writeRaw(t, p, gz)

	stored, err := Verify(dir, "higgs", f)
	var ue *UnverifiedError
	var fe *FileError
	var ce *ChecksumError
	if stored != p || !errors.As(err, &ue) || errors.As(err, &fe) || errors.As(err, &ce) {
		t.Fatalf("Verify = %q, %v; want %s and an *UnverifiedError only", stored, err, p)
	}
	if ue.Path != p || ue.SHA256 != sha256Hex(gz) || ue.ContentSHA256 != sha256Hex(content) {
		t.Errorf("UnverifiedError %+v", ue)
	}
	for _, want := range []string{p, "not checksum-verified", sha256Hex(gz), sha256Hex(content)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}

	cacheFile := filepath.Join(t.TempDir(), "verified.json")
	for round, wantHashed := range []int64{1, 0} { // the second cache reads the first's file
		c := NewVerifyCache(cacheFile)
		got, err := e.VerifyFiles(dir, c)
		if err != nil || len(got) != 1 {
			t.Fatalf("round %d: VerifyFiles = %+v, %v", round, got, err)
		}
		v := got[0]
		if !v.Unverified || v.Rel != "higgs/HIGGS.csv.gz" || v.Stored != p || v.SHA256 != sha256Hex(gz) || v.ContentSHA256 != sha256Hex(content) {
			t.Errorf("round %d: %+v", round, v)
		}
		if c.Hashed() != wantHashed {
			t.Errorf("round %d: hashed %d files, want %d", round, c.Hashed(), wantHashed)
		}
	}

	writeRaw(t, p, gz[:len(gz)/2]) // no longer decompresses
	if _, err := Verify(dir, "higgs", f); !errors.As(err, &fe) || errors.As(err, &ue) || fe.Path != p {
		t.Errorf("truncated copy: Verify err = %v, want a *FileError", err)
	}
	if _, err := e.VerifyFiles(dir, NewVerifyCache("")); !errors.As(err, &fe) || !strings.Contains(err.Error(), "dataset higgs") {
		t.Errorf("truncated copy: VerifyFiles err = %v, want a *FileError", err)
	}
}

// TestFetchKeepsUnverifiedDownloadsThatDecompress: with no checksum to
// compare, a download is kept when it decompresses (a truncated one is
// refused and the next source tried) and reported Unverified; a second
// fetch finds it present, still Unverified, without downloading.
func TestFetchKeepsUnverifiedDownloadsThatDecompress(t *testing.T) {
	content := []byte(higgsCSVText(5))
	gz := gzipBytes(t, content)
	srv, hits := server(t, map[string][]byte{"/cut.gz": gz[:len(gz)/2], "/HIGGS.csv.gz": gz})
	file := File{Path: "higgs/HIGGS.csv", URLs: []string{srv.URL + "/cut.gz", srv.URL + "/HIGGS.csv.gz"}, Unverified: true}
	dir := t.TempDir()
	f := &Fetcher{}
	res := f.fetchFile(context.Background(), dir, "higgs", file)
	want := filepath.Join(dir, "higgs", "HIGGS.csv.gz")
	if res.Err != nil || res.Action != "downloaded" || res.URL != srv.URL+"/HIGGS.csv.gz" || res.Stored != want || !res.Unverified {
		t.Fatalf("first fetch: %+v", res)
	}
	if b, err := os.ReadFile(want); err != nil || sha256Hex(b) != sha256Hex(gz) {
		t.Fatalf("stored copy: %v", err)
	}
	n := hits.Load()
	res = f.fetchFile(context.Background(), dir, "higgs", file)
	if res.Err != nil || res.Action != "present" || !res.Unverified || hits.Load() != n {
		t.Errorf("second fetch: %+v after %d requests", res, hits.Load()-n)
	}
	noTempFiles(t, dir)
}

// writeRaw writes b to p (creating its directory), dated an hour ago so that
// the verify cache may remember it.
func writeRaw(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}
