package datasets

import (
	"slices"
	"strings"
	"testing"
)

// TestDataDependentDeclared: every loader that computes a statistic from the
// data itself (issue 9 item 14: Adult's column maxima over all rows, Crime's
// z-scores over all rows, the standardised and de-duplicated GaussMix sets,
// the uci family's training-row standardisation, one-hot categories present
// in the data) declares it in Info.DataDependent, and the generators, which
// read no private data, declare nothing.
func TestDataDependentDeclared(t *testing.T) {
	want := map[string]string{ // name -> a word its declaration must contain
		"adult": "maxima", "crime": "z-scored", "tamielectric": "standardised", "wine": "duplicate",
		"gas": "duplicate", "bike": "one-hot", "elevators": "standardised", "yacht": "standardised",
	}
	for name, word := range want {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(e.Info.DataDependent, func(s string) bool { return strings.Contains(s, word) }) {
			t.Errorf("%s declares %q, want a phrase with %q", name, e.Info.DataDependent, word)
		}
	}
	for _, in := range List() {
		if in.Synthetic && len(in.DataDependent) > 0 {
			t.Errorf("generator %s declares data-dependent preprocessing %q", in.Name, in.DataDependent)
		}
	}
}

// TestScalingDataDependent: the scalings that read statistics of the
// training rows say so; per-row maps with a fixed bound read nothing.
func TestScalingDataDependent(t *testing.T) {
	for _, c := range []struct {
		s    Scaling
		want int
	}{
		{Scaling{X: ScaleMaxRowNorm, Y: ScaleMaxAbs}, 2},
		{Scaling{X: ScaleStandardize}, 1},
		{Scaling{X: ScaleUnitRows}, 0},
		{Scaling{X: ScaleClip, Bound: 1}, 0},
		{Scaling{}, 0},
	} {
		if got := c.s.DataDependent(); len(got) != c.want {
			t.Errorf("%+v: %q, want %d phrases", c.s, got, c.want)
		}
	}
}
