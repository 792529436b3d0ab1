package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderLayout checks the bytes NEP 1 fixes: magic, version 1.0, the
// header length, a dict ending in '\n', and the data aligned to 64 bytes.
func TestHeaderLayout(t *testing.T) {
	for _, shape := range [][]int{{3}, {2, 3}, {0, 4}, {}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i) + 0.5
		}
		var b bytes.Buffer
		if err := Write(&b, shape, data); err != nil {
			t.Fatal(err)
		}
		out := b.Bytes()
		if string(out[:6]) != "\x93NUMPY" || out[6] != 1 || out[7] != 0 {
			t.Fatalf("shape %v: bad magic or version % x", shape, out[:8])
		}
		hl := int(binary.LittleEndian.Uint16(out[8:10]))
		if (10+hl)%64 != 0 || out[10+hl-1] != '\n' {
			t.Errorf("shape %v: data offset %d not 64-aligned or header not ended by newline", shape, 10+hl)
		}
		if len(out) != 10+hl+8*n {
			t.Errorf("shape %v: %d bytes, want %d", shape, len(out), 10+hl+8*n)
		}
		if n > 0 && math.Float64frombits(binary.LittleEndian.Uint64(out[10+hl+8*(n-1):])) != data[n-1] {
			t.Errorf("shape %v: last value wrong", shape)
		}
	}
	if err := Write(&bytes.Buffer{}, []int{2, 2}, []float64{1}); err == nil {
		t.Error("a shape that does not match the data was accepted")
	}
}

// pythonWithNumPy returns a python3 that imports numpy, or "" when none
// is found (/usr/bin/python3 first: Debian's python3-numpy).
func pythonWithNumPy() string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(p, "-c", "import numpy").Run(); err == nil {
			return p
		}
	}
	return ""
}

// TestNumPyReadsIt has NumPy itself load the files (the independent
// oracle) and print shape, dtype and values, including NaN, ±Inf, -0 and
// subnormals.
func TestNumPyReadsIt(t *testing.T) {
	py := pythonWithNumPy()
	if py == "" {
		t.Skip("no python3 that imports numpy (install python3-numpy)")
	}
	dir := t.TempDir()
	cases := map[string]struct {
		shape []int
		data  []float64
	}{
		"m": {[]int{2, 3}, []float64{1, 2.5, -3, math.Inf(1), math.Copysign(0, -1), 5e-324}},
		"v": {[]int{4}, []float64{0.1, 0.2, math.NaN(), 1e300}},
		"e": {[]int{0, 7}, nil},
	}
	for name, c := range cases {
		f, err := os.Create(filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, c.shape, c.data); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	script := `
import sys, numpy as np
for name in ["m", "v", "e"]:
    a = np.load(sys.argv[1] + "/" + name + ".npy")
    assert a.dtype == np.float64 and a.flags["C_CONTIGUOUS"]
    print(name, a.shape, " ".join(repr(float(x)) for x in a.ravel()))
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy.load: %v\n%s", err, out)
	}
	want := "m (2, 3) 1.0 2.5 -3.0 inf -0.0 5e-324\nv (4,) 0.1 0.2 nan 1e+300\ne (0, 7) \n"
	if got := string(out); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("numpy read:\n%s\nwant:\n%s", got, want)
	}
}
