package datasets

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// storedSuffixes are the ways a registered file may be stored, in the order
// they are looked for: plain, gzip, bzip2.
var storedSuffixes = []string{"", ".gz", ".bz2"}

// locate returns the stored path of the registered file rel (relative to dir,
// without compression suffix): the first of rel, rel.gz, rel.bz2 that exists.
func locate(dir, rel string) (string, bool) {
	for _, suf := range storedSuffixes {
		p := filepath.Join(dir, filepath.FromSlash(rel)+suf)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// present returns the stored variants of rel that exist in dir.
func present(dir, rel string) []string {
	var out []string
	for _, suf := range storedSuffixes {
		p := filepath.Join(dir, filepath.FromSlash(rel)+suf)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// dataFile is an open registered file, decompressed on the fly.
type dataFile struct {
	io.Reader
	Path string // the stored file
	f    *os.File
}

// Close closes the stored file.
func (d *dataFile) Close() error { return d.f.Close() }

// openStored opens the stored file path, decompressing by its suffix
// (.gz: gzip, .bz2: bzip2, anything else: plain).
func openStored(path string) (*dataFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := decompressor(bufio.NewReaderSize(f, 1<<16), path)
	if err != nil {
		f.Close()
		return nil, &FileError{Path: path, Err: err}
	}
	return &dataFile{Reader: r, Path: path, f: f}, nil
}

// decompressor wraps r by the compression that name's suffix says.
func decompressor(r io.Reader, name string) (io.Reader, error) {
	switch {
	case strings.HasSuffix(name, ".gz"):
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("not a gzip stream: %w", err)
		}
		return z, nil
	case strings.HasSuffix(name, ".bz2"):
		return bzip2.NewReader(r), nil
	}
	return r, nil
}

// openData opens the registered file rel of dataset in dir, or returns a
// *MissingError.
func openData(dataset, dir, rel string) (*dataFile, error) {
	p, ok := locate(dir, rel)
	if !ok {
		return nil, &MissingError{Dataset: dataset, Dir: dir, Files: []string{rel}}
	}
	f, err := openStored(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingError{Dataset: dataset, Dir: dir, Files: []string{rel}}
	}
	return f, err
}

// requireFiles returns a *MissingError listing those of rels that are absent
// from dir, or nil.
func requireFiles(dataset, dir string, rels ...string) error {
	var miss []string
	for _, rel := range rels {
		if _, ok := locate(dir, rel); !ok {
			miss = append(miss, rel)
		}
	}
	if len(miss) > 0 {
		return &MissingError{Dataset: dataset, Dir: dir, Files: miss}
	}
	return nil
}
