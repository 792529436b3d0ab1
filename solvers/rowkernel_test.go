package solvers

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestRowKernelsMatchGonum: dotRows4 gives the bits of four floats.Dot calls
// and axpyRows4 those of four floats.AddScaled calls, on every length 0–40
// and 127–129, on rows of a strided matrix and on rows gathered from
// anywhere in x (any order, repeats allowed, any start offset mod 4: the
// AVX loads are unaligned; gonum's dot does not depend on alignment), with
// entries of many magnitudes, ±0, and in some cases NaN and ±Inf; with
// finite x, a coefficient 0 in axpyRows4 leaves g as a skipped call does.
// Tolerance: none, except that a NaN may be any NaN. The test logs whether
// the AVX kernels ran.
func TestRowKernelsMatchGonum(t *testing.T) {
	t.Parallel()
	if !haveRowKernels {
		t.Log("no AVX kernels on this platform: checking the row-at-a-time path only")
	}
	r := rand.New(rand.NewPCG(17, 17))
	cases := 0
	for _, d := range kernelLengths() {
		for rep := range 6 {
			special := rep%3 == 2
			stride := d + r.IntN(3)
			rows := 4 + r.IntN(6)
			x := make([]float64, rows*stride+d)
			for i := range x {
				x[i] = kernelEntry(r, special)
			}
			var off, next [4]int
			if rep < 3 {
				i := r.IntN(rows - 3)
				off, next = stridedRows4(i, stride, rows)
			} else {
				for k := range off {
					off[k] = r.IntN(len(x) - d + 1)
					next[k] = r.IntN(len(x) - d + 1)
				}
			}
			theta := make([]float64, d)
			for j := range theta {
				theta[j] = kernelEntry(r, special)
			}
			var u [4]float64
			dotRows4(&u, x, &off, &next, theta)
			for k := range u {
				want := floats.Dot(x[off[k]:off[k]+d], theta)
				if !sameBits(u[k], want) {
					t.Fatalf("d = %d, rows at %v: dotRows4 row %d = %v (%#x), floats.Dot = %v (%#x)",
						d, off, k, u[k], math.Float64bits(u[k]), want, math.Float64bits(want))
				}
			}

			// Gradients are sums of finite terms that start at +0, as in
			// ValueGrad; a holds a zero coefficient when x is finite.
			g := make([]float64, d)
			for j := range g {
				if r.IntN(4) > 0 {
					g[j] = r.NormFloat64() * math.Exp(3*r.NormFloat64())
				}
			}
			a := [4]float64{r.NormFloat64(), r.NormFloat64() * 1e-8, r.NormFloat64() * 1e8, r.NormFloat64()}
			if !special && rep%3 == 0 { // 0·Inf is NaN: zeros only for finite x, as in ValueGrad
				a[r.IntN(4)] = 0
			}
			want := append([]float64(nil), g...)
			for k, ak := range a {
				if ak != 0 {
					floats.AddScaled(want, ak, x[off[k]:off[k]+d])
				}
			}
			axpyRows4(g, &a, x, &off)
			for j := range g {
				if !sameBits(g[j], want[j]) {
					t.Fatalf("d = %d, rows at %v, a = %v: axpyRows4 g[%d] = %v, four AddScaled calls %v",
						d, off, a, j, g[j], want[j])
				}
			}
			cases++
		}
	}
	t.Logf("%d cases, AVX kernels: %v", cases, haveRowKernels)
}

// TestAxpyRows8MatchesGonum: axpyRows8 leaves g as eight floats.AddScaled
// calls in row order do (each product and sum rounded), bit for bit, on
// every length 0–40 and 127–129, on rows gathered from anywhere in x (any
// order, repeats allowed, any start offset mod 4), with entries of many
// magnitudes, ±0, and in some cases NaN and ±Inf; with finite x a
// coefficient 0 adds nothing. A NaN may be any NaN. It fails when the
// kernel sums the eight products before adding them to g, or fuses a
// multiply–add.
func TestAxpyRows8MatchesGonum(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	for _, d := range kernelLengths() {
		for rep := range 6 {
			special := rep%3 == 2
			x := make([]float64, 9*d+3+r.IntN(8))
			for i := range x {
				x[i] = kernelEntry(r, special)
			}
			var off [8]int
			for k := range off {
				off[k] = r.IntN(len(x) - d + 1)
			}
			g := make([]float64, d)
			for j := range g {
				if r.IntN(4) > 0 {
					g[j] = r.NormFloat64() * math.Exp(3*r.NormFloat64())
				}
			}
			var a [8]float64
			for k := range a {
				a[k] = r.NormFloat64() * math.Exp(8*r.NormFloat64())
			}
			if !special && rep%3 == 0 { // 0·Inf is NaN: zeros only for finite x
				a[r.IntN(8)] = 0
			}
			want := append([]float64(nil), g...)
			for k, ak := range a {
				floats.AddScaled(want, ak, x[off[k]:off[k]+d])
			}
			axpyRows8(g, &a, x, &off)
			for j := range g {
				if !sameBits(g[j], want[j]) {
					t.Fatalf("d = %d, rows at %v, a = %v: axpyRows8 g[%d] = %v, eight AddScaled calls %v",
						d, off, a, j, g[j], want[j])
				}
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("axpyRows8 with a row past x: no panic")
			}
		}()
		axpyRows8(make([]float64, 5), new([8]float64), make([]float64, 20), &[8]int{0, 0, 0, 0, 0, 0, 0, 16})
	}()
}

// TestStridedRows4: the offsets of rows i … i+3 and of the next four, which
// repeat the rows themselves past the last row.
func TestStridedRows4(t *testing.T) {
	t.Parallel()
	off, next := stridedRows4(4, 10, 10)
	if off != [4]int{40, 50, 60, 70} || next != [4]int{80, 90, 60, 70} {
		t.Errorf("stridedRows4(4, 10, 10) = %v, %v", off, next)
	}
}

// TestRowKernelsCheckShapes: a row reaching past x, or starting before it,
// panics before any memory is read.
func TestRowKernelsCheckShapes(t *testing.T) {
	t.Parallel()
	theta := make([]float64, 5)
	x := make([]float64, 20)
	var u, a [4]float64
	good := [4]int{0, 5, 10, 15}
	for _, tc := range []struct {
		name      string
		off, next [4]int
	}{
		{"row past x", [4]int{0, 5, 10, 16}, good},
		{"negative offset", [4]int{-1, 5, 10, 15}, good},
		{"next row past x", good, [4]int{0, 5, 16, 15}},
	} {
		for _, call := range []struct {
			kernel string
			run    func()
		}{
			{"dotRows4", func() { dotRows4(&u, x, &tc.off, &tc.next, theta) }},
			{"axpyRows4", func() { axpyRows4(theta, &a, x, &tc.off) }},
		} {
			if call.kernel == "axpyRows4" && tc.off == good {
				continue // axpyRows4 has no next rows
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s, %s: no panic", call.kernel, tc.name)
					}
				}()
				call.run()
			}()
		}
	}
}

// TestValueGradMatchesRowByRow: GLM.ValueGrad, which sums four rows at a
// time, returns the bits of the row-by-row pass it replaced (floats.Dot,
// the loss, floats.AddScaled for each row in turn) for both losses, with
// and without bias and clipping, on row counts that are and are not
// multiples of four and on a strided view, with rows shorter than
// dot8MinCols (33 columns: dotted one by one; 36: packed, eight at a time)
// and longer (eight at a time in place).
func TestValueGradMatchesRowByRow(t *testing.T) {
	t.Parallel()
	rnd := newTestRand()
	for _, c := range []int{33, 36, dot8MinCols + 5} {
		for _, n := range []int{1, 3, 4, 7, 64, 1001} {
			for _, cfg := range []GLMConfig{{}, {Bias: true}, {Bias: true, Clip: 0.3}, {Loss: LossSquared, Clip: 0.5}} {
				valueGradMatchesRowByRow(t, rnd, n, c, cfg)
			}
		}
	}
}

// valueGradMatchesRowByRow checks ValueGrad on a strided n × c view with
// cfg against the row-by-row pass.
func valueGradMatchesRowByRow(t *testing.T, rnd *rand.Rand, n, c int, cfg GLMConfig) {
	t.Helper()
	x, y := logisticData(rnd, n, c+4, 4)
	if cfg.Loss == LossSquared {
		for i := range y {
			y[i] = rnd.NormFloat64()
		}
	}
	view := x.Slice(0, n, 0, c).(*mat.Dense)
	l, err := NewGLM(view, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	theta := randomVec(rnd, l.Dim(), 3)
	grad := make([]float64, l.Dim())
	f := l.ValueGrad(grad, theta)

	raw := view.RawMatrix()
	want := make([]float64, l.Dim())
	var wantF, gb float64
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		var b float64
		if cfg.Bias {
			b = theta[c]
		}
		u := floats.Dot(row, theta[:c]) + b
		var v, g float64
		if l.slope == nil {
			v, g = l.loss.valueDeriv(u, y[i])
		} else {
			v, g = l.rowValueDeriv(i, u)
		}
		wantF += v
		if g != 0 {
			floats.AddScaled(want[:c], g, row)
			gb += g
		}
	}
	if cfg.Bias {
		want[c] = gb
	}
	if !sameBits(f, wantF) {
		t.Errorf("n = %d, c = %d, %+v: value %v, row by row %v", n, c, cfg, f, wantF)
	}
	for j := range want {
		if !sameBits(grad[j], want[j]) {
			t.Errorf("n = %d, c = %d, %+v: gradient[%d] = %v, row by row %v", n, c, cfg, j, grad[j], want[j])
			break
		}
	}
}
