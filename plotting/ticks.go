package plotting

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// Ticks. Every axis gets enough labelled ticks to be read (at least
// minLabels where its range allows), minor ticks between them, and labels
// in one format per axis: decimals, or powers of ten as 10^{e} (drawn
// 10⁻⁷, never "1e-7").

// minLabels is the fewest labelled ticks an axis gets when its range
// allows; maxLinearLabels the most a linear axis gets.
const (
	minLabels       = 4
	maxLinearLabels = 8
)

// logTicks is the ticker of a log axis. It ticks every decade and, up to
// maxMinorDecades decades, marks 2…9 times each decade with minor ticks.
// Labels: from three decades on every decade (every k-th beyond
// maxLogLabels decades, the others ticked unlabelled); between one and
// three decades 1 and 3 times each decade (an ε grid 0.1, 0.3, 1, 3, 10
// is labelled at each point); under one decade 1, 2, 3 and 5 times when
// that gives minLabels labels, else linearTicks' ticks (evenly spaced
// values, unevenly spaced on the axis). Labels are written as powers of ten, 10^{e} (and 3×10^{e}),
// when a decade in the range lies outside [10⁻², 10³] (from two decades
// on only the decades are labelled then), otherwise as decimals (0.01 …
// 1000).
type logTicks struct{}

// maxLogLabels is the most decade labels a log axis gets;
// maxMinorDecades the most decades that get minor ticks 2…9.
const (
	maxLogLabels    = 10
	maxMinorDecades = 10
)

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	decades := math.Log10(hi / lo)
	var labelled func(m float64) bool
	switch {
	case decades >= 3:
		labelled = func(m float64) bool { return m == 1 }
	case decades >= 1:
		labelled = func(m float64) bool { return m == 1 || m == 3 }
	default:
		labelled = func(m float64) bool { return m == 1 || m == 2 || m == 3 || m == 5 }
		if countLabels(lo, hi, labelled) < minLabels {
			return linearTicks{}.Ticks(lo, hi)
		}
	}
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	powers := false // labels as 10^{e}
	for e := e0; e <= e1; e++ {
		if v := pow10(1, e); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) && (e < -2 || e > 3) {
			powers = true
		}
	}
	if powers && decades >= 2 {
		labelled = func(m float64) bool { return m == 1 }
	}
	last, every := 9.0, 1
	if decades > maxMinorDecades {
		last = 1 // decades only
	}
	if decades > maxLogLabels {
		every = int(math.Ceil(decades / maxLogLabels))
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		for m := 1.0; m <= last; m++ {
			v := pow10(m, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v} // a minor tick unless labelled
			if labelled(m) && (every == 1 || int(e)%every == 0) {
				t.Label = formatLog(m, e, powers)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// pow10 is m·10^e correctly rounded (math.Pow(10, e) is not, e.g. at
// e = −23, which would print as 1.0000000000000001e-23).
func pow10(m, e float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'f', 0, 64)+"e"+strconv.FormatFloat(e, 'f', 0, 64), 64)
	return v
}

// formatLog writes m·10^e: "10^{-7}" (m = 1) or "3×10^{-7}" as a power
// of ten, else as a decimal ("0.03", "3000").
func formatLog(m, e float64, powers bool) string {
	if !powers {
		return strconv.FormatFloat(pow10(m, e), 'f', -1, 64)
	}
	p := "10^{" + minus(strconv.FormatFloat(e, 'f', 0, 64)) + "}"
	if m != 1 {
		p = strconv.FormatFloat(m, 'f', -1, 64) + "×" + p
	}
	return p
}

// countLabels is the number of mantissas m·10^e in [lo, hi] that labelled
// accepts.
func countLabels(lo, hi float64, labelled func(m float64) bool) int {
	n := 0
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m <= 9; m++ {
			if v := pow10(m, e); labelled(m) && v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				n++
			}
		}
	}
	return n
}

// linearTicks is the ticker of a linear axis: labelled ticks every step,
// step the largest of 1, 2, 2.5 and 5 times a power of ten that leaves
// at least minLabels labels in the range (at most maxLinearLabels), with
// 4 or 5 minor ticks between labels, all labels written with the same
// number of decimals.
type linearTicks struct{}

// niceSteps are the mantissas of a linear axis's step, each with its
// number of minor intervals.
var niceSteps = []struct{ m, minor float64 }{{5, 5}, {2.5, 5}, {2, 4}, {1, 5}}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step, minor := linearStep(lo, hi)
	first := math.Ceil(lo/step - 1e-9)
	var ticks []plot.Tick
	dec := decimals(step)
	for k := first; k*step <= hi+1e-9*step; k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: formatLinear(v, dec)})
	}
	sub := step / minor
	for k := math.Ceil(lo/sub - 1e-9); k*sub <= hi+1e-9*sub; k++ {
		if v := k * sub; math.Abs(math.Remainder(v, step)) > 1e-6*step {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// linearStep is the labelled step of a linear axis over [lo, hi] and the
// number of minor intervals in it.
func linearStep(lo, hi float64) (step, minor float64) {
	e := math.Floor(math.Log10(hi - lo))
	count := func(step float64) int { return int(math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1) }
	for ; ; e-- {
		for _, s := range niceSteps {
			step := s.m * math.Pow(10, e)
			if n := count(step); n >= minLabels && n <= maxLinearLabels {
				return step, s.minor
			}
			if count(step) > maxLinearLabels {
				return step, s.minor // the coarsest with too many: ranges too short for minLabels do not exist here
			}
		}
	}
}

// decimals is the number of decimals that writes every multiple of step
// exactly (step m·10^e with m one of niceSteps).
func decimals(step float64) int {
	for d := 0; d <= 15; d++ {
		scaled := step * math.Pow(10, float64(d))
		if math.Abs(scaled-math.Round(scaled)) <= 1e-9*scaled {
			return d
		}
	}
	return 15
}

// formatLinear writes v with dec decimals, "0" for zero (never "-0.00");
// beyond 10⁶ or with more than 5 decimals as a power of ten, m×10^{e}.
func formatLinear(v float64, dec int) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	if math.Abs(v) < 1e6 && dec <= 5 {
		return minus(strconv.FormatFloat(v, 'f', dec, 64))
	}
	return formatNumber(v)
}

// formatNumber writes v with up to 4 significant digits, as m×10^{e} when
// a decimal would be long (|v| ≥ 10⁶ or < 10⁻³).
func formatNumber(v float64) string {
	if v == 0 || math.Abs(v) >= 1e-3 && math.Abs(v) < 1e6 {
		return minus(strconv.FormatFloat(v, 'g', 4, 64))
	}
	s := strconv.FormatFloat(v, 'e', 3, 64) // "1.500e-07"
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	n, _ := strconv.Atoi(exp)
	p := "10^{" + minus(strconv.Itoa(n)) + "}"
	if mant == "1" {
		return p
	}
	if mant == "-1" {
		return "−" + p
	}
	return minus(mant) + "×" + p
}

// minus writes a number's sign as the minus sign (−), not a hyphen.
func minus(s string) string {
	if t, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + t
	}
	return s
}

// fixedTicks labels the values a figure sets (Axis.Ticks), and nothing
// else.
type fixedTicks []float64

// Ticks implements plot.Ticker.
func (f fixedTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, v := range f {
		if v >= lo-1e-9*math.Abs(lo) && v <= hi+1e-9*math.Abs(hi) {
			ticks = append(ticks, plot.Tick{Value: v, Label: formatNumber(v)})
		}
	}
	return ticks
}
