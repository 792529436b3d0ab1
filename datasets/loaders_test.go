package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/strictoml"
)

// writeFiles writes files (relative path → content) under dir; a path ending
// in .gz is gzip-compressed.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := []byte(content)
		if strings.HasSuffix(rel, ".gz") {
			b = gzipBytes(t, b)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadFrom loads dataset name from dir with key=value params.
func loadFrom(dir, name string, kv ...string) (*Loaded, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Load(dir, strictoml.DecodeKV(kv))
}

// TestGisetteLoaderOnASmallFileInTheUCIFormat: the real GISETTE is not in
// the shared folder, so the loader is checked on a 3 × 4 file written in the
// UCI format (space-separated integers, a trailing space per line; labels ±1
// one per line).
func TestGisetteLoaderOnASmallFileInTheUCIFormat(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"gisette/gisette_train.data":   "0 550 0 495 \n0 0 0 976 \n991 0 0 0 \n",
		"gisette/gisette_train.labels": "1\n-1\n1\n",
	})
	l, err := loadFrom(dir, "gisette")
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	checkWellFormed(t, d, Binary)
	if d.Rows() != 3 || d.Cols() != 4 || d.X.At(0, 1) != 550 || d.X.At(2, 0) != 991 {
		t.Fatalf("X = %v", d.X.RawMatrix().Data)
	}
	if d.Y[0] != 1 || d.Y[1] != 0 || d.Y[2] != 1 {
		t.Fatalf("Y = %v", d.Y)
	}

	writeFiles(t, dir, map[string]string{"gisette/gisette_train.labels": "1\n2\n1\n"})
	_, err = loadFrom(dir, "gisette")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.HasSuffix(fe.Path, "gisette_train.labels") {
		t.Fatalf("bad label: err = %v", err)
	}
	writeFiles(t, dir, map[string]string{"gisette/gisette_train.data": "0 1 2 3 \n4 5 6 \n7 8 9 1 \n", "gisette/gisette_train.labels": "1\n-1\n1\n"})
	if _, err = loadFrom(dir, "gisette"); !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(err.Error(), "3 fields, want 4") {
		t.Fatalf("ragged row: err = %v", err)
	}
}

// TestIJCNN1BinaryLoaderOnSmallFiles: ijcnn1-binary reads ijcnn1 then
// ijcnn1.t and maps the LibSVM labels +1 → 1, −1 → 0 (the regression entry
// keeps ±1); another label is an error naming its file and example.
func TestIJCNN1BinaryLoaderOnSmallFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ijcnn1/ijcnn1":   "-1.0 1:1 11:-0.5\n1.0 2:1 22:0.25\n",
		"ijcnn1/ijcnn1.t": "1 3:1\n-1 11:0.125\n",
	})
	l, err := loadFrom(dir, "ijcnn1-binary")
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	checkWellFormed(t, d, Binary)
	if d.Rows() != 4 || d.Cols() != 22 || d.X.At(1, 21) != 0.25 || d.X.At(3, 10) != 0.125 {
		t.Fatalf("X = %v", d.X.RawMatrix().Data)
	}
	if !slices.Equal(d.Y, []float64{0, 1, 1, 0}) {
		t.Fatalf("Y = %v, want [0 1 1 0]", d.Y)
	}
	if r, err := loadFrom(dir, "ijcnn1"); err != nil || !slices.Equal(r.All.Y, []float64{-1, 1, 1, -1}) {
		t.Fatalf("regression entry: %v, want the ±1 labels", err)
	}
	writeFiles(t, dir, map[string]string{"ijcnn1/ijcnn1.t": "1 3:1\n0 11:0.125\n"})
	_, err = loadFrom(dir, "ijcnn1-binary")
	var fe *FileError
	if !errors.As(err, &fe) || !strings.HasSuffix(fe.Path, "ijcnn1.t") || !strings.Contains(err.Error(), "example 2: label 0") {
		t.Fatalf("bad label: err = %v", err)
	}
}

func TestAdultLoaderOnSmallFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"adult/adult.data.gz": "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n" +
			"50, ?, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K\n" +
			"20, Private, 100000, HS-grad, 9, Never-married, Sales, Own-child, Black, Female, 0, 10, 20, Cuba, >50K\n\n",
		"adult/adult.test": "|1x3 Cross validator\n" +
			"78, Private, 50000, HS-grad, 9, Widowed, Sales, Unmarried, White, Female, 0, 0, 80, United-States, >50K.\n\n",
	})
	l, err := loadFrom(dir, "adult")
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	checkWellFormed(t, d, Binary)
	// 3 complete rows; categories: workclass 2, education 2, marital 2, occupation 2,
	// relationship 3, race 2, sex 2, country 2 = 17 indicators + 6 continuous.
	if d.Rows() != 3 || d.Cols() != 23 {
		t.Fatalf("shape %d × %d (%v)", d.Rows(), d.Cols(), d.Features)
	}
	if d.Y[0] != 0 || d.Y[1] != 1 || d.Y[2] != 1 {
		t.Errorf("labels %v", d.Y)
	}
	age := indexOf(d.Features, "age")
	if g := d.X.At(2, age); g != 1 { // 78 / max(39, 20, 78)
		t.Errorf("scaled age of the test row = %v, want 1", g)
	}
	if g := d.X.At(0, age); g != 39.0/78 {
		t.Errorf("scaled age = %v, want 39/78", g)
	}
	if j := indexOf(d.Features, "workclass=Private"); j < 0 || d.X.At(1, j) != 1 || d.X.At(0, j) != 0 {
		t.Errorf("workclass one-hot wrong: %v", d.Features)
	}
	if indexOf(d.Features, "workclass=?") >= 0 {
		t.Error("the row with '?' was kept")
	}
	code, err := loadFrom(dir, "adult", "preset=code")
	if err != nil {
		t.Fatal(err)
	}
	if code.All.Rows() != 1 { // the last complete row of each file dropped
		t.Errorf("preset code keeps %d rows, want 1", code.All.Rows())
	}

	writeFiles(t, dir, map[string]string{"adult/adult.test": "|1x3 Cross validator\n" +
		"78, Private, 50000, HS-grad, 9, Widowed, Sales, Unmarried, White, Female, 0, 0, 80, United-States, maybe\n"})
	_, err = loadFrom(dir, "adult")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Column != "income" {
		t.Fatalf("bad label: err = %v", err)
	}
	writeFiles(t, dir, map[string]string{"adult/adult.test": "|1x3 Cross validator\n" +
		"x, Private, 50000, HS-grad, 9, Widowed, Sales, Unmarried, White, Female, 0, 0, 80, United-States, >50K.\n"})
	if _, err = loadFrom(dir, "adult"); err == nil || !strings.Contains(err.Error(), `line 2: column "age": "x" is not a number`) {
		t.Fatalf("bad age: err = %v", err)
	}
}

func TestMissingFilesAreAMissingError(t *testing.T) {
	dir := t.TempDir()
	_, err := loadFrom(dir, "boston")
	var me *MissingError
	if !errors.As(err, &me) || me.Dataset != "boston" || me.Dir != dir || len(me.Files) != 1 || me.Files[0] != "gaussmix/housing.txt" {
		t.Fatalf("err = %#v", err)
	}
	for _, want := range []string{"gaussmix/housing.txt", dir, "dplab datasets fetch boston", ".gz"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	e, _ := Lookup("adult")
	if miss := e.Missing(dir); len(miss) != 2 {
		t.Errorf("adult Missing = %v, want its two required files (adult.names is optional)", miss)
	}
	// A gzip-compressed copy counts as present and loads.
	writeFiles(t, dir, map[string]string{"gaussmix/housing.txt.gz": " 0.1  2 3 4 5 6 7 8 9 10 11 12 13 24.5\n 0.2 2 3 4 5 6 7 8 9 10 11 12 13 30\n"})
	l, err := loadFrom(dir, "boston")
	if err != nil {
		t.Fatal(err)
	}
	if l.All.Rows() != 2 || l.All.Cols() != 13 || l.All.Y[1] != 30 || l.All.X.At(1, 0) != 0.2 {
		t.Fatalf("boston from .gz: %v %v", l.All.X.RawMatrix().Data, l.All.Y)
	}
}

func TestReadLibSVM(t *testing.T) {
	in := "-1.0 6:1 11:-0.5\n# a comment line\n1 1:2 22:0.25 # trailing comment\n\n-1 \n"
	tab, y, err := ReadLibSVM(strings.NewReader(in), "f", 22)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 3 || tab.Cols != 22 || len(y) != 3 || y[0] != -1 || y[1] != 1 || y[2] != -1 {
		t.Fatalf("shape %d × %d labels %v", tab.Rows, tab.Cols, y)
	}
	want := map[[2]int]float64{{0, 5}: 1, {0, 10}: -0.5, {1, 0}: 2, {1, 21}: 0.25}
	for i := 0; i < 3; i++ {
		for j := 0; j < 22; j++ {
			if g := tab.Data[i*22+j]; g != want[[2]int{i, j}] {
				t.Errorf("x[%d][%d] = %v, want %v", i, j, g, want[[2]int{i, j}])
			}
		}
	}
	tab, _, err = ReadLibSVM(strings.NewReader("1 3:1\n0 7:2\n"), "f", 0)
	if err != nil || tab.Cols != 7 || tab.Data[7+6] != 2 {
		t.Fatalf("d = 0 should infer 7 columns: %v %v", tab, err)
	}
}

// TestReadLibSVMErrorsNameFileAndLine is issue 4's "LibSVM line with a bad
// index" check, with its neighbours.
func TestReadLibSVMErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ name, line, fragment string }{
		{"zero index", "1 0:1", `bad feature index "0"`},
		{"non-numeric index", "1 a:1", `bad feature index "a"`},
		{"negative index", "1 -2:1", `bad feature index "-2"`},
		{"decreasing", "1 3:1 2:1", "feature index 2 after 3"},
		{"repeated", "1 2:1 2:1", "feature index 2 after 2"},
		{"above d", "1 23:1", "feature index 23 above the 22 features"},
		{"no colon", "1 5", "want index:value"},
		{"bad value", "1 5:x", `feature 5: "x" is not a number`},
		{"bad label", "yes 5:1", `label: "yes" is not a number`},
		{"huge index", "1 99999999999:1", "bad feature index"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadLibSVM(strings.NewReader("-1 1:0.5\n"+tc.line+"\n"), "ijcnn1/ijcnn1", 22)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line != 2 || fe.Path != "ijcnn1/ijcnn1" {
				t.Fatalf("err = %v, want a *FileError at ijcnn1/ijcnn1 line 2", err)
			}
			if !strings.Contains(err.Error(), "ijcnn1/ijcnn1: line 2: ") || !strings.Contains(err.Error(), tc.fragment) {
				t.Errorf("message %q lacks %q", err, tc.fragment)
			}
		})
	}
	if _, _, err := ReadLibSVM(strings.NewReader("\n# only comments\n"), "e", 0); err == nil {
		t.Error("no examples accepted")
	}
}

func TestIJCNN1LoaderTruncatedGzip(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		b.WriteString("-1 6:1 11:-0.731854 12:0.173431 13:0.0 14:0.00027 15:0.011684 16:-0.011052 17:0.024452\n")
	}
	z := gzipBytes(t, []byte(b.String()))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ijcnn1/ijcnn1.t": "1 1:1\n"})
	p := filepath.Join(dir, "ijcnn1", "ijcnn1.gz")
	if err := os.WriteFile(p, z[:len(z)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadFrom(dir, "ijcnn1")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != p || fe.Line < 1 || !strings.Contains(err.Error(), "truncated or corrupt") {
		t.Fatalf("err = %v", err)
	}
}

// idxBytes builds an unsigned-byte IDX file with the given dimensions.
func idxBytes(dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, 8, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func TestImageLoaderOnTinyIDXFiles(t *testing.T) {
	dir := t.TempDir()
	// Three 2 × 2 images with labels 3, 5, 8; classes 3 vs 8 keeps images 0 and 2.
	img := idxBytes([]int{3, 2, 2}, []byte{0, 255, 51, 0, 9, 9, 9, 9, 255, 255, 0, 0})
	lab := idxBytes([]int{3}, []byte{3, 5, 8})
	writeFiles(t, dir, map[string]string{
		"mnist/t10k-images-idx3-ubyte.gz": string(img),
		"mnist/t10k-labels-idx1-ubyte.gz": string(lab),
	})
	l, err := loadFrom(dir, "mnist", `part="test"`)
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	checkWellFormed(t, d, Binary)
	want := []float64{0, 1, 0.2, 0, 1, 1, 0, 0}
	for i, w := range want {
		if g := d.X.RawMatrix().Data[i]; math.Abs(g-w) > 1e-15 {
			t.Errorf("pixel %d = %v, want %v", i, g, w)
		}
	}
	if d.Y[0] != 0 || d.Y[1] != 1 {
		t.Errorf("labels %v, want [0 1]", d.Y)
	}
	// Default part needs the training files: a MissingError naming them.
	if _, err := loadFrom(dir, "mnist"); !strings.Contains(err.Error(), "mnist/train-images-idx3-ubyte") {
		t.Errorf("err = %v", err)
	}
	if _, err := loadFrom(dir, "mnist", "classes=3,3"); err == nil {
		t.Error("classes [3, 3] accepted")
	}

	bad := map[string][]byte{
		"truncated": img[:len(img)-3],
		"bad magic": append([]byte{0, 0, 9, 3}, img[4:]...),
		"trailing":  append(append([]byte(nil), img...), 7),
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			_, _, err := readIDX(bytes.NewReader(b), "x.idx")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != "x.idx" {
				t.Fatalf("err = %v", err)
			}
			// The loader reads the images a block at a time: the same
			// errors, naming the stored file.
			bdir := t.TempDir()
			writeFiles(t, bdir, map[string]string{
				"mnist/t10k-images-idx3-ubyte.gz": string(b),
				"mnist/t10k-labels-idx1-ubyte.gz": string(lab),
			})
			_, err = loadFrom(bdir, "mnist", `part="test"`)
			if !errors.As(err, &fe) || fe.Path != filepath.Join(bdir, "mnist", "t10k-images-idx3-ubyte.gz") {
				t.Fatalf("loader: err = %v", err)
			}
		})
	}
}

func FuzzReadLibSVM(f *testing.F) {
	for _, s := range []string{"-1 6:1 11:-0.5\n", "1 1:2 22:0.25 # c\n\n-1\n", "1 3:1 2:1\n", "+1 qid:3 1:1\n", "1.0 1:1e308 2:-0\n"} {
		f.Add([]byte(s), uint8(22))
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, d uint8) {
		tab, y, err := ReadLibSVM(bytes.NewReader(data), "fuzz.svm", int(d))
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != "fuzz.svm" {
				t.Fatalf("error %v is not a *FileError naming the file", err)
			}
			return
		}
		if tab.Rows != len(y) || tab.Rows < 1 || tab.Cols < 1 || len(tab.Data) != tab.Rows*tab.Cols || (d > 0 && tab.Cols != int(d)) {
			t.Fatalf("inconsistent result %d × %d, %d labels, %d cells", tab.Rows, tab.Cols, len(y), len(tab.Data))
		}
		for _, v := range append(append([]float64(nil), tab.Data...), y...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v", v)
			}
		}
	})
}

// TestLoadersNeverPanicOnJunk writes the same junk into every file of every
// file-backed dataset and loads it: each load returns an error or a
// well-formed dataset, never a panic. The datasets share one directory per
// junk (each reads only its own files), written once; the junk is compressed
// once per directory (the same bytes in every .gz file), and the directories
// are independent, so each runs as a parallel subtest.
func TestLoadersNeverPanicOnJunk(t *testing.T) {
	junk := []string{
		"", "\n\n", "1\n", "?\n", "x\n", "a,b\nc,d\n", "1,2\n", "1,2\n3,4\n", "1 2\n3 4\n", "-1 1:1\n",
		",1,2\n", "\"unterminated\n", "1,?\n", strings.Repeat("0,", 34) + "0\n",
		string(idxBytes([]int{1, 1, 1}, []byte{3})), string(idxBytes([]int{1}, []byte{3})),
	}
	var entries []Info
	for _, in := range List() {
		if !in.Synthetic {
			entries = append(entries, in)
		}
	}
	for k, content := range junk {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("junk%d/gz=%v", k, gz), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				b := []byte(content)
				if gz {
					b = gzipBytes(t, b)
				}
				for _, in := range entries {
					for _, f := range in.Files {
						rel := f.Path
						if gz {
							rel += ".gz"
						}
						p := filepath.Join(dir, filepath.FromSlash(rel))
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(p, b, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, in := range entries {
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("%s on junk %d (%q, gz %v): panic %v", in.Name, k, content, gz, r)
							}
						}()
						for _, kv := range [][]string{nil, {`preset="code"`}, {`part="test"`}} {
							l, err := loadFrom(dir, in.Name, kv...)
							if err != nil {
								continue
							}
							for _, d := range parts(l) {
								checkWellFormed(t, d, in.Task)
							}
						}
					}()
				}
			})
		}
	}
}
