package results

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dplab/dplab/internal/fileutil"
)

// TrialsFile is the name of the JSONL file of a result directory.
const TrialsFile = "trials.jsonl"

// syncEvery bounds how long appended records may sit in the page cache before
// an fsync: a killed process loses nothing the kernel has; a power loss loses
// at most this much work.
const syncEvery = 2 * time.Second

// Appended records are batched: encoded lines wait in memory and are written
// together, with one write call, when flushBytes of them have gathered or
// flushDelay after the first of them arrived, whichever comes first (and on
// Sync, Rewrite and Close). A process killed without its deferred Close
// loses at most the last flushDelay of finished trials, which rerun on
// resume; it never leaves more than one torn last line.
const (
	flushBytes = 64 << 10
	flushDelay = 100 * time.Millisecond
)

// LockFile is the name of a result directory's lock file. It only carries the
// lock (and the holder's pid), so replacing trials.jsonl never drops the lock.
const LockFile = ".lock"

// Store is an append-only JSONL file of trial records, safe for concurrent
// Append calls. An open Store holds its directory's exclusive lock until
// Close.
type Store struct {
	dir, name string   // the result directory and the file's name in it
	path      string   // dir/name
	lock      *os.File // the held lock of the directory; nil where locking is unavailable

	mu       sync.Mutex
	f        *os.File
	done     map[Key]bool
	pending  []byte      // encoded lines not yet written
	timer    *time.Timer // writes pending at most flushDelay after it started; nil when idle
	err      error       // the first failed write: the store takes no more records
	lastSync time.Time
	dirty    bool

	enc encodeCache // the encodings of the cell and privacy fields of Append's records
}

// linePool recycles the buffers records are encoded into before they join
// the pending batch.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

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
	lock, err := lockDir(dir, LockFile)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			unlockDir(lock)
		}
	}()
	return openFile(dir, TrialsFile, lock, warn)
}

// openFile opens (creating if needed) the store file name in the result
// directory dir for appending (fileutil.OpenFileIn: never through a
// symbolic link), with lock (nil: none) as the guarantee that no other
// process writes it: it reads the records there, truncates a torn tail,
// and returns the store positioned for appending with the records read.
func openFile(dir, name string, lock *os.File, warn func(string)) (*Store, []Record, error) {
	path := filepath.Join(dir, name)
	f, err := fileutil.OpenFileIn(dir, name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	recs, good, err := readRecords(f, path, warn)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// Truncate a torn tail so the next append starts on a fresh line. The
	// lock (the directory's, or a shard file's own) guarantees no live
	// writer is behind it.
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
	s := &Store{dir: dir, name: name, path: path, lock: lock, f: f, lastSync: time.Now()}
	s.setDone(recs)
	return s, recs, nil
}

// setDone rebuilds the set of settled trials (ok or infeasible) from recs.
func (s *Store) setDone(recs []Record) {
	s.done = make(map[Key]bool, len(recs))
	for i := range recs {
		if recs[i].Settled() {
			s.done[recs[i].Key()] = true
		}
	}
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Done reports whether trial k is stored settled: with status ok or
// infeasible (Record.Settled).
func (s *Store) Done(k Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[k]
}

// Append adds r to the store as one line (AppendRecord's encoding, the
// bytes of json.Marshal). The line is written with others in one write call
// within flushDelay (see flushBytes); Sync and Close write at once. A failed
// write is returned by this or a later call, and the store then takes no
// more records.
func (s *Store) Append(r Record) error {
	r.Schema = SchemaVersion
	bp := linePool.Get().(*[]byte)
	defer linePool.Put(bp)
	line, err := appendRecordCached((*bp)[:0], &r, &s.enc)
	if err != nil {
		return fmt.Errorf("results: encode trial %d of cell %s: %w", r.Trial, r.CellKey, err)
	}
	line = append(line, '\n')
	*bp = line
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: append to a closed store")
	}
	if s.err != nil {
		return s.err
	}
	s.pending = append(s.pending, line...)
	if r.Settled() {
		s.done[r.Key()] = true
	}
	if len(s.pending) >= flushBytes {
		return s.flushLocked()
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(flushDelay, s.timedFlush)
	}
	return nil
}

// timedFlush writes the pending lines flushDelay after the first of them; a
// failure is kept for the next Append, Sync or Close to return.
func (s *Store) timedFlush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if s.f != nil {
		_ = s.flushLocked()
	}
}

// flushLocked writes the pending lines with one write call, and syncs if
// the last sync is syncEvery old.
func (s *Store) flushLocked() error {
	if s.err != nil {
		return s.err
	}
	if len(s.pending) == 0 {
		return nil
	}
	if _, err := s.f.Write(s.pending); err != nil {
		// A short write may leave a torn line: nothing may follow it.
		s.err = fmt.Errorf("results: write %s: %w", s.path, err)
		return s.err
	}
	s.pending = s.pending[:0]
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

// Sync writes the records appended so far and then flushes them to stable
// storage.
func (s *Store) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: sync a closed store")
	}
	if err := s.flushLocked(); err != nil {
		return err
	}
	return s.syncLocked()
}

// Close writes the pending records, syncs and closes the store, and releases
// the directory's lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.f != nil {
		err = s.flushLocked()
		if serr := s.syncLocked(); err == nil {
			err = serr
		}
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
		s.f = nil
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
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
	if err := s.flushLocked(); err != nil {
		return nil, err
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
	var buf []byte
	var kept []Record
	for i := range recs {
		if keep(&recs[i]) {
			if buf, err = AppendRecord(buf, &recs[i]); err != nil {
				return nil, fmt.Errorf("results: %w", err)
			}
			buf = append(buf, '\n')
			kept = append(kept, recs[i])
		}
	}
	if err := fileutil.WriteFileAtomicIn(s.dir, s.name, buf); err != nil {
		return nil, err
	}
	f, err := fileutil.OpenFileIn(s.dir, s.name, os.O_RDWR, 0)
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
	var lines []recordLine
	var good int64
	for num := 1; len(data) > 0; num++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			if warn != nil && len(bytes.TrimSpace(data)) > 0 {
				warn(fmt.Sprintf("%s:%d: dropping a torn last line (%d bytes without a final newline) left by an interrupted run", path, num, len(data)))
			}
			break
		}
		if text := data[:nl]; len(bytes.TrimSpace(text)) > 0 {
			lines = append(lines, recordLine{text: text, num: num})
		}
		data = data[nl+1:]
		good += int64(nl + 1)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(lines)/minDecodeLines))
	recs, err := decodeRecords(lines, path, workers)
	if err != nil {
		return nil, 0, err
	}
	return recs, good, nil
}

// minDecodeLines is the fewest record lines worth a goroutine of their own
// when readRecords decodes a file: about 10 ms of decoding at ~1 KB a
// record (BenchmarkReadRecords: 39 µs a record on one core).
const minDecodeLines = 256

// recordLine is a non-blank complete line of a trials file and its line
// number (from 1).
type recordLine struct {
	text []byte
	num  int
}

// decodeRecords decodes lines into records, in order, on workers goroutines
// that each take a contiguous run of the lines (decoding is most of the time
// of reading a large store: a report on the 27 stores of make reproduce,
// 117 MB of records, spent 65% of its time there). When several lines are bad
// the error names the first of them, as a sequential decode would.
func decodeRecords(lines []recordLine, path string, workers int) ([]Record, error) {
	recs := make([]Record, len(lines))
	workers = max(1, min(workers, len(lines)))
	per := (len(lines) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, len(lines)), min((w+1)*per, len(lines))
		wg.Go(func() { errs[w] = decodeRun(recs[lo:hi], lines[lo:hi], path) })
	}
	wg.Wait()
	// The runs are in line order and each stops at its first bad line, so
	// the first error found is the first bad line of the file.
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// decodeRun decodes lines into dst (of the same length), stopping at the
// first line that is not a record this dplab can read.
func decodeRun(dst []Record, lines []recordLine, path string) error {
	for k, l := range lines {
		// UnmarshalJSON checks the syntax itself (json.Unmarshal would check
		// it once more before calling it).
		if err := dst[k].UnmarshalJSON(l.text); err != nil {
			return &CorruptError{Path: path, Line: l.num, Err: err}
		}
		if dst[k].Schema > SchemaVersion {
			return &CorruptError{Path: path, Line: l.num, Err: fmt.Errorf("record schema %d is newer than this dplab's (%d)", dst[k].Schema, SchemaVersion)}
		}
	}
	return nil
}

// Latest returns, for each key, the last ok record, sorted by (cell, trial).
// Failed and skipped records are ignored.
func Latest(recs []Record) []Record {
	order := latestOrder(recs)
	if len(order) == 0 {
		return nil
	}
	out := make([]Record, len(order))
	for n, i := range order {
		out[n] = recs[i]
	}
	return out
}

// latestOrder returns the indices in recs of Latest's records, in its
// order. Records are large: sorting indices moves none of them.
func latestOrder(recs []Record) []int {
	idx := make(map[Key]int, len(recs))
	var order []int
	for i := range recs {
		r := &recs[i]
		if r.Status != StatusOK {
			continue
		}
		k := r.Key()
		if j, ok := idx[k]; ok {
			order[j] = i
			continue
		}
		idx[k] = len(order)
		order = append(order, i)
	}
	slices.SortFunc(order, func(i, j int) int {
		if c := strings.Compare(recs[i].CellKey, recs[j].CellKey); c != 0 {
			return c
		}
		return cmp.Compare(recs[i].Trial, recs[j].Trial)
	})
	return order
}

// latestOf is latestOrder of the records recs[i], i in order, when
// they are in (cell, trial) order, as a renderer hands them over: the last
// of each run of ok records with one key is the latest, so one pass finds
// them without hashing or sorting. It reports false, having found nothing,
// when the ok records are not in that order.
func latestOf(recs []Record, order []int) ([]int, bool) {
	latest := make([]int, 0, len(order))
	for _, i := range order {
		r := &recs[i]
		if r.Status != StatusOK {
			continue
		}
		if n := len(latest); n > 0 {
			p := &recs[latest[n-1]]
			c := strings.Compare(p.CellKey, r.CellKey)
			if c == 0 {
				c = cmp.Compare(p.Trial, r.Trial)
			}
			switch {
			case c > 0:
				return nil, false
			case c == 0:
				latest[n-1] = i // a later rerun of the same trial
				continue
			}
		}
		latest = append(latest, i)
	}
	return latest, true
}
