package solvers

import "gonum.org/v1/gonum/mat"

// packedRows8 is a copy of a dense X's rows in blocks of eight, laid out so
// that the AVX kernels read a block in address order: block b holds rows
// 8b … 8b+7, and within it chunk c holds columns 4c … 4c+3 of row 0, then
// of row 1, …, row 7. Only whole blocks are kept (rows 8·blocks and on are
// not), and only when the column count is a multiple of four.
//
// Why: GLM.ValueGrad's dense pass reads eight rows at once. Read in place,
// eight rows are eight streams a row apart, which on the development
// machine cost twice the thread CPU time of reading them one after another
// (dot8MinCols); packed, they are one stream.
type packedRows8 struct {
	data   []float64
	blocks int // whole blocks of eight rows
	chunks int // columns / 4
}

// newPackedRows8 returns X packed, or nil when the AVX kernels do not run,
// X has fewer than eight rows or its column count is not a multiple of 4.
func newPackedRows8(X *mat.Dense) *packedRows8 {
	raw := X.RawMatrix()
	if !haveRowKernels || raw.Rows < 8 || raw.Cols%4 != 0 || raw.Cols == 0 {
		return nil
	}
	p := &packedRows8{blocks: raw.Rows / 8, chunks: raw.Cols / 4}
	p.data = make([]float64, p.blocks*8*raw.Cols)
	for b := range p.blocks {
		blk := p.block(b)
		for r := range 8 {
			row := raw.Data[(8*b+r)*raw.Stride:]
			for c := range p.chunks {
				copy(blk[(c*8+r)*4:(c*8+r)*4+4], row[4*c:4*c+4])
			}
		}
	}
	return p
}

// block returns block b's data.
func (p *packedRows8) block(b int) []float64 {
	n := p.chunks * 32
	return p.data[b*n : (b+1)*n]
}

// dot sets u[r] = x_rᵀθ for the eight rows of block b, bit for bit as
// floats.Dot(x_r, θ) (and dotRows8) computes it: u[r] = (s₀+s₂) + (s₁+s₃),
// DotUnitary's final additions. It panics if len(θ) ≠ 4·chunks or b is out
// of range.
func (p *packedRows8) dot(u *[8]float64, b int, theta []float64) {
	if len(theta) != 4*p.chunks {
		panic(badShape)
	}
	var s [8][4]float64
	dotPacked8AVX(&s, p.block(b), theta, p.chunks)
	for r := range u {
		u[r] = (s[r][0] + s[r][2]) + (s[r][1] + s[r][3])
	}
}

// addScaled adds a[r]·x_r to g for the rows r = 0, …, 7 of block b in turn,
// bit for bit as axpyRows4 on rows 0–3 and then 4–7. It panics if
// len(g) ≠ 4·chunks or b is out of range.
func (p *packedRows8) addScaled(g []float64, a *[8]float64, b int) {
	if len(g) != 4*p.chunks {
		panic(badShape)
	}
	axpyPacked8AVX(g, a, p.block(b), p.chunks)
}
