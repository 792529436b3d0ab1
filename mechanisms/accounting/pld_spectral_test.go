package accounting

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// convolveDirect returns the convolution of two non-negative sequences by
// direct summation: each output is a sum of at most len(b) non-negative
// products, exact to a relative γ_{len(b)+1}.
func convolveDirect(a, b []float64) []float64 {
	out := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			out[i+j] += x * y
		}
	}
	return out
}

// selfConvolve returns the count-fold convolution of p by binary powering
// with convolveDirect (relative error ≤ count·len(p)·u: ≈ 2e-11 below).
func selfConvolve(p []float64, count int) []float64 {
	out := []float64{1}
	for e := count; e > 0; e >>= 1 {
		if e&1 == 1 {
			out = convolveDirect(out, p)
		}
		if e > 1 {
			p = convolveDirect(p, p)
		}
	}
	return out
}

// TestSpectralEvaluation: δ̂(ε) of a composition held as its spectrum
// (pld_spectral.go) is within its error bounds (rounding, wrapped tails and
// the mass above the window, plus the parts' relative error) of δ(ε) of the
// exact composition of the same leaf masses, computed by direct
// convolution (non-negative sums, relative error ≤ 1e-10 here, allowed
// for) — untilted, where the FFT's error swamps the tail, and at tilts
// around the saddle point; for a composed Gaussian, a sampled Gaussian and
// both together (two parts). The dense path (inverse transform and walk)
// and the precise coefficients (pld_precise.go, whose bound must be the
// smaller) meet the same bound, and epsilonUpper of the two paths agree.
func TestSpectralEvaluation(t *testing.T) {
	t.Parallel()
	type part struct {
		d     *lossDist
		count int
	}
	gauss := func(count int) part { return part{sgmLoss(2, 1, false, logMassTruncation), count} }
	sgm := func(count int) part { return part{sgmLoss(1, 0.05, false, logMassTruncation), count} }
	ledgers := []struct {
		name  string
		h     float64
		parts []part
	}{
		{"gaussian σ=2 ×2", 1e-3, []part{gauss(2)}},
		{"sgm q=0.05 σ=1 ×16", 4e-3, []part{sgm(16)}},
		{"sgm ×16 + gaussian σ=2", 4e-3, []part{sgm(16), gauss(1)}},
	}
	const oracleRel = 1e-10
	worst := 0.0
	spectral, precise := 0, 0
	selfConv := map[string][]float64{} // the slow part, shared by the ledgers
	for _, lg := range ledgers {
		var terms []leafTerm
		exact, lower := []float64{1}, 0
		for _, p := range lg.parts {
			l, err := p.d.discretise(lg.h, nil)
			if err != nil {
				t.Fatal(err)
			}
			terms = append(terms, leafTerm{l, p.count})
			key := fmt.Sprint(l.lower, len(l.probs), l.probs[len(l.probs)/2], p.count)
			if selfConv[key] == nil {
				selfConv[key] = selfConvolve(l.probs, p.count)
			}
			exact = convolveDirect(exact, selfConv[key])
			lower += p.count * l.lower
		}
		deltaExact := func(eps float64) float64 {
			var d float64
			for j, p := range exact {
				if L := float64(lower+j) * lg.h; L > eps {
					d += p * -math.Expm1(eps-L)
				}
			}
			return d
		}
		cm := compress(terms)
		// The compositions at a tilt, each way it is held; the untilted
		// ones serve every ε (a composition does not depend on the ε asked).
		composed := map[float64][3]*composedPLD{}
		for _, eps := range []float64{0.25, 1, 2, 4} {
			sad := cm.saddleTilt(eps)
			for _, th := range []float64{0, sad / 4, sad, 2 * sad} {
				comps, ok := composed[th]
				if !ok {
					for i, how := range []held{heldDense, heldSpectral, heldPrecise} {
						c, err := composeHeld(terms, nil, th, 1e-300, lg.h, maxPLDPoints, nil, how)
						if err != nil {
							t.Fatal(err)
						}
						comps[i] = c
					}
					composed[th] = comps
				}
				if comps[1].spec == nil {
					continue // G > 1.5: no coefficient may be dropped
				}
				spectral++
				if comps[2].spec != nil {
					precise++
					// The precise coefficients' bound is the smaller.
					_, eR1, _ := comps[1].deltaParts(eps)
					if _, eR2, _ := comps[2].deltaParts(eps); eR2 > eR1*(1+1e-9) {
						t.Errorf("%s ε=%g θ=%g: precise rounding bound %.3g above the plain one %.3g", lg.name, eps, th, eR2, eR1)
					}
				}
				want := deltaExact(eps)
				for _, c := range comps {
					dh, eR, eA := c.deltaParts(eps)
					// The mass above the window (at most tailHi) is not in δ̂.
					allowed := eR + eA + c.tailHi + (c.relErr+oracleRel)*want
					if got := math.Abs(dh - want); got > allowed {
						t.Errorf("%s ε=%g θ=%g spectral=%v: δ̂ = %.15g, exact %.15g: error %.3g above the bound %.3g",
							lg.name, eps, th, c.spec != nil, dh, want, got, allowed)
					} else if c.spec != nil && got > 0 {
						worst = math.Max(worst, got/allowed)
					}
					if d := c.deltaUpper(eps); d < want+c.inf {
						t.Errorf("%s ε=%g θ=%g spectral=%v: δ_U = %.15g below the exact %.15g", lg.name, eps, th, c.spec != nil, d, want+c.inf)
					}
				}
				if th != sad {
					continue
				}
				d := comps[1].deltaUpper(eps)
				e1, in1, _, _ := comps[1].epsilonUpper(d)
				e0, in0, _, _ := comps[0].epsilonUpper(d)
				if !in1 || !in0 || math.Abs(e1-e0) > 1e-9*eps || e1 > eps+1e-9 {
					t.Errorf("%s ε=%g: ε(δ_U(ε)) = %.12g (spectral), %.12g (dense)", lg.name, eps, e1, e0)
				}
				if back := comps[1].deltaUpper(e1); back > d {
					t.Errorf("%s ε=%g: δ_U(ε(δ)) = %.15g > δ = %.15g", lg.name, eps, back, d)
				}
			}
		}
	}
	if spectral < 20 || precise < 15 {
		t.Fatalf("only %d of the compositions were held as spectra, %d with precise coefficients", spectral, precise)
	}
	t.Logf("%d spectral compositions: largest error %.3g of its bound", spectral, worst)
}

// TestChernoffWindow: the tilted mass of the exact composition (direct
// convolution) outside chernoffWindow's window is at most the tail it
// reports on each side — for smooth, lumpy (a point mass and a far bump),
// gappy (empty blocks) and nearly degenerate tilted parts, one or two of
// them, and tails from 1e-3 to 1e-250.
func TestChernoffWindow(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	shapes := map[string]func(n int) []float64{
		"smooth": func(n int) []float64 {
			w := make([]float64, n)
			for i := range w {
				z := (float64(i) - float64(n)/3) / (float64(n) / 8)
				w[i] = math.Exp(-z * z / 2)
			}
			return w
		},
		"lumpy": func(n int) []float64 {
			w := make([]float64, n)
			w[0] = 1
			for i := n - n/10; i < n; i++ {
				w[i] = 1e-4 * r.Float64()
			}
			return w
		},
		"gappy": func(n int) []float64 {
			w := make([]float64, n)
			for i := range w {
				if (i/7)%3 == 0 {
					w[i] = r.Float64() * math.Exp(-float64(i)/float64(n)*20)
				}
			}
			return w
		},
		"degenerate": func(n int) []float64 {
			w := make([]float64, n)
			w[n/2] = 1
			w[n/2+1] = 1e-290
			w[n-1] = 1e-300
			return w
		},
	}
	term := func(w []float64, lower, count int) tiltedTerm {
		var sum, m1 float64
		for i, v := range w {
			sum += v
			m1 += v * float64(i)
		}
		var v2 float64
		for i := range w {
			w[i] /= sum
			d := float64(i) - m1/sum
			v2 += w[i] * d * d
		}
		return tiltedTerm{lower: lower, w: w, count: count, mean: float64(lower) + m1/sum, sd: math.Sqrt(v2)}
	}
	checked := 0
	for name, shape := range shapes {
		for _, n := range []int{40, 300, 1200} {
			for _, count := range []int{1, 3, 12} {
				for _, two := range []bool{false, true} {
					tt := []tiltedTerm{term(shape(n), -n/4, count)}
					if two {
						tt = append(tt, term(shapes["smooth"](n/2), 7, 2))
					}
					exact, lower := []float64{1}, 0
					for _, p := range tt {
						exact = convolveDirect(exact, selfConvolve(p.w, p.count))
						lower += p.count * p.lower
					}
					for _, tau := range []float64{1e-3, 1e-12, 1e-40, 1e-250} {
						lo, hi, tauLo, tauHi := chernoffWindow(tt, tau)
						if lo > hi || lo < lower || hi > lower+len(exact)-1 {
							t.Fatalf("%s n=%d ×%d two=%v τ=%g: window [%d, %d] outside the support [%d, %d]",
								name, n, count, two, tau, lo, hi, lower, lower+len(exact)-1)
						}
						var below, above float64
						for j, p := range exact {
							switch i := lower + j; {
							case i < lo:
								below += p
							case i > hi:
								above += p
							}
						}
						if below > tauLo*(1+1e-9) || above > tauHi*(1+1e-9) {
							t.Errorf("%s n=%d ×%d two=%v τ=%g: mass %.3g below and %.3g above [%d, %d], bounds %.3g and %.3g",
								name, n, count, two, tau, below, above, lo, hi, tauLo, tauHi)
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d windows checked", checked)
}
