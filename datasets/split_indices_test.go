package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSplitIndices: a well-formed file gives the listed rows in file order;
// every malformed file is a *FileError whose message names the file and,
// where one line is at fault, that line.
func TestSplitIndices(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	x := mat.NewDense(5, 1, []float64{10, 11, 12, 13, 14})
	d := &Dataset{Name: "d", Task: Regression, X: x, Y: []float64{0, 1, 2, 3, 4}}

	good := write("good.txt", "# external split\ntrain 3\n\ntrain 0\ntest 4\n  train 1  \ntest 2\n")
	si, err := ReadSplitIndices(good)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := si.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(train.Y, []float64{3, 0, 1}) || !slices.Equal(test.Y, []float64{4, 2}) {
		t.Errorf("train %v, test %v; want [3 0 1] and [4 2] (file order)", train.Y, test.Y)
	}
	if train.X.At(0, 0) != 13 || test.X.At(1, 0) != 12 {
		t.Errorf("rows do not follow their indices: train x₀ = %v, test x₁ = %v", train.X.At(0, 0), test.X.At(1, 0))
	}
	if len(si.SHA256) != 64 {
		t.Errorf("SHA256 %q", si.SHA256)
	}
	// A byte-order mark and CRLF line ends (a file saved on Windows) read
	// the same rows; the mark failed line 1 as part "\ufefftrain".
	bom, err := ReadSplitIndices(write("bom.txt", "\xef\xbb\xbftrain 3\r\ntrain 0\r\ntest 4\r\ntrain 1\r\ntest 2\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bom.Train, si.Train) || !slices.Equal(bom.Test, si.Test) {
		t.Errorf("with a byte-order mark and CRLF: train %v, test %v; want %v, %v", bom.Train, bom.Test, si.Train, si.Test)
	}

	for _, tc := range []struct {
		name, text string
		apply      bool   // the error comes from Apply (needs n), not from reading
		want       string // in the message, after the path
	}{
		{"fields", "train 1\ntrain\n", false, "line 2: "},
		{"part", "train 1\nvalid 2\n", false, `line 2: part "valid"`},
		{"integer", "train 1\ntest 2.0\n", false, `line 2: row index "2.0" is not an integer`},
		{"negative", "train -1\ntest 2\n", false, "line 1: row index -1 is negative"},
		{"no test", "train 1\ntrain 2\n", false, "no test row"},
		{"no train", "# only tests\ntest 1\n", false, "no train row"},
		{"range", "train 0\ntrain 1\ntrain 2\ntest 3\ntest 5\n", true, "line 5: row index 5 is out of range: the dataset has 5 rows"},
		{"duplicate", "train 0\ntrain 1\ntest 2\ntest 1\ntest 4\n", true, "line 4: row index 1 is listed twice (first on line 2)"},
		{"count", "train 0\ntrain 1\ntest 2\n", true, "lists 3 rows (2 train, 1 test), but the dataset has 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(tc.name+".txt", tc.text)
			si, err := ReadSplitIndices(p)
			if tc.apply {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				_, _, err = si.Apply(d)
			}
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want a *FileError %q…%q", err, p, tc.want)
			}
		})
	}
	missing := filepath.Join(dir, "absent.txt")
	if _, err := ReadSplitIndices(missing); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v", err)
	}
}
