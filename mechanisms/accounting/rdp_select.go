package accounting

import "math"

// RDP of private selection with a random number of repetitions
// ([PS22] Papernot & Steinke, "Hyperparameter tuning with Rényi differential
// privacy", ICLR 2022, arXiv:2110.03620v2), following dp_accounting's
// _compute_rdp_repeat_and_select (b5b0286).

// shapeOf returns dp_accounting's shape parameter for a distribution:
// +Inf (Poisson), η (TNB), 1 (geometric) or 0 (logarithmic).
func shapeOf(d Distribution, shape float64) float64 {
	switch d {
	case Poisson:
		return math.Inf(1)
	case Geometric:
		return 1
	case Logarithmic:
		return 0
	}
	return shape
}

// expm1OverX returns (e^x − 1)/x, by its Taylor series for |x| ≤ 0.1.
func expm1OverX(x float64) float64 {
	if x < -0.1 || x > 0.1 {
		return math.Expm1(x) / x
	}
	sum, t := 0.0, 1.0
	for k := 1; k < 40; k++ {
		t /= float64(k)
		sum += t
		t *= x
	}
	return sum
}

// logxOverXm1 returns log(x)/(x − 1), by its Taylor series for |1 − x| ≤ 0.1.
func logxOverXm1(x float64) float64 {
	if x < 0.9 || x > 1.1 {
		return logPos(x) / (x - 1)
	}
	y := 1 - x
	sum, p := 0.0, 1.0
	for k := 1; k < 60; k++ {
		sum += p / float64(k)
		p *= y
	}
	return sum
}

// tnbMean returns the mean of the truncated negative binomial distribution
// with halting probability γ ∈ (0, 1] and shape η ≥ 0:
//
//	E[K] = η(1/γ − 1)/(1 − γ^η)   (η > 0),   (1/γ − 1)/log(1/γ)   (η = 0)
//
// Ref: [PS22] Definition 1 (and the logarithmic limit η → 0).
func tnbMean(gamma, shape float64) float64 {
	switch shape {
	case 1:
		return 1 / gamma
	case 0:
		return 1 / (gamma * logxOverXm1(gamma))
	}
	return 1 / (gamma * expm1OverX(shape*logPos(gamma)) * logxOverXm1(gamma))
}

// tnbGamma returns the halting probability γ whose TNB(η) has the given
// mean, by bisection to relative tolerance 1e-9, returning the lower
// (conservative: larger mean) end, as dp_accounting does. E[K] ≤ 2(η+1)/γ
// gives the initial bracket.
func tnbGamma(shape, mean float64) float64 {
	if shape == 1 {
		return 1 / mean
	}
	lo, hi := 0.0, math.Min(1, 2*(shape+1)/mean)
	for hi > lo*(1+1e-9) {
		g := (lo + hi) / 2
		if tnbMean(g, shape) < mean {
			hi = g
		} else {
			lo = g
		}
	}
	return lo
}

// selector evaluates the RDP of RepeatAndSelect at any order, given the base
// event's RDP on the accountant's order set.
type selector struct {
	e      RepeatAndSelect
	base   *curve    // the base event's RDP curve
	orders []float64 // the order set
	rdp    []float64 // base RDP on orders
	gamma  float64   // TNB halting probability (TNB family only)
	c      float64   // TNB constant term
	grid   []float64 // selection RDP on orders (after the monotone envelope)
}

func newSelector(e RepeatAndSelect, base *curve, orders []float64) *selector {
	s := &selector{e: e, base: base, orders: orders}
	s.rdp = make([]float64, len(orders))
	for i, a := range orders {
		s.rdp[i] = base.at(a)
	}
	shape := shapeOf(e.Distribution, e.Shape)
	if !math.IsInf(shape, 1) {
		s.gamma = tnbGamma(shape, e.Mean)
		// c = (1 + η) min_α̂ [(1 − 1/α̂) ε(α̂) − log(γ)/α̂]      ([PS22] Thm 2)
		m := math.Inf(1)
		for i, a := range orders {
			if v := (1-1/a)*s.rdp[i] - logPos(s.gamma)/a; v < m {
				m = v
			}
		}
		s.c = (1 + shape) * m
	}
	s.grid = make([]float64, len(orders))
	for i, a := range orders {
		s.grid[i] = s.raw(a, s.rdp[i])
	}
	if !math.IsInf(shape, 1) {
		// Monotonicity of Rényi divergences in α: the bound at a larger
		// order also bounds a smaller one.
		for i := len(orders) - 2; i >= 0; i-- {
			if orders[i+1] >= orders[i] {
				s.grid[i] = math.Min(s.grid[i], s.grid[i+1])
			}
		}
	}
	return s
}

// raw returns the selection bound at order a from the base RDP r at a,
// before the monotone envelope.
//
//	Poisson:  ε'(α) = ε(α) + μ δ̂ + log(μ)/(α − 1),  δ̂ = δ of the base at
//	          ε̂ = log(1 + 1/(α − 1))                       ([PS22] Thm 6)
//	TNB:      ε'(α) = ε(α) + log(μ)/(α − 1) + c             ([PS22] Thm 2)
//
// Symbols: μ = Mean = E[K]; δ̂ is the base's δ over the order set
// (DeltaFromRDP, with the KL bound).
func (s *selector) raw(a, r float64) float64 {
	if a <= 1 {
		return math.Inf(1)
	}
	mean := s.e.Mean
	if s.e.Distribution == Poisson {
		epshat := math.Log1p(1 / (a - 1))
		dhat, _, _ := DeltaFromRDP(s.orders, s.rdp, epshat)
		return r + mean*dhat + math.Log(mean)/(a-1)
	}
	return r + math.Log(mean)/(a-1) + s.c
}

// at returns the selection RDP at any order a > 1: the grid value on the
// order set, elsewhere the raw bound (with the envelope over larger grid
// orders for the TNB family).
func (s *selector) at(a float64) float64 {
	for i, o := range s.orders {
		if o == a {
			return s.grid[i]
		}
	}
	v := s.raw(a, s.base.at(a))
	if s.e.Distribution != Poisson {
		for i, o := range s.orders {
			if o >= a {
				v = math.Min(v, s.grid[i])
			}
		}
	}
	return v
}

// PSPoissonTuningRDP returns the RDP of Poisson(μ) private selection as the
// better-objpert code computes it (rredberg/better-objpert 7aa43aa3,
// utilities/noise_calibration.py calibrate_sigma_select): for each order α,
//
//	ε'(α) = ε(α) + μ δ̂(α) + log(μ)/(α − 1),
//	δ̂(α) = min_{α'} exp((α'−1)(ε(α') − log(1 + 1/(α−1)))) (1 − 1/α')^{α'−1} / α'
//
// i.e. [PS22] Thm 6 with δ̂ from (2) alone — no KL bound, no cap at 1, no
// 1.01 cut-off. Both this and RepeatAndSelect{Distribution: Poisson} are
// valid upper bounds; this one is larger when the base RDP at low orders is
// large (golden-vectors README quirk 3).
func PSPoissonTuningRDP(orders, base []float64, mu float64) []float64 {
	out := make([]float64, len(orders))
	for i, a := range orders {
		epshat := math.Log1p(1 / (a - 1))
		ld := math.Inf(1)
		for j, b := range orders {
			ld = math.Min(ld, (b-1)*(base[j]-epshat+math.Log1p(-1/b))-math.Log(b))
		}
		out[i] = base[i] + mu*math.Exp(ld) + math.Log(mu)/(a-1)
	}
	return out
}
