package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// maxHeader bounds a header Read accepts (format 2.0 allows 4 GiB).
const maxHeader = 1 << 20

// chunk is how many values Read reads at a time.
const chunk = 1 << 13

// Header fields (NEP 1: "a Python literal expression of a dictionary";
// NumPy writes repr, so single quotes).
var (
	descrRe   = regexp.MustCompile(`['"]descr['"]\s*:\s*['"]([^'"]*)['"]`)
	fortranRe = regexp.MustCompile(`['"]fortran_order['"]\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`['"]shape['"]\s*:\s*\(([^)]*)\)`)
)

// Read reads a little-endian float64 ('<f8') array from a .npy file of
// format version 1.0 or 2.0 and returns its shape and its values in C
// order. It refuses, with an error naming what it found, any other dtype
// (float32, integers, big-endian, structured), a Fortran-order array of
// more than one dimension, a header it cannot parse, data shorter than the
// shape says and bytes after the data. Values are returned as stored
// (NaN and ±Inf included: their meaning is the caller's).
func Read(r io.Reader) (shape []int, data []float64, err error) {
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, nil, fmt.Errorf("npy: not a .npy file (%d bytes: %v)", n, err)
	}
	if string(pre[:6]) != magic {
		return nil, nil, fmt.Errorf("npy: not a .npy file: it starts %q, not %q", pre[:6], magic)
	}
	var hlen int
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, nil, fmt.Errorf("npy: truncated header: %v", err)
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, nil, fmt.Errorf("npy: truncated header: %v", err)
		}
		hlen = int(binary.LittleEndian.Uint32(l[:]))
	default:
		return nil, nil, fmt.Errorf("npy: format version %d.%d: want 1.0 or 2.0", pre[6], pre[7])
	}
	if hlen > maxHeader {
		return nil, nil, fmt.Errorf("npy: header of %d bytes", hlen)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, nil, fmt.Errorf("npy: truncated header: %v", err)
	}
	shape, err = parseHeader(strings.TrimSpace(string(hb)))
	if err != nil {
		return nil, nil, err
	}
	size := 1
	for _, n := range shape {
		if n != 0 && size > math.MaxInt32/n {
			return nil, nil, fmt.Errorf("npy: shape %v is too large", shape)
		}
		size *= n
	}
	// The values are read in chunks, so what is allocated grows with the
	// bytes the file holds, not with the shape its header claims: a
	// few-byte file claiming 2·10⁹ values is "too short", not 16 GB.
	data = make([]float64, 0, min(size, chunk))
	buf := make([]byte, 8*min(size, chunk))
	for len(data) < size {
		b := buf[:8*min(size-len(data), chunk)]
		if n, err := io.ReadFull(r, b); err != nil {
			return nil, nil, fmt.Errorf("npy: shape %v needs %d bytes of data, the file holds %d", shape, 8*size, 8*len(data)+n)
		}
		for i := 0; i < len(b); i += 8 {
			data = append(data, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
	}
	if n, _ := io.ReadFull(r, make([]byte, 1)); n != 0 {
		return nil, nil, fmt.Errorf("npy: bytes after the %d values of shape %v", size, shape)
	}
	return shape, data, nil
}

// parseHeader returns the shape of a header dict, refusing every dtype
// but '<f8' and a Fortran-order array of two or more dimensions.
func parseHeader(h string) ([]int, error) {
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return nil, fmt.Errorf("npy: the header is not a dict: %q", clip(h))
	}
	d := descrRe.FindStringSubmatch(h)
	f := fortranRe.FindStringSubmatch(h)
	s := shapeRe.FindStringSubmatch(h)
	if d == nil || f == nil || s == nil {
		return nil, fmt.Errorf("npy: the header lacks descr, fortran_order or shape (a structured dtype?): %q", clip(h))
	}
	if d[1] != "<f8" {
		return nil, fmt.Errorf("npy: dtype %q: want '<f8' (little-endian float64; numpy: a.astype(np.float64))", d[1])
	}
	var shape []int
	for _, p := range strings.Split(s[1], ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(p, "L"))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("npy: bad shape (%s)", s[1])
		}
		shape = append(shape, n)
	}
	if f[1] == "True" && len(shape) > 1 {
		return nil, errors.New("npy: a Fortran-order array: want C order (numpy: np.ascontiguousarray)")
	}
	return shape, nil
}

// clip shortens a header quoted in an error.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
