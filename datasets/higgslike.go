package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// HIGGSLikeParams are the params of "higgs-like".
type HIGGSLikeParams struct {
	N        int     `toml:"n"`        // rows; 0 means 20,000 (small enough for CI)
	Positive float64 `toml:"positive"` // population rate of label 1; 0 means 0.53 (HIGGS's balance, about 53% signal)
	Seed     uint64  `toml:"seed"`
}

func (p HIGGSLikeParams) withDefaults() HIGGSLikeParams {
	p.N, p.Positive = orDefault(p.N, 20000), orDefault(p.Positive, 0.53)
	return p
}

func (p HIGGSLikeParams) shape(string, Info) (Shape, error) {
	q := p.withDefaults()
	return Shape{Rows: int64(q.N), Cols: int64(higgsCols)}, nil
}

// Validate implements Params.
func (p HIGGSLikeParams) Validate() error {
	q := p.withDefaults()
	if err := checkShape(q.N, higgsCols); err != nil {
		return err
	}
	if !(q.Positive > 0 && q.Positive < 1) {
		return fmt.Errorf("positive = %v: must be in (0, 1) (0 means 0.53)", q.Positive)
	}
	return nil
}

func init() {
	Register(Info{
		Name:  "higgs-like",
		Title: "HIGGS-like synthetic stand-in for RGM tests",
		Description: "Exists so that CI can run the --quick variant of [HMB23] Fig. 2 (left) without the 11M-row HIGGS file. Same " +
			"shape and column kinds as higgs, not fitted to it (the file is absent here): d = 28 in HIGGS's column order; " +
			"label y ~ Bernoulli(0.53) in {0, 1}, used as a real target like higgs; the 13 momenta and masses are " +
			"positive and right-skewed, log-normal exp(0.5·z − 0.125) with mean 1 and z = (u + √3·e)/2 sharing a per-row " +
			"factor u (correlation 0.25 between them), and the signal rows' m_bb, m_wbb and m_wwbb scaled by e^0.15; the " +
			"5 pseudorapidities are N(0, 1) truncated to [−2.5, 2.5]; the 6 azimuthal angles are uniform on [−√3, √3] " +
			"(unit variance); the 4 b-tags take 0, 1.0865 or 2.173 with probabilities 0.5, 0.1, 0.4. Deterministic from seed.",
		Task: Regression, Synthetic: true, Papers: []string{"HMB23 Fig. 2 left (CI stand-in for higgs)"},
		License: "generated; no restriction", Source: "dplab, for issue 11 (rgm.md §6 items 16, 22)",
		Rows: 20000, Cols: higgsCols,
	}, func(_ string, p HIGGSLikeParams) (*Loaded, error) {
		return &Loaded{All: generateHIGGSLike(p.withDefaults())}, nil
	}, HIGGSLikeParams{N: 200})
}

// higgsKind is what a HIGGS column measures, which sets its distribution in
// higgs-like.
type higgsKind int

const (
	higgsMomentum higgsKind = iota // a transverse momentum, energy or mass: positive, skewed
	higgsEta                       // a pseudorapidity: signed, |η| ≤ 2.5
	higgsPhi                       // an azimuthal angle: signed, uniform
	higgsBTag                      // a b-tag: three values
)

// higgsKindOf returns the kind of the column called name in higgsFeatures.
func higgsKindOf(name string) higgsKind {
	switch {
	case strings.HasPrefix(name, "m_"), strings.HasSuffix(name, "_pt"), name == "missing_energy_magnitude":
		return higgsMomentum
	case strings.HasSuffix(name, "_eta"):
		return higgsEta
	case strings.HasSuffix(name, "_phi"):
		return higgsPhi
	}
	return higgsBTag
}

// higgsSignalMasses are the masses shifted for label 1: the high-level
// features that separate HIGGS's classes best (Baldi et al. 2014).
var higgsSignalMasses = []string{"m_bb", "m_wbb", "m_wwbb"}

// generateHIGGSLike draws the rows one at a time: label, shared factor, then
// the columns left to right.
func generateHIGGSLike(p HIGGSLikeParams) *Dataset {
	const (
		sigma  = 0.5  // log-sd of the momenta
		shift  = 0.15 // log-shift of the signal masses
		etaMax = 2.5
	)
	r := generatorRand("higgs-like", p.Seed)
	kinds := make([]higgsKind, higgsCols)
	signal := make([]bool, higgsCols)
	for j, name := range higgsFeatures {
		kinds[j] = higgsKindOf(name)
		signal[j] = slices.Contains(higgsSignalMasses, name)
	}
	x := make([]float64, p.N*higgsCols)
	y := make([]float64, p.N)
	for i := range y {
		if r.Float64() < p.Positive {
			y[i] = 1
		}
		u := r.NormFloat64()
		row := x[i*higgsCols : (i+1)*higgsCols]
		for j, k := range kinds {
			switch k {
			case higgsMomentum:
				z := (u + math.Sqrt(3)*r.NormFloat64()) / 2 // N(0, 1), correlation 1/4 with the other momenta
				row[j] = math.Exp(sigma*z - sigma*sigma/2)
				if signal[j] && y[i] == 1 {
					row[j] *= math.Exp(shift)
				}
			case higgsEta:
				row[j] = truncatedNormal(r, etaMax)
			case higgsPhi:
				row[j] = math.Sqrt(3) * (2*r.Float64() - 1)
			case higgsBTag:
				switch v := r.Float64(); {
				case v < 0.5:
					row[j] = 0
				case v < 0.6:
					row[j] = 1.0865
				default:
					row[j] = 2.173
				}
			}
		}
	}
	return newDataset("higgs-like", Regression, p.N, higgsCols, x, y, slices.Clone(higgsFeatures))
}

// truncatedNormal draws N(0, 1) conditioned on |z| ≤ bound, by rejection
// (bound 2.5 accepts 98.8% of draws).
func truncatedNormal(r *rand.Rand, bound float64) float64 {
	for {
		if z := r.NormFloat64(); math.Abs(z) <= bound {
			return z
		}
	}
}
