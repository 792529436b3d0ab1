// Package npy writes and reads NumPy's .npy files: the format every
// language with NumPy reads without further dependencies, used to hand
// training and evaluation data to external mechanisms and to read their
// predictions back (mechanisms/external).
//
// The format is NEP 1, "A simple file format for NumPy arrays"
// (https://numpy.org/neps/nep-0001-npy-format.html), version 1.0: the
// magic string "\x93NUMPY", the version bytes 1, 0, a little-endian uint16
// header length, then an ASCII Python dict literal with the keys descr,
// fortran_order and shape, padded with spaces and ended by '\n' so that the
// data starts at a multiple of 64 bytes (NumPy's own writer aligns to 64
// since NumPy 1.14; NEP 1 requires 16), then the data in C order.
package npy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// magic opens every .npy file (NEP 1).
const magic = "\x93NUMPY"

// align is the data offset's alignment NumPy's writer uses.
const align = 64

// Write writes data, a C-order (row-major) array of the given shape,
// as a little-endian float64 ('<f8') .npy file of format version 1.0. The
// product of shape must equal len(data); an empty shape is a scalar.
func Write(w io.Writer, shape []int, data []float64) error {
	return WriteRows(w, shape, 1, func(int) []float64 { return data })
}

// WriteRows is Write of the array whose data in C order is row(0), row(1),
// …, row(rows-1) (e.g. a matrix's rows, for shape {rows, cols}): it is
// streamed to w, never copied whole. The rows' lengths must sum to the
// product of shape, which is checked before anything is written.
func WriteRows(w io.Writer, shape []int, rows int, row func(i int) []float64) error {
	n := 0
	for i := range rows {
		n += len(row(i))
	}
	size := 1
	dims := make([]string, len(shape))
	for i, n := range shape {
		if n < 0 {
			return fmt.Errorf("npy: negative dimension %d", n)
		}
		size *= n
		dims[i] = strconv.Itoa(n)
	}
	if size != n {
		return fmt.Errorf("npy: shape %v holds %d values, got %d", shape, size, n)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += "," // a Python 1-tuple
	}
	header := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", tuple)
	// magic (6) + version (2) + length (2) + header + padding + '\n'.
	pad := align - (len(magic)+4+len(header)+1)%align
	if pad == align {
		pad = 0
	}
	header += strings.Repeat(" ", pad) + "\n"
	if len(header) > math.MaxUint16 {
		return fmt.Errorf("npy: header of %d bytes exceeds format 1.0's limit", len(header))
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	bw.Write([]byte{1, 0})
	binary.Write(bw, binary.LittleEndian, uint16(len(header)))
	bw.WriteString(header)
	var buf [8]byte
	for i := range rows {
		for _, v := range row(i) {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
	}
	return bw.Flush()
}
