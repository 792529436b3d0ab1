package fileutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Every write into a result directory goes through the functions of this
// file (and WriteFileAtomicIn, ReplaceFileIn, WriteScriptIn): each takes the
// directory and a name relative to it, opens the directory as an os.Root,
// whose operations cannot leave it whatever links it holds, and refuses a
// name that is, or passes through, a symbolic link (a *SymlinkError naming
// it), so that a link planted in a result directory never redirects a
// write (issue 34, item 2: a link at .lock had its target truncated). The
// directory itself may be a link (results/x → /scratch/x).

// SymlinkError reports a symbolic link at a file or folder that dplab
// writes inside a result directory.
type SymlinkError struct {
	Path string // the link
}

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link: dplab refuses links inside a result directory (a write through one could leave it); replace the link by the file or folder itself, or remove it", e.Path)
}

// OpenFileIn opens the file name (relative, without "..") inside the
// directory dir, as os.OpenFile does with flag and perm, through an
// os.Root on dir: the file opened is inside dir whatever links dir holds.
// A symbolic link at name, or at a folder on its way, is a *SymlinkError
// naming it.
func OpenFileIn(dir, name string, flag int, perm fs.FileMode) (*os.File, error) {
	root, err := openChecked(dir, name)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, flag, perm)
	if err != nil {
		return nil, rootPathError(dir, err)
	}
	return f, nil
}

// MkdirAllIn creates the folder name (relative, without "..") inside the
// existing directory dir, with any missing parents (mode 0755 less the
// umask), as os.MkdirAll does, through an os.Root on dir. An existing
// folder on the way that is a symbolic link is a *SymlinkError naming it.
func MkdirAllIn(dir, name string) error {
	root, err := openRoot(dir, name)
	if err != nil {
		return err
	}
	defer root.Close()
	parts := strings.Split(filepath.ToSlash(filepath.Clean(name)), "/")
	for i := range parts {
		sub := filepath.Join(parts[:i+1]...)
		st, err := root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			err = root.Mkdir(sub, 0o755)
			if errors.Is(err, fs.ErrExist) { // made meanwhile by another process
				st, err = root.Lstat(sub)
			}
		}
		if err != nil {
			return rootPathError(dir, err)
		}
		if st == nil {
			continue // just made
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return &SymlinkError{Path: filepath.Join(dir, sub)}
		}
		if !st.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: filepath.Join(dir, sub), Err: errors.New("not a directory")}
		}
	}
	return nil
}

// ReplaceFileInFolder is ReplaceFileIn of the file name in the folder dir,
// which must not be a symbolic link itself (nor the file: *SymlinkError):
// the write goes through an os.Root on dir's parent. It is for the folders
// of a result directory (figures/, tables/), written by code that is given
// the folder alone.
func ReplaceFileInFolder(dir, name string, data []byte) error {
	dir = filepath.Clean(dir)
	return ReplaceFileIn(filepath.Dir(dir), filepath.Join(filepath.Base(dir), name), data)
}

// openChecked opens dir as an os.Root, after checking that name and the
// folders on its way are no symbolic links: the caller then works on name
// through the root, which cannot leave dir even if a link appears
// meanwhile.
func openChecked(dir, name string) (*os.Root, error) {
	root, err := openRoot(dir, name)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(name)), "/")
	for i := range parts {
		sub := filepath.Join(parts[:i+1]...)
		st, err := root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			break // nothing below it exists either: no link to follow
		}
		if err != nil {
			root.Close()
			return nil, rootPathError(dir, err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			root.Close()
			return nil, &SymlinkError{Path: filepath.Join(dir, sub)}
		}
	}
	return root, nil
}

// openRoot opens dir as an os.Root for work on name, which must be a local
// relative path (filepath.IsLocal): no "..", not absolute.
func openRoot(dir, name string) (*os.Root, error) {
	if !filepath.IsLocal(name) {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: errors.New("not a path inside the directory")}
	}
	return os.OpenRoot(dir)
}

// rootPathError is err with the path of a *fs.PathError (or *os.LinkError)
// from an os.Root on dir made the full path dir/name, so that messages name
// the file as the user knows it.
func rootPathError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && !filepath.IsAbs(pe.Path) {
		return &fs.PathError{Op: pe.Op, Path: filepath.Join(dir, pe.Path), Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) && !filepath.IsAbs(le.New) {
		return &os.LinkError{Op: le.Op, Old: filepath.Join(dir, le.Old), New: filepath.Join(dir, le.New), Err: le.Err}
	}
	return err
}
