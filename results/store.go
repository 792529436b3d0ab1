package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	// writebackBytes is how much the store writes between two requests
	// that the kernel start writing the file back (startWriteback): a
	// request can wait for the previous one's I/O (up to 17 ms at
	// load 25), so it is made once per MiB rather than once per flush.
	writebackBytes = 1 << 20
	flushDelay     = 100 * time.Millisecond
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
	done     KeySet // the settled trials (Record.Settled), read and appended
	pending  []byte // encoded lines not yet written
	ends     []pendingEnd
	written  map[string]int // the records Append wrote to the file, by status
	timer    *time.Timer    // writes pending at most flushDelay after it started; nil when idle
	err      error          // the first failed write: the store takes no more records
	lastSync time.Time
	dirty    bool
	unsent   int // bytes written since the kernel was last asked to write them back
}

// pendingEnd is where a pending line ends in Store.pending, and its
// record's status.
type pendingEnd struct {
	end    int
	status string
}

// Open opens (creating if needed) the store in dir for appending. It first
// checks that dir is a result directory (CheckDir) and takes the directory's
// exclusive lock; if another process holds it, Open returns a *BusyError
// having changed nothing. Only then does it read the records already there,
// calling visit (unless nil) with each in file order: a torn last line
// (bytes without a final newline, left by a killed run) is dropped with a
// warning to warn and truncated away; a complete line that is not a record
// is a *CorruptError and nothing is changed. The records are read in
// bounded chunks and not kept: visit's record is valid only during the
// call. It returns the store positioned for appending.
func Open(dir string, warn func(string), visit func(*Record)) (_ *Store, err error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	lock, err := lockDir(dir, LockFile)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlockDir(lock)
		}
	}()
	return openFile(dir, TrialsFile, lock, warn, visit)
}

// openFile opens (creating if needed) the store file name in the result
// directory dir for appending (fileutil.OpenFileIn: never through a
// symbolic link), with lock (nil: none) as the guarantee that no other
// process writes it: it reads the records there (calling visit, unless
// nil, with each), truncates a torn tail, and returns the store positioned
// for appending.
func openFile(dir, name string, lock *os.File, warn func(string), visit func(*Record)) (*Store, error) {
	path := filepath.Join(dir, name)
	f, err := fileutil.OpenFileIn(dir, name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	s := &Store{dir: dir, name: name, path: path, lock: lock, f: f, lastSync: time.Now()}
	good, err := scanRecords(f, path, warn, func(r *Record) {
		s.noteDone(r)
		if visit != nil {
			visit(r)
		}
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	// Truncate a torn tail so the next append starts on a fresh line. The
	// lock (the directory's, or a shard file's own) guarantees no live
	// writer is behind it.
	if st, err := f.Stat(); err == nil && st.Size() != good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("results: truncate torn line of %s: %w", path, err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %w", err)
	}
	return s, nil
}

// noteDone adds r's trial to the settled ones when r is settled (ok or
// infeasible).
func (s *Store) noteDone(r *Record) {
	if r.Settled() {
		s.done.Add(r.Key())
	}
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Done reports whether trial k is stored settled: with status ok or
// infeasible (Record.Settled).
func (s *Store) Done(k Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done.Has(k)
}

// Append adds r to the store as one line (json.Marshal's encoding, as
// AppendRecord's). The line is written with others in one write call within
// flushDelay (see flushBytes); Sync and Close write at once. A failed
// write is returned by this or a later call, and the store then takes no
// more records.
func (s *Store) Append(r Record) error {
	r.Schema = SchemaVersion
	line, err := json.Marshal(&r)
	if err != nil {
		return fmt.Errorf("results: encode trial %d of cell %s: %w", r.Trial, r.CellKey, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: append to a closed store")
	}
	if s.err != nil {
		return s.err
	}
	s.pending = append(append(s.pending, line...), '\n')
	s.ends = append(s.ends, pendingEnd{len(s.pending), r.Status})
	s.noteDone(&r)
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
	n, err := s.f.Write(s.pending)
	for _, e := range s.ends {
		if e.end <= n { // a whole line reached the file
			if s.written == nil {
				s.written = map[string]int{}
			}
			s.written[e.status]++
		}
	}
	s.ends = s.ends[:0]
	if err != nil {
		// A short write may leave a torn line: nothing may follow it.
		s.err = fmt.Errorf("results: write %s: %w", s.path, err)
		return s.err
	}
	s.pending = s.pending[:0]
	s.dirty = true
	if s.unsent += n; s.unsent >= writebackBytes {
		startWriteback(s.f)
		s.unsent = 0
	}
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

// size returns the length of the store's file once the records appended
// so far are written.
func (s *Store) size() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return 0, errors.New("results: size of a closed store")
	}
	if err := s.flushLocked(); err != nil {
		return 0, err
	}
	n, err := s.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	return n, nil
}

// truncate cuts the store's file back to size bytes (size's), dropping the
// records appended since, written or pending, and a failed write's torn
// line, and syncs it: MergeShards appends all of its records or none.
// Done and Written are not updated: the store is closed next.
func (s *Store) truncate(size int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: truncate a closed store")
	}
	s.pending, s.ends, s.err = s.pending[:0], s.ends[:0], nil
	if err := s.f.Truncate(size); err != nil {
		return fmt.Errorf("results: truncate %s: %w", s.path, err)
	}
	if _, err := s.f.Seek(size, io.SeekStart); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	s.dirty = true
	return s.syncLocked()
}

// Written returns how many of the records appended are in the file, by
// status (a Record.Status): after a failed write, those appended but not
// written (or written in part) are not.
func (s *Store) Written() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.written)
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

// Scan calls visit with each record of the store in dir, in file order,
// without modifying the store and without its lock. A torn last line is
// skipped with a warning; a missing file is no records. The file is read and
// decoded in bounded chunks (scanChunk) and no record is kept: visit's
// record is valid only during the call.
func Scan(dir string, warn func(string), visit func(*Record)) error {
	return scanFile(filepath.Join(dir, TrialsFile), warn, visit)
}

// scanFile is Scan of the records file at path: a missing file is no
// records.
func scanFile(path string, warn func(string), visit func(*Record)) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	_, err = scanRecords(f, path, warn, visit)
	return err
}

// Source calls visit with each record of a store, in the store's order:
// FromDir's records of a result directory, or FromSlice's held in memory.
// The record is valid only during the call.
type Source func(visit func(*Record)) error

// FromDir is the Source of the store in dir, scanned (Scan) at each call.
func FromDir(dir string, warn func(string)) Source {
	return func(visit func(*Record)) error { return Scan(dir, warn, visit) }
}

// FromSlice is the Source of recs, in order.
func FromSlice(recs []Record) Source {
	return func(visit func(*Record)) error {
		for i := range recs {
			visit(&recs[i])
		}
		return nil
	}
}

// Read returns the records of the store in dir without modifying it (Scan,
// keeping every record: for small stores and tests; the CLI's commands
// scan). A torn last line is skipped with a warning. A missing file is no
// records.
func Read(dir string, warn func(string)) ([]Record, error) {
	var recs []Record
	err := Scan(dir, warn, func(r *Record) { recs = append(recs, *r) })
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// Rewrite atomically replaces the store's file with its records for which
// keep returns true (--force drops the cells about to rerun). It runs under
// the lock the open store holds, so no other run is writing; the records
// are streamed into a temporary file that is synced and renamed over the
// store (a crash leaves the old or the new content), and the store appends
// to the new file afterwards.
func (s *Store) Rewrite(keep func(*Record) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("results: rewrite a closed store")
	}
	if err := s.flushLocked(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var done KeySet
	var buf []byte
	var readErr error // a corrupt store is returned as it is, not as a failed write
	err := fileutil.WriteAtomicIn(s.dir, s.name, func(w io.Writer) error {
		var werr error
		_, readErr = scanRecords(s.f, s.path, nil, func(r *Record) {
			if werr != nil || !keep(r) {
				return
			}
			if buf, werr = AppendRecord(buf[:0], r); werr != nil {
				werr = fmt.Errorf("results: %w", werr)
				return
			}
			buf = append(buf, '\n')
			if _, werr = w.Write(buf); werr == nil && r.Settled() {
				done.Add(r.Key())
			}
		})
		if readErr != nil {
			return readErr
		}
		return werr
	})
	if readErr != nil {
		err = readErr
	}
	if _, serr := s.f.Seek(0, io.SeekEnd); err == nil && serr != nil {
		err = fmt.Errorf("results: %w", serr)
	}
	if err != nil {
		return err
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
		return fmt.Errorf("results: reopen %s after rewriting it: %w", s.path, err)
	}
	s.f.Close()
	s.f = f
	s.dirty = false
	s.done = done
	return nil
}

// scanChunk is how many bytes of a records file scanRecords reads, and
// decodes, at a time: about 4,000 records of ~1 KB, enough for every core
// to decode a run of them (minDecodeLines) while the memory of a read stays
// a few MB whatever the store's size. A longer line grows the buffer.
const scanChunk = 4 << 20

// scanRecords reads JSONL records from r, calling visit with each in order,
// and returns the byte length of the well-formed prefix (every complete
// line). It reads scanChunk bytes at a time and decodes the complete lines
// among them concurrently (decodeRecords), then visits them; the records
// are reused for the next chunk.
//
// The appender writes a record and its newline in one write call, so only the
// last line can be unfinished: a last line without its newline is torn (a
// partial record, or the NUL bytes some filesystems leave after a crash) and
// is dropped with a warning. Every complete line must be a record (or blank):
// one that does not parse, wherever it is, is a *CorruptError naming it, since
// dropping it could silently lose a finished trial.
func scanRecords(r io.Reader, path string, warn func(string), visit func(*Record)) (int64, error) {
	buf := make([]byte, 0, scanChunk)
	var lines []recordLine
	var recs []Record
	var good int64
	num := 1 // the number of the next line
	for eof := false; !eof; {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			eof = true
		case err != nil:
			return 0, fmt.Errorf("results: read %s: %w", path, err)
		}
		end := bytes.LastIndexByte(buf, '\n') + 1 // the complete lines
		if end == 0 && len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf)) // one line longer than the buffer
			continue
		}
		lines = lines[:0]
		for data := buf[:end]; len(data) > 0; num++ {
			nl := bytes.IndexByte(data, '\n')
			if text := data[:nl]; len(bytes.TrimSpace(text)) > 0 {
				lines = append(lines, recordLine{text: text, num: num})
			}
			data = data[nl+1:]
		}
		good += int64(end)
		if len(lines) > 0 {
			recs = slices.Grow(recs[:0], len(lines))[:len(lines)]
			workers := max(1, min(runtime.GOMAXPROCS(0), len(lines)/minDecodeLines))
			if err := decodeRecords(recs, lines, path, workers); err != nil {
				return 0, err
			}
			for i := range recs {
				visit(&recs[i])
			}
		}
		buf = buf[:copy(buf, buf[end:])]
	}
	if warn != nil && len(bytes.TrimSpace(buf)) > 0 {
		warn(fmt.Sprintf("%s:%d: dropping a torn last line (%d bytes without a final newline) left by an interrupted run", path, num, len(buf)))
	}
	return good, nil
}

// minDecodeLines is the fewest record lines worth a goroutine of their own
// when scanRecords decodes a chunk: about 10 ms of decoding at ~1 KB a
// record (BenchmarkReadRecords: 39 µs a record on one core).
const minDecodeLines = 256

// recordLine is a non-blank complete line of a trials file and its line
// number (from 1).
type recordLine struct {
	text []byte
	num  int
}

// decodeRecords decodes lines into recs (of the same length), in order, on
// workers goroutines that each take a contiguous run of the lines (decoding
// is most of the time of reading a large store: a report on the 27 stores of
// make reproduce, 117 MB of records, spent 65% of its time there). When
// several lines are bad the error names the first of them, as a sequential
// decode would.
func decodeRecords(recs []Record, lines []recordLine, path string, workers int) error {
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
			return err
		}
	}
	return nil
}

// decodeRun decodes lines into dst (of the same length), stopping at the
// first line that is not a record this dplab can read. Each record is
// decoded from its zero value (decoding into a used one would merge maps).
func decodeRun(dst []Record, lines []recordLine, path string) error {
	for k, l := range lines {
		dst[k] = Record{}
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
