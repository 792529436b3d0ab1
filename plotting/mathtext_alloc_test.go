package plotting

import (
	"strings"
	"testing"
)

// TestPlainTextLinear: PlainText of a long text (a figure's SVG, as the
// golden test's caption check reads it) is the text with its markup
// converted, and takes a bounded number of allocations, not one per rune:
// parseMath joined a run by string concatenation, copying it at every rune
// (fails before: about 60,000 allocations for 60,000 runes, quadratic time).
func TestPlainTextLinear(t *testing.T) {
	long := strings.Repeat("ab ", 20000)
	in, want := long+"x_1 and θ^{2}", long+"x₁ and θ²"
	if got := PlainText(in); got != want {
		t.Fatalf("PlainText of a long text: %d bytes ending %q, want %d bytes ending %q", len(got), got[len(got)-20:], len(want), want[len(want)-20:])
	}
	if n := testing.AllocsPerRun(3, func() { PlainText(in) }); n > 100 {
		t.Errorf("PlainText of %d runes: %.0f allocations, want at most 100 (one per rune is quadratic)", len([]rune(in)), n)
	}
}
