package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/strictoml"
)

// higgsValue is feature j (0-based) of row i in the test files: the row
// number plus j/100, so a loaded row says which file row it is.
func higgsValue(i, j int) float64 { return float64(i) + float64(j)/100 }

// higgsLabelOf is the label of row i in the test files.
func higgsLabelOf(i int) float64 { return float64((i / 2) % 2) }

// higgsCSVText is n rows in the UCI HIGGS.csv format (no header, the label
// then 28 features, all written "%.18e" as in the UCI file).
func higgsCSVText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%.18e", higgsLabelOf(i))
		for j := range higgsCols {
			fmt.Fprintf(&b, ",%.18e", higgsValue(i, j))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// higgsLibSVMText is the same rows in the LibSVM format, with the zero
// feature (row 0, feature 1) left out as a sparse file does.
func higgsLibSVMText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%g", higgsLabelOf(i))
		for j := range higgsCols {
			if v := higgsValue(i, j); v != 0 {
				fmt.Fprintf(&b, " %d:%.18e", j+1, v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkHIGGSRows asserts that d holds whole rows of the test files, strictly
// in file order, and returns their file row numbers.
func checkHIGGSRows(t *testing.T, d *Dataset, n int) []int {
	t.Helper()
	checkWellFormed(t, d, Regression)
	if d.Cols() != higgsCols || len(d.Features) != higgsCols || d.Features[0] != "lepton_pt" || d.Features[27] != "m_wwbb" {
		t.Fatalf("%d columns, features %v", d.Cols(), d.Features)
	}
	var rows []int
	for r := 0; r < d.Rows(); r++ {
		i := int(d.X.At(r, 0))
		if i < 0 || i >= n || (len(rows) > 0 && i <= rows[len(rows)-1]) {
			t.Fatalf("row %d is file row %v: not in file order after %v", r, d.X.At(r, 0), rows)
		}
		for j := range higgsCols {
			if g := d.X.At(r, j); g != higgsValue(i, j) {
				t.Fatalf("row %d (file row %d) feature %d = %v, want %v", r, i, j, g, higgsValue(i, j))
			}
		}
		if d.Y[r] != higgsLabelOf(i) {
			t.Fatalf("row %d (file row %d) label %v, want %v", r, i, d.Y[r], higgsLabelOf(i))
		}
		rows = append(rows, i)
	}
	return rows
}

// TestHIGGSLoaderReadsBothFormats: a small file in the UCI format (gzipped,
// as UCI ships it) and in the LibSVM format (plain and gzipped) load to the
// same 0/1-labelled rows, all of them with max_rows = 0, in file order.
func TestHIGGSLoaderReadsBothFormats(t *testing.T) {
	const n = 40
	for _, tc := range []struct{ name, rel, text string }{
		{"UCI csv.gz", "higgs/HIGGS.csv.gz", higgsCSVText(n)},
		{"UCI csv plain", "higgs/HIGGS.csv", higgsCSVText(n)},
		{"LibSVM plain", "higgs/HIGGS.csv", "# a LibSVM comment line\n" + higgsLibSVMText(n)},
		{"LibSVM gz", "higgs/HIGGS.csv.gz", higgsLibSVMText(n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{tc.rel: tc.text})
			l, err := loadFrom(dir, "higgs", "max_rows=0")
			if err != nil {
				t.Fatal(err)
			}
			if l.All == nil || l.Train != nil || l.All.Name != "higgs" {
				t.Fatalf("loaded %+v", l)
			}
			if rows := checkHIGGSRows(t, l.All, n); len(rows) != n {
				t.Fatalf("%d rows, want all %d", len(rows), n)
			}
			if l.All.X.At(0, 1) != 0.01 || l.All.Y[2] != 1 || l.All.Y[0] != 0 {
				t.Errorf("row 0 feature 1 = %v, labels %v", l.All.X.At(0, 1), l.All.Y[:4])
			}
		})
	}
}

// TestHIGGSReservoirSample: max_rows keeps that many whole rows, in file
// order; the sample is a function of sample_seed (same seed, same rows;
// another seed, other rows; the same rows from either format); max_rows at
// or above the file's length keeps every row; and the sample is uniform:
// over 20,000 seeds each of 12 rows is kept about 20,000·4/12 ≈ 6,667 times
// (binomial sd √(20000·(1/3)·(2/3)) ≈ 66.7; the bound is 5 sd), which a
// sampler favouring the first rows (or the last) fails, and so does Algorithm
// R with the off-by-one draw j ~ U{0..i−1}.
func TestHIGGSReservoirSample(t *testing.T) {
	const n = 1000
	dir, libDir := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"higgs/HIGGS.csv.gz": higgsCSVText(n)})
	writeFiles(t, libDir, map[string]string{"higgs/HIGGS.csv": higgsLibSVMText(n)})
	sample := func(dir string, kv ...string) []int {
		t.Helper()
		l, err := loadFrom(dir, "higgs", kv...)
		if err != nil {
			t.Fatal(err)
		}
		return checkHIGGSRows(t, l.All, n)
	}
	a := sample(dir, "max_rows=100", "sample_seed=7")
	if len(a) != 100 {
		t.Fatalf("%d rows, want 100", len(a))
	}
	if b := sample(dir, "max_rows=100", "sample_seed=7"); fmt.Sprint(b) != fmt.Sprint(a) {
		t.Error("the same seed drew another sample")
	}
	if b := sample(libDir, "max_rows=100", "sample_seed=7"); fmt.Sprint(b) != fmt.Sprint(a) {
		t.Error("the LibSVM file gave another sample than the CSV for the same seed")
	}
	if b := sample(dir, "max_rows=100", "sample_seed=8"); fmt.Sprint(b) == fmt.Sprint(a) {
		t.Error("seeds 7 and 8 drew the same sample")
	}
	if a[len(a)-1] < n/2 {
		t.Errorf("the sample ends at file row %d: the later rows were never kept", a[len(a)-1])
	}
	for _, kv := range [][]string{{"max_rows=1000"}, {"max_rows=5000", "sample_seed=3"}, {"max_rows=0"}} {
		if rows := sample(dir, kv...); len(rows) != n {
			t.Errorf("%v keeps %d rows, want all %d", kv, len(rows), n)
		}
	}
	if rows := sample(dir); len(rows) != n { // default 2,000,000 ≥ n
		t.Errorf("defaults keep %d rows, want all %d", len(rows), n)
	}

	const small, k, seeds = 12, 4, 20000
	count := make([]int, small)
	for s := range seeds {
		res := reservoir{k: k, d: 1, r: generatorRand("higgs/sample", uint64(s))}
		for i := range small {
			res.offer([]float64{float64(i)}, 0)
		}
		x, _ := res.inFileOrder()
		for r, v := range x {
			if r > 0 && v <= x[r-1] {
				t.Fatalf("seed %d: sample %v not in file order", s, x)
			}
			count[int(v)]++
		}
	}
	want, sd := float64(seeds*k)/small, math.Sqrt(seeds*(1.0/3)*(2.0/3))
	for i, c := range count {
		if math.Abs(float64(c)-want) > 5*sd {
			t.Errorf("row %d kept %d times in %d samples, want %v ± %.0f", i, c, seeds, want, 5*sd)
		}
	}
}

// TestHIGGSJunkIsAFileErrorWithLine: malformed rows, labels other than 0/1,
// bad LibSVM tokens, an empty file and a truncated gzip stream are
// *FileErrors naming the file and the line (and column where there is one).
func TestHIGGSJunkIsAFileErrorWithLine(t *testing.T) {
	good := higgsCSVText(3)
	lines := strings.SplitAfter(good, "\n")
	libLines := strings.SplitAfter(higgsLibSVMText(3), "\n")
	cases := []struct {
		name, rel, text string
		line            int
		fragment        string
	}{
		{"short row", "higgs/HIGGS.csv", lines[0] + "1,2,3\n", 2, "3 fields, want 29"},
		{"not a number", "higgs/HIGGS.csv.gz", lines[0] + lines[1] + strings.Replace(lines[2], ",", ",x", 1), 3, `column "lepton_pt": "x`},
		{"label 2", "higgs/HIGGS.csv", lines[0] + "2" + lines[1][strings.IndexByte(lines[1], ','):], 2, `column "label": 2: HIGGS labels are 0 (background) or 1 (signal)`},
		{"label -1 (LibSVM ±1)", "higgs/HIGGS.csv", libLines[0] + "-1 1:0.5\n", 2, "HIGGS labels are 0 (background) or 1 (signal)"},
		{"LibSVM index 29", "higgs/HIGGS.csv", libLines[0] + libLines[1] + "1 3:1 29:0.5\n", 3, "feature index 29 above the 28 features"},
		{"LibSVM no colon", "higgs/HIGGS.csv.gz", libLines[0] + "0 1:2 7\n", 2, "want index:value"},
		{"LibSVM decreasing", "higgs/HIGGS.csv", libLines[0] + "0 5:2 4:1\n", 2, "feature index 4 after 5"},
		{"nan", "higgs/HIGGS.csv", strings.Replace(good, ",0.000000000000000000e+00", ",NaN", 1), 1, `column "lepton_pt": "NaN" is not a finite number`},
		{"empty", "higgs/HIGGS.csv", "\n\n", 0, "no data rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{tc.rel: tc.text})
			_, err := loadFrom(dir, "higgs", "max_rows=1")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line != tc.line || fe.Path != filepath.Join(dir, filepath.FromSlash(tc.rel)) {
				t.Fatalf("err = %v, want a *FileError at %s line %d", err, tc.rel, tc.line)
			}
			if !strings.Contains(err.Error(), tc.fragment) || !strings.HasPrefix(err.Error(), "dataset higgs: ") {
				t.Errorf("message %q lacks %q", err, tc.fragment)
			}
		})
	}

	// A truncated gzip stream: the error names the line after the last whole one.
	dir := t.TempDir()
	gz := gzipBytes(t, []byte(higgsCSVText(2000)))
	p := filepath.Join(dir, "higgs", "HIGGS.csv.gz")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, gz[:len(gz)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadFrom(dir, "higgs")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != p || fe.Line < 2 || !strings.Contains(err.Error(), "truncated or corrupt") {
		t.Fatalf("truncated gzip: err = %v", err)
	}
}

// TestHIGGSMissingAndParams: without the file, loading is the usual
// *MissingError (the runner then skips an optional dataset's panel); bad
// params name the key.
func TestHIGGSMissingAndParams(t *testing.T) {
	dir := t.TempDir()
	_, err := loadFrom(dir, "higgs")
	var me *MissingError
	if !errors.As(err, &me) || me.Dataset != "higgs" || me.Dir != dir || len(me.Files) != 1 || me.Files[0] != "higgs/HIGGS.csv" {
		t.Fatalf("err = %#v", err)
	}
	for _, want := range []string{"higgs/HIGGS.csv", dir, "dplab datasets fetch higgs", ".gz or .bz2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	e, _ := Lookup("higgs")
	if miss := e.Missing(dir); len(miss) != 1 {
		t.Errorf("Missing = %v", miss)
	}
	if _, err := loadFrom(dir, "higgs", "max_rows=-1"); err == nil || !strings.Contains(err.Error(), "max_rows = -1") {
		t.Errorf("max_rows = -1: err = %v", err)
	}
	if _, err := loadFrom(dir, "higgs", "rows=3"); err == nil || !strings.Contains(err.Error(), `unknown key "rows"`) {
		t.Errorf("unknown key: err = %v", err)
	}
	var p HIGGSParams
	if err := strictoml.DecodeKV([]string{"max_rows=0"})(&p); err != nil || p.MaxRows == nil || *p.MaxRows != 0 || p.maxRows() != 0 {
		t.Errorf("max_rows=0 decodes to %v, %v", p.MaxRows, err)
	}
	if err := strictoml.DecodeKV([]string{"max_rows=many"})(&p); err == nil || !strings.Contains(err.Error(), `key "max_rows"`) {
		t.Errorf("max_rows=many: err = %v", err)
	}
	if (HIGGSParams{}).maxRows() != 2_000_000 {
		t.Error("the default is not 2,000,000 rows")
	}
}

// BenchmarkReadHIGGS reads 100,000 rows in the UCI format (from memory, no
// decompression) keeping 20,000: the parse and sampling cost per row of the
// 11,000,000-row file.
func BenchmarkReadHIGGS(b *testing.B) {
	text := higgsCSVText(100_000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := readHIGGS(strings.NewReader(text), "bench", 20_000, generatorRand("higgs/sample", 1)); err != nil {
			b.Fatal(err)
		}
	}
}
