package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// VerifiedFile is a registered file whose stored copy matched its checksum,
// or, when Unverified, a file registered without a checksum whose stored copy
// was read and hashed but not compared with anything.
type VerifiedFile struct {
	File   File
	Stored string // the stored path: the data directory joined with File.Path and its compression suffix
	Rel    string // Stored relative to the data directory, '/'-separated ("adult/adult.data.gz")
	// SHA256 is the hex SHA-256 of the stored bytes, ContentSHA256 that of
	// the decompressed content ("" for a file matched by StoredSHA256 that
	// does not decompress).
	SHA256, ContentSHA256 string
	// Unverified: the registry has no checksum for this file (File.Unverified),
	// so SHA256 and ContentSHA256 are what was read, not a match. Whoever
	// records the file (the run's manifest, its records) must say that it
	// was not checksum-verified.
	Unverified bool
}

// VerifyCache verifies the registered files a run reads, hashing each stored
// copy once per (absolute path, size, modification time, registered
// checksums): a later call with the same key reuses the verified digests,
// from memory or from a JSON file that survives the process. Only matches are
// remembered; a mismatch is re-hashed every time. It is safe for concurrent
// use.
//
// A file modified without changing its size or modification time (a copy
// with preserved times) is not re-hashed; 'dplab datasets verify' always
// hashes. To leave no doubt about files still being written, a copy whose
// modification time is less than racyWindow before the hash began is not
// remembered (as git treats a "racily clean" index entry).
type VerifyCache struct {
	path string // the JSON file; "" remembers in memory only

	mu     sync.Mutex
	loaded bool                   // the file has been read into mem
	mem    map[string]verifyEntry // by absolute stored path
	fresh  map[string]verifyEntry // verified by this process since the last save
	hashed atomic.Int64
}

// verifyEntry is one remembered match.
type verifyEntry struct {
	Size     int64  `json:"size"`
	ModTime  int64  `json:"mtime_ns"`
	Expected string `json:"expected"` // the registered checksums, see expectedKey
	SHA256   string `json:"sha256"`
	Content  string `json:"content_sha256,omitempty"`
}

// verifyCacheFile is the JSON layout of the cache file.
type verifyCacheFile struct {
	Version int                    `json:"version"`
	Files   map[string]verifyEntry `json:"files"`
}

// verifyCacheVersion is the layout version; a file of another version is
// ignored (and overwritten at the next save).
const verifyCacheVersion = 1

// racyWindow: a file modified this shortly before it was hashed is not
// remembered, so a write in the same timestamp tick cannot hide behind an
// unchanged (size, mtime).
const racyWindow = 2 * time.Second

// NewVerifyCache returns a cache kept in the JSON file path ("" means memory
// only). A missing, unreadable or malformed file is an empty cache; a file
// that cannot be written (a read-only cache directory) leaves the results in
// memory.
func NewVerifyCache(path string) *VerifyCache { return &VerifyCache{path: path} }

// DefaultVerifyCachePath is os.UserCacheDir()/dplab/verified.json, or "" on a
// system without a user cache directory. It is outside the data directory,
// which may be read-only (a shared copy).
func DefaultVerifyCachePath() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "dplab", "verified.json")
}

// Path returns the cache file ("" when in memory only).
func (c *VerifyCache) Path() string { return c.path }

// Hashed returns how many stored files this cache has hashed (its misses).
func (c *VerifyCache) Hashed() int64 { return c.hashed.Load() }

// expectedKey identifies the registered checksums an entry was verified
// against, so a registry update invalidates it.
func expectedKey(f File) string {
	if f.Unverified {
		return "unverified"
	}
	return f.SHA256 + "/" + f.StoredSHA256
}

// VerifyFiles verifies every non-optional registered file of the dataset that
// is present in the data directory dir (plain, .gz or .bz2; absent files are
// left to the loader, which reports them as a *MissingError) and returns the
// verified files. A file registered without a checksum (File.Unverified) is
// hashed (once, as a match would be) and returned with Unverified set: it
// does not stop the run, and the caller must report it as not verified. Optional files (documentation) are not read by the loaders
// and are skipped; a dataset without files (a generator, a user file) has
// nothing to verify. A present file whose checksum does not match is an error
// naming the dataset, the file, both SHA-256s and the fix ('dplab datasets
// fetch NAME'); it wraps a *FileError and a *ChecksumError. Newly verified
// files are saved to the cache file before returning.
func (e Entry) VerifyFiles(dir string, c *VerifyCache) ([]VerifiedFile, error) {
	var out []VerifiedFile
	defer c.save()
	for _, f := range e.Info.Files {
		if f.Optional {
			continue
		}
		if _, ok := locate(dir, f.Path); !ok {
			continue
		}
		v, err := c.verify(dir, e.Info.Name, f)
		if err != nil {
			var ce *ChecksumError
			if errors.As(err, &ce) {
				return out, fmt.Errorf("dataset %s: %w; the file is damaged or not the registered version: run 'dplab datasets fetch %s' to replace it", e.Info.Name, err, e.Info.Name)
			}
			return out, fmt.Errorf("dataset %s: %w", e.Info.Name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// verify checks the stored copy of f in dir, from the cache when its key is
// remembered. Errors are as Verify's.
func (c *VerifyCache) verify(dir, dataset string, f File) (VerifiedFile, error) {
	p, ok := locate(dir, f.Path)
	if !ok {
		return VerifiedFile{}, &MissingError{Dataset: dataset, Dir: dir, Files: []string{f.Path}}
	}
	v := VerifiedFile{File: f, Stored: p, Rel: f.Path + strings.TrimPrefix(filepath.Base(p), filepath.Base(filepath.FromSlash(f.Path)))}
	abs, err := filepath.Abs(p)
	if err != nil {
		return v, &FileError{Path: p, Err: err}
	}
	before, err := os.Stat(p)
	if err != nil {
		return v, &FileError{Path: p, Err: err}
	}
	if ent, ok := c.lookup(abs); ok && ent.Size == before.Size() && ent.ModTime == before.ModTime().UnixNano() && ent.Expected == expectedKey(f) {
		dg := digests{Raw: ent.SHA256, Content: ent.Content}
		if ent.Content == "" {
			dg.ContentErr = errors.New("not decompressed")
		}
		if unverified, err := accepted(dg.check(f)); err == nil {
			v.SHA256, v.ContentSHA256, v.Unverified = ent.SHA256, ent.Content, unverified
			return v, nil
		}
	}
	start := time.Now()
	c.hashed.Add(1)
	dg, err := hashFile(p)
	if err != nil {
		return v, &FileError{Path: p, Err: err}
	}
	unverified, err := accepted(dg.check(f))
	if err != nil {
		return v, &FileError{Path: p, Err: err}
	}
	v.SHA256, v.ContentSHA256, v.Unverified = dg.Raw, dg.Content, unverified
	after, err := os.Stat(p)
	if err == nil && after.Size() == before.Size() && after.ModTime().Equal(before.ModTime()) &&
		before.ModTime().Before(start.Add(-racyWindow)) {
		c.remember(abs, verifyEntry{Size: before.Size(), ModTime: before.ModTime().UnixNano(), Expected: expectedKey(f),
			SHA256: dg.Raw, Content: dg.Content})
	}
	return v, nil
}

// accepted reads the result of digests.check for a file that may be used: a
// match (nil), or an *UnverifiedError, i.e. a file registered without a
// checksum that decompresses. Any other error is returned.
func accepted(err error) (unverified bool, _ error) {
	var ue *UnverifiedError
	if errors.As(err, &ue) {
		return true, nil
	}
	return false, err
}

// lookup returns the remembered entry of abs, reading the cache file the
// first time.
func (c *VerifyCache) lookup(abs string) (verifyEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		c.mem = c.read()
	}
	ent, ok := c.mem[abs]
	return ent, ok
}

// remember records a verified match for abs.
func (c *VerifyCache) remember(abs string, ent verifyEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem == nil {
		c.mem = map[string]verifyEntry{}
	}
	c.mem[abs] = ent
	if c.fresh == nil {
		c.fresh = map[string]verifyEntry{}
	}
	c.fresh[abs] = ent
}

// read returns the cache file's entries (empty when there is no usable file).
func (c *VerifyCache) read() map[string]verifyEntry {
	m := map[string]verifyEntry{}
	if c.path == "" {
		return m
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return m
	}
	var f verifyCacheFile
	if json.Unmarshal(b, &f) != nil || f.Version != verifyCacheVersion {
		return m
	}
	for k, v := range f.Files {
		m[k] = v
	}
	return m
}

// save merges the entries verified since the last save into the cache file
// (re-read, so concurrent processes lose at most each other's latest
// entries), drops entries whose file no longer exists, and writes it
// atomically (a temporary file renamed over it). Failures are ignored: the
// entries stay in memory.
func (c *VerifyCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path == "" || len(c.fresh) == 0 {
		return
	}
	m := c.read()
	for k, v := range c.fresh {
		m[k] = v
	}
	for k := range m {
		if _, err := os.Stat(k); err != nil {
			delete(m, k)
		}
	}
	b, err := json.MarshalIndent(verifyCacheFile{Version: verifyCacheVersion, Files: m}, "", " ")
	if err != nil {
		return
	}
	if writeFileAtomic(c.path, append(b, '\n')) == nil {
		c.fresh = nil
	}
}

// writeFileAtomic writes b to path through a temporary file in the same
// directory (created if needed), renamed over path.
func writeFileAtomic(path string, b []byte) error {
	return writeAtomic(path, ".dplab-verified-*", func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeAtomic writes path through write into a temporary file named by the
// os.CreateTemp pattern in the same directory (created if needed), renamed
// over path: readers see the old file or the whole new one.
func writeAtomic(path, pattern string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
