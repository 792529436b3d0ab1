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
)

// TrialsFile is the name of the JSONL file of a result directory.
const TrialsFile = "trials.jsonl"

// syncEvery bounds how long appended records may sit in the page cache before
// an fsync: a killed process loses nothing (the kernel has the bytes); a power
// loss loses at most this much work.
const syncEvery = 2 * time.Second

// Store is an append-only JSONL file of trial records, safe for concurrent
// Append calls.
type Store struct {
	path string

	mu       sync.Mutex
	f        *os.File
	done     map[Key]bool
	lastSync time.Time
	dirty    bool
}

// Open opens (creating if needed) the store in dir. It reads the records
// already there, drops a torn last line (a warning goes to warn), and returns
// the store positioned for appending together with the records read.
func Open(dir string, warn func(string)) (*Store, []Record, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	path := filepath.Join(dir, TrialsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	recs, good, err := readRecords(f, path, warn)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// Truncate a torn tail so the next append starts on a fresh line.
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
	s := &Store{path: path, f: f, done: make(map[Key]bool), lastSync: time.Now()}
	for i := range recs {
		if recs[i].Status == StatusOK {
			s.done[recs[i].Key()] = true
		}
	}
	return s, recs, nil
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

// Close syncs and closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.syncLocked()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
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

// Rewrite atomically replaces the store in dir with the records for which keep
// returns true (used by --force to drop the cells about to rerun).
func Rewrite(dir string, keep func(*Record) bool, warn func(string)) error {
	recs, err := Read(dir, warn)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range recs {
		if keep(&recs[i]) {
			if err := enc.Encode(&recs[i]); err != nil {
				return fmt.Errorf("results: %w", err)
			}
		}
	}
	return WriteFileAtomic(filepath.Join(dir, TrialsFile), buf.Bytes())
}

// readRecords reads JSONL records from r. It returns the records and the byte
// length of the well-formed prefix (every complete, parsable line). A last
// line without its newline, or that does not parse, is torn: it is dropped
// with a warning. A bad line in the middle is an error naming the line.
func readRecords(r io.Reader, path string, warn func(string)) ([]Record, int64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("results: read %s: %w", path, err)
	}
	var recs []Record
	var good int64
	line := 0
	for len(data) > 0 {
		line++
		nl := bytes.IndexByte(data, '\n')
		last := nl < 0
		var text []byte
		if last {
			text = data
		} else {
			text = data[:nl]
			// A complete line followed only by nothing is still the last line.
			last = nl == len(data)-1
		}
		if len(bytes.TrimSpace(text)) == 0 {
			if nl < 0 {
				break
			}
			good += int64(nl + 1)
			data = data[nl+1:]
			continue
		}
		var rec Record
		perr := json.Unmarshal(text, &rec)
		if perr == nil && rec.Schema > SchemaVersion {
			return nil, 0, fmt.Errorf("results: %s:%d: record schema %d is newer than this dplab's (%d)", path, line, rec.Schema, SchemaVersion)
		}
		torn := nl < 0 || perr != nil
		if torn {
			if !last {
				return nil, 0, fmt.Errorf("results: %s:%d: corrupt record: %v", path, line, perr)
			}
			if warn != nil {
				warn(fmt.Sprintf("%s:%d: dropping a torn last line (%d bytes) left by an interrupted run", path, line, len(text)))
			}
			break
		}
		recs = append(recs, rec)
		good += int64(nl + 1)
		data = data[nl+1:]
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
