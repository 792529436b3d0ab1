package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// digests are the SHA-256s of a stored file: of its bytes, and of its
// decompressed content (ContentErr when it does not decompress).
type digests struct {
	Raw, Content string
	ContentErr   error
}

// hashFile hashes the stored file at path in one pass, decompressing it by its
// suffix (.gz, .bz2) as the loaders do.
func hashFile(path string) (digests, error) {
	f, err := os.Open(path)
	if err != nil {
		return digests{}, err
	}
	defer f.Close()
	return hashStream(f, path)
}

// hashStream hashes r's bytes and its content decompressed as name's suffix
// says. Only a failure to read r itself is returned as an error; a corrupt
// compressed stream is reported in ContentErr.
func hashStream(r io.Reader, name string) (digests, error) {
	raw := sha256.New()
	src := &errReader{r: r}
	tee := bufio.NewReaderSize(io.TeeReader(src, raw), 1<<16)
	var dg digests
	content := sha256.New()
	dec, err := decompressor(tee, name)
	if err == nil {
		_, err = io.Copy(content, dec)
	}
	if src.err != nil {
		return digests{}, src.err
	}
	if err != nil {
		dg.ContentErr = fmt.Errorf("cannot decompress: %w", readErr(err))
	}
	// Hash whatever the decompressor left unread (trailing bytes, or the rest
	// of a corrupt stream).
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return digests{}, err
	}
	dg.Raw = hex.EncodeToString(raw.Sum(nil))
	if dg.ContentErr == nil {
		dg.Content = hex.EncodeToString(content.Sum(nil))
	}
	return dg, nil
}

// errReader records the first error of the underlying reader, to tell a
// failing disk or connection from a corrupt compressed stream.
type errReader struct {
	r   io.Reader
	err error
}

// Read implements io.Reader.
func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// check compares digests with the registered checksums: nil when the
// decompressed content matches SHA256 or the stored bytes match StoredSHA256.
// An Unverified file has nothing to match: check returns an *UnverifiedError
// with its hashes when it decompresses, and the decompression error when not.
func (dg digests) check(f File) error {
	if f.Unverified {
		if dg.ContentErr != nil {
			return dg.ContentErr
		}
		return &UnverifiedError{SHA256: dg.Raw, ContentSHA256: dg.Content}
	}
	if f.StoredSHA256 != "" && dg.Raw == f.StoredSHA256 {
		return nil
	}
	if f.SHA256 != "" {
		if dg.ContentErr != nil {
			return fmt.Errorf("%w (expected content SHA-256 %s)", dg.ContentErr, f.SHA256)
		}
		if dg.Content == f.SHA256 {
			return nil
		}
		return &ChecksumError{Of: "content", Expected: f.SHA256, Actual: dg.Content}
	}
	return &ChecksumError{Of: "file", Expected: f.StoredSHA256, Actual: dg.Raw}
}

// Verify checks the stored copy of f in the data directory dir (f.Path,
// f.Path.gz or f.Path.bz2, whichever the loaders would read). It returns the
// stored path and nil when the checksum matches; a *FileError wrapping a
// *ChecksumError (expected and actual SHA-256) on a mismatch; a *FileError on
// a file that cannot be read or decompressed; a *MissingError when no copy is
// present; and, for a file registered without a checksum (File.Unverified)
// that decompresses, an *UnverifiedError with its hashes: not a failure, but
// not a match either.
func Verify(dir, dataset string, f File) (string, error) {
	p, ok := locate(dir, f.Path)
	if !ok {
		return "", &MissingError{Dataset: dataset, Dir: dir, Files: []string{f.Path}}
	}
	dg, err := hashFile(p)
	if err != nil {
		return p, &FileError{Path: p, Err: err}
	}
	if err := dg.check(f); err != nil {
		var ue *UnverifiedError
		if errors.As(err, &ue) {
			ue.Path = p
			return p, ue
		}
		return p, &FileError{Path: p, Err: err}
	}
	return p, nil
}

// compressionSuffix returns ".gz", ".bz2" or "" from a stream's magic bytes.
func compressionSuffix(head []byte) string {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return ".gz"
	case len(head) >= 4 && bytes.HasPrefix(head, []byte("BZh")) && head[3] >= '1' && head[3] <= '9':
		return ".bz2"
	}
	return ""
}
