package accounting

import (
	"errors"
	"math"
	"testing"
)

// FuzzPreprocessed: any Preprocessed event built from arbitrary numbers is
// either refused by Validate (an error, no panic) or accounted by the RDP
// accountant with ε ≥ 0 or +Inf, never NaN, and at most each analysis alone;
// the analyses at an order are never NaN.
func FuzzPreprocessed(f *testing.F) {
	f.Add(uint8(0), 1.0, 1.0, 10, 0.1, 1000, uint8(0), 1e-5, 3.0)
	f.Add(uint8(1), 2.0, 0.5, 1000, 0.0244, 1000, uint8(1), 1e-3, 11.0)
	f.Add(uint8(2), 0.0, 1.0, 5, 1e300, 0, uint8(2), 0.5, 1.0001)
	f.Add(uint8(3), 1e-3, 2.0, 1<<40, 1e-9, 1<<41, uint8(0), 1e-12, 1e7)
	f.Add(uint8(4), 1.0, 0.0, 0, 0.0, 0, uint8(3), 1e-5, 2.0)
	f.Fuzz(func(t *testing.T, kind uint8, noise, lip float64, dInf int, d2 float64, n int, rel uint8, delta, alpha float64) {
		var e Preprocessed
		switch kind % 5 {
		case 0:
			e = Preprocessed{Event: Gaussian{Sigma: noise, Sensitivity: 1}, SRDP: &SRDP{Mechanism: SRDPGaussian, Sigma: noise, Sensitivity: 1, L12: lip, LF: lip}}
		case 1:
			e = Preprocessed{Event: Laplace{Scale: noise, Sensitivity: 1}, SRDP: &SRDP{Mechanism: SRDPLaplace, Scale: noise, Sensitivity: 1, L12: lip}}
		case 2:
			e = Preprocessed{Event: SelfComposed{Event: Gaussian{Sigma: noise, Sensitivity: 0.02}, Count: 3}, SRDP: &SRDP{Mechanism: SRDPDPGD, Sigma: noise, N: 100, Lipschitz: 1, MuX: lip, Steps: 3}}
		case 3:
			e = Preprocessed{Event: SelfComposed{Event: PoissonSampledGaussian{Q: 0.05, NoiseMultiplier: noise}, Count: 4}, SRDP: &SRDP{Mechanism: SRDPDPSGD, NoiseMultiplier: noise, Clip: 1, MuX: lip, Steps: 4, Q: 0.05}}
		default:
			e = Preprocessed{Event: RGM{Eta: 0.01, Gamma: math.Abs(noise) + 1e-3, D: 3}}
		}
		e.DeltaInf, e.Delta2, e.N = dInf, d2, n
		e.Relation = []string{"", RelationReplaceOne, RelationAddRemove, "bogus"}[rel%4]
		if err := e.Validate(); err != nil {
			return
		}
		if !(delta > 0 && delta < 1) {
			t.Skip()
		}
		g, err := (Config{}).Epsilon(e, delta)
		if err != nil {
			var u *UnsupportedError
			if errors.As(err, &u) {
				return // a relation the mechanism's event does not share
			}
			t.Fatal(err)
		}
		if math.IsNaN(g.Epsilon) || g.Epsilon < 0 {
			t.Fatalf("ε = %v", g.Epsilon)
		}
		if alpha > 1 && !math.IsInf(alpha, 0) {
			at, err := PreprocessedAnalyses(Config{}, e, alpha)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range at.Values {
				if math.IsNaN(v.RDP) || v.RDP < 0 {
					t.Fatalf("%s at α = %g: %v", v.Analysis, alpha, v.RDP)
				}
			}
		}
		for _, a := range e.Applicable() {
			one, err := (Config{}).Epsilon(e.Only(a), delta)
			if err == nil && g.Epsilon > one.Epsilon*(1+1e-9)+1e-12 {
				t.Fatalf("minimum's ε %v > %s's %v", g.Epsilon, a, one.Epsilon)
			}
		}
	})
}
