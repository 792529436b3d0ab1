// Package floatbuf lends float64 buffers reused between calls, for the
// small-matrix kernels whose allocations would cost more than their
// arithmetic (the GaussMix sketches, the Cholesky solves of their normal
// equations). A buffer's contents are arbitrary when it is lent: the
// borrower sets every entry it reads.
package floatbuf

import "sync"

var pool sync.Pool

// Get returns a buffer of at least n entries, its length its capacity.
func Get(n int) *[]float64 {
	b, _ := pool.Get().(*[]float64)
	if b == nil || cap(*b) < n {
		s := make([]float64, n)
		b = &s
	}
	*b = (*b)[:cap(*b)]
	return b
}

// Put returns b, from Get, for reuse; b must not be used after.
func Put(b *[]float64) { pool.Put(b) }
