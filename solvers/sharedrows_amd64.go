//go:build !noasm && !gccgo && !safe && !amd64.v3

package solvers

import "unsafe"

// haveSharedKernels reports whether sharedDotsRows and sharedAddsRows run.
// They are left out where the compiler may fuse sharedDot's multiply–adds
// (amd64 level v3 and above), as the logistic kernel is.
const haveSharedKernels = true

// The kernels read a record's head at these offsets (bytes).
const (
	_ = uint(unsafe.Offsetof(rowHead{}.y)-0) + uint(0-unsafe.Offsetof(rowHead{}.y))
	_ = uint(unsafe.Offsetof(rowHead{}.shared)-8) + uint(8-unsafe.Offsetof(rowHead{}.shared))
	_ = uint(unsafe.Offsetof(rowHead{}.norm)-16) + uint(16-unsafe.Offsetof(rowHead{}.norm))
	_ = uint(unsafe.Offsetof(rowHead{}.own)-32) + uint(32-unsafe.Offsetof(rowHead{}.own))
	_ = uint(unsafe.Offsetof(rowHead{}.n)-34) + uint(34-unsafe.Offsetof(rowHead{}.n))
	_ = uint(headWords-5) + uint(5-headWords)
)

// sharedDotsRows sets, for the k < n rows i = rows[k] of a batch (records
// of one-byte columns at base + i·stride), u[k] = sharedDot(record i, w)
// with the same bits, y[k] = its target and norm[k] = its norm[nk]; w
// holds θ's d ≤ 256 weights and zeros after them. Before each row it asks
// for the first lines cache lines of the record aheadRows (in the
// assembly) rows on, if that row is among the m ≥ n rows at rows.
//
//go:noescape
func sharedDotsRows(u, y, norm *float64, base unsafe.Pointer, stride uintptr, rows *int, n, m, nk, lines int, w *[256]float64)

// sharedAddsRows calls sharedAddScaled(grad, a[k], record rows[k]) for
// k < n, in order, with the same bits, for the records of sharedDotsRows.
//
//go:noescape
func sharedAddsRows(grad *[256]float64, a *float64, base unsafe.Pointer, stride uintptr, rows *int, n int)
