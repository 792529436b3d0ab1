package external

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/npy"
)

// tailBytes is how much of a worker's stderr an error quotes.
const tailBytes = 4096

// maxLine bounds one reply line (a model of millions of coefficients
// fits); a variable for the tests.
var maxLine = 256 << 20

var requestID atomic.Int64

func nextID() int64 { return requestID.Add(1) }

// pool holds the idle workers of one command and the training data written
// for them.
type pool struct {
	cfg  Config
	mu   sync.Mutex
	idle []*worker
	busy int
	dir  string    // the data directory, made on first use
	lock io.Closer // holds dir's lock (newStaging) until it is removed
}

var (
	poolsMu sync.Mutex
	pools   = map[string]*pool{}
)

// poolKey: workers of the same argv, directory and output (the protocol
// version of their hello) are interchangeable.
func poolKey(c Config) string {
	return c.Dir + "\x00" + c.Output + "\x00" + strings.Join(c.Command, "\x00")
}

func poolFor(c Config) *pool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	k := poolKey(c)
	p := pools[k]
	if p == nil {
		p = &pool{cfg: c}
		pools[k] = p
	}
	return p
}

// closePool stops the idle workers of c's pool and, when none is busy,
// removes its data directory.
func closePool(c Config) error {
	poolsMu.Lock()
	p := pools[poolKey(c)]
	poolsMu.Unlock()
	if p == nil {
		return nil
	}
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	dir, lock := "", io.Closer(nil)
	if p.busy == 0 {
		dir, p.dir, lock, p.lock = p.dir, "", p.lock, nil
	}
	p.mu.Unlock()
	for _, w := range idle {
		w.stop()
	}
	if dir == "" {
		return nil
	}
	err := os.RemoveAll(dir)
	lock.Close()
	return err
}

// stagingPrefix names the data directories in the temporary directory.
const stagingPrefix = "dplab-staging-"

// staleAge is how old a data directory must be (its modification time) to
// be taken for stale: a younger one may not be locked by its maker yet.
const staleAge = time.Minute

// newStaging makes a data directory in the temporary directory, locked
// while the returned closer is open, after removing the stale ones: those
// older than staleAge whose lock no process holds. A lock dies with its
// process, so the directories of a dplab that was killed (SIGKILL, a crash)
// go at the next start of a worker's data. (Directories of other users,
// which one cannot remove, and, where there are no such locks, every
// directory are left alone.) A new directory whose lock cannot be taken
// for another reason is an error: unlocked, another dplab would take it
// for stale.
func newStaging() (string, io.Closer, error) {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), stagingPrefix+"*"))
	for _, d := range old {
		if st, err := os.Lstat(d); err != nil || !st.IsDir() || time.Since(st.ModTime()) < staleAge {
			continue
		}
		if l, err := lockDir(d); err == nil {
			os.RemoveAll(d)
			l.Close()
		}
	}
	dir, err := os.MkdirTemp("", stagingPrefix)
	if err != nil {
		return "", nil, err
	}
	l, err := lockDir(dir)
	if errors.Is(err, errNoLocks) {
		// The others' lockDir fails alike, so none takes the directory
		// for stale.
		l, err = nopCloser{}, nil
	}
	if err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("lock the data directory %s: %w", dir, err)
	}
	return dir, l, nil
}

// errNoLocks is lockDir's error where there are no directory locks (no
// flock, or a file system without it).
var errNoLocks = errors.New("no directory locks here")

// lockDir is tryLock; a variable for the tests.
var lockDir = tryLock

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// dataDir returns the pool's data directory (newStaging), made on first
// use and again after Close removed it.
func (p *pool) dataDir() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dir == "" {
		dir, lock, err := newStaging()
		if err != nil {
			return "", err
		}
		p.dir, p.lock = dir, lock
	}
	return p.dir, nil
}

// enter marks a fit as running (its data must stay), until leave.
func (p *pool) enter() {
	p.mu.Lock()
	p.busy++
	p.mu.Unlock()
}

func (p *pool) leave() {
	p.mu.Lock()
	p.busy--
	p.mu.Unlock()
}

// data writes train's features and labels as .npy files into the pool's
// data directory (stageOnce) and returns them. Nothing is held in memory
// beyond train: the files are streamed.
func (p *pool) data(train *datasets.Dataset) (trainFiles, error) {
	n, d := train.Rows(), train.Cols()
	files := trainFiles{Rows: n, Cols: d}
	var err error
	if files.X, err = p.stageOnce(train, "external/npy/x", "x-", func(w io.Writer) error {
		return npy.WriteRows(w, []int{n, d}, n, train.X.RawRowView)
	}); err != nil {
		return files, err
	}
	files.Y, err = p.stageOnce(train, "external/npy/y", "y-", func(w io.Writer) error {
		return npy.Write(w, []int{n}, train.Y)
	})
	return files, err
}

// stageOnce returns the path of the file encode writes, staged into the
// pool's data directory once per key of train: named prefix + its
// content's SHA-256 (memoised on train once written — a failed write is
// not remembered, the next fit writes again), and written again only if
// the directory was removed since (Close).
func (p *pool) stageOnce(train *datasets.Dataset, key, prefix string, encode func(io.Writer) error) (string, error) {
	dir, err := p.dataDir()
	if err != nil {
		return "", err
	}
	m, _ := train.Memo(key, func() (any, error) { return &stagedFile{}, nil })
	st := m.(*stagedFile)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.name != "" {
		path := filepath.Join(dir, st.name)
		if _, err := os.Stat(path); err == nil {
			return path, nil // written by an earlier fit
		}
		_, err := stage(dir, encode, func(string) string { return st.name })
		return path, err
	}
	name, err := stage(dir, encode, func(sum string) string { return prefix + sum[:24] + ".npy" })
	if err != nil {
		return "", err
	}
	st.name = name
	return filepath.Join(dir, name), nil
}

// stagedFile is the name of a file stageOnce staged, "" until it has been
// written once.
type stagedFile struct {
	mu   sync.Mutex
	name string
}

// stage streams write into a temporary file of dir, then renames it to
// name(the hex SHA-256 of what was written), so that a worker never reads
// a partial file and concurrent writers of the same content do not clash;
// it returns that name.
func stage(dir string, write func(io.Writer) error, name func(sum string) string) (string, error) {
	tmp, err := os.CreateTemp(dir, "part-*")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	werr := write(io.MultiWriter(tmp, h))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	nm := name(hex.EncodeToString(h.Sum(nil)))
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, nm))
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return nm, werr
}

// call sends req to an idle worker (or a new one) and hands its reply,
// read within timeout (the calling block's: blocks sharing a command share
// its pool), to check. A failure of the worker (exit, timeout, a line that is not the
// reply, a reply check refuses) discards it and is an error quoting its
// stderr's tail; an error reply (errReply from check) keeps it; ctx's
// cancellation kills it and returns ctx.Err().
func (p *pool) call(ctx context.Context, req request, timeout time.Duration, check func(*reply) error) error {
	p.mu.Lock()
	var w *worker
	if n := len(p.idle); n > 0 {
		w, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if w == nil {
		var err error
		if w, err = start(ctx, p.cfg, max(timeout, StartTimeout)); err != nil {
			return err
		}
	}
	rep, err := w.roundTrip(ctx, req, timeout)
	if err == nil {
		err = check(rep)
	}
	var er *errReply
	if err != nil && !errors.As(err, &er) {
		w.stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return w.fail(err)
	}
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
	return err
}

// errReply is a worker's error reply: it failed the trial and lives on.
type errReply struct{ msg string }

// Error puts the message's last line first (a traceback's exception, which
// run summaries that show the first line only then show), then the whole.
func (e *errReply) Error() string {
	msg := strings.TrimSpace(e.msg)
	last := msg[strings.LastIndexByte(msg, '\n')+1:]
	if last == msg {
		return "external: the worker reported an error: " + msg
	}
	return "external: the worker reported an error: " + last + "\n" + msg
}

// worker is one running worker process.
type worker struct {
	argv   []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // complete lines of stdout; closed at EOF
	done   chan struct{} // closed by stop: the stdout reader stops sending
	once   sync.Once
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
	werr   error         // cmd.Wait's error, once exited is closed
	rerr   error         // why the stdout reader stopped, once lines is closed
}

// start starts a worker and completes the hello handshake.
func start(ctx context.Context, c Config, timeout time.Duration) (*worker, error) {
	cmd := exec.Command(c.Command[0], c.Command[1:]...)
	cmd.Dir = c.Dir
	ownGroup(cmd) // a terminal's Ctrl-C reaches dplab, which stops the worker
	w := &worker{argv: c.Command, cmd: cmd, lines: make(chan []byte, 1), done: make(chan struct{}), stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr open does not hang Wait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("external: start the worker %q: %w", c.Command, err)
	}
	pw.Close()
	w.stdin = stdin
	go func() {
		defer pr.Close()
		defer close(w.lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, min(64<<10, maxLine)), maxLine)
		for sc.Scan() {
			select {
			case w.lines <- bytes.Clone(sc.Bytes()):
			case <-w.done: // lines nobody reads: a stopped worker's
				return
			}
		}
		w.rerr = sc.Err()
	}()
	go func() {
		w.werr = cmd.Wait()
		close(w.exited)
	}()
	hello := map[string]any{"type": "hello", "protocol": c.protocol()}
	var got struct {
		Type     string `json:"type"`
		Protocol int    `json:"protocol"`
	}
	if err := w.exchange(ctx, hello, timeout, func(line []byte) error {
		if err := json.Unmarshal(line, &got); err != nil || got.Type != "hello" {
			return fmt.Errorf("the worker's first line is not its hello: %q", clip(line))
		}
		if err := c.checkProtocol(got.Protocol); err != nil {
			return err
		}
		return nil
	}); err != nil {
		w.stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, w.fail(fmt.Errorf("start-up: %w", err))
	}
	return w, nil
}

// roundTrip sends a fit request and reads its reply.
func (w *worker) roundTrip(ctx context.Context, req request, timeout time.Duration) (*reply, error) {
	var rep reply
	err := w.exchange(ctx, req, timeout, func(line []byte) error {
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&rep); err != nil {
			return fmt.Errorf("the worker wrote a line that is not a JSON reply (%v): %q", err, clip(line))
		}
		if rep.ID != req.ID || (rep.Type != "result" && rep.Type != "error") {
			return fmt.Errorf("the worker's line is not the reply to request %d: %q", req.ID, clip(line))
		}
		if rep.Type == "result" {
			return nullIn(line)
		}
		return nil
	})
	return &rep, err
}

// nullIn refuses a JSON null inside a value of the reply line (Go decodes
// it into a number as 0, into a list of numbers as an element 0): where the
// protocol wants a number, a null is an error. A null value of a top-level
// key counts as the key's absence.
func nullIn(line []byte) error {
	if !bytes.Contains(line, []byte("null")) { // the common case: no walk
		return nil
	}
	var top map[string]any
	if err := json.Unmarshal(line, &top); err != nil {
		return fmt.Errorf("the worker's reply: %w", err)
	}
	var walk func(v any, path string) string
	walk = func(v any, path string) string {
		switch v := v.(type) {
		case nil:
			return path
		case map[string]any:
			keys := slices.Sorted(maps.Keys(v))
			for _, k := range keys {
				if p := walk(v[k], path+"."+k); p != "" {
					return p
				}
			}
		case []any:
			for i, e := range v {
				if p := walk(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if top[k] == nil {
			continue
		}
		if p := walk(top[k], k); p != "" {
			return fmt.Errorf("the worker's reply has null at %s: numbers must be JSON numbers (null is not 0)", p)
		}
	}
	return nil
}

// mib is n bytes in MiB, for messages.
func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// exchange writes msg as one line and hands the next stdout line to read,
// within timeout.
func (w *worker) exchange(ctx context.Context, msg any, timeout time.Duration, read func([]byte) error) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	written := make(chan error, 1)
	go func() { _, err := w.stdin.Write(append(b, '\n')); written <- err }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case err := <-written:
			if err != nil {
				return fmt.Errorf("write the request: %w", err)
			}
			written = nil
		case line, ok := <-w.lines:
			if !ok {
				if errors.Is(w.rerr, bufio.ErrTooLong) { // rerr is set before lines closes
					return fmt.Errorf("the worker wrote a line longer than dplab's limit of %s on a reply line", mib(maxLine))
				}
				return errors.New("the worker closed its stdout (it exited?)")
			}
			return read(line)
		case <-timer.C:
			return fmt.Errorf("no reply within the timeout of %v: the worker was killed", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stop closes the worker's stdin, gives it 200 ms to exit, then kills its
// process group (the worker, if it still runs, and whatever it started,
// which would outlive a worker that exits) and waits for it; its stdout
// reader ends (done) even with lines unread.
func (w *worker) stop() {
	w.once.Do(func() { close(w.done) })
	w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(200 * time.Millisecond):
	}
	kill(w.cmd)
	<-w.exited
}

// fail is err with the worker's command, exit status and stderr tail, the
// worker having been stopped.
func (w *worker) fail(err error) error {
	msg := fmt.Sprintf("external worker %q: %v", w.argv, err)
	select {
	case <-w.exited:
		if w.werr != nil {
			msg += fmt.Sprintf(" (%v)", w.werr)
		}
	default:
	}
	if t := strings.TrimSpace(w.stderr.String()); t != "" {
		msg += "\nstderr tail:\n" + t
	} else {
		msg += "\nstderr: (empty)"
	}
	return errors.New(msg)
}

// clip shortens a line quoted in an error.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// tail keeps the last tailBytes bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the tail, from its first whole line when cut.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if len(t.buf) == tailBytes {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return s
}

// FileSHA256 returns the hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
