package solvers

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestSparseRowsMatchGonum: on sparse rows (a fraction 0–0.9 of zeros,
// lengths 1–41 and 104–129), dotLanes gives the bits of floats.Dot on the
// dense row and addScaled those of floats.AddScaled, with entries and θ of
// many magnitudes and ±0 (finite: the GLM refuses NaN and ±Inf in X).
// dotLanes is compared only where the AVX kernels run, as GLM uses it.
func TestSparseRowsMatchGonum(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 23))
	var lengths []int
	for d := 1; d <= 41; d++ {
		lengths = append(lengths, d)
	}
	lengths = append(lengths, 104, 105, 127, 128, 129)
	for _, d := range lengths {
		for rep := range 8 {
			zeros := float64(rep) / 8 * 0.9
			const rows = 6
			x := mat.NewDense(rows, d, nil)
			for i := range rows {
				for j := range d {
					if r.Float64() >= zeros {
						x.Set(i, j, kernelEntry(r, false))
					}
				}
			}
			// A nearly empty matrix has no sparse form when more than half
			// of its few entries are set; force one.
			s := sparseRowsOf(x.RawMatrix(), 0)
			w := make([]float64, d)
			for j := range w {
				w[j] = kernelEntry(r, false)
			}
			for i := range rows {
				row := x.RawRowView(i)
				if haveRowKernels {
					if got, want := s.dotLanes(i, w), floats.Dot(row, w); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("d = %d, row %d: dotLanes = %v, floats.Dot %v", d, i, got, want)
					}
				}
				a := kernelEntry(r, false)
				got, want := make([]float64, d), make([]float64, d)
				for j := range got {
					got[j] = kernelEntry(r, false)
					if got[j] == 0 {
						got[j] = 1 // g is never −0 where GLM and DP-SGD add rows
					}
				}
				copy(want, got)
				s.addScaled(got, a, i)
				floats.AddScaled(want, a, row)
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("d = %d, row %d: addScaled[%d] = %v, floats.AddScaled %v", d, i, j, got[j], want[j])
					}
				}
			}
		}
	}
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: dotLanes not compared")
	}
}

// TestGLMSparseMatchesDense: GLM.ValueGrad on a sparse X (read through its
// non-zero entries) returns the bits of the dense path, for the logistic
// and squared losses, with and without intercept and clipping, on row
// counts that leave 0–3 rows after the four-row blocks.
func TestGLMSparseMatchesDense(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 29))
	for _, sh := range []struct{ n, d int }{{203, 37}, {400, 105}, {130, 6}} {
		x := mat.NewDense(sh.n, sh.d, nil)
		for i := range sh.n {
			for j := range sh.d {
				if r.Float64() < 0.12 {
					x.Set(i, j, r.NormFloat64()*math.Exp(r.NormFloat64()))
				}
			}
		}
		y := make([]float64, sh.n)
		for i := range y {
			y[i] = float64(r.IntN(2))
		}
		for _, cfg := range []GLMConfig{{}, {Bias: true}, {Loss: LossSquared, Bias: true}, {Bias: true, Clip: 0.5}} {
			sparse, err := NewGLM(x, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if haveRowKernels != (sparse.sparse != nil) {
				t.Fatalf("%d × %d at density 0.12: sparse form %v with AVX kernels %v", sh.n, sh.d, sparse.sparse != nil, haveRowKernels)
			}
			dense := *sparse
			dense.sparse = nil
			for range 5 {
				theta := make([]float64, sparse.Dim())
				for j := range theta {
					theta[j] = r.NormFloat64()
				}
				gs, gd := make([]float64, len(theta)), make([]float64, len(theta))
				fs, fd := sparse.ValueGrad(gs, theta), dense.ValueGrad(gd, theta)
				if math.Float64bits(fs) != math.Float64bits(fd) {
					t.Fatalf("%+v, %d × %d: value %v (sparse), %v (dense)", cfg, sh.n, sh.d, fs, fd)
				}
				for j := range gs {
					if math.Float64bits(gs[j]) != math.Float64bits(gd[j]) {
						t.Fatalf("%+v, %d × %d: gradient[%d] %v (sparse), %v (dense)", cfg, sh.n, sh.d, j, gs[j], gd[j])
					}
				}
			}
		}
	}
}

// TestSharedRowsLayout: sharedRows gives back every row of X (its
// columns, values, target and norms) for column indices of 1, 2 and 4
// bytes and rows with no entries, in records of one size (the longest
// row's, in whole cache lines) starting on cache lines, and sharedDot and
// sharedAddScaled agree with the dense row to rounding; a row of 2¹⁶
// non-zeros has no sharedRows (the dense loops run).
func TestSharedRowsLayout(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(37, 37))
	for _, tc := range []struct{ d, bytes int }{{1, 1}, {104, 1}, {256, 1}, {257, 2}, {1 << 16, 2}, {1<<16 + 1, 4}} {
		const rows = 9
		x := mat.NewDense(rows, tc.d, nil)
		y := make([]float64, rows)
		for i := range rows {
			y[i] = r.NormFloat64()
			shared := float64(1 + r.IntN(3))
			for range min(tc.d, 1+r.IntN(20)) * (i % 4) / 3 { // rows 0, 4, 8 empty
				j := r.IntN(tc.d)
				switch r.IntN(3) {
				case 0:
					x.Set(i, j, r.NormFloat64())
				default:
					x.Set(i, j, shared)
				}
			}
		}
		s := sharedRowsOf(sparseRowsOf(x.RawMatrix(), 0), y, tc.d)
		if s.colBytes != tc.bytes {
			t.Fatalf("d = %d: %d-byte columns, want %d", tc.d, s.colBytes, tc.bytes)
		}
		// One record size, in whole cache lines, the fewest that hold the
		// longest record; records start on cache lines.
		need := 0
		for i := range rows {
			h, _, _ := record[uint8](s, i)
			need = max(need, headWords+int(h.own)+(int(h.n)*tc.bytes+7)/8)
		}
		if addr := uintptr(unsafe.Pointer(unsafe.SliceData(s.rec))); addr%64 != 0 || s.stride != (need+7)/8*8 || len(s.rec) != rows*s.stride {
			t.Fatalf("d = %d: records at %#x of %d words (%d words in all), want 64-byte aligned, %d words each", tc.d, addr, s.stride, len(s.rec), (need+7)/8*8)
		}
		w := make([]float64, tc.d)
		for j := range w {
			w[j] = r.NormFloat64()
		}
		for i := range rows {
			h, own, got := s.rowEntries(i)
			want := map[int]float64{}
			var sq, dot, mass float64
			for j, v := range x.RawRowView(i) {
				if v != 0 {
					want[j] = v
					sq += v * v
					dot += v * w[j]
					mass += math.Abs(v * w[j])
				}
			}
			if len(got) != len(want) || h.y != y[i] || h.norm != [2]float64{math.Sqrt(sq), math.Sqrt(1 + sq)} {
				t.Fatalf("d = %d, row %d: %d entries, y %v, norms %v; want %d, %v, √%v and √(1 + %[7]v)", tc.d, i, len(got), h.y, h.norm, len(want), y[i], sq)
			}
			for j, v := range got {
				if want[j] != v {
					t.Fatalf("d = %d, row %d, column %d: %v, want %v", tc.d, i, j, v, want[j])
				}
			}
			if len(own) < len(got) {
				// Each own value differs from the shared one, which is a
				// most frequent value.
				counts := map[float64]int{}
				for _, v := range got {
					counts[v]++
				}
				for _, v := range own {
					if v == h.shared || counts[v] > counts[h.shared] {
						t.Fatalf("d = %d, row %d: own value %v, shared %v (%v)", tc.d, i, v, h.shared, counts)
					}
				}
			}
			var u float64
			switch tc.bytes {
			case 1:
				u = sharedRowDot[uint8](s, i, w)
			case 2:
				u = sharedRowDot[uint16](s, i, w)
			default:
				u = sharedRowDot[uint32](s, i, w)
			}
			if math.Abs(u-dot) > 1e-14*mass {
				t.Fatalf("d = %d, row %d: xᵀw = %v, want %v", tc.d, i, u, dot)
			}
		}
	}
	x := mat.NewDense(2, 1<<16, nil)
	for j := range 1 << 16 {
		x.Set(1, j, 1)
	}
	if s := sharedRowsOf(sparseRowsOf(x.RawMatrix(), 0), []float64{0, 1}, 1<<16); s != nil {
		t.Error("a row of 2¹⁶ non-zeros has sharedRows")
	}
}

// rowEntries returns row i's head, own values and entries by column.
func (s *sharedRows) rowEntries(i int) (*rowHead, []float64, map[int]float64) {
	get := func(k int) int { return sharedCol(s, i, k) }
	h, own, _ := record[uint8](s, i)
	m := map[int]float64{}
	for k := range int(h.n) {
		v := h.shared
		if k < len(own) {
			v = own[k]
		}
		m[get(k)] = v
	}
	return h, own, m
}

// sharedCol returns column k of row i.
func sharedCol(s *sharedRows, i, k int) int {
	switch s.colBytes {
	case 1:
		_, _, c := record[uint8](s, i)
		return int(c[k])
	case 2:
		_, _, c := record[uint16](s, i)
		return int(c[k])
	}
	_, _, c := record[uint32](s, i)
	return int(c[k])
}

// sharedRowDot is sharedDot on row i.
func sharedRowDot[T colIndex](s *sharedRows, i int, w []float64) float64 {
	h, own, cols := record[T](s, i)
	return sharedDot(h, own, cols, w)
}
