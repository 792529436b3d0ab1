package external

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/npy"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// python returns a python3 interpreter (the test workers need only its
// standard library), or skips.
func python(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("no python3 found: the external-mechanism tests run real worker processes")
	return ""
}

// behaveConfig is a worker running testdata/behave.py.
func behaveConfig(t testing.TB, mode string) Config {
	dir, _ := filepath.Abs("testdata")
	c := Config{Command: []string{python(t), "behave.py"}, Dir: dir, Mode: mode, Timeout: 5 * time.Second}
	if mode == ModeCalibrate {
		c.Event = `{"kind":"gaussian","sigma":"$noise","sensitivity":1}`
	}
	return c
}

func build(t testing.TB, c Config, params map[string]any) *Mechanism {
	t.Helper()
	m, _, err := Entry(c).Build(func(v any) error { return v.(*Params).UnmarshalTOML(params) })
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Mechanism)
}

func budget() mechanisms.Budget {
	return mechanisms.Budget{Epsilon: 1, Delta: 1e-5, Calibrator: accounting.NewCalibrator(accounting.Config{})}
}

// TestWorkerFailuresFailOnlyTheirTrial runs one pooled worker command
// through every kind of failure, each followed by a good trial: a failure
// is an error naming what went wrong with the worker's stderr tail, and the
// next trial succeeds on a new process (its pid differs) — or, after an
// error reply, on the same one.
func TestWorkerFailuresFailOnlyTheirTrial(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Timeout = time.Second
	data := datatest.Tiny(t, datasets.Regression, 50, 3)
	defer closePool(c)
	fit := func(behave string, trial int) (*mechanisms.Release, error) {
		m := build(t, c, map[string]any{"behave": behave})
		return m.Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("ext", behave, string(rune('a'+trial)))))
	}
	ok, err := fit("ok", 0)
	if err != nil {
		t.Fatalf("ok: %v", err)
	}
	pid := ok.Stats["pid"]
	cases := []struct {
		behave, want string
		restart      bool
	}{
		{"exit", "behave: exiting mid-trial", true},
		{"hang", "behave: hanging", true},
		{"garbage", "behave: garbage", true},
		{"nan", "not a JSON reply", true},
		{"shape", "theta has 4 coefficients, the training data 3", true},
		{"badevent", "no_such_kind", true},
		{"nonprivate", `event is {"kind":"non_private"}: an external mechanism is private`, true},
		{"raise", "reported an error: ValueError: behave raised\nTraceback", false},
	}
	for i, tc := range cases {
		start := time.Now()
		_, err := fit(tc.behave, i)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.behave, err, tc.want)
		}
		if tc.behave == "hang" {
			if el := time.Since(start); el > 3*time.Second || !strings.Contains(err.Error(), "timeout") {
				t.Errorf("hang: took %v, error %v; want a timeout after 1 s", el, err)
			}
		}
		if tc.restart && !strings.Contains(err.Error(), "stderr") {
			t.Errorf("%s: the error quotes no stderr: %v", tc.behave, err)
		}
		next, err := fit("ok", 100+i)
		if err != nil {
			t.Fatalf("ok after %s: %v", tc.behave, err)
		}
		if restarted := next.Stats["pid"] != pid; restarted != tc.restart {
			t.Errorf("after %s: worker restarted = %v, want %v", tc.behave, restarted, tc.restart)
		}
		pid = next.Stats["pid"]
	}
}

// TestDeclaredEventIsTheRelease checks that a declare-mode release carries
// the worker's event and model and claims calibration (so that the runner
// fails an overspending trial: Release.CheckSpent).
func TestDeclaredEventIsTheRelease(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Binary, 40, 4)
	rel, err := build(t, c, map[string]any{"behave": "overspend"}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("x")))
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := rel.Event.(accounting.Gaussian); !ok || ev.Sigma != 0.1 || ev.Sensitivity != 1 {
		t.Fatalf("event %#v, want the declared Gaussian σ = 0.1", rel.Event)
	}
	g, _ := accounting.Config{}.Epsilon(rel.Event, 1e-5)
	if err := rel.CheckSpent(g.Epsilon, 1); err == nil {
		t.Errorf("a declared ε = %v over the target 1 passed CheckSpent", g.Epsilon)
	}
	if lin := rel.Model.(*mechanisms.Linear); len(lin.Theta) != 4 || lin.Theta[0] != 0.1 {
		t.Errorf("model %+v", lin)
	}
}

// TestCalibrateMode checks that the noise sent is the calibrator's for the
// family (its ε is the target) and that a worker answering with another
// noise fails.
func TestCalibrateMode(t *testing.T) {
	c := behaveConfig(t, ModeCalibrate)
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 40, 2)
	b := budget()
	rel, err := build(t, c, map[string]any{"behave": "calibrate"}).Fit(context.Background(), data, b, rngs.New(rngs.Derive("c")))
	if err != nil {
		t.Fatal(err)
	}
	want, err := accounting.NewCalibrator(accounting.Config{}).Calibrate(func(x float64) accounting.Event {
		return accounting.Gaussian{Sigma: x, Sensitivity: 1}
	}, b.Target(), accounting.Bracket{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rel.Noise["noise"]; got != want || rel.Event.(accounting.Gaussian).Sigma != want {
		t.Errorf("noise %v, event %v; want the calibrated σ = %v", got, rel.Event, want)
	}
	_, err = build(t, c, map[string]any{"behave": "wrongnoise"}).Fit(context.Background(), data, b, rngs.New(rngs.Derive("c")))
	if err == nil || !strings.Contains(err.Error(), "not the spec's family") {
		t.Errorf("a worker answering with twice the noise: %v", err)
	}
}

// TestCancelKillsTheWorker: a cancelled fit returns context.Canceled
// promptly, even from a hanging worker.
func TestCancelKillsTheWorker(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Timeout = time.Minute
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 20, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := build(t, c, map[string]any{"behave": "hang"}).Fit(ctx, data, budget(), rngs.New(rngs.Derive("h")))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled fit: %v after %v", err, time.Since(start))
	}
}

// TestDataWrittenOnceAndRemoved: the training split is written once per
// training set, the data directory goes with Close, and a later fit
// writes it again.
func TestDataWrittenOnceAndRemoved(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	data := datatest.Tiny(t, datasets.Regression, 30, 2)
	p := poolFor(c)
	f1, err := p.data(data)
	if err != nil {
		t.Fatal(err)
	}
	st1, _ := os.Stat(f1.X)
	f2, _ := p.data(data)
	st2, _ := os.Stat(f2.X)
	if f1 != f2 || !os.SameFile(st1, st2) || st1.ModTime() != st2.ModTime() {
		t.Errorf("second write of the same split: %+v vs %+v", f1, f2)
	}
	if err := closePool(c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(f1.X)); !os.IsNotExist(err) {
		t.Errorf("data directory left after Close: %v", err)
	}
	// The same training set after Close: written again, in a new directory.
	f3, err := p.data(data)
	if err != nil {
		t.Fatal(err)
	}
	defer closePool(c)
	if b, err := os.ReadFile(f3.Y); err != nil || filepath.Base(f3.Y) != filepath.Base(f1.Y) || len(b) != 128+8*30 {
		t.Errorf("after Close: %v, %d bytes at %s", err, len(b), f3.Y)
	}
}

// TestConfigCheck names the key at fault.
func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Mode: ModeDeclare}, "command:"},
		{Config{Command: []string{"x"}, Mode: "guess"}, "mode:"},
		{Config{Command: []string{"x"}, Mode: ModeCalibrate}, "event:"},
		{Config{Command: []string{"x"}, Mode: ModeCalibrate, Event: `{"kind":"gaussian","sigma":1,"sensitivity":1}`}, "no \"$noise\" placeholder"},
		{Config{Command: []string{"x"}, Mode: ModeCalibrate, Event: `{"kind":"gaussian","sigma":"$noise"}`}, "sensitivity"},
		{Config{Command: []string{"x"}, Mode: ModeDeclare, Event: `{}`}, "event: only mode"},
	} {
		if err := tc.c.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// TestTimeoutIsTheBlocks: two blocks sharing a command share its pool of
// workers, but each trial is bounded by its own block's timeout.
func TestTimeoutIsTheBlocks(t *testing.T) {
	long := behaveConfig(t, ModeDeclare)
	long.Timeout = time.Minute
	short := long
	short.Timeout = time.Second
	defer closePool(long)
	data := datatest.Tiny(t, datasets.Regression, 20, 2)
	if _, err := build(t, long, map[string]any{"behave": "ok"}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("l"))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := build(t, short, map[string]any{"behave": "hang"}).Fit(ctx, data, budget(), rngs.New(rngs.Derive("s")))
	if err == nil || !strings.Contains(err.Error(), "timeout of 1s") {
		t.Errorf("a hanging trial of the 1 s block: %v", err)
	}
}

// TestStoppedWorkerReaderEnds checks that a worker stopped with lines of
// stdout nobody reads leaves no goroutine behind: its stdout reader used to
// block forever sending the third line of a flood (one read, one buffered),
// holding the pipe open.
func TestStoppedWorkerReaderEnds(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 30, 2)
	if _, err := build(t, c, map[string]any{"behave": "flood"}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("flood"))); err == nil || !strings.Contains(err.Error(), "flood 1") {
		t.Fatalf("flood: error %v, want one quoting its first line", err)
	}
	closePool(c) // no idle worker's reader is left either
	var stacks string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "external.start.func") {
			return
		}
	}
	t.Fatalf("a stopped worker's goroutine still runs after 5 s:\n%s", stacks)
}

// TestWorkerPrintsGoToStderr runs testdata/printing.py, a worker on
// python/dplab_worker.py whose fit prints to stdout (with print and a raw
// write to fd 1): its trials succeed, the printed lines going to stderr
// instead of into the replies, where they used to fail the trial.
func TestWorkerPrintsGoToStderr(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Command = []string{c.Command[0], "printing.py"}
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 30, 3)
	for trial := range 2 {
		rel, err := build(t, c, map[string]any{}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("print", string(rune('a'+trial)))))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if lin := rel.Model.(*mechanisms.Linear); len(lin.Theta) != 3 || lin.Theta[0] != 0.1 {
			t.Fatalf("trial %d: model %+v, want the worker's", trial, lin)
		}
	}
}

// TestReplyStrictness runs testdata/replies.py, which answers with a given
// line: a JSON null where a number goes (in the model, the event or a
// diagnostic) fails the trial naming where, instead of being read as 0; a
// null top-level diagnostics is no diagnostics; a reply line over the
// limit (lowered to 4 KiB here) fails it saying so, instead of "the worker
// closed its stdout".
func TestReplyStrictness(t *testing.T) {
	c := behaveConfig(t, ModeDeclare)
	c.Command = []string{c.Command[0], "replies.py"}
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 4096 // read when a worker starts
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 20, 2)
	const event = `{"kind":"gaussian","sigma":50,"sensitivity":1}`
	for _, tc := range []struct{ reply, want string }{
		{`{"type":"result","id":"$id","model":{"theta":[0.1,0.2],"intercept":0},"event":` + event + `,"diagnostics":null}`, ""},
		{`{"type":"result","id":"$id","model":{"theta":[null,0.2],"intercept":0},"event":` + event + `}`, "null at model.theta[0]: numbers must be JSON numbers"},
		{`{"type":"result","id":"$id","model":{"theta":[0.1,0.2],"intercept":null},"event":` + event + `}`, "null at model.intercept"},
		{`{"type":"result","id":"$id","model":{"theta":[0.1,0.2],"intercept":0},"event":{"kind":"gaussian","sigma":null,"sensitivity":1}}`, "null at event.sigma"},
		{`{"type":"result","id":"$id","model":{"theta":[0.1,0.2],"intercept":0},"event":` + event + `,"diagnostics":{"steps":null}}`, "null at diagnostics.steps"},
		{`{"type":"result","id":"$id","model":{"theta":[0.1,0.2],"intercept":0},"event":` + event + `,"pad":"` + strings.Repeat("x", 5000) + `"}`,
			"the worker wrote a line longer than dplab's limit of 4096 bytes on a reply line"},
	} {
		_, err := build(t, c, map[string]any{"reply": tc.reply}).Fit(context.Background(), data, budget(), rngs.New(rngs.Derive("r", tc.reply)))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("reply %.100s: error %v, want %q", tc.reply, err, tc.want)
		}
	}
}

// TestDataStreamed: writing a training split allocates a small fraction
// of its size (the .npy files are streamed from the matrix's rows, hashed
// as they are written), and the files hold exactly npy.Write's bytes of
// the rows and labels, named by their SHA-256. Before, the split was
// copied into one slice and encoded into a buffer twice (once to name the
// files, once to write them): about 3 times its size allocated per write.
func TestDataStreamed(t *testing.T) {
	c := Config{Command: []string{"streamed"}}
	defer closePool(c)
	data := datatest.Tiny(t, datasets.Regression, 4000, 50)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	files, err := poolFor(c).data(data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(8 * 4000 * 51)
	got := after.TotalAlloc - before.TotalAlloc
	if got > size/8 {
		t.Errorf("writing a split of %d bytes allocated %d bytes", size, got)
	}
	t.Logf("writing a split of %d bytes allocated %d bytes", size, got)
	n, d := data.Rows(), data.Cols()
	raw := make([]float64, 0, n*d)
	for i := range n {
		raw = append(raw, data.X.RawRowView(i)...)
	}
	for _, f := range []struct {
		path  string
		shape []int
		vals  []float64
	}{{files.X, []int{n, d}, raw}, {files.Y, []int{n}, data.Y}} {
		var want bytes.Buffer
		if err := npy.Write(&want, f.shape, f.vals); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.path)
		sum := sha256.Sum256(want.Bytes())
		if err != nil || !bytes.Equal(got, want.Bytes()) || !strings.Contains(filepath.Base(f.path), hex.EncodeToString(sum[:])[:24]) {
			t.Errorf("%s: %v; %d bytes, want npy.Write's %d, named by their SHA-256", f.path, err, len(got), want.Len())
		}
	}
}

// TestDataWriteFailureNotRemembered: a training split whose files could not
// be written (here the data directory is gone; a full disk does the same)
// fails that fit only: the next fit on the same split writes them. Before,
// the failed write was memoised on the split with its error, so every
// later trial on it, of any external block, failed with that error.
func TestDataWriteFailureNotRemembered(t *testing.T) {
	c := Config{Command: []string{"write-failure"}}
	defer closePool(c)
	p := poolFor(c)
	data := datatest.Tiny(t, datasets.Regression, 10, 2)
	p.mu.Lock()
	p.dir, p.lock = filepath.Join(t.TempDir(), "gone"), nopCloser{}
	p.mu.Unlock()
	if _, err := p.data(data); err == nil {
		t.Fatal("writing into a missing directory: no error")
	}
	p.mu.Lock()
	p.dir, p.lock = t.TempDir(), nopCloser{}
	p.mu.Unlock()
	files, err := p.data(data)
	if err != nil {
		t.Fatalf("the write after a failed one: %v", err)
	}
	for _, f := range []string{files.X, files.Y} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}
