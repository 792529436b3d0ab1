package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// ParseCache keeps what file-backed loaders return (the Loaded datasets,
// before any split or scaling) in binary files, so a process that loads a
// dataset whose files another process has already parsed reads the matrices
// back instead of parsing CSV, LibSVM or IDX text again. An entry is keyed by
// the SHA-256 of every verified stored file (from VerifyFiles: nothing is
// hashed again), the registry name, the loader's params (JSON of the typed
// params struct), loaderVersion, the file layout version and the host's byte
// order. Anything wrong with an entry (absent, truncated, another magic,
// layout, key or length, a CRC-32C of its bytes that does not match) is
// ignored and the files are parsed: the cache never causes an error or
// returns other data than the loader would. Entries are written through a
// temporary file renamed over the entry, so concurrent processes read either
// a whole entry or none; each process that misses parses and writes the same
// bytes. The directory is bounded: an entry larger than MaxEntry is not
// stored, and after a store the least recently used entries (by modification
// time, which a hit refreshes) are removed until the total is at most
// MaxBytes. It is safe for concurrent use.
type ParseCache struct {
	dir string // "" disables the cache

	// MaxBytes bounds the total size of the entries; MaxEntry that of one.
	MaxBytes, MaxEntry int64

	hits, misses atomic.Int64
}

// loaderVersion identifies what the file-backed loaders return for given
// files and params. Bump it whenever a loader's output may change for the
// same files (parsing, preprocessing, defaults): entries of another version
// are never read. TestLoaderFingerprints fails when a loader's output on the
// shared data changes while it stays.
const loaderVersion = 1

// parseCacheFormat is the layout version of an entry file.
const parseCacheFormat = 1

// parseCacheMagic opens every entry file.
const parseCacheMagic = "DPLABPC\x00"

// Default bounds of a ParseCache: 2 GiB in all, 512 MiB an entry (a
// Fashion-MNIST of 70,000 × 784 values is 439 MB).
const (
	DefaultParseCacheMaxBytes = 2 << 30
	DefaultParseCacheMaxEntry = 512 << 20
)

// parseCacheHeader is the size of an entry's header: magic, layout version,
// key, total size.
const parseCacheHeader = len(parseCacheMagic) + 8 + sha256.Size + 8

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// byteOrderName is the host's byte order, part of every key: floats are
// stored as they lie in memory.
var byteOrderName = map[bool]string{true: "little-endian", false: "big-endian"}[binary.NativeEndian.Uint16([]byte{1, 0}) == 1]

// NoParseCacheEnv disables the parse cache when set to anything but "" or "0".
const NoParseCacheEnv = "DPLAB_NO_PARSE_CACHE"

// NewParseCache returns a cache kept in the directory dir (created on the
// first store) with the default bounds; "" disables it (every load parses).
func NewParseCache(dir string) *ParseCache {
	return &ParseCache{dir: dir, MaxBytes: DefaultParseCacheMaxBytes, MaxEntry: DefaultParseCacheMaxEntry}
}

// ParseCacheDir is os.UserCacheDir()/dplab/parsed, beside the verify cache
// and outside the data directory (which may be read-only), or "" on a system
// without a user cache directory.
func ParseCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "dplab", "parsed")
}

// DefaultParseCacheDir is the directory of the runs' parse cache:
// ParseCacheDir, or "" (disabled) when $DPLAB_NO_PARSE_CACHE is set to
// anything but "0".
func DefaultParseCacheDir() string {
	if v := os.Getenv(NoParseCacheEnv); v != "" && v != "0" {
		return ""
	}
	return ParseCacheDir()
}

// Dir returns the cache directory ("" when disabled).
func (c *ParseCache) Dir() string { return c.dir }

// Hits returns how many loads this cache answered from an entry.
func (c *ParseCache) Hits() int64 { return c.hits.Load() }

// Misses returns how many loads this cache passed to the loader.
func (c *ParseCache) Misses() int64 { return c.misses.Load() }

// LoadVerified is Load for a dataset whose files VerifyFiles(dir, …) has
// just returned as files: a file-backed dataset's output is read from the
// parse cache c when an entry for these files and params is there, and
// otherwise loaded and stored. A generator, a user-file dataset, a nil or
// disabled cache, or no verified files: Load.
func (e Entry) LoadVerified(dir string, files []VerifiedFile, decode func(v any) error, c *ParseCache) (*Loaded, error) {
	if e.cached == nil || c == nil || c.dir == "" || len(files) == 0 {
		return e.Load(dir, decode)
	}
	return e.cached(dir, decode, files, c)
}

// load returns the entry of (name, params, files), or parse's result, which
// it stores.
func (c *ParseCache) load(name string, params []byte, files []VerifiedFile, parse func() (*Loaded, error)) (*Loaded, error) {
	key := parseKey(name, params, files)
	path := filepath.Join(c.dir, hex.EncodeToString(key[:16])+".bin")
	if l, ok := readParsed(path, key); ok {
		c.hits.Add(1)
		now := time.Now()
		_ = os.Chtimes(path, now, now) // least recently used goes first
		return l, nil
	}
	c.misses.Add(1)
	l, err := parse()
	if err != nil {
		return nil, err
	}
	if size, ok := parsedSize(l); ok && size <= c.MaxEntry {
		if writeAtomic(path, ".parse-*", func(w io.Writer) error { return writeParsed(w, key, size, l) }) == nil {
			c.evict()
		}
	}
	return l, nil
}

// parseKey is the SHA-256 that names an entry.
func parseKey(name string, params []byte, files []VerifiedFile) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "dplab parse cache\x00layout %d\x00loader %d\x00%s\x00%s\x00%s\x00",
		parseCacheFormat, loaderVersion, byteOrderName, name, params)
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Rel, f.SHA256)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// parsedParts are l's datasets in stored order, nil where absent.
func parsedParts(l *Loaded) [3]*Dataset { return [3]*Dataset{l.All, l.Train, l.Test} }

// parsedSize returns the size of l's entry file, or false when l is not
// stored: a part with an empty matrix, a matrix whose rows are not
// contiguous, or targets that are not one a row.
func parsedSize(l *Loaded) (int64, bool) {
	size := int64(parseCacheHeader + 8 + 4) // header, parts mask, CRC
	for _, d := range parsedParts(l) {
		if d == nil {
			continue
		}
		if d.X == nil {
			return 0, false
		}
		n, cols := d.X.Dims()
		if n == 0 || cols == 0 || d.X.RawMatrix().Stride != cols || len(d.Y) != n {
			return 0, false
		}
		size += 8 + 8 + int64(len(d.Name)) + 8 + 8 + 8 // task, name, rows, cols, features count
		for _, f := range d.Features {
			size += 8 + int64(len(f))
		}
		size += 8 * int64(n*cols+n)
	}
	return size, true
}

// writeParsed writes l's entry of the given size (parsedSize) to w. Layout,
// integers as uint64 and floats as float64 in the host's byte order: the
// header (magic, layout version, key, total size), a mask of the parts
// present (1 All, 2 Train, 4 Test), then each part's task, name, rows, cols,
// features count plus one (0: nil) and names (length, bytes), X row-major
// and Y; last, the CRC-32C of all bytes before it.
func writeParsed(w io.Writer, key [sha256.Size]byte, size int64, l *Loaded) error {
	cw := &crcWriter{w: bufio.NewWriterSize(w, 1<<16)}
	cw.write([]byte(parseCacheMagic))
	cw.u64(parseCacheFormat)
	cw.write(key[:])
	cw.u64(uint64(size))
	var mask uint64
	for i, d := range parsedParts(l) {
		if d != nil {
			mask |= 1 << i
		}
	}
	cw.u64(mask)
	for _, d := range parsedParts(l) {
		if d == nil {
			continue
		}
		n, cols := d.X.Dims()
		cw.u64(uint64(d.Task))
		cw.str(d.Name)
		cw.u64(uint64(n))
		cw.u64(uint64(cols))
		if d.Features == nil {
			cw.u64(0)
		} else {
			cw.u64(uint64(len(d.Features)) + 1)
		}
		for _, f := range d.Features {
			cw.str(f)
		}
		cw.write(floatBytes(d.X.RawMatrix().Data[:n*cols]))
		cw.write(floatBytes(d.Y))
	}
	var crc [4]byte
	binary.NativeEndian.PutUint32(crc[:], cw.crc)
	if cw.err == nil {
		_, cw.err = cw.w.Write(crc[:])
	}
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	return cw.err
}

// readParsed returns the entry at path if it is whole and written for key.
func readParsed(path string, key [sha256.Size]byte) (*Loaded, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() < int64(parseCacheHeader+8+4) {
		return nil, false
	}
	cr := &crcReader{r: bufio.NewReaderSize(f, 1<<16), left: st.Size() - 4}
	var head [parseCacheHeader]byte
	cr.read(head[:])
	magic, rest := head[:len(parseCacheMagic)], head[len(parseCacheMagic):]
	if cr.err != nil || string(magic) != parseCacheMagic ||
		binary.NativeEndian.Uint64(rest) != parseCacheFormat ||
		[sha256.Size]byte(rest[8:8+sha256.Size]) != key ||
		binary.NativeEndian.Uint64(rest[8+sha256.Size:]) != uint64(st.Size()) {
		return nil, false
	}
	l := &Loaded{}
	mask := cr.u64()
	if mask == 0 || mask > 7 {
		return nil, false
	}
	for i, p := range []**Dataset{&l.All, &l.Train, &l.Test} {
		if mask&(1<<i) != 0 {
			if *p = cr.dataset(); *p == nil {
				return nil, false
			}
		}
	}
	var crc [4]byte
	if cr.err != nil || cr.left != 0 {
		return nil, false
	}
	if _, err := io.ReadFull(cr.r, crc[:]); err != nil || binary.NativeEndian.Uint32(crc[:]) != cr.crc {
		return nil, false
	}
	return l, true
}

// errParseEntry is a malformed entry (never returned to callers).
var errParseEntry = errors.New("malformed parse cache entry")

// crcWriter writes and checksums, keeping the first error.
type crcWriter struct {
	w   *bufio.Writer
	crc uint32
	err error
}

func (c *crcWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	c.crc = crc32.Update(c.crc, castagnoli, b)
	_, c.err = c.w.Write(b)
}

func (c *crcWriter) u64(v uint64) {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], v)
	c.write(b[:])
}

func (c *crcWriter) str(s string) {
	c.u64(uint64(len(s)))
	c.write([]byte(s))
}

// crcReader reads and checksums at most left bytes, keeping the first
// error; no length it reads can allocate more than what is left.
type crcReader struct {
	r    *bufio.Reader
	crc  uint32
	left int64
	err  error
}

func (c *crcReader) read(b []byte) {
	if c.err != nil {
		return
	}
	if int64(len(b)) > c.left {
		c.err = errParseEntry
		return
	}
	if _, c.err = io.ReadFull(c.r, b); c.err == nil {
		c.crc = crc32.Update(c.crc, castagnoli, b)
		c.left -= int64(len(b))
	}
}

func (c *crcReader) u64() uint64 {
	var b [8]byte
	c.read(b[:])
	return binary.NativeEndian.Uint64(b[:])
}

// count reads a count of items of size bytes each that fit in what is left.
func (c *crcReader) count(size int64) int {
	v := c.u64()
	if c.err == nil && v > uint64(c.left/size) {
		c.err = errParseEntry
	}
	if c.err != nil {
		return 0
	}
	return int(v)
}

func (c *crcReader) str() string {
	b := make([]byte, c.count(1))
	c.read(b)
	return string(b)
}

func (c *crcReader) floats(n int) []float64 {
	if c.err != nil || int64(n) > c.left/8 {
		c.err = errParseEntry
		return nil
	}
	f := make([]float64, n)
	c.read(floatBytes(f))
	return f
}

// dataset reads one part, or returns nil on a malformed one.
func (c *crcReader) dataset() *Dataset {
	task := Task(c.u64())
	name := c.str()
	n, cols := c.count(8), c.count(8)
	if c.err != nil || n == 0 || cols == 0 || int64(n) > c.left/8/int64(cols) || (task != Regression && task != Binary) {
		return nil
	}
	var features []string
	if k := c.count(9); k > 0 {
		features = make([]string, k-1)
		for j := range features {
			features[j] = c.str()
		}
	}
	x := c.floats(n * cols)
	y := c.floats(n)
	if c.err != nil || (features != nil && len(features) != cols) {
		return nil
	}
	return &Dataset{Name: name, Task: task, X: mat.NewDense(n, cols, x), Y: y, Features: features}
}

// floatBytes is f's memory as bytes (the host's byte order).
func floatBytes(f []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 8*len(f))
}

// evict removes the least recently used entries until the total is at most
// MaxBytes, and temporary files older than an hour (a process that died
// while writing). Errors are ignored: another process may be evicting too.
func (c *ParseCache) evict() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		path  string
		size  int64
		mtime time.Time
	}
	var files []entry
	var total int64
	for _, de := range ents {
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		p := filepath.Join(c.dir, de.Name())
		switch {
		case strings.HasPrefix(de.Name(), ".parse-"):
			if time.Since(info.ModTime()) > time.Hour {
				os.Remove(p)
			}
		case strings.HasSuffix(de.Name(), ".bin"):
			files = append(files, entry{p, info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	slices.SortFunc(files, func(a, b entry) int { return a.mtime.Compare(b.mtime) })
	for _, f := range files {
		if total <= c.MaxBytes {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// Clear removes every entry and temporary file of the cache and returns how
// many files and bytes it removed. Other files in the directory are left.
func (c *ParseCache) Clear() (files int, bytes int64, err error) {
	if c.dir == "" {
		return 0, 0, nil
	}
	ents, err := os.ReadDir(c.dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".bin") && !strings.HasPrefix(name, ".parse-") {
			continue
		}
		info, ierr := de.Info()
		if ierr != nil || !info.Mode().IsRegular() {
			continue
		}
		if rerr := os.Remove(filepath.Join(c.dir, name)); rerr != nil {
			if err == nil {
				err = rerr
			}
			continue
		}
		files++
		bytes += info.Size()
	}
	return files, bytes, err
}
