package accounting

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCalibrateNeverOvershoots: for every family, accountant (RDP default
// and grid, exact, PLD at interval 1e-3) and target the calibrated x gives
// ε ≤ target and x·(1 − 1e-3) gives ε > target (the calibration is tight to
// far better than 1e-3 and never on the wrong side).
func TestCalibrateNeverOvershoots(t *testing.T) {
	families := []struct {
		name  string
		event func(x float64) Event
	}{
		{"gaussian", func(x float64) Event { return Gaussian{Sigma: x, Sensitivity: 2} }},
		{"sgm", func(x float64) Event {
			return SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: x}, Count: 10000}
		}},
		{"laplace", func(x float64) Event { return SelfComposed{Event: Laplace{Scale: x, Sensitivity: 1}, Count: 20} }},
		{"objpert", func(x float64) Event { return ObjectivePerturbation{Sigma: x, Lambda: 10, Beta: 1, L: 1} }},
		{"select", func(x float64) Event {
			return RepeatAndSelect{Event: SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: x}, Count: 1000}, Distribution: Poisson, Mean: 10}
		}},
	}
	targets := []Target{{0.5, 1e-5}, {2, 1e-6}, {8, 1e-5}}
	for _, cfg := range []Config{{}, {Orders: "grid"}, {Kind: "exact"}, {Kind: "pld", Interval: 1e-3}} {
		for _, fam := range families {
			for _, tg := range targets {
				name := fmt.Sprintf("%s/%s/%s/eps=%g", cfg.kind(), cfg.Orders, fam.name, tg.Epsilon)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					cal := NewCalibrator(cfg)
					if _, err := cfg.Epsilon(fam.event(1), tg.Delta); err != nil {
						t.Skip("unsupported by this accountant")
					}
					x, err := cal.Calibrate(fam.event, tg, Bracket{})
					if err != nil {
						t.Fatal(err)
					}
					at, _ := cal.EpsilonAt(fam.event(x), tg.Delta)
					below, _ := cal.EpsilonAt(fam.event(x*(1-1e-3)), tg.Delta)
					if !(at <= tg.Epsilon) {
						t.Errorf("ε(x=%v) = %v exceeds the target %v", x, at, tg.Epsilon)
					}
					if !(below > tg.Epsilon) {
						t.Errorf("ε(x·(1−1e-3)) = %v ≤ target %v: calibration not tight", below, tg.Epsilon)
					}
				})
			}
		}
	}
}

// TestCalibrateInfeasible: a target below the floor of the bound is an
// *InfeasibleError reporting the smallest achievable ε (here the RGM v2
// bound's noise-independent term αdη²(2+η)²(1+η)²/(2K) at its best order).
func TestCalibrateInfeasible(t *testing.T) {
	cal := NewCalibrator(Config{})
	_, err := cal.Calibrate(func(x float64) Event { return RGM{Eta: 0.05, Gamma: x, D: 50} }, Target{0.01, 1e-5}, Bracket{})
	ie, ok := IsInfeasible(err)
	if !ok {
		t.Fatalf("err = %v, want *InfeasibleError", err)
	}
	// As γ → ∞ the ε floor is the conversion of α d η²(2+η)²(1+η)²/(2K(α)),
	// minimised here over α by a fine scan refined with Brent.
	e := RGM{Eta: 0.05, Gamma: 1, D: 50}
	f := func(a float64) float64 {
		k := 1 - e.Eta*(a-1)*(2+e.Eta)
		return epsAt(a, a*50*e.Eta*e.Eta*math.Pow(2+e.Eta, 2)*math.Pow(1+e.Eta, 2)/(2*k), 1e-5)
	}
	best := 1.02
	for a := 1.02; a < rgmSup(e); a += 0.001 {
		if f(a) < f(best) {
			best = a
		}
	}
	_, floor := Minimize(f, best-0.001, best+0.001, 1e-13)
	// The reported floor is ε at γ = 2^30, above the γ → ∞ limit by ~1e-12.
	if !(ie.Floor >= floor*(1-1e-12)) || ie.Floor > floor*(1+1e-9) {
		t.Errorf("reported floor %v, want just above the analytic floor %v", ie.Floor, floor)
	}
}

// TestCalibratorConcurrentMemo: concurrent calibrations of one family
// agree, and a later call is answered from the memo: it evaluates the
// family only at the two reference values that identify it.
func TestCalibratorConcurrentMemo(t *testing.T) {
	cal := NewCalibrator(Config{Orders: "grid"})
	var calls atomic.Int64
	mk := func(x float64) Event {
		calls.Add(1)
		return SelfComposed{Event: Gaussian{Sigma: x, Sensitivity: 1}, Count: 10}
	}
	tg := Target{1, 1e-5}
	var wg sync.WaitGroup
	res := make([]float64, 8)
	for i := range res {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			x, err := cal.Calibrate(mk, tg, Bracket{})
			if err != nil {
				t.Error(err)
			}
			res[i] = x
		}(i)
	}
	wg.Wait()
	for _, x := range res[1:] {
		if x != res[0] {
			t.Fatalf("concurrent results differ: %v", res)
		}
	}
	calls.Store(0)
	if x, err := cal.Calibrate(mk, tg, Bracket{}); err != nil || x != res[0] {
		t.Errorf("second call: %v, %v; want %v", x, err, res[0])
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("second call evaluated the family %d times, want 2 (the reference values only: a memo hit)", n)
	}
}

// TestCalibratorKeyedByFamily: one Calibrator (as a run shares across
// datasets) never reuses noise between families that a hand-built key such
// as "dpsgd" or "gaussian:T=10" would have confused — same target, another
// sensitivity, step count, sampling rate or tuning wrapper — and reuses it
// for the same family written as another closure. Each family's answer
// equals a fresh Calibrator's and meets the target.
func TestCalibratorKeyedByFamily(t *testing.T) {
	tg := Target{1, 1e-5}
	gauss := func(sens float64, count int) func(float64) Event {
		return func(x float64) Event {
			return SelfComposed{Event: Gaussian{Sigma: x, Sensitivity: sens}, Count: count}
		}
	}
	sgm := func(q float64, steps int) func(float64) Event {
		return func(x float64) Event {
			return SelfComposed{Event: PoissonSampledGaussian{Q: q, NoiseMultiplier: x}, Count: steps}
		}
	}
	tuned := func(x float64) Event {
		return RepeatAndSelect{Event: gauss(1, 10)(x), Distribution: Poisson, Mean: 5}
	}
	families := []struct {
		name  string
		event func(float64) Event
	}{
		{"gaussian sens=1 T=10", gauss(1, 10)},
		{"gaussian sens=2 T=10", gauss(2, 10)},
		{"gaussian sens=1 T=20", gauss(1, 20)}, // (sens=1, T=40 has the curve of sens=2, T=10)
		{"sgm q=0.01 T=100", sgm(0.01, 100)},
		{"sgm q=0.01 T=400", sgm(0.01, 400)},
		{"sgm q=0.02 T=100", sgm(0.02, 100)},
		{"tuned gaussian sens=1 T=10", tuned},
	}
	shared := NewCalibrator(Config{})
	seen := map[float64]string{}
	for _, f := range families {
		x, err := shared.Calibrate(f.event, tg, Bracket{})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		fresh, err := NewCalibrator(Config{}).Calibrate(f.event, tg, Bracket{})
		if err != nil || x != fresh {
			t.Errorf("%s: shared calibrator %v, fresh one %v (%v)", f.name, x, fresh, err)
		}
		if other, dup := seen[x]; dup {
			t.Errorf("%s got the noise of %s: %v", f.name, other, x)
		}
		seen[x] = f.name
		if eps, err := shared.EpsilonAt(f.event(x), tg.Delta); err != nil || eps > tg.Epsilon {
			t.Errorf("%s: ε(%v) = %v, %v; want ≤ %v", f.name, x, eps, err, tg.Epsilon)
		}
	}
	// The same family as another closure: a memo hit (2 evaluations).
	calls := 0
	same := func(x float64) Event {
		calls++
		return SelfComposed{Event: Gaussian{Sigma: x, Sensitivity: 2}, Count: 10}
	}
	x, err := shared.Calibrate(same, tg, Bracket{})
	if err != nil || calls != 2 {
		t.Errorf("same family: %v, %v after %d evaluations; want a memo hit (2)", x, err, calls)
	}
	if want, _ := shared.Calibrate(gauss(2, 10), tg, Bracket{}); x != want {
		t.Errorf("same family: %v, want %v", x, want)
	}
	// Another target or bracket is another calibration.
	calls = 0
	if _, err := shared.Calibrate(same, Target{2, 1e-5}, Bracket{}); err != nil || calls <= 2 {
		t.Errorf("another target: %v after %d evaluations; want a new calibration", err, calls)
	}
}

// TestFamilyKey: a family whose events do not encode at a reference value
// (NaN) or are nil there is calibrated without memoisation, not refused.
func TestFamilyKey(t *testing.T) {
	if _, ok := familyKey(func(x float64) Event { return Gaussian{Sigma: x, Sensitivity: 1} }); !ok {
		t.Error("a plain family has no key")
	}
	nan := func(x float64) Event {
		if x == 1 {
			return Gaussian{Sigma: math.NaN(), Sensitivity: 1}
		}
		return Gaussian{Sigma: x, Sensitivity: 1}
	}
	if _, ok := familyKey(nan); ok {
		t.Error("a family with a NaN at x = 1 has a key")
	}
	cal := NewCalibrator(Config{})
	x, err := cal.Calibrate(nan, Target{1, 1e-5}, Bracket{Lo: 2, Hi: 100})
	if err != nil || !(x > 2) {
		t.Errorf("unkeyed family: %v, %v", x, err)
	}
	if n := cal.memo.Len(); n != 0 {
		t.Errorf("unkeyed family memoised: %d entries", n)
	}
}

// TestCalibrateConcurrentOnce: trials of one cell that ask for the same
// calibration at once share one search (they used to each run it while
// none was memoised): eight concurrent calls evaluate the family as often as
// one call does.
func TestCalibrateConcurrentOnce(t *testing.T) {
	var calls atomic.Int64
	family := func(x float64) Event {
		calls.Add(1)
		return Gaussian{Sigma: x, Sensitivity: 1}
	}
	target, bracket := Target{1, 1e-5}, Bracket{}
	if _, err := NewCalibrator(Config{}).Calibrate(family, target, bracket); err != nil {
		t.Fatal(err)
	}
	one := calls.Swap(0)
	cal := NewCalibrator(Config{})
	var wg sync.WaitGroup
	start := make(chan struct{})
	xs := make([]float64, 8)
	for i := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			x, err := cal.Calibrate(family, target, bracket)
			if err != nil {
				t.Error(err)
			}
			xs[i] = x
		}()
	}
	close(start)
	wg.Wait()
	// familyKey evaluates the family at its two reference points per call.
	if got := calls.Load(); got > one+2*int64(len(xs)-1) {
		t.Errorf("8 concurrent calls evaluated the family %d times, one call %d", got, one)
	}
	for _, x := range xs[1:] {
		if x != xs[0] {
			t.Errorf("concurrent calls disagree: %v", xs)
		}
	}
}

// TestCalibrateEvaluatesEachPointOnce: the search evaluated the bracket's
// upper end twice (doubling, then SmallestFeasible) and the returned point
// twice (the search, then the re-check): 2 of 22 PLD evaluations of a
// DP-SGD calibration, 0.4 s each. Every point is now accounted once, with
// the same result.
func TestCalibrateEvaluatesEachPointOnce(t *testing.T) {
	for _, b := range []Bracket{{}, {Lo: 0.1, Hi: 100}} {
		calls := map[float64]int{}
		mk := func(x float64) Event {
			calls[x]++
			return SelfComposed{Event: PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: x}, Count: 1000}
		}
		c := NewCalibrator(Config{})
		x, err := c.calibrate(mk, Target{Epsilon: 1, Delta: 1e-5}, b)
		if err != nil {
			t.Fatal(err)
		}
		for v, n := range calls {
			if n > 1 {
				t.Errorf("bracket %+v: x = %v evaluated %d times", b, v, n)
			}
		}
		if eps, _ := c.EpsilonAt(mk(x), 1e-5); !(eps <= 1) {
			t.Errorf("bracket %+v: ε(%v) = %v > 1", b, x, eps)
		}
	}
}

// TestSharedCalibrator: configurations equal field by field share one
// Calibrator (and so its memo); any field that differs, including the
// extra orders' contents, gives another; a configuration appendKey cannot
// encode (a NaN interval) gets a fresh, unshared one.
func TestSharedCalibrator(t *testing.T) {
	a := Config{Kind: "rdp", ExtraOrders: []float64{300, 512}}
	if SharedCalibrator(a) != SharedCalibrator(Config{Kind: "rdp", ExtraOrders: []float64{300, 512}}) {
		t.Error("equal configurations got different calibrators")
	}
	for _, b := range []Config{{Kind: "pld"}, {Kind: "rdp", ExtraOrders: []float64{300, 513}}, {Kind: "rdp", ExtraOrders: []float64{300, 512}, SGM: "exact"}} {
		if SharedCalibrator(a) == SharedCalibrator(b) {
			t.Errorf("%+v shares %+v's calibrator", b, a)
		}
	}
	nan := Config{Kind: "pld", Interval: math.NaN()}
	if first, second := SharedCalibrator(nan), SharedCalibrator(nan); first == second {
		t.Error("an unencodable configuration was shared")
	}
	if got := SharedCalibrator(a).Config(); got.Kind != a.Kind || len(got.ExtraOrders) != 2 {
		t.Errorf("shared calibrator accounts with %+v, want %+v", got, a)
	}
}
