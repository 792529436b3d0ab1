package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestPackedRows8MatchesGonum: the packed copy's dot products give the bits
// of floats.Dot on each of its rows, and its addScaled the bits of
// floats.AddScaled row after row (rows 0 to 7), on column counts 4–40 and
// 128, strided rows, every block, and entries of many magnitudes, ±0 and
// in some cases NaN and ±Inf (a NaN may be any NaN). X with fewer than
// eight rows, a column count not a multiple of four, or no AVX kernels
// gets no packed copy.
func TestPackedRows8MatchesGonum(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		if newPackedRows8(mat.NewDense(8, 4, nil)) != nil {
			t.Fatal("a packed copy without the AVX kernels")
		}
		t.Skip("no AVX kernels on this platform: no packed copies")
	}
	for _, shape := range [][2]int{{7, 4}, {8, 6}, {9, 0}} {
		if newPackedRows8(mat.NewDense(shape[0], max(shape[1], 1), nil).Slice(0, shape[0], 0, shape[1]).(*mat.Dense)) != nil {
			t.Errorf("%d × %d: a packed copy, want none", shape[0], shape[1])
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	cols := []int{128}
	for d := 4; d <= 40; d += 4 {
		cols = append(cols, d)
	}
	for _, d := range cols {
		for rep := range 4 {
			special := rep%2 == 1
			rows := 8 + r.IntN(20)
			stride := d + r.IntN(3)
			data := make([]float64, rows*stride)
			for i := range data {
				data[i] = kernelEntry(r, special)
			}
			x := mat.NewDense(rows, stride, data).Slice(0, rows, 0, d).(*mat.Dense)
			p := newPackedRows8(x)
			if p == nil || p.blocks != rows/8 {
				t.Fatalf("%d × %d: packed %+v, want %d blocks", rows, d, p, rows/8)
			}
			theta := make([]float64, d)
			for j := range theta {
				theta[j] = kernelEntry(r, special)
			}
			for b := range p.blocks {
				var u, a [8]float64
				p.dot(&u, b, theta)
				g := make([]float64, d)
				want := make([]float64, d)
				for j := range g {
					g[j] = kernelEntry(r, special)
				}
				copy(want, g)
				for k := range a {
					a[k] = kernelEntry(r, special)
				}
				p.addScaled(g, &a, b)
				for k := range u {
					row := x.RawRowView(8*b + k)
					if w := floats.Dot(row, theta); !sameBits(u[k], w) && !(math.IsNaN(u[k]) && math.IsNaN(w)) {
						t.Fatalf("d = %d, block %d row %d: dot %v, floats.Dot %v", d, b, k, u[k], w)
					}
					floats.AddScaled(want, a[k], row)
				}
				for j := range g {
					if !sameBits(g[j], want[j]) && !(math.IsNaN(g[j]) && math.IsNaN(want[j])) {
						t.Fatalf("d = %d, block %d: addScaled g[%d] = %v, floats.AddScaled row by row %v", d, b, j, g[j], want[j])
					}
				}
			}
		}
	}
}
