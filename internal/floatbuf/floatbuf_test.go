package floatbuf

import "testing"

// TestGet: a buffer has at least the entries asked for, as its length, and
// one put back may be lent again for a smaller request.
func TestGet(t *testing.T) {
	for _, n := range []int{0, 1, 13, 1000, 5} {
		b := Get(n)
		if len(*b) < n || len(*b) != cap(*b) {
			t.Fatalf("Get(%d): len %d, cap %d", n, len(*b), cap(*b))
		}
		for i := range *b {
			(*b)[i] = float64(i) // writable throughout
		}
		Put(b)
	}
}
