package accounting

import (
	"errors"
	"math"
	"testing"
)

// accountantConfigs are the accountants the conformance suite runs on:
// every Kind Config.Validate accepts (TestAccountantConfigsCoverKinds).
var accountantConfigs = []Config{
	{Kind: "rdp"},
	{Kind: "rdp", Orders: "grid"},
	{Kind: "rdp", Orders: "integer", MaxOrder: 64},
	{Kind: "pld"},
	{Kind: "exact"},
}

// TestAccountantConfigsCoverKinds: the conformance list has every
// accountant Config.New builds.
func TestAccountantConfigsCoverKinds(t *testing.T) {
	have := map[string]bool{}
	for _, c := range accountantConfigs {
		have[c.kind()] = true
	}
	for _, k := range accountantKinds {
		if !have[k] {
			t.Errorf("accountant %q is not in accountantConfigs", k)
		}
		a, err := Config{Kind: k}.New()
		if err != nil || a.Name() != k {
			t.Errorf("Config{Kind: %q}.New() = %v, %v", k, a, err)
		}
	}
	if err := (Config{Kind: "nope"}).Validate(); err == nil {
		t.Error("an unknown accountant kind validated")
	}
	// The integer order set holds every order up to MaxOrder: 2^63 − 1
	// validated and then panicked allocating it ("makeslice: cap out of
	// range"), in 'dplab account' and in a spec's [accountant].
	for _, m := range []int{1, MaxIntegerOrder + 1, math.MaxInt} {
		if err := (Config{Orders: "integer", MaxOrder: m}).Validate(); err == nil {
			t.Errorf("max order %d validated", m)
		}
	}
	if err := (Config{Orders: "integer", MaxOrder: MaxIntegerOrder}).Validate(); err != nil {
		t.Errorf("max order %d: %v", MaxIntegerOrder, err)
	}
}

func newAcc(t *testing.T, c Config) Accountant {
	t.Helper()
	a, err := c.New()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestConformance is the accountant conformance suite (STYLE §1.2.5): no
// events → ε = 0; NoOp → 0; NonPrivate → +Inf; an unsupported or invalid
// event nested in Composed/SelfComposed is rejected by name without
// changing the ledger; events with different relations do not compose.
func TestConformance(t *testing.T) {
	for _, cfg := range accountantConfigs {
		t.Run(cfg.kind()+"/"+cfg.Orders, func(t *testing.T) {
			a := newAcc(t, cfg)
			if g, err := a.Epsilon(1e-5); err != nil || g.Epsilon != 0 {
				t.Errorf("empty ledger: ε = %v, %v; want 0", g.Epsilon, err)
			}
			if d, err := a.Delta(1); err != nil || d != 0 {
				t.Errorf("empty ledger: δ = %v, %v; want 0", d, err)
			}
			if err := a.Compose(NoOp{}, 3); err != nil {
				t.Fatal(err)
			}
			if g, _ := a.Epsilon(1e-5); g.Epsilon != 0 {
				t.Errorf("NoOp: ε = %v, want 0", g.Epsilon)
			}
			b := newAcc(t, cfg)
			if err := b.Compose(NonPrivate{}, 1); err != nil {
				t.Fatal(err)
			}
			if g, _ := b.Epsilon(1e-5); !math.IsInf(g.Epsilon, 1) {
				t.Errorf("NonPrivate: ε = %v, want +Inf", g.Epsilon)
			}
			if d, _ := b.Delta(10); d != 1 {
				t.Errorf("NonPrivate: δ(10) = %v, want 1", d)
			}
			// An invalid event nested two levels deep.
			bad := Composed{Events: []Event{Gaussian{Sigma: 1, Sensitivity: 1}, SelfComposed{Event: Gaussian{Sigma: -1, Sensitivity: 1}, Count: 2}}}
			c := newAcc(t, cfg)
			if err := c.Check(bad); err == nil {
				t.Error("Check accepted an invalid nested event")
			}
			if err := c.Compose(bad, 1); err == nil {
				t.Error("Compose accepted an invalid nested event")
			}
			if g, _ := c.Epsilon(1e-5); g.Epsilon != 0 {
				t.Errorf("failed Compose changed the ledger: ε = %v", g.Epsilon)
			}
			// A leaf no accountant evaluates (kinds_test.go), nested two
			// levels deep: rejected by name, the ledger unchanged.
			un := Composed{Events: []Event{Gaussian{Sigma: 1, Sensitivity: 1}, SelfComposed{Event: scratchNoRDP{}, Count: 2}}}
			for name, err := range map[string]error{"Check": c.Check(un), "Compose": c.Compose(un, 1)} {
				var u *UnsupportedError
				if !errors.As(err, &u) || u.Sub.Kind() != "scratch_no_rdp" || u.Accountant != a.Name() {
					t.Errorf("%s of an unsupported nested leaf: err = %v, want *UnsupportedError of %s naming scratch_no_rdp", name, err, a.Name())
				}
			}
			if g, _ := c.Epsilon(1e-5); g.Epsilon != 0 {
				t.Errorf("failed Compose changed the ledger: ε = %v", g.Epsilon)
			}
			// Events with different fixed neighbouring relations.
			mixed := Composed{Events: []Event{PoissonSampledGaussian{Q: 0.1, NoiseMultiplier: 1}, RGM{Eta: 0.01, Gamma: 1, D: 2}}}
			err := c.Check(mixed)
			var u *UnsupportedError
			if !errors.As(err, &u) || u.Sub.Kind() != "rgm" {
				t.Errorf("mixed relations: err = %v, want *UnsupportedError naming rgm", err)
			}
		})
	}
}

// TestExactUnsupportedNamesSubEvent: the exact accountant rejects a ledger
// without a closed-form profile, naming the sub-event, atomically.
func TestExactUnsupportedNamesSubEvent(t *testing.T) {
	a := newAcc(t, Config{Kind: "exact"})
	if err := a.Compose(Gaussian{Sigma: 2, Sensitivity: 1}, 1); err != nil {
		t.Fatal(err)
	}
	e := SelfComposed{Event: Composed{Events: []Event{Gaussian{Sigma: 1, Sensitivity: 1}, Laplace{Scale: 1, Sensitivity: 1}}}, Count: 3}
	for name, err := range map[string]error{"Check": a.Check(e), "Compose": a.Compose(e, 1)} {
		var u *UnsupportedError
		if !errors.As(err, &u) || u.Sub.Kind() != "laplace" {
			t.Errorf("%s: err = %v, want *UnsupportedError naming laplace", name, err)
		}
	}
	want := GaussianDelta(0.5, 1)
	if d, _ := a.Delta(1); d != want {
		t.Errorf("ledger changed by a failed Compose: δ(1) = %v, want %v", d, want)
	}
}

// TestCompositionAlgebra: Compose(e, 6) = SelfComposed(e, 6) =
// Composed([e]*6) = six Compose(e, 1), for every accountant and order set
// (dp_accounting's rdp_privacy_accountant_test, count=6). Tolerance 1e-12:
// the forms differ only in the order of floating-point sums.
func TestCompositionAlgebra(t *testing.T) {
	t.Parallel()
	events := []Event{
		Gaussian{Sigma: 3, Sensitivity: 1.5},
		PoissonSampledGaussian{Q: 0.02, NoiseMultiplier: 1.1},
		Laplace{Scale: 4, Sensitivity: 1},
		ObjectivePerturbation{Sigma: 8, Lambda: 10, Beta: 1, L: 1},
		GaussMix{K: 50, Gamma: 300},
	}
	for _, cfg := range accountantConfigs {
		for _, e := range events {
			a := newAcc(t, cfg)
			if err := a.Check(SelfComposed{Event: e, Count: 6}); err != nil {
				continue // not supported by this accountant
			}
			six := make([]Event, 6)
			for i := range six {
				six[i] = e
			}
			var got []float64
			for _, form := range []func(Accountant) error{
				func(a Accountant) error { return a.Compose(e, 6) },
				func(a Accountant) error { return a.Compose(SelfComposed{Event: e, Count: 6}, 1) },
				func(a Accountant) error { return a.Compose(Composed{Events: six}, 1) },
				func(a Accountant) error {
					for i := 0; i < 6; i++ {
						if err := a.Compose(e, 1); err != nil {
							return err
						}
					}
					return nil
				},
			} {
				a := newAcc(t, cfg)
				if err := form(a); err != nil {
					t.Fatalf("%s %s: %v", cfg.kind(), e.Kind(), err)
				}
				g, err := a.Epsilon(1e-6)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, g.Epsilon)
			}
			for i := 1; i < len(got); i++ {
				if !closeRel(got[i], got[0], 1e-12) {
					t.Errorf("%s %s: form %d gives ε = %.15g, form 0 %.15g", cfg.kind(), e.Kind(), i, got[i], got[0])
				}
			}
		}
	}
}

// TestGaussianClosedForm: the RDP accountant on integer orders reproduces
// ε = min_α Tα/(2σ²) + log(1−1/α) − log(δα)/(α−1) computed independently
// here, and Config.RDP returns Tα/(2σ²) ([Mir17] Prop. 7).
func TestGaussianClosedForm(t *testing.T) {
	for _, tc := range []struct{ sigma, T, delta float64 }{{1, 1, 1e-5}, {4, 100, 1e-6}, {0.7, 3, 1e-3}} {
		e := SelfComposed{Event: Gaussian{Sigma: tc.sigma, Sensitivity: 1}, Count: int(tc.T)}
		want := math.Inf(1)
		for a := 2.0; a <= 64; a++ {
			v := tc.T*a/(2*tc.sigma*tc.sigma) + math.Log(1-1/a) - math.Log(tc.delta*a)/(a-1)
			want = math.Min(want, v)
		}
		g, err := Config{Orders: "integer", MaxOrder: 64}.Epsilon(e, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if !closeRel(g.Epsilon, want, 1e-12) {
			t.Errorf("%+v: ε = %.15g, closed form %.15g", tc, g.Epsilon, want)
		}
		r, err := Config{}.RDP(e, 7.3)
		if err != nil || !closeRel(r, tc.T*7.3/(2*tc.sigma*tc.sigma), 1e-15) {
			t.Errorf("%+v: RDP(7.3) = %v, %v", tc, r, err)
		}
	}
}

// TestLaplaceRDP: the Laplace RDP equals the Rényi divergence of Lap(0, b)
// and Lap(Δ, b) computed by numerical integration — composite Simpson on the
// three pieces between the kinks at 0 and ε₀, where the integrand is
// smooth (tolerance 1e-10: Simpson error with 2e5 points per piece is below
// 1e-13, the remaining slack is for the tails cut at ±60) — and at α = 1
// the KL divergence.
func TestLaplaceRDP(t *testing.T) {
	simpson := func(f func(float64) float64, a, b float64, n int) float64 {
		h := (b - a) / float64(n)
		s := f(a) + f(b)
		for i := 1; i < n; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * f(a+float64(i)*h)
		}
		return s * h / 3
	}
	for _, tc := range []struct{ eps0, alpha float64 }{{0.5, 1.05}, {1, 2}, {2, 7.5}, {0.1, 30}} {
		// D_α(P‖Q) = log ∫ p^α q^{1−α} / (α − 1), p = Lap(0,1), q = Lap(ε₀,1)
		f := func(x float64) float64 {
			lp := -math.Abs(x) - ln2
			lq := -math.Abs(x-tc.eps0) - ln2
			return math.Exp(tc.alpha*lp + (1-tc.alpha)*lq)
		}
		sum := simpson(f, -60, 0, 200000) + simpson(f, 0, tc.eps0, 200000) + simpson(f, tc.eps0, 60, 200000)
		want := math.Log(sum) / (tc.alpha - 1)
		if got := laplaceRDP(tc.eps0, tc.alpha); !closeRel(got, want, 1e-10) {
			t.Errorf("%+v: laplaceRDP = %.12g, integral %.12g", tc, got, want)
		}
	}
	if got, want := laplaceRDP(1, 1), 1+math.Exp(-1)-1; !closeRel(got, want, 1e-15) {
		t.Errorf("KL: %v, want %v", got, want)
	}
}

// TestQueryCheckedFirst (issue 34 item 14): an invalid query (δ outside
// [0, 1], ε NaN, negative or +Inf) gets the same error from every
// accountant, before and whether or not it evaluates the event; ε = +Inf
// gave δ = 0 (rdp), 1.9e-44 (pld) and NaN (exact).
func TestQueryCheckedFirst(t *testing.T) {
	for _, e := range []Event{Gaussian{Sigma: 1, Sensitivity: 1}, Laplace{Scale: 1, Sensitivity: 1}, GaussMix{K: 10, Gamma: 50}} {
		for _, delta := range []float64{math.NaN(), -1e-5, 2} {
			want := checkDelta(delta)
			for _, k := range []string{"rdp", "pld", "exact"} {
				if _, err := (Config{Kind: k}).Epsilon(e, delta); err == nil || err.Error() != want.Error() {
					t.Errorf("%s %s ε at δ = %v: %v, want %v", k, e.Kind(), delta, err, want)
				}
			}
		}
		for _, eps := range []float64{math.NaN(), -1, math.Inf(1)} {
			want := checkEpsilon(eps)
			if want == nil {
				t.Fatalf("ε = %v accepted", eps)
			}
			for _, k := range []string{"rdp", "pld", "exact"} {
				if _, err := (Config{Kind: k}).Delta(e, eps); err == nil || err.Error() != want.Error() {
					t.Errorf("%s %s δ at ε = %v: %v, want %v", k, e.Kind(), eps, err, want)
				}
			}
		}
	}
}
