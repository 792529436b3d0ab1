package solvers

import (
	"math"
	"math/rand/v2"
)

// LinearInit returns PyTorch's default initialisation of nn.Linear(d, 1):
// d weights, then (with bias) one intercept, each drawn independently from
// U(−1/√d, 1/√d), in that order from r.
//
// Ref: PyTorch nn.Linear.reset_parameters: kaiming_uniform_(a = √5) gives the
// bound gain·√(3/fan_in) with gain = √(2/(1 + a²)) = √(1/3), i.e. 1/√fan_in,
// and the bias bound is 1/√fan_in; fan_in = d. [RKW23]'s code uses this
// initialisation for DP-SGD and Algorithm 1 (shared/research/objpert.md §4).
func LinearInit(d int, bias bool, r *rand.Rand) []float64 {
	if d < 1 {
		panic(badDim)
	}
	n := d
	if bias {
		n++
	}
	bound := 1 / math.Sqrt(float64(d))
	theta := make([]float64, n)
	for i := range theta {
		theta[i] = bound * (2*r.Float64() - 1)
	}
	return theta
}
