package npy

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestReadRoundTrip reads back what Write wrote, bit for bit (NaN, ±Inf,
// -0 and subnormals included), and refuses a truncated file and trailing
// bytes.
func TestReadRoundTrip(t *testing.T) {
	for _, c := range []struct {
		shape []int
		data  []float64
	}{
		{[]int{2, 3}, []float64{1, 2.5, -3, math.Inf(1), math.Copysign(0, -1), 5e-324}},
		{[]int{4}, []float64{0.1, 0.2, math.NaN(), 1e300}},
		{[]int{0, 7}, nil},
		{nil, []float64{42}},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.shape, c.data); err != nil {
			t.Fatal(err)
		}
		full := b.Bytes()
		shape, data, err := Read(bytes.NewReader(full))
		if err != nil {
			t.Fatalf("shape %v: %v", c.shape, err)
		}
		if !slices.Equal(shape, c.shape) || len(data) != len(c.data) {
			t.Fatalf("shape %v: read shape %v, %d values", c.shape, shape, len(data))
		}
		for i := range data {
			if math.Float64bits(data[i]) != math.Float64bits(c.data[i]) {
				t.Errorf("shape %v: value %d = %v, want %v", c.shape, i, data[i], c.data[i])
			}
		}
		if len(c.data) > 0 {
			if _, _, err := Read(bytes.NewReader(full[:len(full)-1])); err == nil || !strings.Contains(err.Error(), "needs") {
				t.Errorf("shape %v: a truncated file: %v", c.shape, err)
			}
		}
		if _, _, err := Read(bytes.NewReader(append(slices.Clone(full), 0))); err == nil || !strings.Contains(err.Error(), "bytes after") {
			t.Errorf("shape %v: a trailing byte: %v", c.shape, err)
		}
	}
	for _, bad := range []string{"", "\x93NUMPX\x01\x00", "\x93NUMPY\x03\x00\x00\x00"} {
		if _, _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: read without error", bad)
		}
	}
}

// TestReadAllocatesWhatTheFileHolds: a file whose header claims 2·10⁹
// values but holds two is refused as too short having allocated under 256
// KiB (before, Read allocated the claimed 16 GB first: an
// out-of-memory crash of the whole process, not a failed trial), and an
// array of more values than one chunk reads back whole.
func TestReadAllocatesWhatTheFileHolds(t *testing.T) {
	header := "{'descr': '<f8', 'fortran_order': False, 'shape': (2000000000,), }\n"
	file := append([]byte(magic+"\x01\x00"), byte(len(header)), byte(len(header)>>8))
	file = append(append(file, header...), make([]byte, 16)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := Read(bytes.NewReader(file))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "the file holds 16") {
		t.Fatalf("a file claiming 2e9 values, holding 2: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<18 {
		t.Errorf("refusing it allocated %d bytes", got)
	}

	big := make([]float64, 3*chunk+5)
	for i := range big {
		big[i] = float64(i) / 7
	}
	var b bytes.Buffer
	if err := Write(&b, []int{len(big)}, big); err != nil {
		t.Fatal(err)
	}
	_, data, err := Read(&b)
	if err != nil || !slices.Equal(data, big) {
		t.Fatalf("%d values over several chunks: %v (equal: %v)", len(big), err, slices.Equal(data, big))
	}
}

// TestReadNumPyFiles reads files NumPy itself wrote (the independent
// oracle): float64 arrays of format 1.0 and 2.0 and a Fortran-order
// vector are read with their values; float32, int64, big-endian float64,
// a Fortran-order matrix and a structured dtype are refused with an error
// naming what was found.
func TestReadNumPyFiles(t *testing.T) {
	py := pythonWithNumPy()
	if py == "" {
		t.Skip("no python3 that imports numpy (install python3-numpy)")
	}
	dir := t.TempDir()
	script := `
import sys, numpy as np
d = sys.argv[1]
v = np.array([0.5, -1.25, 3e-300])
np.save(d + "/v.npy", v)
np.save(d + "/m.npy", np.arange(6, dtype=np.float64).reshape(2, 3))
with open(d + "/v2.npy", "wb") as f:
    np.lib.format.write_array(f, v, version=(2, 0))
np.save(d + "/fv.npy", np.asfortranarray(v))
np.save(d + "/f4.npy", v.astype(np.float32))
np.save(d + "/i8.npy", np.arange(3))
np.save(d + "/be.npy", v.astype(">f8"))
np.save(d + "/fm.npy", np.asfortranarray(np.ones((2, 3))))
np.save(d + "/st.npy", np.zeros(2, dtype=[("a", "<f8"), ("b", "<f8")]))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	read := func(name string) ([]int, []float64, error) {
		f, err := os.Open(filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return Read(f)
	}
	for name, want := range map[string][]float64{"v": {0.5, -1.25, 3e-300}, "v2": {0.5, -1.25, 3e-300}, "fv": {0.5, -1.25, 3e-300}, "m": {0, 1, 2, 3, 4, 5}} {
		shape, data, err := read(name)
		if err != nil || !slices.Equal(data, want) {
			t.Errorf("%s: shape %v, data %v, %v; want %v", name, shape, data, err, want)
		}
	}
	if shape, _, _ := read("m"); !slices.Equal(shape, []int{2, 3}) {
		t.Errorf("m: shape %v, want [2 3]", shape)
	}
	for name, want := range map[string]string{"f4": `dtype "<f4"`, "i8": `dtype "<i8"`, "be": `dtype ">f8"`, "fm": "Fortran-order", "st": "structured"} {
		if _, _, err := read(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, want)
		}
	}
}
