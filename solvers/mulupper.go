package solvers

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MulTransUpper sets c (k × p) to gtᵀ·r, for gt p × k and r p × p upper
// triangular (its lower triangle zero), with the bits of gonum's dgemm on
// the whole of r, blas64.Gemm(blas.Trans, blas.NoTrans, 1, gt, r, 0, c):
// each cᵢⱼ sums gtₗᵢ·rₗⱼ from +0 in order l, each product rounded on its
// own, skipping a zero gtₗᵢ. It is the exact GaussMix sketch sampler's
// product G·R, with G = gtᵀ drawn transposed.
//
// With AVX, blocks of four rows × eight columns of c are summed in
// registers (gemmRows4AVX) over a block of rows l at a time (gemmRowBlock:
// r's block stays in cache while every block of c reads it), the blocks in
// order, so each cᵢⱼ still sums its products in order l. The products
// with r's zero lower triangle are left out below each 8-column panel's
// last diagonal entry, and added within the panel; neither changes a bit
// when gt and r are finite: such a product is ±0, and a sum from +0 is
// never −0 (a rounded sum is −0 only when both terms are), so adding ±0
// changes nothing. Likewise for dgemm's skipped zeros of gt. Otherwise — a NaN or
// an infinity in gt or r, fewer than 8 columns, no AVX — dgemm runs, on
// column blocks of r and only the rows above their bottom (its zero rows
// below add nothing, by the same argument).
func MulTransUpper(c, gt, r blas64.General) {
	p, k := gt.Rows, gt.Cols
	if r.Rows != p || r.Cols != p || c.Rows != k || c.Cols != p {
		panic(badShape)
	}
	if !haveRowKernels || p < 8 || k == 0 ||
		checkFiniteMatrix("gt", generalMatrix(gt)) != nil || checkFiniteMatrix("r", generalMatrix(r)) != nil {
		mulTransUpperGemm(c, gt, r)
		return
	}
	if gt.Stride < k || r.Stride < p || c.Stride < p ||
		len(gt.Data) < (p-1)*gt.Stride+k || len(r.Data) < (p-1)*r.Stride+p || len(c.Data) < (k-1)*c.Stride+p {
		panic(badShape) // gemmRows4AVX reads and writes unchecked
	}
	mulTransUpperRows(c, gt, r, gemmRowBlock(p))
}

// mulTransUpperRows is MulTransUpper's AVX path with blocks of rb rows l.
func mulTransUpperRows(c, gt, r blas64.General, rb int) {
	p, k := gt.Rows, gt.Cols
	for i := range k {
		clear(c.Data[i*c.Stride : i*c.Stride+p])
	}
	k4, p4 := k&^3, p&^3
	// Per block of rows l0 … l1−1, r's columns are packed into panels of 8
	// (the last may have 4) holding only their rows that can be non-zero
	// (l ≤ the panel's last column), each panel's rows contiguous; per
	// block of four rows of c, gt's four columns are packed likewise. The
	// kernel then reads both as two sequential streams instead of one cache
	// line per 4 KiB page of gt and r.
	rb = min(rb, p)
	bpack := make([]float64, rb*p4)
	apack := make([]float64, rb*4)
	type panel struct{ j, w, rows, off int }
	panels := make([]panel, 0, (p4+7)/8)
	for l0 := 0; l0 < p; l0 += rb {
		l1 := min(l0+rb, p)
		panels, off := panels[:0], 0
		for j := l0 &^ 7; j < p4; j += 8 {
			w := min(8, p4-j)
			rows := min(l1, j+w) - l0
			if rows <= 0 {
				break // l0 ≥ p4: these rows are zero in every kernel column
			}
			for l := range rows {
				copy(bpack[off+l*w:off+(l+1)*w], r.Data[(l0+l)*r.Stride+j:])
			}
			panels = append(panels, panel{j, w, rows, off})
			off += rows * w
		}
		for i := 0; i < k4; i += 4 {
			for l := range l1 - l0 {
				copy(apack[4*l:4*l+4], gt.Data[(l0+l)*gt.Stride+i:])
			}
			ci := c.Data[i*c.Stride:]
			for _, q := range panels {
				gemmRows4AVX(ci[q.j:], c.Stride, apack, 4, bpack[q.off:], q.w, q.rows, q.w)
			}
		}
	}
	// The last 1–3 rows of c (all columns) and the last 1–3 columns (the
	// rows above): one sum at a time, in order l.
	one := func(i, j int) {
		var s float64
		for l := range j + 1 {
			if t := gt.Data[l*gt.Stride+i]; t != 0 {
				s += float64(t * r.Data[l*r.Stride+j])
			}
		}
		c.Data[i*c.Stride+j] = s
	}
	for i := k4; i < k; i++ {
		for j := range p {
			one(i, j)
		}
	}
	for i := range k4 {
		for j := p4; j < p; j++ {
			one(i, j)
		}
	}
}

// mulTransUpperGemm is MulTransUpper by dgemm on column blocks of r:
// column block [j0, j1) of c is gt[:j1, :]ᵀ·r[:j1, j0:j1].
func mulTransUpperGemm(c, gt, r blas64.General) {
	p, k := gt.Rows, gt.Cols
	const width = 64 // gonum's dgemm block size
	for j0 := 0; j0 < p; j0 += width {
		j1 := min(j0+width, p)
		a := blas64.General{Rows: j1, Cols: k, Stride: gt.Stride, Data: gt.Data}
		b := blas64.General{Rows: j1, Cols: j1 - j0, Stride: r.Stride, Data: r.Data[j0:]}
		cb := blas64.General{Rows: k, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[j0:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, cb)
	}
}
