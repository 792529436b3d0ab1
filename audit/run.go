package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/internal/rngs"
	"golang.org/x/sync/errgroup"
)

// Sampler runs a mechanism once on one side of a neighbouring pair (side 0:
// D₀, side 1: D₁) with fresh randomness seeded from seed, and returns the
// scalar statistic of its release. It must be safe for concurrent use.
type Sampler func(ctx context.Context, side int, seed rngs.Seed) (float64, error)

// Options configure Run.
type Options struct {
	// Trials is the number of runs on each side; half of them choose the
	// test, the other half evaluate it.
	Trials int
	// Confidence is the probability 1 − γ with which the lower bound holds
	// (default 0.95); each error rate gets γ/2.
	Confidence float64
	// Delta is the claimed δ.
	Delta float64
	// Seed roots every run's randomness (rngs.Derive("dplab/audit", Seed,
	// side, trial)); runs never share a stream.
	Seed string
	// Jobs bounds the concurrent runs (default runtime.NumCPU()).
	Jobs int
	// Progress, when set, receives a progress line about once a second and
	// a final one.
	Progress io.Writer
	// Label names the audit in progress lines.
	Label string
}

// Outcome is the result of a threshold test chosen on the selection runs and
// evaluated on the held-out runs.
type Outcome struct {
	LowerBound float64 `json:"lower_bound"` // ε_lo, valid with probability ≥ Confidence
	Confidence float64 `json:"confidence"`
	Delta      float64 `json:"delta"`
	Trials     int     `json:"trials"`            // runs per side, selection and evaluation
	Evaluation int     `json:"evaluation_trials"` // held-out runs per side
	// Threshold and Sign define the test "D₁ when Sign·s ≥ Threshold".
	Threshold float64 `json:"threshold"`
	Sign      int     `json:"sign"`
	// FP and FN are the held-out false positives (D₀ runs called D₁) and
	// false negatives; AlphaUpper and BetaUpper their Clopper–Pearson upper
	// bounds at level (1 − Confidence)/2 each.
	FP         int     `json:"false_positives"`
	FN         int     `json:"false_negatives"`
	AlphaUpper float64 `json:"alpha_upper"`
	BetaUpper  float64 `json:"beta_upper"`
	// SelectionBound is the bound the chosen test gave on the selection
	// runs (not valid on its own: the test was chosen there).
	SelectionBound float64 `json:"selection_bound"`
	// Mean0, Mean1, SD0, SD1 describe the statistic on each side (all runs).
	Mean0 float64 `json:"mean0"`
	Mean1 float64 `json:"mean1"`
	SD0   float64 `json:"sd0"`
	SD1   float64 `json:"sd1"`
}

// MaxTrials is the most runs per side an audit takes (plan.MaxAuditRuns:
// an audit grid's bound too): each side keeps one score per run (10^7
// runs: 160 MB for both), and 2^63 − 1 panicked allocating them (10^11
// ran the process out of memory).
const MaxTrials = plan.MaxAuditRuns

// CheckTrials returns an error naming key unless 4 ≤ n ≤ MaxTrials.
func CheckTrials(key string, n int) error {
	if err := plan.CheckAuditRuns(n); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// Run runs sample Trials times on each side (on Jobs workers), chooses the
// threshold test on the even-numbered runs of each side and evaluates it on
// the odd-numbered ones (auditing.md §2, "split"). The statistic is fixed
// before any run; the test's sign and threshold are the only choices made
// from data, and only from the selection half.
func Run(ctx context.Context, sample Sampler, o Options) (*Outcome, error) {
	if err := CheckTrials("trials", o.Trials); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if o.Confidence == 0 {
		o.Confidence = plan.DefaultAuditConfidence
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return nil, fmt.Errorf("audit: confidence = %v: must be in (0, 1)", o.Confidence)
	}
	if !(o.Delta >= 0 && o.Delta < 1) {
		return nil, fmt.Errorf("audit: delta = %v: must be in [0, 1)", o.Delta)
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	scores := [2][]float64{make([]float64, o.Trials), make([]float64, o.Trials)}
	var done atomic.Int64
	stop := startProgress(o.Progress, o.Label, &done, int64(2*o.Trials))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for t := 0; t < o.Trials; t++ {
		for side := 0; side < 2; side++ {
			if gctx.Err() != nil {
				break
			}
			side, t := side, t
			g.Go(func() error {
				seed := rngs.Derive("dplab/audit", o.Seed, strconv.Itoa(side), strconv.Itoa(t))
				s, err := sample(gctx, side, seed)
				if err != nil {
					return fmt.Errorf("audit: run %d on D%d: %w", t, side, err)
				}
				if math.IsNaN(s) {
					return fmt.Errorf("audit: run %d on D%d: the statistic is NaN", t, side)
				}
				scores[side][t] = s
				done.Add(1)
				return nil
			})
		}
	}
	err := g.Wait()
	stop()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return Evaluate(scores[0], scores[1], o.Delta, o.Confidence)
}

// Evaluate chooses the test on the even-indexed scores of each side and
// bounds ε with the odd-indexed ones (see Run).
func Evaluate(s0, s1 []float64, delta, confidence float64) (*Outcome, error) {
	if len(s0) < 4 || len(s1) < 4 {
		return nil, errors.New("audit: need at least 4 scores per side")
	}
	level := (1 - confidence) / 2
	sel0, ev0 := halves(s0)
	sel1, ev1 := halves(s1)
	t, sign, selBound, err := chooseTest(sel0, sel1, delta, level)
	if err != nil {
		return nil, err
	}
	fp := countAtLeast(ev0, sign, t)
	fn := len(ev1) - countAtLeast(ev1, sign, t)
	a, err := ClopperPearsonUpper(fp, len(ev0), level)
	if err != nil {
		return nil, err
	}
	b, err := ClopperPearsonUpper(fn, len(ev1), level)
	if err != nil {
		return nil, err
	}
	out := &Outcome{
		LowerBound: EpsilonLowerBound(a, b, delta), Confidence: confidence, Delta: delta,
		Trials: min(len(s0), len(s1)), Evaluation: min(len(ev0), len(ev1)),
		Threshold: t, Sign: sign, FP: fp, FN: fn, AlphaUpper: a, BetaUpper: b, SelectionBound: selBound,
	}
	out.Mean0, out.SD0 = meanSD(s0)
	out.Mean1, out.SD1 = meanSD(s1)
	return out, nil
}

// maxCandidates bounds the thresholds tried on the selection half (quantiles
// of the pooled selection scores).
const maxCandidates = 512

// chooseTest returns the threshold and sign whose Clopper–Pearson ε bound
// on the selection scores is largest. Candidates are scored at the level
// split over all of them (a Bonferroni correction, as the fixed-grid scheme
// of auditing.md §2), which favours thresholds that are not merely lucky in
// a thin tail; the evaluation half then uses the plain level.
func chooseTest(s0, s1 []float64, delta, level float64) (float64, int, float64, error) {
	pooled := append(append([]float64(nil), s0...), s1...)
	sort.Float64s(pooled)
	best, bestT, bestSign := -1.0, 0.0, 1
	step := max(1, len(pooled)/maxCandidates)
	level /= float64(2 * ((len(pooled) + step - 1) / step))
	for sign := 1; sign >= -1; sign -= 2 {
		a0, a1 := signedSorted(s0, sign), signedSorted(s1, sign)
		prev := math.NaN()
		for i := 0; i < len(pooled); i += step {
			if pooled[i] == prev {
				continue // same test as the previous candidate
			}
			prev = pooled[i]
			t := float64(sign) * pooled[i]
			fp := len(a0) - sort.SearchFloat64s(a0, t)
			fn := sort.SearchFloat64s(a1, t)
			// The plug-in bound is an upper bound on the Clopper–Pearson one
			// (the bound falls as the rates grow): skip candidates it rules out.
			if EpsilonLowerBound(float64(fp)/float64(len(a0)), float64(fn)/float64(len(a1)), delta) <= best {
				continue
			}
			a, err := ClopperPearsonUpper(fp, len(a0), level)
			if err != nil {
				return 0, 0, 0, err
			}
			b, err := ClopperPearsonUpper(fn, len(a1), level)
			if err != nil {
				return 0, 0, 0, err
			}
			if e := EpsilonLowerBound(a, b, delta); e > best {
				best, bestT, bestSign = e, t, sign
			}
		}
	}
	return bestT, bestSign, best, nil
}

// signedSorted returns sign·s sorted ascending.
func signedSorted(s []float64, sign int) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(sign) * v
	}
	sort.Float64s(out)
	return out
}

// countAtLeast counts scores with sign·s ≥ t.
func countAtLeast(s []float64, sign int, t float64) int {
	n := 0
	for _, v := range s {
		if float64(sign)*v >= t {
			n++
		}
	}
	return n
}

// halves splits s into its even-indexed (selection) and odd-indexed
// (evaluation) elements.
func halves(s []float64) (even, odd []float64) {
	for i, v := range s {
		if i%2 == 0 {
			even = append(even, v)
		} else {
			odd = append(odd, v)
		}
	}
	return even, odd
}

func meanSD(s []float64) (float64, float64) {
	var m float64
	for _, v := range s {
		m += v
	}
	m /= float64(len(s))
	var ss float64
	for _, v := range s {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(s)))
}

// startProgress prints "label: k/total runs" to w about once a second until
// the returned function is called, which prints the final count.
func startProgress(w io.Writer, label string, done *atomic.Int64, total int64) func() {
	if w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				fmt.Fprintf(w, "audit %s: %d/%d runs (%.0fs)\n", label, done.Load(), total, time.Since(start).Seconds())
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		fmt.Fprintf(w, "audit %s: %d/%d runs in %.1fs\n", label, done.Load(), total, time.Since(start).Seconds())
	}
}
