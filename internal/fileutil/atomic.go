// Package fileutil holds the file helpers shared by the packages that write
// results: atomic writes that never leave a partial file, synced to disk
// (WriteFileAtomic, WriteAtomicIn) or not (ReplaceFile, for re-derivable
// outputs), and the functions through which every write into a result
// directory goes (the ...In functions of root.go), which never leave it.
package fileutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
)

// WriteFileAtomic writes data to path through a synced temporary file and a
// rename, so readers never see a partial file and a crash leaves the old or
// the new content. The file gets mode 0666 less the umask (0644 under the
// usual umask 022), as os.WriteFile would give it. It is WriteFileAtomicIn
// on path's folder: a symbolic link at path is refused, not replaced.
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicIn(filepath.Dir(path), filepath.Base(path), data)
}

// ReplaceFile writes data to path through a temporary file and a rename, as
// WriteFileAtomic does, without waiting for the disk (no fsync): readers,
// and a process killed at any point, still see the old or the new content,
// but a power loss or kernel crash soon after may leave the file empty. It
// is for outputs derived from data already on disk that every run rewrites
// (figures, tables, summaries, the HTML report: "dplab render" regenerates
// them from the synced store), where an fsync per file would make the disk
// the slowest part of rendering. It is ReplaceFileIn on path's folder.
func ReplaceFile(path string, data []byte) error {
	return ReplaceFileIn(filepath.Dir(path), filepath.Base(path), data)
}

// WriteFileAtomicIn is WriteFileAtomic of the file name inside the
// directory dir, under the rules of OpenFileIn: the write cannot leave dir,
// and a symbolic link at name or on its way is a *SymlinkError.
func WriteFileAtomicIn(dir, name string, data []byte) error {
	return writeIn(dir, name, 0o666, true, writeData(data))
}

// WriteAtomicIn is WriteFileAtomicIn of the content write writes to its
// (buffered) writer, for a file too large to hold in memory (a store's
// rewrite): if write fails, the file is left as it was.
func WriteAtomicIn(dir, name string, write func(io.Writer) error) error {
	return writeIn(dir, name, 0o666, true, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// ReplaceFileIn is ReplaceFile of the file name inside the directory dir,
// under the rules of OpenFileIn.
func ReplaceFileIn(dir, name string, data []byte) error {
	return writeIn(dir, name, 0o666, false, writeData(data))
}

// WriteScriptIn is WriteFileAtomicIn for a script: the file gets mode 0755
// less the umask, as os.WriteFile(path, data, 0o755) would give it.
func WriteScriptIn(dir, name string, data []byte) error {
	return writeIn(dir, name, 0o755, true, writeData(data))
}

// writeData returns the write function of writeIn that writes data.
func writeData(data []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(data); return err }
}

// writeIn writes name in dir through a temporary file beside it, filled by
// write, synced when sync is set, and a rename, both through an os.Root on
// dir.
func writeIn(dir, name string, perm fs.FileMode, sync bool, write func(io.Writer) error) (err error) {
	path := filepath.Join(dir, name)
	root, err := openChecked(dir, name)
	if err != nil {
		// The error names the file asked for, not the temporary one beside
		// it (a missing directory read as "open x.html.tmp4084-1: ...").
		return asWriteError(path, err)
	}
	defer root.Close()
	tmp, tmpName, err := createTemp(root, name, perm)
	if err != nil {
		return asWriteError(path, err)
	}
	err = write(tmp)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmpName, name)
	}
	if err != nil {
		root.Remove(tmpName)
		return fmt.Errorf("write %s: %w", path, rootPathError(dir, err))
	}
	return nil
}

// asWriteError is err as a "write path" *fs.PathError, unless it already
// names the path (a *SymlinkError).
func asWriteError(path string, err error) error {
	var se *SymlinkError
	if errors.As(err, &se) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

// tempSeq numbers the temporary files of this process.
var tempSeq atomic.Uint64

// createTemp creates a new file beside name in root, named after it, with
// mode perm less the umask. (os.CreateTemp would give 0600, which the
// rename would carry over to the rendered file.) O_EXCL never opens an
// existing file, nor follows a link.
func createTemp(root *os.Root, name string, perm fs.FileMode) (*os.File, string, error) {
	for try := 0; ; try++ {
		tmp := fmt.Sprintf("%s.tmp%d-%d", name, os.Getpid(), tempSeq.Add(1))
		f, err := root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue // left by a killed process with the same pid
		}
		return f, tmp, err
	}
}
