package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/dplab/dplab/internal/fileutil"
)

// TrialsFile is the name of the JSONL file of a result directory.
const TrialsFile = "trials.jsonl"

// syncEvery bounds how long appended records may sit in the page cache before
// an fsync: a killed process loses nothing (the kernel has the bytes); a power
// loss loses at most this much work.
const syncEvery = 2 * time.Second

// LockFile is the name of a result directory's lock file. It only carries the
// lock (and the holder's pid), so replacing trials.jsonl never drops the lock.
const LockFile = ".lock"

// Store is an append-only JSONL file of trial records, safe for concurrent
// Append calls. An open Store holds its directory's exclusive lock until
// Close.
type Store struct {
	path string
	lock *os.File // the held lock of the directory; nil where locking is unavailable

	mu       sync.Mutex
	f        *os.File
	done     map[Key]bool
	lastSync time.Time
	dirty    bool
}

// Open opens (creating if needed) the store in dir for appending. It first
// checks that dir is a result directory (CheckDir) and takes the directory's
// exclusive lock; if another process holds it, Open returns a *BusyError
// having changed nothing. Only then does it read the records already there:
// a torn last line (bytes without a final newline, left by a killed run) is
// dropped with a warning to warn and truncated away; a complete line that is
// not a record is a *CorruptError and nothing is changed. It returns the
// store positioned for appending together with the records read.
func Open(dir string, warn func(string)) (_ *Store, _ []Record, err error) {
	if err := CheckDir(dir); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			unlockDir(lock)
		}
	}()
	path := filepath.Join(dir, TrialsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	recs, good, err := readRecords(f, path, warn)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// Truncate a torn tail so the next append starts on a fresh line. The
	// lock guarantees no live writer is behind it.
	if st, err := f.Stat(); err == nil && st.Size() != good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("results: truncate torn line of %s: %w", path, err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	s := &Store{path: path, lock: lock, f: f, lastSync: time.Now()}
	s.setDone(recs)
	return s, recs, nil
}

// setDone rebuilds the set of trials stored with status ok from recs.
func (s *Store) setDone(recs []Record) {
	s.done = make(map[Key]bool, len(recs))
	for i := range recs {
		if recs[i].Status == StatusOK {
			s.done[recs[i].Key()] = true
		}
	}
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Done reports whether trial k is stored with status ok.
func (s *Store) Done(k Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[k]
}

// Append writes r as one line with a single write call.
func (s *Store) Append(r Record) error {
	r.Schema = SchemaVersion
	line, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("results: encode trial %d of cell %s: %w", r.Trial, r.CellKey, err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: append to a closed store")
	}
	if _, err := s.f.Write(line); err != nil {
		return fmt.Errorf("results: write %s: %w", s.path, err)
	}
	if r.Status == StatusOK {
		s.done[r.Key()] = true
	}
	s.dirty = true
	if time.Since(s.lastSync) >= syncEvery {
		return s.syncLocked()
	}
	return nil
}

func (s *Store) syncLocked() error {
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("results: sync %s: %w", s.path, err)
	}
	s.dirty = false
	s.lastSync = time.Now()
	return nil
}

// Sync writes the records appended so far to stable storage.
func (s *Store) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: sync a closed store")
	}
	return s.syncLocked()
}

// Close syncs and closes the store and releases the directory's lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.f != nil {
		err = s.syncLocked()
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
		s.f = nil
	}
	unlockDir(s.lock)
	s.lock = nil
	return err
}

// Read returns the records of the store in dir without modifying it. A torn
// last line is skipped with a warning. A missing file is no records.
func Read(dir string, warn func(string)) ([]Record, error) {
	path := filepath.Join(dir, TrialsFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	recs, _, err := readRecords(f, path, warn)
	return recs, err
}

// Rewrite atomically replaces the store's file with its records for which
// keep returns true, and returns them (--force drops the cells about to
// rerun). It runs under the lock the open store holds, so no other run is
// writing; the file is replaced by a rename (a crash leaves the old or the
// new content) and the store appends to the new file afterwards.
func (s *Store) Rewrite(keep func(*Record) bool) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil, errors.New("results: rewrite a closed store")
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	recs, _, err := readRecords(s.f, s.path, nil)
	if _, serr := s.f.Seek(0, io.SeekEnd); err == nil && serr != nil {
		err = fmt.Errorf("results: %w", serr)
	}
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var kept []Record
	for i := range recs {
		if keep(&recs[i]) {
			if err := enc.Encode(&recs[i]); err != nil {
				return nil, fmt.Errorf("results: %w", err)
			}
			kept = append(kept, recs[i])
		}
	}
	if err := fileutil.WriteFileAtomic(s.path, buf.Bytes()); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		// The old descriptor points at the replaced file: appending to it
		// would lose records, so the store closes (the lock stays held until
		// Close).
		s.f.Close()
		s.f = nil
		return nil, fmt.Errorf("results: reopen %s after rewriting it: %w", s.path, err)
	}
	s.f.Close()
	s.f = f
	s.dirty = false
	s.setDone(kept)
	return kept, nil
}

// readRecords reads JSONL records from r. It returns the records and the byte
// length of the well-formed prefix (every complete line).
//
// The appender writes a record and its newline in one write call, so only the
// last line can be unfinished: a last line without its newline is torn (a
// partial record, or the NUL bytes some filesystems leave after a crash) and
// is dropped with a warning. Every complete line must be a record (or blank):
// one that does not parse, wherever it is, is a *CorruptError naming it, since
// dropping it could silently lose a finished trial.
func readRecords(r io.Reader, path string, warn func(string)) ([]Record, int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("results: read %s: %w", path, err)
	}
	var recs []Record
	var good int64
	for line := 1; len(data) > 0; line++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			if warn != nil && len(bytes.TrimSpace(data)) > 0 {
				warn(fmt.Sprintf("%s:%d: dropping a torn last line (%d bytes without a final newline) left by an interrupted run", path, line, len(data)))
			}
			break
		}
		text := data[:nl]
		data = data[nl+1:]
		if len(bytes.TrimSpace(text)) > 0 {
			var rec Record
			if err := json.Unmarshal(text, &rec); err != nil {
				return nil, 0, &CorruptError{Path: path, Line: line, Err: err}
			}
			if rec.Schema > SchemaVersion {
				return nil, 0, &CorruptError{Path: path, Line: line, Err: fmt.Errorf("record schema %d is newer than this dplab's (%d)", rec.Schema, SchemaVersion)}
			}
			recs = append(recs, rec)
		}
		good += int64(nl + 1)
	}
	return recs, good, nil
}

// Latest returns, for each key, the last ok record, sorted by (cell, trial).
// Failed and skipped records are ignored.
func Latest(recs []Record) []Record {
	idx := make(map[Key]int)
	var out []Record
	for _, r := range recs {
		if r.Status != StatusOK {
			continue
		}
		if i, ok := idx[r.Key()]; ok {
			out[i] = r
			continue
		}
		idx[r.Key()] = len(out)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CellKey != out[j].CellKey {
			return out[i].CellKey < out[j].CellKey
		}
		return out[i].Trial < out[j].Trial
	})
	return out
}
