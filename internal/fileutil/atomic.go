// Package fileutil holds the file helpers shared by the packages that write
// results: atomic writes that never leave a partial file, synced to disk
// (WriteFileAtomic, WriteAtomic) or not (ReplaceFile, for re-derivable
// outputs).
package fileutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// WriteFileAtomic writes data to path through a synced temporary file and a
// rename, so readers never see a partial file and a crash leaves the old or
// the new content. The file gets mode 0666 less the umask (0644 under the
// usual umask 022), as os.WriteFile would give it.
func WriteFileAtomic(path string, data []byte) error {
	return writeFile(path, true, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// WriteAtomic is WriteFileAtomic of the content write writes to its
// (buffered) writer, for a file too large to hold in memory (a store's
// rewrite): if write fails, path is left as it was.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return writeFile(path, true, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// ReplaceFile writes data to path through a temporary file and a rename, as
// WriteFileAtomic does, without waiting for the disk (no fsync): readers,
// and a process killed at any point, still see the old or the new content,
// but a power loss or kernel crash soon after may leave the file empty. It
// is for outputs derived from data already on disk that every run rewrites
// (figures, tables, summaries, the HTML report: "dplab render" regenerates
// them from the synced store), where an fsync per file would make the disk
// the slowest part of rendering.
func ReplaceFile(path string, data []byte) error {
	return writeFile(path, false, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// writeFile writes path through a temporary file beside it, filled by
// write, synced when sync is set, and renamed over path.
func writeFile(path string, sync bool, write func(io.Writer) error) error {
	tmp, err := createTemp(path)
	if err != nil {
		// The error names the file asked for, not the temporary one beside
		// it (a missing directory read as "open x.html.tmp4084-1: ...").
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	err = write(tmp)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempSeq numbers the temporary files of this process.
var tempSeq atomic.Uint64

// createTemp creates a new file beside path, named after it, with mode 0666
// less the umask. (os.CreateTemp would give 0600, which the rename would
// carry over to the rendered file.)
func createTemp(path string) (*os.File, error) {
	for try := 0; ; try++ {
		name := fmt.Sprintf("%s.tmp%d-%d", path, os.Getpid(), tempSeq.Add(1))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue // left by a killed process with the same pid
		}
		return f, err
	}
}
