package datasets

import (
	"fmt"
	"strconv"
	"strings"
)

// FileError is a problem reading one input file: a malformed row, a wrong
// column count, a non-numeric cell, a bad LibSVM index, a truncated or corrupt
// compressed stream, or a checksum mismatch. Its message names the file, the
// line and the column where they are known:
//
//	adult/adult.data.gz: line 17: column "age": "x" is not a number
type FileError struct {
	Path   string // the file as opened (or as it would be stored)
	Line   int    // 1-based line of the decompressed text; 0 when not line-related
	Column string // column name from the header, "#k" for the k-th (1-based) column of a headerless file, or ""
	Err    error
}

// Error formats "path: line N: column \"name\": reason", omitting unknown parts.
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteString(": line ")
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Column != "" {
		b.WriteString(": column ")
		if strings.HasPrefix(e.Column, "#") {
			b.WriteString(e.Column)
		} else {
			b.WriteString(strconv.Quote(e.Column))
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// ChecksumError is a file whose SHA-256 is not the registered one. It is
// wrapped in a *FileError naming the file.
type ChecksumError struct {
	Expected, Actual string // lowercase hex
	Of               string // "content" (decompressed bytes) or "file" (stored bytes)
}

// Error names both checksums.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("SHA-256 mismatch of the %s: expected %s, actual %s", e.Of, e.Expected, e.Actual)
}

// UnverifiedError is a present registered file without a known checksum
// (File.Unverified): it was read and hashed, but there was nothing to compare
// the hashes with, so it is not known to be the published file. It is
// neither a failure (the file decompresses and may be used) nor a match.
type UnverifiedError struct {
	Path                  string // the stored file ("" for a download)
	SHA256, ContentSHA256 string // of the stored bytes and of the decompressed content
}

// Error says that the file was not checksum-verified and gives its hashes.
func (e *UnverifiedError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "not checksum-verified: no SHA-256 of this file is registered, so it could not be compared with the published file (SHA-256 of the stored bytes %s, of the content %s)",
		e.SHA256, e.ContentSHA256)
	return b.String()
}

// MissingError reports the files a dataset needs that are absent from the
// data directory.
type MissingError struct {
	Dataset string
	Dir     string   // the data directory searched
	Files   []string // registered paths relative to Dir (each may also be stored .gz or .bz2)
	// UserFile marks the user's own file (features-csv): Files are then the
	// paths given in params, absolute or relative to Dir, and there is
	// nothing to fetch.
	UserFile bool
}

// Error says which files to place in which directory, or to fetch them (a
// user file: to check its path).
func (e *MissingError) Error() string {
	if e.UserFile {
		return fmt.Sprintf("dataset %s: missing %s (your own file, named by the spec's params: an absolute path, "+
			"or one relative to the data directory %s); check the path in the spec, or point dplab at the directory "+
			"that holds it with --data-dir DIR or the DPLAB_DATA environment variable",
			e.Dataset, strings.Join(e.Files, ", "), e.Dir)
	}
	return fmt.Sprintf("dataset %s: missing %s in data directory %s (each may be stored plain, .gz or .bz2); "+
		"if the files are elsewhere, point dplab at that directory with --data-dir DIR or the DPLAB_DATA environment variable "+
		"(the directory is --data-dir, else $DPLAB_DATA, else the user cache); otherwise run 'dplab datasets fetch %s' or place the files there by hand",
		e.Dataset, strings.Join(e.Files, ", "), e.Dir, e.Dataset)
}

// cellError is the error of a cell that does not parse as a finite number.
func cellError(cell []byte) error {
	return fmt.Errorf("%q is not a number", cell)
}
