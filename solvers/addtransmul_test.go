package solvers

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddTransMul4 holds AddTransMul4 (the AVX kernel where it runs) to a
// sum written out here in order l, bit for bit, on random shapes, strides
// and starting values of c, cols a multiple of 4 from 0 to 24, rows from 0
// to 70; and checks that the panics guard the unchecked kernel's reads.
func TestAddTransMul4(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 4))
	for n := range 400 {
		rows, cols := r.IntN(71), 4*r.IntN(7)
		lda, ldb, ldc := 4+r.IntN(20), cols+r.IntN(5), cols+r.IntN(5)
		a := make([]float64, max(0, (rows-1)*lda+4))
		b := make([]float64, max(0, (rows-1)*ldb+cols))
		c := make([]float64, 3*ldc+cols)
		for _, s := range [][]float64{a, b, c} {
			for i := range s {
				s[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(21)-10))
				if r.IntN(7) == 0 {
					s[i] = 0
				}
			}
		}
		want := make([]float64, len(c))
		copy(want, c)
		for i := range 4 {
			for m := range cols {
				s := want[i*ldc+m]
				for l := range rows {
					p := a[l*lda+i] * b[l*ldb+m]
					s += p
				}
				want[i*ldc+m] = s
			}
		}
		AddTransMul4(c, ldc, a, lda, b, ldb, rows, cols)
		for i := range c {
			if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
				t.Fatalf("case %d (rows %d, cols %d, lda %d, ldb %d, ldc %d): c[%d] = %v, want %v", n, rows, cols, lda, ldb, ldc, i, c[i], want[i])
			}
		}
	}
	for name, f := range map[string]func(){
		"cols not a multiple of 4": func() { AddTransMul4(make([]float64, 64), 8, make([]float64, 64), 4, make([]float64, 64), 8, 2, 6) },
		"short a":                  func() { AddTransMul4(make([]float64, 64), 8, make([]float64, 7), 4, make([]float64, 64), 8, 2, 8) },
		"short b":                  func() { AddTransMul4(make([]float64, 64), 8, make([]float64, 64), 4, make([]float64, 15), 8, 2, 8) },
		"short c":                  func() { AddTransMul4(make([]float64, 31), 8, make([]float64, 64), 4, make([]float64, 64), 8, 2, 8) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
