package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// declaredSize returns the training rows and the columns dataset i has by
// its declaration, before anything is loaded: a generator's n and d params
// when given, else the registry's Rows and Cols (its size with default
// params), the training part being what the split's fractions leave
// (datasets.SplitSizes; every row under split.all). 0 when not known (a
// user file, split.indices, a registry entry without a size). A source that
// splits itself (train and test files) trains on its own training rows,
// which the fractions only approximate.
func (s *checker) declaredSize(i int) (n, d int) {
	ds := s.Datasets[i]
	e, err := datasets.Lookup(ds.Name)
	if err != nil || ds.Split.Indices != "" {
		return 0, 0
	}
	rows, cols := e.Info.Rows, e.Info.Cols
	if e.Info.Synthetic {
		if v, err := spec.AsFloat(ds.Params["n"]); err == nil && v >= 1 && v <= math.MaxInt32 {
			rows = int(v)
		}
		if v, err := spec.AsFloat(ds.Params["d"]); err == nil && v >= 1 && v <= math.MaxInt32 {
			cols = int(v)
		}
	}
	if rows < 2 || ds.Split.All {
		return rows, cols
	}
	n, _, _ = datasets.SplitSizes(rows, ds.Split.Test, ds.Split.Validation)
	return n, cols
}

// checkTargets checks each private mechanism's targets against what it can
// meet whatever the rows (mechanisms.TargetChecker), at every ε of the grid,
// sweep point and tuning candidate, on each dataset's task and declared
// size with δ at that size. A target outside the mechanism's range (an
// *OutOfRangeError), or one at which its fixed noise spends an ε that no
// accountant bounds (+Inf: a run would store it as non-private), is an
// error naming the ε key and the range that works there; a calibration that
// cannot meet a target (*accounting.InfeasibleError) is a warning: a run
// records those trials infeasible, with the reason. It also warns of
// δ ≥ 1/n on a dataset of known size.
func (s *checker) checkTargets() error {
	eps, _ := s.Epsilon.Floats()
	key := "epsilon"
	if s.QuickApplied && s.Quick != nil && len(s.Quick.Epsilon.List) > 0 {
		key = "quick.epsilon"
	}
	cfg := AccountingConfig(s.Spec)
	cal := accounting.SharedCalibrator(cfg)
	spent := epsMemo{}
	shapes := make([]mechanisms.DataShape, len(s.Datasets))
	deltas := make([]float64, len(s.Datasets))
	for i, ds := range s.Datasets {
		e, _ := datasets.Lookup(ds.Name)
		n, d := s.declaredSize(i)
		shapes[i] = mechanisms.DataShape{Task: e.Info.Task, Rows: n, Cols: d}
		delta, err := s.Delta.Eval(max(n, 2), max(d, 1))
		if err != nil || n == 0 {
			// Unknown size: a representative one (the rule was checked
			// over 2 to 10⁹ rows).
			delta, _ = s.Delta.Eval(representativeN, max(d, 1))
		}
		deltas[i] = delta
		if n > 0 && delta >= 1/float64(n) {
			// [DR14] §2.3: δ ≥ 1/n allows a mechanism that publishes a
			// few rows in the clear; δ should be well below 1/n.
			s.warnings = append(s.warnings, fmt.Sprintf("dataset %s: δ = %.3g ≥ 1/n = 1/%d (n = %d training rows by its declared size): an (ε, δ) guarantee with δ ≥ 1/n allows publishing whole rows; use a δ well below 1/n, e.g. \"1/n^2\"",
				ds.Label, delta, n, n))
		}
	}
	for mi := range s.Mechanisms {
		ms := &s.Mechanisms[mi]
		e, err := EntryOf(*ms)
		if err != nil || !e.Info.Private {
			continue
		}
		var wrap func(accounting.Event) accounting.Event
		if ms.Tuning.Mode == spec.TunePrivate {
			wrap = PrivateWrap(ms.Tuning)
		}
		// Every ε at every fit, unless that is more than maxTargetChecks:
		// then every ε at the first fit and the grid's ends at the others
		// (a target is out of range at one end, too small or too large), so
		// that validation stays linear in the sweep, not in the cells.
		fits := 0
		s.eachFit(mi, func(map[string]any) bool { fits++; return true })
		ends := eps
		if len(eps) > 2 {
			ends = []float64{slices.Min(eps), slices.Max(eps)}
		}
		all := fits*len(eps)*len(s.Datasets) <= maxTargetChecks
		fit := 0
		var err2 error
		var checks []targetCheck
		s.eachFit(mi, func(p map[string]any) bool {
			if err2 = s.canceled(); err2 != nil {
				return false
			}
			fit++
			m, _, err := buildMechanism(e, p)
			tc, ok := m.(mechanisms.TargetChecker)
			if err != nil || !ok {
				return true
			}
			grid := eps
			if !all && fit > 1 {
				grid = ends
			}
			for di := range s.Datasets {
				if _, out := s.Excluded(di, mi); out {
					continue
				}
				for _, x := range grid {
					checks = append(checks, targetCheck{tc: tc, di: di,
						b: mechanisms.Budget{Epsilon: x, Delta: deltas[di], Accounting: cfg, Calibrator: cal, Wrap: wrap}})
				}
			}
			return true
		})
		if err2 != nil {
			return err2
		}
		if err := s.runChecks(checks, shapes); err != nil {
			return err
		}
		for _, c := range checks {
			bad, why := spent.judge(c.ev, c.err, c.b)
			ds := s.Datasets[c.di]
			switch {
			case bad:
				s.targetError(key, mi, ds.Label, c.b.Epsilon, why, c.tc, c.b, shapes[c.di], &err2)
				return err2
			case why != "":
				s.warnings = append(s.warnings, fmt.Sprintf("mechanism[%d] %q on dataset %s at ε = %g: %s; its trials will be recorded infeasible",
					mi, ms.Label, ds.Label, c.b.Epsilon, why))
			}
		}
	}
	return nil
}

// targetCheck is one target checkTargets checks: the mechanism's
// TargetChecker at budget b on dataset di, and what CheckTarget returned.
type targetCheck struct {
	tc  mechanisms.TargetChecker
	di  int
	b   mechanisms.Budget
	ev  accounting.Event
	err error
}

// runChecks calls CheckTarget for each check, on as many goroutines as
// GOMAXPROCS, before checkTargets judges them in order: each is a
// calibration of up to tens of accountant evaluations (the sketching
// mechanisms' memoised for the run, which then starts with them done),
// and validation ran them one after the other while the other cores
// waited (on gaussmix_authors_wine, 18 calibrations: most of a -j 1
// run's time before its first trial). CheckTarget is as safe for
// concurrent use as the Fit it shares its setup with (mechanisms' package
// doc). A cancelled validation stops taking checks and returns its error.
func (s *checker) runChecks(checks []targetCheck, shapes []mechanisms.DataShape) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(checks)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(checks) && s.canceled() == nil; i = int(next.Add(1)) - 1 {
				c := &checks[i]
				c.ev, c.err = c.tc.CheckTarget(c.b, shapes[c.di])
			}
		})
	}
	wg.Wait()
	return s.canceled()
}

// eachFit calls f with the params of every fit mechanism block mi may make:
// each sweep point, merged with each tuning candidate when the block is
// tuned, until f returns false.
func (s *checker) eachFit(mi int, f func(p map[string]any) bool) {
	ms := &s.Mechanisms[mi]
	tuned := ms.Tuning.Mode != "" && ms.Tuning.Mode != spec.TuneNone
	ms.Params.EachPoint(func(p map[string]any) bool {
		if !tuned {
			return f(p)
		}
		goOn := true
		ms.Tuning.Candidates.EachPoint(func(c map[string]any) bool {
			goOn = f(spec.MergeParams(p, c))
			return goOn
		})
		return goOn
	})
}

// maxTargetChecks bounds the targets checkTargets checks at every ε per
// mechanism block (fits × ε × datasets).
const maxTargetChecks = 4096

// epsMemo holds the ε of the ledgers checkTargets accounted, by their JSON
// and δ: the fits of a sweep mostly charge the same fixed-noise ledger.
type epsMemo map[string]float64

// targetOK checks one target: bad when it is out of the mechanism's range
// or its fixed noise spends ε = +Inf; otherwise why is the reason a
// calibration cannot meet it, or "" when nothing is known against it.
func (memo epsMemo) targetOK(tc mechanisms.TargetChecker, b mechanisms.Budget, d mechanisms.DataShape) (bad bool, why string) {
	ev, err := tc.CheckTarget(b, d)
	return memo.judge(ev, err, b)
}

// judge is targetOK of what CheckTarget returned at b (ev, err).
func (memo epsMemo) judge(ev accounting.Event, err error, b mechanisms.Budget) (bad bool, why string) {
	var oor *mechanisms.OutOfRangeError
	var ie *accounting.InfeasibleError
	switch {
	case errors.As(err, &oor):
		return true, err.Error()
	case errors.As(err, &ie):
		return false, err.Error()
	case err != nil || ev == nil:
		return false, "" // not foreseen here: the fit decides
	}
	charged := b.Charged(ev)
	js, err := json.Marshal(charged)
	if err != nil {
		return false, ""
	}
	key := string(js) + "@" + strconv.FormatFloat(b.Delta, 'g', -1, 64)
	e, seen := memo[key]
	if !seen {
		g, err := b.Accounting.Epsilon(charged, b.Delta)
		e = g.Epsilon
		if err != nil {
			e = math.NaN() // not ours to judge: the fit decides
		}
		memo[key] = e
	}
	if math.IsInf(e, 1) {
		return true, fmt.Sprintf("its fixed noise spends ε = +Inf under %s at δ = %.3g (no accountant bounds it: a run would store it as non-private)", b.Accounting.Describe(), b.Delta)
	}
	return false, ""
}

// targetError sets *err to the refusal of target ε = x, naming the range of
// ε that the mechanism meets there (the boundary found by bisection in
// log ε from ε = 1), and returns false (to stop eachFit).
func (s *checker) targetError(key string, mi int, label string, x float64, why string, tc mechanisms.TargetChecker, b mechanisms.Budget, d mechanisms.DataShape, err *error) bool {
	memo := epsMemo{}
	ok := func(e float64) bool {
		b.Epsilon = e
		bad, _ := memo.targetOK(tc, b, d)
		return !bad
	}
	rng := ""
	if ok(1) {
		good, out := 0.0, math.Log(x) // log ε that works, log ε that does not
		for range 60 {
			mid := (good + out) / 2
			if ok(math.Exp(mid)) {
				good = mid
			} else {
				out = mid
			}
		}
		bound := strconv.FormatFloat(math.Exp(good), 'g', 3, 64)
		if x > 1 {
			rng = "; it meets targets up to ε ≈ " + bound + " here"
		} else {
			rng = "; it meets targets from ε ≈ " + bound + " here"
		}
	}
	*err = s.ErrAt(key, s.Line(key), "ε = %g is out of range for mechanism[%d] %q on dataset %s: %s%s",
		x, mi, s.Mechanisms[mi].Label, label, why, rng)
	return false
}
