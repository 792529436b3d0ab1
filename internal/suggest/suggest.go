// Package suggest finds the known name closest to a mistyped one, for the
// "did you mean" of errors about unknown keys, names and kinds.
package suggest

import "fmt"

// Closest returns the candidate nearest to word by edit distance (insertions,
// deletions, substitutions and transpositions of adjacent characters each
// count 1: the optimal string alignment distance), when that distance is
// small for the word's length: at most 1 + len/5 runes (1 for "rhoo", 2 for
// "trails"). Ties go to the earlier candidate.
func Closest(word string, candidates []string) (string, bool) {
	w := []rune(word)
	limit := 1 + len(w)/5
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := distance(w, []rune(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= limit
}

// DidYouMean returns ` (did you mean "x"?)` for the candidate closest to
// word, or "" when none is close.
func DidYouMean(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b []rune) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
