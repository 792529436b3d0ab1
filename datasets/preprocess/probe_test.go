package preprocess

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// expectation is what the standard probes must show for one pre-processor.
type expectation struct {
	paperInf, paper2 bool   // paper Δ_∞, Δ_2 refuted
	target2          string // the target of the paper Δ_2 witness, when refuted
	targetInf        string // the target of the paper Δ_∞ witness, when refuted
}

// TestStandardProbes runs RunStandardProbes with 1,600 random swaps and 200
// per adversarial target (≥ 2,000 swaps with a bound per pre-processor,
// fixed seed) and pins every
// verdict: the safe bounds are never exceeded; the paper's are refuted where
// preprocessing.md and this package say they are wrong, each with the
// expected kind of witness; the quantization witness lies in (η, 2η].
// Under -short it draws 400 random swaps (≥ 800 with a bound): every
// refutation's witness is an adversarial target's swap, all kept.
func TestStandardProbes(t *testing.T) {
	t.Parallel()
	random, minSwaps := 1600, 2000
	if testing.Short() {
		random, minSwaps = 400, 800
	}
	want := map[string]expectation{
		"dedup[eta=0.1]":                         {paperInf: true, targetInf: "star"},
		"dedup[eta=0.1] (add/remove)":            {paperInf: true, targetInf: "star"},
		"quantize[eta=0.1]":                      {paperInf: true, targetInf: "star", paper2: true, target2: "both-centres"},
		"quantize[eta=0.1] (add/remove)":         {paperInf: true, targetInf: "star"},
		"impute-mean":                            {paper2: true, target2: "missingness"},
		"impute-median":                          {paper2: true, target2: "order-gap"},
		"impute-trimmed[trim=2]":                 {paper2: true, target2: "order-gap"},
		"impute-linreg":                          {},
		"pca-rank[k=3]":                          {},
		"pca-dim[k=3]":                           {paper2: true},
		"chain(quantize[eta=0.1]→pca-rank[k=1])": {},
	}
	reps, err := RunStandardProbes(ProbeConfig{Seed: 1, Random: random})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != len(want) {
		t.Fatalf("%d reports, want %d", len(reps), len(want))
	}
	for _, r := range reps {
		w, ok := want[r.Preprocessor]
		if !ok {
			t.Errorf("unexpected report %q", r.Preprocessor)
			continue
		}
		t.Log(r)
		if r.Swaps < minSwaps || r.FitErrors > 0 {
			t.Errorf("%s: %d swaps measured, %d refused: want ≥ %d, none refused", r.Preprocessor, r.Swaps, r.FitErrors, minSwaps)
		}
		for _, q := range []string{"Δ_∞", "Δ_2"} {
			s := r.Verdict(Safe, q)
			if s.Refuted || s.Checked < minSwaps {
				t.Errorf("%s: safe %s: refuted = %v over %d swaps: %v", r.Preprocessor, q, s.Refuted, s.Checked, s)
			}
		}
		pi, p2 := r.Verdict(Paper, "Δ_∞"), r.Verdict(Paper, "Δ_2")
		if pi.Refuted != w.paperInf || p2.Refuted != w.paper2 {
			t.Errorf("%s: paper refuted Δ_∞ %v, Δ_2 %v; want %v, %v", r.Preprocessor, pi.Refuted, p2.Refuted, w.paperInf, w.paper2)
		}
		if w.targetInf != "" && pi.Witness.Swap.Target != w.targetInf {
			t.Errorf("%s: paper Δ_∞ witness %q, want %q", r.Preprocessor, pi.Witness.Swap.Target, w.targetInf)
		}
		if w.target2 != "" && p2.Witness.Swap.Target != w.target2 {
			t.Errorf("%s: paper Δ_2 witness %q, want %q", r.Preprocessor, p2.Witness.Swap.Target, w.target2)
		}
		if r.Preprocessor == "quantize[eta=0.1]" {
			if d := r.MaxDelta2.Measure.Delta2; !(d > 0.1 && d <= 0.2) || r.MaxDelta2.Swap.Target != "both-centres" {
				t.Errorf("quantization's largest Δ_2 = %v (%s), want in (η, 2η] = (0.1, 0.2] from both-centres", d, r.MaxDelta2.Swap.Target)
			}
		}
		if r.Preprocessor == "impute-mean" {
			// Cor. 4's 2/(n − p) is exceeded only with differing missingness.
			if z1, z2 := p2.Witness.Swap.Z1, p2.Witness.Swap.Z2; samePattern(z1, z2) {
				t.Errorf("mean imputation refuted by a swap with equal missingness: %v", p2.Witness)
			}
		}
	}
}

func samePattern(a, b []float64) bool {
	for j := range a {
		if math.IsNaN(a[j]) != math.IsNaN(b[j]) {
			return false
		}
	}
	return true
}

// TestProbesLong repeats the standard probes at 10× the swaps for five
// seeds. The seeds share no state (each builds its own swaps and
// pre-processors), so they run as parallel subtests.
func TestProbesLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long probe search; run without -short")
	}
	for seed := uint64(2); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			reps, err := RunStandardProbes(ProbeConfig{Seed: seed, Random: 14000, PerTarget: 2000})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range reps {
				for _, q := range []string{"Δ_∞", "Δ_2"} {
					if v := r.Verdict(Safe, q); v.Refuted {
						t.Errorf("seed %d: %s: %v", seed, r.Preprocessor, v)
					}
				}
			}
		})
	}
}

// TestSafeDimensionReductionNonTrivial: at n = 4001 the safe bound of PCA
// dimension reduction certifies the basis (sign margin, all gaps) for most
// random swaps, giving Δ_2 < 2, and still holds.
func TestSafeDimensionReductionNonTrivial(t *testing.T) {
	t.Parallel()
	swaps, err := PCASwaps(ProbeConfig{N: 4001, Random: 60, PerTarget: -1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := &PCA{K: 3, Dim: true}
	r, err := Probe(p, swaps)
	if err != nil {
		t.Fatal(err)
	}
	nonTrivial := 0
	for _, w := range swaps {
		_, col, err := MeasureSwap(p, w)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := p.Sensitivity(col, Safe); s.Delta2 < 2 {
			nonTrivial++
		}
	}
	if v := r.Verdict(Safe, "Δ_2"); v.Refuted || nonTrivial < 30 {
		t.Errorf("safe Δ_2: %v; %d of %d swaps with a certified basis", v, nonTrivial, len(swaps))
	}
}

// liar claims a smaller Δ_2 than quantization has: Probe must catch it.
type liar struct{ Quantize }

func (l *liar) Sensitivity(c Collection, m Mode) (Sensitivity, error) {
	s, err := l.Quantize.Sensitivity(c, m)
	s.Delta2 /= 10
	return s, err
}

func TestProbeCatchesAWrongBound(t *testing.T) {
	swaps, err := ClusterSwaps(ProbeConfig{Random: 20, PerTarget: 5, Seed: 3}, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Probe(&liar{Quantize{Eta: 0.1}}, swaps)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Verdict(Safe, "Δ_2")
	if !v.Refuted || v.Witness == nil || v.Observed() <= v.Bound() || !strings.Contains(v.String(), "REFUTED") {
		t.Errorf("a bound 10× too small was not refuted: %v", v)
	}
	// Malformed swaps are an error, not a panic.
	bad := Swap{S: mat.NewDense(2, 2, nil), Z1: []float64{0}, Z2: []float64{0, 0}, Index: 0}
	if _, err := Probe(&Quantize{Eta: 0.1}, []Swap{bad}); err == nil {
		t.Error("a swap with |z₁| ≠ d accepted")
	}
	if _, err := ClusterSwaps(ProbeConfig{N: 3}, false); err == nil {
		t.Error("n = 3 accepted")
	}
}

// TestProbesAreDeterministic: the same config gives the same swaps.
func TestProbesAreDeterministic(t *testing.T) {
	cfg := ProbeConfig{Random: 15, PerTarget: 3, Seed: 9}
	for _, gen := range []func() ([]Swap, error){
		func() ([]Swap, error) { return ClusterSwaps(cfg, false) },
		func() ([]Swap, error) { return ImputeSwaps(cfg) },
		func() ([]Swap, error) { return PCASwaps(cfg) },
	} {
		a, err := gen()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := gen()
		for i := range a {
			if !mat.Equal(a[i].S, b[i].S) && !nanEqual(a[i].S, b[i].S) || a[i].Index != b[i].Index || a[i].Target != b[i].Target {
				t.Fatalf("swap %d differs between two runs", i)
			}
		}
	}
}

func nanEqual(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := 0; i < ra; i++ {
		for j := 0; j < ca; j++ {
			x, y := a.At(i, j), b.At(i, j)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				return false
			}
		}
	}
	return true
}

// TestProbeSharedFitMatchesOwnFits: Probe fits an add/remove swap's S₂ = S
// once for the swaps drawn on the same S (commonFit); every swap's measure
// and collection must equal, bit for bit, those of MeasureSwap fitting both
// neighbours itself, and the memo must have been used.
func TestProbeSharedFitMatchesOwnFits(t *testing.T) {
	swaps, err := ClusterSwaps(ProbeConfig{Random: 30, PerTarget: 12, Seed: 5}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range []Preprocessor{&Dedup{Eta: 0.1}, &Quantize{Eta: 0.1}, &PCA{K: 2}} {
		var memo commonFit
		var scratch swapScratch
		hits := 0
		for i, w := range swaps {
			hit := memo.s == w.S
			m1, c1, err1 := measureSwap(pp, w, &memo, &scratch)
			m2, c2, err2 := MeasureSwap(pp, w)
			if hit {
				hits++
			}
			if (err1 == nil) != (err2 == nil) || m1 != m2 || fmt.Sprintf("%#v", c1) != fmt.Sprintf("%#v", c2) {
				t.Fatalf("%s, swap %d (%s): shared fit %+v %#v %v, own fits %+v %#v %v", pp, i, w.Target, m1, c1, err1, m2, c2, err2)
			}
		}
		if want := len(swaps) * 7 / 10; hits < want {
			t.Errorf("%s: %d of %d swaps reused S₂'s fit, want ≥ %d", pp, hits, len(swaps), want)
		}
	}
}

// arraySpy is quantization recording the data array of every input it fits
// (and keeping it alive, so that no address is reused by a new array).
type arraySpy struct {
	Quantize
	seen map[*float64][]float64
}

func (a *arraySpy) Fit(x *mat.Dense) (Fitted, error) {
	data := x.RawMatrix().Data
	a.seen[&data[0]] = data
	return a.Quantize.Fit(x)
}

// TestProbeReusesNeighbourArrays: Probe builds the neighbours of its
// replace-one swaps in two arrays it reuses (swapScratch), not two new
// arrays per swap; the measures stay bit-identical (TestMeasureSwapGolden,
// TestProbeSharedFitMatchesOwnFits).
func TestProbeReusesNeighbourArrays(t *testing.T) {
	swaps, err := ClusterSwaps(ProbeConfig{Random: 40, PerTarget: -1, Seed: 4}, false)
	if err != nil {
		t.Fatal(err)
	}
	spy := &arraySpy{Quantize: Quantize{Eta: 0.1}, seen: map[*float64][]float64{}}
	r, err := Probe(spy, swaps)
	if err != nil || r.Swaps != len(swaps) {
		t.Fatalf("%d of %d swaps measured: %v", r.Swaps, len(swaps), err)
	}
	if n := len(spy.seen); n != 2 {
		t.Errorf("Probe fitted %d distinct arrays over %d replace-one swaps, want 2 (S₁'s and S₂'s, reused)", n, len(swaps))
	}
}
