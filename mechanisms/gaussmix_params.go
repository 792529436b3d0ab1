package mechanisms

import (
	"errors"
	"fmt"
	"math"

	"github.com/dplab/dplab/internal/oncemap"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Presets of the GaussMix family ([LSS+25] code differences, gaussmix.md
// §4.5).
const (
	presetPaper = "paper" // the paper's boxes, with its typos corrected
	presetCode  = "code"  // the authors' paper-era code (omrilev1/GaussMix 5392907)
)

// Calibrations of the GaussMix family.
const (
	calPaper      = "paper"      // the paper's rule for the preset (Thm 1, the ε/2 split, the box)
	calAccountant = "accountant" // the smallest γ whose whole ledger meets the target under the spec's accountant
)

// sketchParams are the params shared by the sketching mechanisms
// (linear-mixing, sheffet17, sheffet17-renyi).
type sketchParams struct {
	boundsParams
	// K is the sketch size k ≥ 1; 0 means int(k_over_d·d).
	K int `toml:"k" default:"int(k_over_d·d)" range:"≥ 1, ≥ d at fit"`
	// KOverD is k/d when K is 0; 0 means 2.5 (the authors' k = int(2.5d)).
	KOverD float64 `toml:"k_over_d" default:"2.5" range:"> 0"`
	// Preset is "paper" (default) or "code": the authors' code's constants
	// where they differ from the paper (documented per mechanism).
	Preset string `toml:"preset" default:"paper" range:"paper | code"`
	// Sampler is "exact" (default: G·R + s·Ξ, the same output distribution
	// in O(k·p²) time), "explicit" (S·Z + s·Ξ as written) or "wishart" (the
	// sketch's Gram matrix drawn from its law in O(p³) time; as "exact"
	// when k < p).
	Sampler string `toml:"sampler" default:"exact" range:"exact | explicit | wishart"`
}

func (p sketchParams) validate() error {
	if err := p.boundsParams.validate(); err != nil {
		return err
	}
	if p.K < 0 {
		return fmt.Errorf("k = %d must be ≥ 1 (0 means int(k_over_d·d))", p.K)
	}
	if err := checkNonNegative("k_over_d", p.KOverD); err != nil {
		return err
	}
	if p.Preset != "" && p.Preset != presetPaper && p.Preset != presetCode {
		return fmt.Errorf("preset = %q: want %q or %q", p.Preset, presetPaper, presetCode)
	}
	if p.Sampler != "" && p.Sampler != samplerExact && p.Sampler != samplerExplicit && p.Sampler != samplerWishart {
		return fmt.Errorf("sampler = %q: want %q, %q or %q", p.Sampler, samplerExact, samplerExplicit, samplerWishart)
	}
	return nil
}

func (p sketchParams) preset() string  { return orString(p.Preset, presetPaper) }
func (p sketchParams) sampler() string { return orString(p.Sampler, samplerExact) }
func (p sketchParams) k(d int) int     { return sketchSize(p.K, p.KOverD, d) }

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func validateCalibration(c string) error {
	if c != "" && c != calPaper && c != calAccountant {
		return fmt.Errorf("calibration = %q: want %q or %q", c, calPaper, calAccountant)
	}
	return nil
}

// sketchTargetEvent is the CheckTarget of a sketch mechanism: the ledger
// setup gives for the sketch size kOf gives the data's declared columns;
// nothing when they are not known or that size does not fit them (Fit
// refuses it on the data).
func sketchTargetEvent(d DataShape, kOf func(d int) int, setup func(k int) (accounting.Event, error)) (accounting.Event, error) {
	if d.Cols == 0 {
		return nil, nil
	}
	k := kOf(d.Cols)
	if checkSketchSize("", k, d.Cols) != nil {
		return nil, nil
	}
	return setup(k)
}

// checkSketchSize reports a sketch too small for the least-squares solve.
func checkSketchSize(name string, k, d int) error {
	if k < d {
		return fmt.Errorf("%s: k = %d < d = %d: %w; raise k or k_over_d", name, k, d, errSketchTooSmall)
	}
	if entries := float64(k) * float64(d+1); entries > maxSketchEntries {
		return fmt.Errorf("%s: k = %d: the k × (d + 1) sketch (d = %d) would hold %.3g numbers (%.3g GB), above the limit of %d (1 GiB per trial in flight); lower k or k_over_d",
			name, k, d, entries, entries*8/1e9, maxSketchEntries)
	}
	return nil
}

// maxSketchEntries bounds the entries of a sketch, k × (d + 1) float64s
// held per trial in flight: 2^27, 1 GiB. A larger k ran the process out of
// memory (k = 1e9 on d = 4 asked for 40 GB: a fatal error, not an error a
// trial can record). The specs' largest sketch, compare_classification's
// k = 5000 on d = 2000, holds 1e7.
const maxSketchEntries = 1 << 27

// errPaperWrapped: the paper's calibrations split the budget in closed form
// and cannot absorb Budget.Wrap (private tuning).
var errPaperWrapped = errors.New(`calibration = "paper" follows the paper's budget split and cannot account for private tuning; set calibration = "accountant"`)

// gammaMemo memoises the paper calibrations of the sketching mechanisms for
// the process, per gammaKey: each takes tens of accountant evaluations
// (milliseconds), the trials of a cell share one, trials that ask while it
// is computed wait for it, and validation's target checks
// (mechanisms.TargetChecker) compute those of the run's cells before it
// starts (on the declared size, which is the loaded one unless a source
// splits itself) — with the memo in the mechanism value, each run
// calibrated every cell twice, a tenth of a GaussMix panel's trial time.
// An entry is a few numbers, and a process calibrates at most its grid's
// (k, ε, δ) points.
var gammaMemo oncemap.Map[gammaKey, float64]

// gammaKey is what a paper calibration of γ depends on: the mechanism's
// calibration (fn), k, ε, δ and, for linear-mixing's code preset, C².
type gammaKey struct {
	fn             string
	k              int
	eps, delta, c2 float64
}

// calibrateGamma returns compute's γ for key, computed once per process.
func calibrateGamma(key gammaKey, compute func() (float64, error)) (float64, error) {
	return gammaMemo.Do(key, compute)
}

// smallestGamma returns the smallest γ > lo (to relative tolerance
// accounting.CalibrationTolerance) with f(γ) ≤ target, for f non-increasing
// in γ; an error of f counts as infeasible (e.g. γ outside Theorem 1's
// γ > 5/2). The upper end is found by doubling from 2·lo.
func smallestGamma(f func(gamma float64) (float64, error), target, lo float64) (float64, error) {
	g := accounting.Memoize(func(x float64) (float64, error) {
		v, err := f(x)
		if err != nil {
			return math.Inf(1), nil
		}
		return v, nil
	})
	hi := 2 * lo
	for {
		v, _ := g(hi)
		if v <= target {
			break
		}
		if hi > 1e30 {
			return 0, &accounting.InfeasibleError{Target: accounting.Target{Epsilon: target}, Floor: math.NaN(), X: math.NaN(),
				Reason: fmt.Sprintf("no γ ≤ %g meets ε = %g", hi, target)}
		}
		hi *= 2
	}
	return accounting.SmallestFeasible(g, target, lo, hi, accounting.CalibrationTolerance)
}

// gaussMixEpsilon is ε of plain GaussMix by Lemma 1 + Prop. 1 ([LSS+25]
// §3: the RDP curve converted by [CKS20] Prop. 12 over continuous α, the
// RDP accountant's default), the bound of Figure 1 and of Algorithm 5.
func gaussMixEpsilon(k int, gamma, delta float64) (float64, error) {
	g, err := accounting.Config{}.Epsilon(accounting.GaussMix{K: k, Gamma: gamma}, delta)
	return g.Epsilon, err
}

// gaussianTail returns P(z ≥ t) = Φ(−t) for z ~ N(0, 1).
func gaussianTail(t float64) float64 { return 0.5 * math.Erfc(t/math.Sqrt2) }

// The quantities the sketching mechanisms (linear-mixing, sheffet17,
// sheffet17-renyi) print (Info.Quantities), in [LSS+25]'s notation.
const (
	refLSS   = "[LSS+25]"
	rawUnits = "raw: units of C² = C_X² + C_Y²"
)

var (
	qK        = []Quantity{quantity("k", `$k$`, "sketch size (rows of S)", refLSS+" Alg. 1")}
	qSigma2   = []Quantity{quantity("σ²", `$\sigma^2$`, "variance of the sketch noise (Alg. 1: η̃²C²; Alg. 4: γ)", refLSS+" Lemma 1, Alg. 1 l. 6–7 (corrected), Alg. 4 l. 3").in(rawUnits)}
	qGammaMix = []Quantity{quantity("γ", `$\gamma$`, "GaussMix γ = (σ² + λ̄)/C² of the ledger", refLSS+" Lemma 1").in("dimensionless")}
)
