package accounting

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func bigOf(x dword) *big.Float { return new(big.Float).SetPrec(300).Add(bigF(x.hi), bigF(x.lo)) }

// relErrBig returns |got − want|/|want| in 300-bit arithmetic.
func relErrBig(got dword, want *big.Float) float64 {
	d := new(big.Float).SetPrec(300).Sub(bigOf(got), want)
	r, _ := new(big.Float).Quo(d, want).Float64()
	return math.Abs(r)
}

// TestDWordArithmetic: the double-word operations against 300-bit
// arithmetic on random operands of mixed signs and magnitudes, within the
// [JMP17] bounds (add 3u² + 13u³, mul 5u², mulF 2u², divF 3u²; taken as
// 4u², 6u², 3u², 4u²).
func TestDWordArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 13))
	u2 := unitRoundoff * unitRoundoff
	rnd := func() dword {
		hi := (r.Float64()*2 - 1) * math.Ldexp(1, r.IntN(40)-20)
		_, lo := twoSum(hi, hi*(r.Float64()-0.5)*0x1p-53)
		return dword{hi, lo}
	}
	worst := [4]float64{}
	for range 20000 {
		x, y := rnd(), rnd()
		f := y.hi
		if f == 0 {
			continue
		}
		bx, by := bigOf(x), bigOf(y)
		sum := new(big.Float).SetPrec(300).Add(bx, by)
		if sum.Sign() != 0 {
			worst[0] = math.Max(worst[0], relErrBig(x.add(y), sum))
		}
		worst[1] = math.Max(worst[1], relErrBig(x.mul(y), new(big.Float).SetPrec(300).Mul(bx, by)))
		worst[2] = math.Max(worst[2], relErrBig(x.mulF(f), new(big.Float).SetPrec(300).Mul(bx, bigF(f))))
		worst[3] = math.Max(worst[3], relErrBig(x.divF(f), new(big.Float).SetPrec(300).Quo(bx, bigF(f))))
	}
	for i, b := range []float64{4, 6, 3, 4} {
		if worst[i] > b*u2 {
			t.Errorf("operation %d: relative error %.3g u², bound %g u²", i, worst[i]/u2, b)
		}
	}
	t.Logf("largest relative errors (u²): add %.2f, mul %.2f, mulF %.2f, divF %.2f", worst[0]/u2, worst[1]/u2, worst[2]/u2, worst[3]/u2)
}

// TestTwiddleDW: the double-word twiddles e^{−2πim/n} have modulus 1 and
// satisfy ω^a ω^b = ω^{a+b} to 64u² (a 300-bit check of the products of
// their components), take the exact values at multiples of n/8 (±1, ±i,
// (±1 ± i)/√2, whose squares are checked), and round to math.Sincos's
// value of the angle within 2 ulps.
func TestTwiddleDW(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 14))
	u2 := unitRoundoff * unitRoundoff
	sq := func(x dword) *big.Float { b := bigOf(x); return new(big.Float).SetPrec(300).Mul(b, b) }
	for _, n := range []int{4, 8, 64, 1 << 12, 1 << 22} {
		for range 300 {
			a, b := r.Int64N(int64(n)), r.Int64N(int64(n))
			wa, wb, wab := twiddleDW(a, n), twiddleDW(b, n), twiddleDW(a+b, n)
			mod := new(big.Float).SetPrec(300).Add(sq(wa.re), sq(wa.im))
			if d, _ := mod.Sub(mod, big.NewFloat(1)).Float64(); math.Abs(d) > 64*u2 {
				t.Fatalf("n=%d m=%d: |ω|² − 1 = %.3g", n, a, d)
			}
			p := wa.mul(wb)
			for _, c := range [][2]dword{{p.re, wab.re}, {p.im, wab.im}} {
				if d, _ := new(big.Float).SetPrec(300).Sub(bigOf(c[0]), bigOf(c[1])).Float64(); math.Abs(d) > 256*u2 {
					t.Fatalf("n=%d: ω^%d ω^%d − ω^%d = %.3g", n, a, b, a+b, d)
				}
			}
			// (Sincos of the rounded angle is off by up to u times the angle.)
			s, c := math.Sincos(-2 * math.Pi * float64(a) / float64(n))
			if tol := 4 * unitRoundoff * (1 + 2*math.Pi*float64(a)/float64(n)); math.Abs(wa.re.float()-c) > tol || math.Abs(wa.im.float()-s) > tol {
				t.Fatalf("n=%d m=%d: ω = %v %v, Sincos %v %v", n, a, wa.re.float(), wa.im.float(), c, s)
			}
		}
		if n < 8 {
			continue
		}
		for m := 0; m < 8; m++ {
			w := twiddleDW(int64(m*n/8), n)
			want := [2]float64{math.Cos(-math.Pi * float64(m) / 4), math.Sin(-math.Pi * float64(m) / 4)}
			for i, x := range []dword{w.re, w.im} {
				switch {
				case m%2 == 0 && x != (dword{math.Round(want[i]), 0}) && !(x.hi == 0 && math.Round(want[i]) == 0):
					t.Errorf("n=%d: ω^(%d n/8) component %d = %v, want %v", n, m, i, x, math.Round(want[i]))
				case m%2 == 1:
					if d, _ := new(big.Float).SetPrec(300).Sub(sq(x), big.NewFloat(0.5)).Float64(); math.Abs(d) > 64*u2 || math.Signbit(x.hi) != math.Signbit(want[i]) {
						t.Errorf("n=%d: ω^(%d n/8) component %d = %v", n, m, i, x)
					}
				}
			}
		}
	}
}

// dftDW returns the transform of x at frequency k in double-word
// arithmetic (Horner's rule, as preciseCoefficients): within about
// 100·len(x)·u² of ‖x‖₁, far below the FFT's bounds.
func dftDW(x []float64, k, n int) complex128 {
	z := twiddleDW(int64(k), n)
	var acc cdword
	for i := len(x) - 1; i >= 0; i-- {
		acc = acc.mul(z)
		acc.re = acc.re.add(dword{x[i], 0})
	}
	return acc.complex()
}

// TestCoefficientError: every coefficient of the FFT of a probability
// vector is within coefficientError of the exact transform (a double-word
// DFT), for vectors spread over the whole length and concentrated on a few
// points (where the componentwise bound 2ε_F‖x‖₁ is √n/2 times below the
// normwise one); and the precise coefficients (preciseCoefficients) are
// within their own bound, far below it.
func TestCoefficientError(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(34, 15))
	for _, n := range []int{64, 1024, 4096} {
		plan := planFFT(n)
		for _, width := range []int{3, min(40, n/2), n / 2} {
			x := make([]float64, n/2)
			off := r.IntN(n/2 - width + 1)
			s := 0.0
			for i := off; i < off+width; i++ {
				x[i] = r.Float64() * math.Exp(-float64(i-off)/float64(width))
				s += x[i]
			}
			l1, l2 := 0.0, 0.0
			for i := range x {
				x[i] /= s
				l1 += x[i]
				l2 += x[i] * x[i]
			}
			l2 = math.Sqrt(l2)
			got := plan.forward(x)
			e := coefficientError(n, l1*(1+1e-12), l2*(1+1e-12))
			ks := []int{0, 1, 2, n / 8, n/4 + 1, n / 2}
			prec, ePrec := preciseCoefficients(plan, x, ks)
			worst, worstPrec := 0.0, 0.0
			for k := 0; k <= n/2; k++ {
				want := dftDW(x, k, n)
				d := absC(got[k] - want)
				if d > e {
					t.Errorf("n=%d width=%d k=%d: |error| %.3g above the bound %.3g", n, width, k, d, e)
				}
				worst = math.Max(worst, d/e)
			}
			for j, k := range ks {
				want := dftDW(x, k, n)
				d := absC(prec[j].complex() - want)
				// Both round to float64 at the end: 2u of the coefficient.
				if d > ePrec+2*unitRoundoff*absC(want) {
					t.Errorf("n=%d width=%d k=%d: precise |error| %.3g above the bound %.3g", n, width, k, d, ePrec)
				}
				worstPrec = math.Max(worstPrec, ePrec/e)
			}
			t.Logf("n=%d width=%d: largest FFT error %.3g of the bound %.3g (normwise %.3g); precise bound %.3g of it",
				n, width, worst, e, fftErrorBound(n)*math.Sqrt(float64(n))*l2, worstPrec)
		}
	}
}
