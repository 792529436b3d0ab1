package accounting

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestApproxDPBasicComposition checks ApproxDP against the arithmetic of
// basic composition ([DR14] Thm 3.16): the RDP part converted at δ − ΣΔ plus
// ΣE. Tolerance 1e-12: both sides run the same conversion, only the order of
// the final sum differs.
func TestApproxDPBasicComposition(t *testing.T) {
	g := Gaussian{Sigma: 2, Sensitivity: 1}
	mix := GaussMix{K: 50, Gamma: 300}
	cases := []struct {
		name   string
		ledger Event
		rest   Event // the ledger without its ApproxDP parts; nil when empty
		eps    float64
		delta  float64 // total ΣΔ of the ApproxDP parts
		at     float64 // δ queried
	}{
		{"alone", ApproxDP{Epsilon: 0.7, Delta: 1e-6}, nil, 0.7, 1e-6, 1e-5},
		{"alone at its δ", ApproxDP{Epsilon: 0.7, Delta: 1e-6}, nil, 0.7, 1e-6, 1e-6},
		{"failure with a Gaussian", NewComposed(g, ApproxDP{Delta: 3e-6}), g, 0, 3e-6, 1e-5},
		{"Theorem 1 shape", NewComposed(g, mix, ApproxDP{Delta: 1e-6 / 3}), NewComposed(g, mix), 0, 1e-6 / 3, 1e-6},
		{"self-composed", SelfComposed{Event: NewComposed(g, ApproxDP{Epsilon: 0.1, Delta: 1e-7}), Count: 3},
			SelfComposed{Event: g, Count: 3}, 0.3, 3e-7, 1e-5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Config{}.Epsilon(tc.ledger, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.eps
			if tc.rest != nil {
				r, err := Config{}.Epsilon(tc.rest, tc.at-tc.delta)
				if err != nil {
					t.Fatal(err)
				}
				want += r.Epsilon
			}
			if !scalar.EqualWithinAbsOrRel(got.Epsilon, want, 1e-12, 1e-12) {
				t.Errorf("ε = %.15g, want %.15g", got.Epsilon, want)
			}
			// Below ΣΔ there is no guarantee.
			if g, _ := (Config{}).Epsilon(tc.ledger, tc.delta/2); !math.IsInf(g.Epsilon, 1) {
				t.Errorf("ε at δ = ΣΔ/2 is %v, want +Inf", g.Epsilon)
			}
			// δ(ε) round trip within 1e-3 relative: the RDP accountant's
			// δ(ε) and ε(δ) minimise over α separately and are not exact
			// inverses (a plain Gaussian is off by 2e-4 too).
			d, err := Config{}.Delta(tc.ledger, got.Epsilon)
			if err != nil {
				t.Fatal(err)
			}
			if d > tc.at*(1+1e-3) {
				t.Errorf("δ(ε(%g)) = %g", tc.at, d)
			}
			if d < tc.delta {
				t.Errorf("δ(ε) = %g is below the failure probability %g", d, tc.delta)
			}
		})
	}
	if d, _ := (Config{}).Delta(ApproxDP{Epsilon: 1, Delta: 1e-6}, 0.5); d != 1 {
		t.Errorf("δ at ε below the ApproxDP ε = %v, want 1", d)
	}
}

// TestApproxDPUnsupported: the PLD and exact accountants reject ApproxDP by
// name, the RDP accountant rejects it inside RepeatAndSelect, and Config.RDP
// has no curve for it.
func TestApproxDPUnsupported(t *testing.T) {
	a := ApproxDP{Epsilon: 0.5, Delta: 1e-6}
	for _, cfg := range []Config{{Kind: "pld"}, {Kind: "exact"}} {
		acc := newAcc(t, cfg)
		var u *UnsupportedError
		if err := acc.Check(NewComposed(Gaussian{Sigma: 1, Sensitivity: 1}, a)); !errors.As(err, &u) || u.Sub.Kind() != "approx_dp" {
			t.Errorf("%s: Check = %v, want an UnsupportedError naming approx_dp", cfg.kind(), err)
		}
	}
	sel := RepeatAndSelect{Event: NewComposed(Gaussian{Sigma: 1, Sensitivity: 1}, a), Mean: 3}
	var u *UnsupportedError
	if err := newAcc(t, Config{}).Check(sel); !errors.As(err, &u) || u.Sub.Kind() != "approx_dp" {
		t.Errorf("rdp: Check(RepeatAndSelect(ApproxDP)) = %v, want an UnsupportedError", err)
	}
	if _, err := (Config{}).RDP(a, 2); !errors.As(err, &u) {
		t.Errorf("RDP of ApproxDP = %v, want an UnsupportedError", err)
	}
	for _, bad := range []ApproxDP{{Epsilon: -1}, {Delta: 1}, {Epsilon: math.Inf(1)}, {Delta: math.NaN()}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

func TestApproxDPJSON(t *testing.T) {
	e := NewComposed(GaussMix{K: 3, Gamma: 10}, ApproxDP{Epsilon: 0.25, Delta: 1e-7})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Errorf("round trip: %s != %s", b, b2)
	}
}

// TestKiferAlgorithm6: with σ = √(4ε + 8 log(2/δ))·L/ε and λ = L²/(2ε)
// ([LSS+25] Alg. 6, line 2) and the logistic loss's β = L²/4, Kifer et
// al.'s condition holds with equality, so KiferEpsilon returns ε — also for
// ε > 2, where λ < β (no RDP bound). Tolerance 1e-12 (closed forms).
func TestKiferAlgorithm6(t *testing.T) {
	const delta = 1e-6
	for _, eps := range []float64{0.1, 0.4217, 1.778, 7.499, 31.62} {
		e := ObjectivePerturbation{Sigma: math.Sqrt(4*eps+8*math.Log(2/delta)) / eps, Lambda: 1 / (2 * eps), Beta: 0.25, L: 1}
		got, err := KiferEpsilon(e, delta)
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinRel(got, eps, 1e-12) {
			t.Errorf("ε = %v: KiferEpsilon = %.15g", eps, got)
		}
		d, err := KiferDelta(e, eps*(1+1e-9))
		if err != nil || d > delta*(1+1e-6) {
			t.Errorf("ε = %v: KiferDelta = %v, %v; want ≤ %v", eps, d, err, delta)
		}
	}
}
