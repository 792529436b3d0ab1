package suggest

import "testing"

func TestDistance(t *testing.T) {
	// Hand-worked distances.
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"rho", "rho", 0}, {"rhoo", "rho", 1}, {"rh", "rho", 1}, {"rjo", "rho", 1},
		{"trails", "trials", 1}, // one adjacent transposition
		{"kitten", "sitting", 3}, {"", "abc", 3}, {"ε", "e", 1},
	} {
		if got := distance([]rune(c.a), []rune(c.b)); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := distance([]rune(c.b), []rune(c.a)); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetry)", c.b, c.a, got, c.d)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"bound_x", "bound_y", "calibration", "rho"}
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"rhoo", "rho", true},
		{"bound_z", "bound_x", true}, // tie with bound_y: the earlier
		{"calibraton", "calibration", true},
		{"lambda", "", false},
		{"rho", "", false}, // the word itself is not a suggestion
	} {
		got, ok := Closest(c.word, keys)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	if got := DidYouMean("rhoo", keys); got != ` (did you mean "rho"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", keys); got != "" {
		t.Errorf("DidYouMean(zzz) = %q, want empty", got)
	}
}
