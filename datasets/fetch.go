package datasets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Fetcher downloads registered files into a data directory, verifies their
// checksums and writes them atomically (a temporary file in the target
// directory, synced, then renamed). A download whose checksum does not match
// is discarded and the next source is tried.
type Fetcher struct {
	// Client makes the requests; nil means a client with a 30-minute timeout.
	Client *http.Client
	// Mirror, when set, is a base URL laid out like a data directory, tried
	// before the canonical URLs: Mirror/Path, Mirror/Path.gz, Mirror/Path.bz2.
	Mirror string
}

// FetchResult is what Fetch did with one registered file.
type FetchResult struct {
	File   File
	Stored string // the stored path after the call; "" when the file is still absent
	Action string // "present" (already there, checksum OK), "downloaded", or "skipped" (optional, no source)
	URL    string // the source used when downloaded
	Err    error  // nil, or a *FetchError
	// Unverified: the file has no registered checksum (File.Unverified); the
	// present or downloaded copy decompresses but was not compared with
	// anything.
	Unverified bool
}

// FetchError is a file that could not be fetched from any source. Its
// message lists every attempt and says where to place a copy by hand.
type FetchError struct {
	Dataset  string
	Path     string  // registered path
	Dest     string  // where a copy belongs: the data directory joined with Path
	Attempts []error // one per source tried (network errors, HTTP status, *ChecksumError)
}

// Error lists the attempts and says where to place the file.
func (e *FetchError) Error() string {
	var why string
	if len(e.Attempts) == 0 {
		why = "there is no download source for this file"
	} else {
		msgs := make([]string, len(e.Attempts))
		for i, a := range e.Attempts {
			msgs[i] = a.Error()
		}
		why = strings.Join(msgs, "; ")
	}
	return fmt.Sprintf("dataset %s: cannot fetch %s: %s. Get the file by hand and place it at %s (plain, .gz or .bz2)",
		e.Dataset, e.Path, why, e.Dest)
}

// Unwrap returns the attempts' errors.
func (e *FetchError) Unwrap() []error { return e.Attempts }

// Fetch makes every file of the dataset present in dir: files already there
// with a matching checksum are left alone, the others are downloaded. It
// returns one result per registered file; err is non-nil only for an unknown
// dataset or a cancelled context.
func (f *Fetcher) Fetch(ctx context.Context, dir, name string) ([]FetchResult, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	var out []FetchResult
	for _, file := range e.Info.Files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, f.fetchFile(ctx, dir, name, file))
	}
	return out, ctx.Err()
}

func (f *Fetcher) fetchFile(ctx context.Context, dir, dataset string, file File) FetchResult {
	res := FetchResult{File: file}
	stale := present(dir, file.Path)
	p, err := Verify(dir, dataset, file)
	if unverified, err := accepted(err); err == nil {
		res.Stored, res.Action, res.Unverified = p, "present", unverified
		return res
	}
	dest := filepath.Join(dir, filepath.FromSlash(file.Path))
	sources := f.sources(file)
	if len(sources) == 0 && file.Optional {
		res.Action = "skipped"
		if p, ok := locate(dir, file.Path); ok {
			res.Stored = p
		}
		return res
	}
	fe := &FetchError{Dataset: dataset, Path: file.Path, Dest: dest}
	for _, src := range sources {
		stored, unverified, err := f.download(ctx, src, dest, file)
		if err == nil {
			res.Unverified = unverified
			for _, s := range stale {
				if s != stored {
					os.Remove(s) // a copy of this file that failed verification
				}
			}
			res.Stored, res.Action, res.URL = stored, "downloaded", src.url
			return res
		}
		if src.optional && errors.Is(err, errNotFound) {
			continue // a mirror need not hold every variant
		}
		fe.Attempts = append(fe.Attempts, fmt.Errorf("%s: %w", src.url, err))
		if ctx.Err() != nil {
			break
		}
	}
	res.Err = fe
	return res
}

// source is a URL to try; optional sources (mirror variants) may be absent.
type source struct {
	url      string
	optional bool
}

func (f *Fetcher) sources(file File) []source {
	var out []source
	if f.Mirror != "" {
		base := strings.TrimSuffix(f.Mirror, "/") + "/" + file.Path
		for _, suf := range storedSuffixes {
			out = append(out, source{url: base + suf, optional: true})
		}
	}
	for _, u := range file.URLs {
		out = append(out, source{url: u})
	}
	return out
}

var errNotFound = errors.New("HTTP 404 Not Found")

// download fetches src into a temporary file next to dest, verifies it and
// renames it to dest plus the suffix of its compression. It returns the
// stored path, and whether the file was kept unverified (File.Unverified: it
// decompresses, and there is nothing to compare it with).
func (f *Fetcher) download(ctx context.Context, src source, dest string, file File) (stored string, unverified bool, err error) {
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.url, nil)
	if err != nil {
		return "", false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return "", false, errNotFound
	}
	if resp.StatusCode != http.StatusOK {
		return "", false, fmt.Errorf("HTTP %s", resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".dplab-fetch-*")
	if err != nil {
		return "", false, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	body := bufio.NewReaderSize(resp.Body, 1<<16)
	head, _ := body.Peek(4)
	suffix := compressionSuffix(head)
	dg, err := hashStream(io.TeeReader(body, tmp), "download"+suffix)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, fmt.Errorf("download: %w", err)
	}
	if unverified, err = accepted(dg.check(file)); err != nil {
		return "", false, err
	}
	stored = dest + suffix
	if err := os.Rename(tmp.Name(), stored); err != nil {
		return "", false, err
	}
	return stored, unverified, nil
}
