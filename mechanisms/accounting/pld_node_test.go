package accounting

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The oracle below evaluates the sampled Gaussian's privacy loss in
// 200-bit arithmetic (math/big): exp by argument reduction and its Taylor
// series, log by Newton's iteration on exp.

const oraclePrec = 200

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(oraclePrec).SetFloat64(x) }

// bigLn2 is log 2 = Σ_{k≥1} 1/(k 2^k).
var bigLn2 = func() *big.Float {
	s, p := bigF(0), bigF(1)
	for k := 1; k < 260; k++ {
		p.Quo(p, bigF(2))
		s.Add(s, new(big.Float).SetPrec(oraclePrec).Quo(p, bigF(float64(k))))
	}
	return s
}()

// bigExp returns e^y.
func bigExp(y *big.Float) *big.Float {
	yf, _ := y.Float64()
	k := math.Round(yf / math.Ln2)
	r := new(big.Float).SetPrec(oraclePrec).Sub(y, new(big.Float).SetPrec(oraclePrec).Mul(bigF(k), bigLn2))
	sum, term := bigF(1), bigF(1)
	for n := 1; n < 48; n++ { // |r| ≤ ln 2/2: 0.35^48/48! < 2^−200
		term.Mul(term, r)
		term.Quo(term, bigF(float64(n)))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

// bigLog returns log x (x > 0).
func bigLog(x *big.Float) *big.Float {
	xf, _ := x.Float64()
	y := bigF(math.Log(xf))
	for range 3 { // cubic convergence from 53 bits
		e := bigExp(y)
		num := new(big.Float).SetPrec(oraclePrec).Sub(x, e)
		den := new(big.Float).SetPrec(oraclePrec).Add(x, e)
		y.Add(y, num.Quo(num.Mul(num, bigF(2)), den))
	}
	return y
}

// sgmLossOracle returns the sampled Gaussian's loss at x to 200 bits:
// log(1 − q + q e^ℓ), ℓ = (−½ − x)/σ² (remove), or
// −log(1 − q + q e^ℓ), ℓ = (x − ½)/σ² (add).
func sgmLossOracle(sigma, q, x float64, add bool) float64 {
	l := new(big.Float).SetPrec(oraclePrec).Sub(bigF(-0.5), bigF(x))
	if add {
		l.Sub(bigF(x), bigF(0.5))
	}
	s2 := new(big.Float).SetPrec(oraclePrec).Mul(bigF(sigma), bigF(sigma))
	l.Quo(l, s2)
	m := new(big.Float).SetPrec(oraclePrec).Mul(bigF(q), bigExp(l))
	m.Add(m, new(big.Float).SetPrec(oraclePrec).Sub(bigF(1), bigF(q)))
	L := bigLog(m)
	if add {
		L.Neg(L)
	}
	f, _ := L.Float64()
	return f
}

// TestSGMNodeLossBounds: the quadrature nodes' losses of the sampled
// Gaussian — sgmNode's and sgmAnchor's, whose anchor moves from one grid
// loss to the next by recurrence as discretise drives it (xAt, then set) —
// are within the lossErr they report of the loss computed in 200-bit
// arithmetic, and their densities within 1e-13 of the two-component
// mixture's; for σ from 0.6 to 2, q from 1e-4 to ½, both directions, at
// grids 1e-4 and 1e-5, over stretches of intervals across the loss range.
// (discretise raises each node's loss by the larger of lossErr and lossUp's
// margin, so a loss within lossErr keeps every split pessimistic.)
func TestSGMNodeLossBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("200-bit oracle: a few seconds")
	}
	r := rand.New(rand.NewPCG(6, 6))
	var anchored, worst float64
	for _, sigma := range []float64{0.6, 1, 2} {
		for _, q := range []float64{1e-4, 256.0 / 45000, 0.5} {
			for _, add := range []bool{false, true} {
				for _, h := range []float64{1e-4, 1e-5} {
					d := sgmLoss(sigma, q, add, logMassTruncation)
					lo, hi, err := d.grid(h, nil)
					if err != nil {
						t.Fatal(err)
					}
					mix := func(x float64) float64 {
						if add {
							return gaussianDensity(x, 0, sigma)
						}
						return (1-q)*gaussianDensity(x, 0, sigma) + q*gaussianDensity(x, -1, sigma)
					}
					check := func(what string, x, dens, loss, lossErr float64) {
						want := sgmLossOracle(sigma, q, x, add)
						if e := math.Abs(loss - want); e > lossErr {
							t.Errorf("σ=%g q=%g add=%v h=%g %s x=%.17g: loss %.17g, 200-bit %.17g: error %.3g above lossErr %.3g",
								sigma, q, add, h, what, x, loss, want, e, lossErr)
						} else if lossErr > 0 {
							worst = math.Max(worst, e/lossErr)
						}
						if m := mix(x); math.Abs(dens-m) > 1e-13*m {
							t.Errorf("σ=%g q=%g add=%v %s x=%g: density %.17g, mixture %.17g", sigma, q, add, what, x, dens, m)
						}
					}
					// Stretches of 40 intervals at five places of the range.
					for _, frac := range []float64{0.001, 0.05, 0.3, 0.6, 0.95} {
						i0 := lo + int(frac*float64(hi-lo))
						xPrev := d.xAt(float64(i0) * h)
						for i := i0; i < min(i0+40, hi-1); i++ {
							b := float64(i+1) * h
							x := d.xAt(b)
							d.anchor.set(b)
							for range 2 {
								xn := xPrev + r.Float64()*(x-xPrev)
								dn, ln, en := d.node(xn)
								check("node", xn, dn, ln, en)
								if da, la, ea, ok := d.anchor.eval(xn); ok {
									anchored++
									check("anchor", xn, da, la, ea)
								}
							}
							xPrev = x
						}
					}
				}
			}
		}
	}
	if anchored < 500 {
		t.Fatalf("only %g nodes were evaluated from an anchor", anchored)
	}
	t.Logf("%g anchored nodes; largest loss error %.3g of its lossErr", anchored, worst)
}
