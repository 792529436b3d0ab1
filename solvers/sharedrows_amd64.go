//go:build !noasm && !gccgo && !safe && !amd64.v3

package solvers

import "unsafe"

// haveSharedKernels reports whether sharedDots8 and sharedAdds8 run. They
// are left out where the compiler may fuse sharedDot's multiply–adds
// (amd64 level v3 and above), as the logistic kernel is.
const haveSharedKernels = true

// The kernels read a record's head at these offsets (bytes).
const (
	_ = uint(unsafe.Offsetof(rowHead{}.shared)-8) + uint(8-unsafe.Offsetof(rowHead{}.shared))
	_ = uint(unsafe.Offsetof(rowHead{}.own)-32) + uint(32-unsafe.Offsetof(rowHead{}.own))
	_ = uint(unsafe.Offsetof(rowHead{}.n)-34) + uint(34-unsafe.Offsetof(rowHead{}.n))
	_ = uint(headWords-5) + uint(5-headWords)
)

// sharedDots8 sets u[r] = sharedDot(the record at rec[r], w) for r < rows
// (1–8), with the same bits, for records of one-byte columns; w holds θ's
// d ≤ 256 weights and zeros after them.
//
//go:noescape
func sharedDots8(u *[8]float64, rec *[8]unsafe.Pointer, rows int, w *[256]float64)

// sharedAdds8 calls sharedAddScaled(grad, a[r], the record at rec[r]) for
// r < rows (1–8), in order, with the same bits, for records of one-byte
// columns.
//
//go:noescape
func sharedAdds8(grad *[256]float64, a *[8]float64, rec *[8]unsafe.Pointer, rows int)
