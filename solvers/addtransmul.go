package solvers

// AddTransMul4 adds to four rows of c the products of four columns of a
// with cols columns of b, summed over rows rows of both:
//
//	c[r·ldc+m] += Σ_{l<rows} a[l·lda+r]·b[l·ldb+m],   r < 4, m < cols,
//
// each c entry summing its products in order l from its value on entry,
// each product rounded before it is added (no fused multiply–add, no zero
// skipped). cols must be a multiple of 4. For finite a and b and c zero on
// entry these are the bits of gonum's dgemm and dsyrk on the same entries
// (a product with a zero factor is ±0, and a sum from +0 is never −0, so
// the terms dgemm and dsyrk skip change nothing). It is the tiny-matrix
// kernel of the GaussMix sketches (k × p with p about 14: BLAS calls per
// entry cost more than the arithmetic there); with AVX, eight (then four)
// columns of the four rows are summed in YMM registers (gemmRows4AVX). It
// panics if a slice is too short for the shape.
func AddTransMul4(c []float64, ldc int, a []float64, lda int, b []float64, ldb, rows, cols int) {
	if cols%4 != 0 || cols < 0 || rows < 0 || ldc < cols || ldb < cols || lda < 0 {
		panic(badShape)
	}
	if cols == 0 {
		return
	}
	if len(c) < 3*ldc+cols || (rows > 0 && (len(a) < (rows-1)*lda+4 || len(b) < (rows-1)*ldb+cols)) {
		panic(badShape) // gemmRows4AVX reads and writes unchecked
	}
	if haveRowKernels {
		gemmRows4AVX(c, ldc, a, lda, b, ldb, rows, cols)
		return
	}
	addTransMul4Go(c, ldc, a, lda, b, ldb, rows, cols)
}

// addTransMul4Go is AddTransMul4 in Go (the oracle of its test, and the
// path without AVX).
func addTransMul4Go(c []float64, ldc int, a []float64, lda int, b []float64, ldb, rows, cols int) {
	for r := range 4 {
		cr := c[r*ldc : r*ldc+cols]
		for m := range cr {
			s := cr[m]
			for l := range rows {
				s += float64(a[l*lda+r] * b[l*ldb+m])
			}
			cr[m] = s
		}
	}
}
