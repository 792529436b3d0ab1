package run

import (
	"math"
	"slices"
	"testing"

	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
)

// TestWithRelease: a release's own assumptions follow the runner's, each
// once and in order; the runner's (memoised, shared) slice is never
// written; a record claiming no guarantee gets none.
func TestWithRelease(t *testing.T) {
	private := &results.Record{Privacy: results.Privacy{EpsSpent: 3}}
	none := &results.Record{Privacy: results.Privacy{EpsSpent: results.Float(math.Inf(1))}}
	base := make([]string, 2, 8) // spare capacity: an in-place append would show in shared
	base[0], base[1] = "scaling", "public n"
	shared := base[:cap(base)]
	rel := &mechanisms.Release{Assumptions: []string{"η read from the data", "public n", "c read from the data", "η read from the data"}}
	for _, tc := range []struct {
		name string
		a    []string
		rel  *mechanisms.Release
		rec  *results.Record
		want []string
	}{
		{"appended once, in order", base, rel, private, []string{"scaling", "public n", "η read from the data", "c read from the data"}},
		{"no runner assumptions", nil, rel, private, []string{"η read from the data", "public n", "c read from the data"}},
		{"release without assumptions", base, &mechanisms.Release{}, private, base},
		{"no release", base, nil, private, base},
		{"no guarantee claimed", base, rel, none, base},
	} {
		got := withRelease(tc.a, tc.rel, tc.rec)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if shared[2] != "" {
			t.Fatalf("%s: wrote into the runner's slice: %q", tc.name, shared)
		}
	}
}
