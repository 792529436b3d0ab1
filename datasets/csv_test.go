package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCSVParsesVariants(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		opt   CSVOptions
		names []string
		want  []float64 // row-major
		cols  int
	}{
		{"header", "a,b\n1,2\n3,4\n", CSVOptions{Header: true}, []string{"a", "b"}, []float64{1, 2, 3, 4}, 2},
		{"no header, CRLF, no final newline", "1,2\r\n3,4", CSVOptions{}, nil, []float64{1, 2, 3, 4}, 2},
		{"blank lines and spaces", "\n 1 , 2\n\n3,4 \n\n", CSVOptions{}, nil, []float64{1, 2, 3, 4}, 2},
		{"whitespace separated", "  1\t2   3 \n4 5 6\n", CSVOptions{Sep: ' '}, nil, []float64{1, 2, 3, 4, 5, 6}, 3},
		{"quoted header", "\"x 1\",\"y,\"\"q\"\"\"\n1e3,-2.5E-1\n", CSVOptions{Header: true}, []string{"x 1", `y,"q"`}, []float64{1000, -0.25}, 2},
		{"skip junk line", "|junk line\n1;2\n", CSVOptions{Sep: ';', SkipLines: 1}, nil, []float64{1, 2}, 2},
		{"missing cells", "1,?\n?,4\n", CSVOptions{Missing: []string{"?"}}, nil, []float64{1, math.NaN(), math.NaN(), 4}, 2},
		{"byte-order mark", "\xef\xbb\xbfa\n7\n", CSVOptions{Header: true}, []string{"a"}, []float64{7}, 1},
		{"quoted numbers", "\"1\",2\n", CSVOptions{}, nil, []float64{1, 2}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tab.Cols != tc.cols || tab.Rows != len(tc.want)/tc.cols || len(tab.Data) != len(tc.want) {
				t.Fatalf("shape %d×%d, data %v", tab.Rows, tab.Cols, tab.Data)
			}
			for i, w := range tc.want {
				g := tab.Data[i]
				if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Errorf("cell %d = %v, want %v", i, g, w)
				}
			}
			if strings.Join(tab.Names, "|") != strings.Join(tc.names, "|") {
				t.Errorf("names %q, want %q", tab.Names, tc.names)
			}
		})
	}
}

// TestReadCSVErrorsNameFileLineAndColumn is issue 2's "CSV with a non-numeric
// cell" and issue 4's "wrong column count" check: each error is a *FileError
// whose message names the file, the line and (for a cell) the column.
func TestReadCSVErrorsNameFileLineAndColumn(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		opt      CSVOptions
		line     int
		column   string
		fragment string
	}{
		{"non-numeric cell with header", "age,hours\n39,40\n41,x\n", CSVOptions{Header: true}, 3, "hours", `line 3: column "hours": "x" is not a number`},
		{"non-numeric headerless", "1,2,3\n4,five,6\n", CSVOptions{}, 2, "#2", `line 2: column #2: "five" is not a number`},
		{"too few fields", "a,b,c\n1,2,3\n4,5\n", CSVOptions{Header: true}, 3, "", "line 3: 2 fields, want 3"},
		{"too many fields", "1,2\n3,4\n5,6,7\n", CSVOptions{}, 3, "", "line 3: 3 fields, want 2"},
		{"infinite", "1\ninf\n", CSVOptions{}, 2, "#1", `"inf" is not a finite number`},
		{"nan", "1\nNaN\n", CSVOptions{}, 2, "#1", `"NaN" is not a finite number`},
		{"overflow", "1e999\n", CSVOptions{}, 1, "#1", "out of the float64 range"},
		{"empty cell", "1,,3\n", CSVOptions{}, 1, "#2", `"" is not a number`},
		{"unterminated quote", "\"1,2\n", CSVOptions{}, 1, "", "unterminated quoted field"},
		{"header only", "a,b\n", CSVOptions{Header: true}, 0, "", "no data rows"},
		{"empty", "", CSVOptions{}, 0, "", "no data rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), "data/f.csv", tc.opt)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want *FileError", err, err)
			}
			if fe.Path != "data/f.csv" || fe.Line != tc.line || fe.Column != tc.column {
				t.Errorf("FileError{Path %q, Line %d, Column %q}, want line %d column %q", fe.Path, fe.Line, fe.Column, tc.line, tc.column)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "data/f.csv: ") || !strings.Contains(msg, tc.fragment) {
				t.Errorf("message %q lacks %q", msg, tc.fragment)
			}
		})
	}
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadCSVFileIsTransparentToCompression(t *testing.T) {
	plain, err := os.ReadFile("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz := filepath.Join(dir, "small.csv.gz")
	if err := os.WriteFile(gz, gzipBytes(t, plain), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2.5, 3, -4, 0.5, 6}
	for _, p := range []string{"testdata/small.csv", "testdata/small.csv.bz2", gz} {
		tab, err := ReadCSVFile(p, CSVOptions{Header: true})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if tab.Rows != 2 || tab.Cols != 3 || tab.Names[2] != "y" {
			t.Fatalf("%s: shape %d×%d names %v", p, tab.Rows, tab.Cols, tab.Names)
		}
		for i, w := range want {
			if tab.Data[i] != w {
				t.Errorf("%s: cell %d = %v, want %v", p, i, tab.Data[i], w)
			}
		}
	}
}

// TestTruncatedGzipNamesFileAndLine cuts a gzip stream in the middle: the
// reader reports the file and the line it was reading, never a panic or a
// silently short table.
func TestTruncatedGzipNamesFileAndLine(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 20000; i++ {
		text.WriteString("1.25,2.5,3.75,4.125\n")
	}
	z := gzipBytes(t, []byte(text.String()))
	dir := t.TempDir()
	p := filepath.Join(dir, "cut.csv.gz")
	if err := os.WriteFile(p, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCSVFile(p, CSVOptions{})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != p || fe.Line < 1 {
		t.Fatalf("err = %v, want a *FileError with the file and a line", err)
	}
	if !strings.Contains(err.Error(), "truncated or corrupt") {
		t.Errorf("message %q does not say the file is truncated", err)
	}
	// A file that is not gzip at all despite its name.
	bad := filepath.Join(dir, "plain.csv.gz")
	if err := os.WriteFile(bad, []byte("1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCSVFile(bad, CSVOptions{}); !errors.As(err, &fe) || fe.Path != bad {
		t.Fatalf("not-gzip: err = %v", err)
	}
}

func TestReadCSVLongLines(t *testing.T) {
	// A line (800 kB) longer than the records read buffer (synthetic_h rows are 40 kB).
	var b strings.Builder
	const n = 200000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("0.5")
	}
	b.WriteString("\n")
	line := b.String()
	tab, err := ReadCSV(strings.NewReader(line+line), "long.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 2 || tab.Cols != n || tab.Data[2*n-1] != 0.5 {
		t.Fatalf("shape %d×%d", tab.Rows, tab.Cols)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "1,2\r\n3,4", "\"x\",\"y\"\"\"\n1,?\n", "1 2\n3  4\n", "\xef\xbb\xbf1\n", "1,\"2\n", "|j\n1e5,-0\n"} {
		f.Add([]byte(s), true, byte(','))
		f.Add([]byte(s), false, byte(' '))
	}
	f.Fuzz(func(t *testing.T, data []byte, header bool, sep byte) {
		if sep == '\n' || sep == '\r' || sep == '"' {
			sep = ','
		}
		tab, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", CSVOptions{Sep: sep, Header: header, Missing: []string{"?"}})
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != "fuzz.csv" {
				t.Fatalf("error %v is not a *FileError naming the file", err)
			}
			return
		}
		if tab.Rows < 1 || tab.Cols < 1 || len(tab.Data) != tab.Rows*tab.Cols {
			t.Fatalf("inconsistent table %d×%d with %d cells", tab.Rows, tab.Cols, len(tab.Data))
		}
		if header && len(tab.Names) != tab.Cols {
			t.Fatalf("%d names for %d columns", len(tab.Names), tab.Cols)
		}
		for _, v := range tab.Data {
			if math.IsInf(v, 0) {
				t.Fatalf("infinite cell %v", v)
			}
		}
	})
}

// TestTableLine: Line gives each data row's line in the file, past skipped
// lines, the header and blank lines, for errors found after reading.
func TestTableLine(t *testing.T) {
	src := "# note\nx,y\n1,2\n3,4\n\n\n5,6\n7,8\n\n9,0\n"
	tab, err := ReadCSV(strings.NewReader(src), "t.csv", CSVOptions{SkipLines: 1, Header: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{3, 4, 7, 8, 10}
	if tab.Rows != len(want) {
		t.Fatalf("%d rows, want %d", tab.Rows, len(want))
	}
	lines := strings.Split(src, "\n")
	for i, w := range want {
		if got := tab.Line(i); got != w {
			t.Errorf("Line(%d) = %d, want %d", i, got, w)
		}
		// The oracle: the row's values are on that line.
		if got := fmt.Sprintf("%g,%g", tab.Data[2*i], tab.Data[2*i+1]); lines[w-1] != got {
			t.Errorf("row %d is %q, but line %d is %q", i, got, w, lines[w-1])
		}
	}
	for _, i := range []int{-1, len(want)} {
		if got := tab.Line(i); got != 0 {
			t.Errorf("Line(%d) = %d, want 0", i, got)
		}
	}
}
