package accounting

import (
	"math"
	"math/bits"
	"sync"
)

// A radix-2 FFT of real sequences, written for the PLD accountant: its
// rounding error has a proven bound (fftErrorBound), which the accountant
// adds to δ. At the lengths the PLD composes at (2^15 to 2^22) it is also
// faster than gonum's dsp/fourier, an FFTPACK port: BenchmarkFFT's
// medians on 2 cores give 2.6 to 3.9 times for the forward transform and
// 3.4 to 4.7 times for the inverse, by length (load average 1.3 to 4.4;
// runs at load 5 to 9.5 gave 1.8 to 3.9 and 3.4 to 7.1).
//
// A real sequence x of even length n is packed as z_j = x_{2j} + i x_{2j+1}
// and transformed by an iterative decimation-in-time complex FFT of length
// m = n/2; one more butterfly pass splits the result into the real
// transform X_k, k = 0..m (Numerical Recipes 3rd ed. §12.3.2). The
// twiddle factors are computed one by one with math.Sincos, never by
// recurrence, so each is within a few ulps of its exact value.

// fftPlan holds the twiddle factors and the bit-reversal permutation for
// real sequences of one length n (a power of two ≥ 4).
type fftPlan struct {
	n int
	m int // n/2, the complex length
	// tw[half+j] = exp(−πij/half) for the powers of two half ≤ m and
	// j < half: each stage's twiddle factors are contiguous (half = m
	// serves the real split pass: tw[m+k] = exp(−2πik/n)).
	tw  []complex128
	rev []int32 // bit reversal of 0..m−1
}

// planCache keeps the two most recently used plans of at most 2^20 points
// (a plan of 2^19 points holds 9 MiB and takes about 4 ms to build; a
// query composes at one length per direction, and the calls that follow
// it at the same lengths). Plans are read-only once built.
var planCache struct {
	sync.Mutex
	recent [2]*fftPlan
}

// planFor returns the plan for length n, from planCache when it holds it.
func planFor(n int) *fftPlan {
	planCache.Lock()
	for i, p := range planCache.recent {
		if p != nil && p.n == n {
			planCache.recent[0], planCache.recent[i] = p, planCache.recent[0]
			planCache.Unlock()
			return p
		}
	}
	planCache.Unlock()
	p := planFFT(n)
	if n <= 1<<20 {
		planCache.Lock()
		planCache.recent[1], planCache.recent[0] = planCache.recent[0], p
		planCache.Unlock()
	}
	return p
}

// planFFT returns the plan for length n (a power of two ≥ 4). The m = n/2
// twiddles of the last stage, exp(−πik/m), are computed by math.Sincos on
// the first octant and filled in by symmetry (exact); every other stage's
// are a stride through them.
func planFFT(n int) *fftPlan {
	if n < 4 || n&(n-1) != 0 {
		panic("accounting: fft length is not a power of two ≥ 4")
	}
	m := n / 2
	p := &fftPlan{n: n, m: m, tw: make([]complex128, 2*m), rev: make([]int32, m)}
	top := p.tw[m:]
	for k := 0; k <= m/4; k++ {
		s, c := math.Sincos(math.Pi * float64(k) / float64(m))
		top[k] = complex(c, -s) // angle φ
		if k > 0 {
			top[m-k] = complex(-c, -s) // π − φ
		}
		if m/2-k >= 0 && m/2-k < m {
			top[m/2-k] = complex(s, -c) // π/2 − φ
		}
		if m/2+k < m {
			top[m/2+k] = complex(-s, -c) // π/2 + φ
		}
	}
	for half := 1; half < m; half *= 2 {
		stride := m / half
		for j := 0; j < half; j++ {
			p.tw[half+j] = top[j*stride]
		}
	}
	shift := 64 - uint(bits.Len(uint(m))-1)
	for i := range p.rev {
		p.rev[i] = int32(bits.Reverse64(uint64(i)) >> shift)
	}
	return p
}

// complexFFT transforms z (length m) in place: Z_k = Σ_j z_j e^{−2πijk/m}.
func (p *fftPlan) complexFFT(z []complex128) {
	for i, r := range p.rev {
		if j := int(r); i < j {
			z[i], z[j] = z[j], z[i]
		}
	}
	p.stages(z, 1)
}

// stages applies the butterfly stages of span from (a power of two) up to
// m/2 to z, which is in bit-reversed order. The stage with butterflies of
// span half uses exp(−2πij/(2·half)) = tw[half+j]. Stages of span below
// fftBlock only mix elements within aligned blocks of fftBlock elements:
// they run block by block, while the block is in cache; the larger stages
// then sweep the array. Stages run two at a time (stagePair) where they
// can.
func (p *fftPlan) stages(z []complex128, from int) {
	m := p.m
	block := min(m, fftBlock)
	if from < block {
		for b0 := 0; b0 < m; b0 += block {
			p.stageRange(z[b0:b0+block], from, block)
		}
	}
	p.stageRange(z, max(block, from), m)
}

// stageRange applies the stages of span from up to (not including) to.
func (p *fftPlan) stageRange(z []complex128, from, to int) {
	half := from
	for ; 4*half <= to; half *= 4 {
		p.stagePair(z, half)
	}
	if half < to {
		p.stage(z, half)
	}
}

// fftBlock is the number of complex values (256 KiB) transformed in cache
// before the stages that span more.
const fftBlock = 1 << 14

// stagePair applies the stages of span half and 2·half in one sweep, over
// groups of 4·half elements: the same operations in the same order for
// each element as two calls of stage (bit-identical results, half the
// memory traffic).
func (p *fftPlan) stagePair(z []complex128, half int) {
	tw1, tw2 := p.tw[half:2*half], p.tw[2*half:4*half]
	for start := 0; start < len(z); start += 4 * half {
		q0 := z[start : start+half]
		q1 := z[start+half : start+2*half]
		q2 := z[start+2*half : start+3*half]
		q3 := z[start+3*half : start+4*half]
		tl, th := tw2[:half], tw2[half:]
		_, _, _, _, _ = q1[half-1], q2[half-1], q3[half-1], tl[half-1], th[half-1]
		for j, w := range tw1 {
			a, b := q0[j], q1[j]*w
			b0, b1 := a+b, a-b
			c, d := q2[j], q3[j]*w
			d0, d1 := c+d, c-d
			e := d0 * tl[j]
			q0[j], q2[j] = b0+e, b0-e
			f := d1 * th[j]
			q1[j], q3[j] = b1+f, b1-f
		}
	}
}

// stage applies the radix-2 butterflies of span half to z.
func (p *fftPlan) stage(z []complex128, half int) {
	tw := p.tw[half : 2*half]
	for start := 0; start < len(z); start += 2 * half {
		lo, hi := z[start:start+half], z[start+half:start+2*half]
		for j, w := range tw {
			a, b := lo[j], hi[j]*w
			lo[j], hi[j] = a+b, a-b
		}
	}
}

// forward returns the transform X_0..X_m of the real sequence x (len n; a
// shorter x is zero-padded): X_k = Σ_j x_j e^{−2πijk/n}.
func (p *fftPlan) forward(x []float64) []complex128 {
	return p.forwardInto(make([]complex128, p.m+1), x)
}

// forwardInto is forward writing into z (len n/2 + 1, any contents).
func (p *fftPlan) forwardInto(z []complex128, x []float64) []complex128 {
	m := p.m
	// A zero-padded x fills only the first nz < m/2^s packed values; in
	// bit-reversed order they sit at the multiples of 2^s, and the first s
	// stages only copy each of them over its block of 2^s (a butterfly
	// with a zero adds and subtracts exact zeros). Those values are placed
	// and copied directly; the result is the same, bit for bit.
	nz := min(m, (len(x)+1)/2)
	span := 1
	for span < m && nz <= m/(2*span) {
		span *= 2
	}
	for j := 0; j < nz; j++ {
		im := 0.0
		if 2*j+1 < len(x) {
			im = x[2*j+1]
		}
		z[p.rev[j]] = complex(x[2*j], im)
	}
	for j := nz; j < m/span; j++ {
		z[p.rev[j]] = 0
	}
	if span > 1 {
		for b := 0; b < m; b += span {
			v := z[b]
			for r := b + 1; r < b+span; r++ {
				z[r] = v
			}
		}
	}
	p.stages(z[:m], span)
	// X_k = E_k + e^{−2πik/n} O_k with E_k = (Z_k + conj Z_{m−k})/2 and
	// O_k = (Z_k − conj Z_{m−k})/(2i), for k = 0..m/2; X_{m−k} follows by
	// symmetry.
	z0 := z[0]
	z[0] = complex(real(z0)+imag(z0), 0)
	z[m] = complex(real(z0)-imag(z0), 0)
	for k := 1; k <= m/2; k++ {
		zk, zmk := z[k], conj(z[m-k])
		e := (zk + zmk) * 0.5
		o := (zk - zmk) * complex(0, -0.5)
		t := p.tw[m+k] * o
		xk := e + t
		// X_{m−k} = conj(E_k) − conj(e^{−2πik/n} O_k)... derived from the
		// same E and O: E_{m−k} = conj E_k, O_{m−k} = conj O_k and
		// e^{−2πi(m−k)/n} = −conj(e^{−2πik/n}).
		xmk := conj(e) - conj(t)
		z[k], z[m-k] = xk, xmk
	}
	return z
}

// inverse returns the real sequence x (len n) with forward(x) = X, scaled
// by 1/n: x_j = (1/n) Σ_k X_k e^{2πijk/n}. X is overwritten.
func (p *fftPlan) inverse(X []complex128) []float64 {
	m := p.m
	z := X[:m]
	x0, xm := X[0], X[m]
	// Z_k = E_k + i O_k with E_k = (X_k + conj X_{m−k})/2 and
	// O_k = e^{2πik/n}(X_k − conj X_{m−k})/2.
	z[0] = complex((real(x0)+real(xm))*0.5, (real(x0)-real(xm))*0.5)
	for k := 1; k <= m/2; k++ {
		xk, xmk := X[k], conj(X[m-k])
		e := (xk + xmk) * 0.5
		o := conj(p.tw[m+k]) * (xk - xmk) * 0.5
		zk := e + complex(-imag(o), real(o))
		// For m−k: E' = conj E, O' = −conj O.
		zmk := conj(e) + complex(imag(o), real(o))
		z[k], z[m-k] = zk, zmk
	}
	// Inverse complex FFT by conjugation: ifft(Z) = conj(fft(conj Z)).
	for i := range z {
		z[i] = conj(z[i])
	}
	p.complexFFT(z)
	out := make([]float64, p.n)
	inv := 1 / float64(m)
	for j, v := range z {
		out[2*j] = real(v) * inv
		out[2*j+1] = -imag(v) * inv
	}
	return out
}

func conj(c complex128) complex128 { return complex(real(c), -imag(c)) }

// unitRoundoff is u = 2^−53, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// fftErrorBound returns ε_F with ‖fl(F x) − F x‖₂ ≤ ε_F ‖F x‖₂ for the
// transforms above (forward or inverse, before the 1/n scaling) of length n.
// [Hig02] Thm 24.2: a radix-2 FFT with twiddle factors accurate to μ has
// relative 2-norm error ≤ log₂(m)·η/(1 − log₂(m)·η), η = μ + γ₄(√2 + μ),
// γ₄ = 4u/(1 − 4u). Sincos of the rounded angle 2πk/n gives μ ≤ 8u; the
// real split pass is one more butterfly stage. We take η = 16u per stage
// (twice the theorem's ≈ 7.7u) and log₂(n) stages; TestFFTErrorBound
// checks the bound against exact integer convolutions.
func fftErrorBound(n int) float64 {
	stages := float64(bits.Len(uint(n)) - 1)
	eta := 16 * unitRoundoff
	return stages * eta / (1 - stages*eta)
}

// coefficientError returns a bound on every coefficient's error,
// max_k |fl(F x)_k − (F x)_k|, for the forward transform of a real x of
// length n with ‖x‖₁ ≤ l1 and ‖x‖₂ ≤ l2: the smaller of the normwise
// bound, ε_F √n ‖x‖₂ (‖·‖_∞ ≤ ‖·‖₂), and a componentwise one,
// 2 ε_F ‖x‖₁. The latter, by the forward error analysis of sums
// ([Hig02] §3.1, with Lemma 3.5 for the complex products): every value
// after s stages is Σ_{j∈S} t_j z_j over a set S of the packed inputs
// z_j = x_{2j} + i x_{2j+1}, |t_j| = 1, the sets of the two values a
// butterfly a ± ŵb combines being disjoint; a butterfly's rounding is at
// most η(|a| + |b|) (twiddle error μ ≤ 8u, product √2γ₂, sum u: η = 16u as
// above), so by induction a value's error is at most ((1 + η)^s − 1)
// Σ_{j∈S} |z_j|, and after the log₂(n/2) complex stages at most
// ((1 + η)^{log₂(n/2)} − 1)‖x‖₁ (Σ|z_j| ≤ ‖x‖₁). The real split pass forms
// X_k from Z_k and Z_{n/2−k}, adding both of their errors and its own
// rounding: ≤ 2((1 + η)^{log₂ n} − 1)‖x‖₁ ≤ 2 ε_F ‖x‖₁. For a probability
// vector concentrated on a few points (a rarely sampled mechanism's PLD)
// ‖x‖₂ ≈ ‖x‖₁ and this is √n/2 times the normwise bound.
func coefficientError(n int, l1, l2 float64) float64 {
	ef := fftErrorBound(n)
	return math.Min(2*ef*l1, ef*math.Sqrt(float64(n))*l2)
}
