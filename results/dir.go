package results

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/dplab/dplab/internal/fileutil"
)

// BusyError reports that another process holds a result directory's lock:
// a second run on the directory stops before changing anything.
type BusyError struct {
	Dir    string
	PID    int    // the holder's process id as it recorded it; 0 when unknown
	Holder string // what holds it, e.g. "dplab audit"; "" means "dplab run"
}

func (e *BusyError) Error() string {
	holder := "another " + cmp.Or(e.Holder, "dplab run")
	if e.PID > 0 {
		holder += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is in use by %s; nothing was changed: wait for it to finish or use another directory", e.Dir, holder)
}

// CorruptError is a complete line of a store (one ending in a newline) that
// is not a trial record this dplab can read. dplab only ever drops an
// unfinished last line (a torn write); a complete line may hold a finished
// trial, so it is reported, not dropped.
type CorruptError struct {
	Path string
	Line int // 1-based
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("results: %s:%d: corrupt trial record (%v); dplab drops only an unfinished last line, so repair or delete this line", e.Path, e.Line, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// errLockUnsupported is in the error of a lock the file system cannot
// take (flockDir).
var errLockUnsupported = errors.New("the file system does not support flock")

// DirLock is a shared lock on a result directory (ReadLockDir); a run's
// exclusive lock is taken by Open.
type DirLock struct{ f *os.File }

// ReadLockDir takes the shared lock of the run result directory dir (its
// LockFile) without waiting, for a reader that must see the store, the
// spec copy and the manifest as one run left them and write outputs
// derived from them (dplab render, and dplab merge's render): readers
// share it, and no run or merge can take the directory while they hold it.
// If a run or a merge holds the directory it returns a *BusyError naming
// its pid, having changed nothing. Release it with Unlock.
func ReadLockDir(dir string) (*DirLock, error) {
	f, err := lockDirShared(dir, LockFile)
	if err != nil {
		return nil, err
	}
	return &DirLock{f}, nil
}

// Unlock releases the lock; on nil it does nothing.
func (l *DirLock) Unlock() {
	if l != nil {
		unlockDir(l.f)
	}
}

// NotResultDirError reports a directory dplab refuses to write results into,
// because it holds files that are not dplab's.
type NotResultDirError struct {
	Dir    string
	Reason string
	Advice string // what to do instead; "" means choose a new or empty directory
}

func (e *NotResultDirError) Error() string {
	advice := e.Advice
	if advice == "" {
		advice = "choose a new or empty directory"
	}
	return fmt.Sprintf("%s is not a dplab run's result directory: %s; %s", e.Dir, e.Reason, advice)
}

// CheckDir returns nil if dir may hold a result directory: it does not exist,
// is an empty directory, or holds TrialsFile or LockFile (every directory a
// run has opened holds both) or ShardsDir (a sharded run's directory before
// its merge). Anything else, a file or a directory of other
// files, is a *NotResultDirError, so that the store, the spec copy and
// rendered outputs never overwrite foreign files; so is a path below a file,
// which can never be a directory. A symbolic link inside dir, at any depth,
// is a *fileutil.SymlinkError naming it (dir itself may be one): every
// write into dir refuses links (fileutil.OpenFileIn), and this refuses
// them before anything is read or run.
func CheckDir(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return &NotResultDirError{Dir: dir, Reason: "a folder on its path is a file"}
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if !st.IsDir() {
		return &NotResultDirError{Dir: dir, Reason: "it is a file, not a directory"}
	}
	for _, marker := range []string{TrialsFile, LockFile, ShardsDir} {
		if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
			return checkNoLinks(dir)
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(4)
	if errors.Is(err, io.EOF) || err == nil && len(names) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	sort.Strings(names)
	list := strings.Join(names, ", ")
	if len(names) == 4 {
		list = strings.Join(names[:3], ", ") + ", ..."
	}
	return &NotResultDirError{Dir: dir, Reason: fmt.Sprintf("it holds other files (%s) and no %s", list, TrialsFile)}
}

// checkNoLinks returns a *fileutil.SymlinkError naming a symbolic link
// inside the directory dir, at any depth, or nil if there is none. Entries
// that vanish meanwhile (a render's temporary files) are no error.
func checkNoLinks(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			return &fileutil.SymlinkError{Path: path}
		}
		if e.IsDir() {
			if err := checkNoLinks(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// OtherExperimentError reports a result directory holding the trials of
// other experiments only: a run of this spec there would mix its records
// into theirs and replace their spec copy, figures and tables.
type OtherExperimentError struct {
	Dir         string
	Name        string   // the spec's experiment
	Experiments []string // the experiments of the stored trials
	Trials      int
}

func (e *OtherExperimentError) Error() string {
	return fmt.Sprintf("%s holds %d trial(s) of experiment %s and none of %q: a result directory holds one experiment; choose another directory",
		e.Dir, e.Trials, strings.Join(e.Experiments, ", "), e.Name)
}

// ExperimentCheck finds, from the records of a result directory's store
// given one at a time (Add), whether it may hold experiment Name: Err
// returns an *OtherExperimentError when the store is not empty and holds no
// record of experiment Name nor of a cell that Want selects (the spec's
// cells: a renamed spec keeps them and may resume there). Its memory is the
// other experiments' names.
type ExperimentCheck struct {
	Name string
	Want func(cell string) bool

	trials int
	ours   bool
	others []string // the other experiments, in order of first record
}

// Add counts one stored record.
func (c *ExperimentCheck) Add(r *Record) {
	c.trials++
	if c.ours {
		return
	}
	if r.Experiment == c.Name || c.Want(r.CellKey) {
		c.ours = true
		return
	}
	if !slices.Contains(c.others, r.Experiment) {
		c.others = append(c.others, r.Experiment)
	}
}

// Err returns an *OtherExperimentError naming dir when the records added
// are all of other experiments; nil otherwise (and for no records).
func (c *ExperimentCheck) Err(dir string) error {
	if c.trials == 0 || c.ours {
		return nil
	}
	quoted := make([]string, len(c.others))
	for i, e := range c.others {
		quoted[i] = fmt.Sprintf("%q", e)
	}
	return &OtherExperimentError{Dir: dir, Name: c.Name, Experiments: quoted, Trials: c.trials}
}
