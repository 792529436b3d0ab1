package plan

import (
	"errors"
	"github.com/dplab/dplab/harness/spec"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestDeltaAboveOneOverNWarns: δ ≥ 1/n at a dataset's declared training
// size is a validation warning naming the dataset and both values
// (delta = 0.5; "1/sqrt(n)" = 0.0316 at the 1000 training rows that
// n = 1250 and test = 0.2 leave; wine's 1087 of its 1359 declared rows),
// once per dataset; δ = 1/n² is not (issue 34, item 16). Before, both were
// accepted silently.
func TestDeltaAboveOneOverNWarns(t *testing.T) {
	src := `name = "d"
seed = 1
trials = 1
epsilon = [1]
delta = DELTA

[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 1250, d = 4 }

[[dataset]]
name = "wine"

[[mechanism]]
name = "adassp"
params = { rho = [1e-4, 1e-3] }
`
	for _, c := range []struct {
		delta string
		want  []string
	}{
		{"0.5", []string{"dataset Lin: δ = 0.5 ≥ 1/n = 1/1000 (n = 1000 training rows", "dataset Wine Quality (red): δ = 0.5 ≥ 1/n = 1/1087"}},
		{`"1/sqrt(n)"`, []string{"dataset Lin: δ = 0.0316 ≥ 1/n = 1/1000", "dataset Wine Quality (red): δ = 0.0303 ≥ 1/n = 1/1087"}},
		{`"1/n^2"`, nil},
		{"1e-6", nil},
	} {
		s, err := Parse("spec.toml", []byte(strings.Replace(src, "DELTA", c.delta, 1)))
		if err != nil {
			t.Fatalf("delta = %s: %v", c.delta, err)
		}
		if len(s.Warnings) != len(c.want) {
			t.Errorf("delta = %s: warnings %q, want %d", c.delta, s.Warnings, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(s.Warnings[i], w) || !strings.Contains(s.Warnings[i], "use a δ well below 1/n") {
				t.Errorf("delta = %s: warning %q, want it to start %q", c.delta, s.Warnings[i], w)
			}
		}
	}
}

// TestTargetOutOfRangeRefused: a target at which a mechanism's fixed noise
// spends ε = +Inf (AdaSSP's paper constants at ε = 1e300: noise multiplier
// 1.2e-299) is refused naming the ε key and the range that works there;
// under [quick] it is quick.epsilon; the calibrated variant is accepted
// (issue 34, item 14).
func TestTargetOutOfRangeRefused(t *testing.T) {
	src := `name = "d"
seed = 1
trials = 1
epsilon = [1, 1e300]
delta = 1e-6

[[dataset]]
name = "synthetic-linear"
params = { n = 500, d = 4 }

[[mechanism]]
name = "adassp"
label = "AdaSSP (paper constants)"
`
	_, err := Parse("spec.toml", []byte(src))
	var se *spec.SpecError
	if !errors.As(err, &se) || se.Key != "epsilon" || se.Line != 4 {
		t.Fatalf("ε = 1e300: %v; want a SpecError at epsilon, line 4", err)
	}
	for _, w := range []string{"ε = 1e+300 is out of range for mechanism[0] \"AdaSSP (paper constants)\"", "ε = +Inf under rdp", "it meets targets up to ε ≈ "} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// The range's bound: the box's ledger (three Gaussian releases with
	// noise multiplier √log(6/δ)/(ε/3), [Wang18] Alg. 2) accounts to a
	// finite ε just below it and to +Inf just above.
	_, after, _ := strings.Cut(err.Error(), "up to ε ≈ ")
	bound, perr := strconv.ParseFloat(strings.TrimSuffix(after, " here"), 64)
	if perr != nil {
		t.Fatalf("bound %q: %v", after, perr)
	}
	box := func(eps float64) float64 {
		m := math.Sqrt(math.Log(6/1e-6)) / (eps / 3)
		g, err := accounting.Config{}.Epsilon(accounting.SelfComposed{Event: accounting.Gaussian{Sigma: m, Sensitivity: 1}, Count: 3}, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		return g.Epsilon
	}
	if lo, hi := box(bound/1.01), box(bound*1.01); math.IsInf(lo, 1) || !math.IsInf(hi, 1) {
		t.Errorf("bound %g: ε spent %g just below, %g just above; want finite, then +Inf", bound, lo, hi)
	}
	quick := strings.Replace(src, "[1, 1e300]", "[1]", 1) + "\n[quick]\nepsilon = [1e300]\n"
	s, err := Parse("spec.toml", []byte(quick))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyQuick(s); !errors.As(err, &se) || se.Key != "quick.epsilon" {
		t.Errorf("quick ε = 1e300: %v; want a SpecError at quick.epsilon", err)
	}
	if _, err := Parse("spec.toml", []byte(strings.Replace(src, `label = "AdaSSP (paper constants)"`, `params = { calibration = "accountant" }`, 1))); err != nil {
		t.Errorf("calibrated AdaSSP at ε = 1e300: %v", err)
	}
}

// overlapChecker is a TargetChecker whose CheckTarget waits (up to 10 s)
// until two calls are in flight at once, and counts the calls.
type overlapChecker struct {
	mu       sync.Mutex
	inFlight int
	overlap  chan struct{} // closed when two calls were first in flight at once
	closed   bool
	calls    atomic.Int64
}

func (o *overlapChecker) CheckTarget(b mechanisms.Budget, _ mechanisms.DataShape) (accounting.Event, error) {
	o.calls.Add(1)
	o.mu.Lock()
	if o.inFlight++; o.inFlight == 2 && !o.closed {
		close(o.overlap)
		o.closed = true
	}
	o.mu.Unlock()
	defer func() { o.mu.Lock(); o.inFlight--; o.mu.Unlock() }()
	select {
	case <-o.overlap:
		return accounting.Gaussian{Sigma: 1 / b.Epsilon, Sensitivity: 1}, nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("no other check ran at the same time")
	}
}

// TestTargetChecksRunInParallel: validation's target checks (each a
// calibration) run on several goroutines when GOMAXPROCS allows (runChecks;
// before, one after the other, which left a -j 1 run's second core idle
// through most of its start), every check once, each result kept with its
// own check.
func TestTargetChecksRunInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	tc := &overlapChecker{overlap: make(chan struct{})}
	var checks []targetCheck
	for i := range 4 {
		checks = append(checks, targetCheck{tc: tc, b: mechanisms.Budget{Epsilon: float64(i + 1)}})
	}
	s := newChecker(&spec.Spec{})
	if err := s.runChecks(checks, []mechanisms.DataShape{{}}); err != nil {
		t.Fatal(err)
	}
	if n := tc.calls.Load(); n != int64(len(checks)) {
		t.Errorf("%d CheckTarget calls for %d checks", n, len(checks))
	}
	for i, c := range checks {
		want := accounting.Gaussian{Sigma: 1 / float64(i+1), Sensitivity: 1}
		if c.err != nil || c.ev != want {
			t.Errorf("check %d: %v, %v; want %v", i, c.ev, c.err, want)
		}
	}
}
