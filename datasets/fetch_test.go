package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// server serves routes (path → body; a body "!500" answers HTTP 500) and
// counts requests.
func server(t *testing.T, routes map[string][]byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		b, ok := routes[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
		case string(b) == "!500":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			w.Write(b)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// noTempFiles asserts that no .dplab-fetch-* file is left under dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		if strings.HasPrefix(filepath.Base(p), ".dplab-fetch-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestFetchDownloadsVerifiesAndStoresAtomically(t *testing.T) {
	content := []byte("1,2,3\n4,5,6\n")
	gz := gzipBytes(t, content)
	srv, hits := server(t, map[string][]byte{
		"/plain.csv":    content,
		"/data.csv.gz":  gz,
		"/broken":       []byte("!500"),
		"/wrong.csv":    []byte("1,2,3\n4,5,7\n"),
		"/published.gz": gz,
	})
	cases := []struct {
		name       string
		file       File
		wantStored string // relative to dir; "" when the fetch must fail
		wantURL    string
		wantErr    []string // substrings of the error
	}{
		{"plain", File{Path: "a/x.csv", URLs: []string{srv.URL + "/plain.csv"}, SHA256: sha(content)}, "a/x.csv", "/plain.csv", nil},
		{"gzip stored as .gz", File{Path: "a/y.csv", URLs: []string{srv.URL + "/data.csv.gz"}, SHA256: sha(content)}, "a/y.csv.gz", "/data.csv.gz", nil},
		{"falls back past an HTTP error", File{Path: "a/z.csv", URLs: []string{srv.URL + "/broken", srv.URL + "/plain.csv"}, SHA256: sha(content)}, "a/z.csv", "/plain.csv", nil},
		{"stored checksum only", File{Path: "a/p", URLs: []string{srv.URL + "/published.gz"}, StoredSHA256: sha(gz)}, "a/p.gz", "/published.gz", nil},
		{"checksum mismatch", File{Path: "a/w.csv", URLs: []string{srv.URL + "/wrong.csv"}, SHA256: sha(content)}, "", "",
			[]string{"SHA-256 mismatch of the content", "expected " + sha(content), "actual " + sha([]byte("1,2,3\n4,5,7\n")), "place it at"}},
		{"not found", File{Path: "a/n.csv", URLs: []string{srv.URL + "/nope"}, SHA256: sha(content)}, "", "", []string{"404", "place it at"}},
		{"no source", File{Path: "a/s.csv", SHA256: sha(content)}, "", "", []string{"no download source", "place it at"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res := (&Fetcher{}).fetchFile(context.Background(), dir, "toy", tc.file)
			if tc.wantStored == "" {
				var fe *FetchError
				if !errors.As(res.Err, &fe) || res.Stored != "" {
					t.Fatalf("result %+v, want a *FetchError", res)
				}
				for _, w := range append(tc.wantErr, filepath.Join(dir, filepath.FromSlash(tc.file.Path))) {
					if !strings.Contains(res.Err.Error(), w) {
						t.Errorf("error %q lacks %q", res.Err, w)
					}
				}
				if _, ok := locate(dir, tc.file.Path); ok {
					t.Error("a failed fetch left a file in place")
				}
				noTempFiles(t, dir)
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			want := filepath.Join(dir, filepath.FromSlash(tc.wantStored))
			if res.Stored != want || res.Action != "downloaded" || res.URL != srv.URL+tc.wantURL {
				t.Fatalf("result %+v, want stored %s from %s", res, want, tc.wantURL)
			}
			if _, err := Verify(dir, "toy", tc.file); err != nil {
				t.Errorf("Verify after fetch: %v", err)
			}
			noTempFiles(t, dir)
			// A second fetch finds the verified copy and makes no request.
			before := hits.Load()
			again := (&Fetcher{}).fetchFile(context.Background(), dir, "toy", tc.file)
			if again.Action != "present" || hits.Load() != before {
				t.Errorf("refetch: %+v with %d requests", again, hits.Load()-before)
			}
		})
	}
}

func TestFetchChecksumErrorIsInspectable(t *testing.T) {
	srv, _ := server(t, map[string][]byte{"/f": []byte("bad")})
	res := (&Fetcher{}).fetchFile(context.Background(), t.TempDir(), "toy", File{Path: "f", URLs: []string{srv.URL + "/f"}, SHA256: sha([]byte("good"))})
	var ce *ChecksumError
	if !errors.As(res.Err, &ce) || ce.Expected != sha([]byte("good")) || ce.Actual != sha([]byte("bad")) {
		t.Fatalf("err = %v, want a *ChecksumError with both checksums", res.Err)
	}
}

func TestFetchOfflineSaysWhereToPlaceTheFile(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // connection refused from now on
	dir := t.TempDir()
	res := (&Fetcher{}).fetchFile(context.Background(), dir, "toy", File{Path: "toy/t.csv", URLs: []string{url + "/t.csv"}, SHA256: sha([]byte("x"))})
	var fe *FetchError
	if !errors.As(res.Err, &fe) {
		t.Fatalf("err = %v", res.Err)
	}
	msg := res.Err.Error()
	for _, w := range []string{"connection refused", url + "/t.csv", "place it at " + filepath.Join(dir, "toy", "t.csv")} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}

func TestFetchMirrorReplacesABadCopy(t *testing.T) {
	content := []byte("mirror me\n")
	srv, _ := server(t, map[string][]byte{"/m/toy/f.txt.gz": gzipBytes(t, content)})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"toy/f.txt": "corrupt copy\n"})
	f := File{Path: "toy/f.txt", URLs: []string{"http://127.0.0.1:1/never-tried"}, SHA256: sha(content)}
	res := (&Fetcher{Mirror: srv.URL + "/m/"}).fetchFile(context.Background(), dir, "toy", f)
	if res.Err != nil || res.URL != srv.URL+"/m/toy/f.txt.gz" {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "toy", "f.txt")); !os.IsNotExist(err) {
		t.Error("the corrupt plain copy was not removed")
	}
	if p, err := Verify(dir, "toy", f); err != nil || !strings.HasSuffix(p, "f.txt.gz") {
		t.Errorf("Verify = %s, %v", p, err)
	}
}

func TestFetchOptionalWithoutSourceIsSkipped(t *testing.T) {
	res := (&Fetcher{}).fetchFile(context.Background(), t.TempDir(), "toy", File{Path: "n.txt", SHA256: sha(nil), Optional: true})
	if res.Err != nil || res.Action != "skipped" {
		t.Fatalf("result %+v", res)
	}
}

// TestVerifyReportsExpectedAndActual flips one byte of a verified copy: Verify
// reports the registered (expected) and the recomputed (actual) SHA-256.
func TestVerifyReportsExpectedAndActual(t *testing.T) {
	content := []byte("0.5,1\n0.25,2\n")
	f := File{Path: "toy/data.csv", SHA256: sha(content)}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"toy/data.csv": string(content)})
	if p, err := Verify(dir, "toy", f); err != nil || p != filepath.Join(dir, "toy", "data.csv") {
		t.Fatalf("Verify = %s, %v", p, err)
	}
	flipped := append([]byte(nil), content...)
	flipped[3] ^= 0x01
	writeFiles(t, dir, map[string]string{"toy/data.csv": string(flipped)})
	_, err := Verify(dir, "toy", f)
	var fe *FileError
	var ce *ChecksumError
	if !errors.As(err, &fe) || !errors.As(err, &ce) || fe.Path != filepath.Join(dir, "toy", "data.csv") {
		t.Fatalf("err = %v", err)
	}
	if ce.Expected != sha(content) || ce.Actual != sha(flipped) {
		t.Errorf("expected/actual %s/%s, want %s/%s", ce.Expected, ce.Actual, sha(content), sha(flipped))
	}
	// A flipped byte inside a gzip stream: a decompression or checksum error naming the file.
	gz := gzipBytes(t, content)
	gz[len(gz)/2] ^= 0x40
	os.Remove(filepath.Join(dir, "toy", "data.csv"))
	if err := os.WriteFile(filepath.Join(dir, "toy", "data.csv.gz"), gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dir, "toy", f); !errors.As(err, &fe) || !strings.Contains(err.Error(), sha(content)) {
		t.Fatalf("corrupt gzip: err = %v", err)
	}
	os.Remove(filepath.Join(dir, "toy", "data.csv.gz"))
	var me *MissingError
	if _, err := Verify(dir, "toy", f); !errors.As(err, &me) {
		t.Fatalf("absent: err = %v", err)
	}
}
