package datasets

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/strictoml"
)

// loadedShape is the shape of the data l holds: its parts' rows together.
func loadedShape(l *Loaded) Shape {
	var s Shape
	for _, d := range []*Dataset{l.All, l.Train, l.Test} {
		if d != nil {
			s.Rows += int64(d.Rows())
			s.Cols = int64(d.Cols())
		}
	}
	return s
}

// TestShapeBoundsLoadedData: Entry.Shape, known before loading, is the
// shape of what the loader returns for every generator (with its test
// params, and its documented defaults are the registry's Rows × Cols), and
// bounds the values of the user's CSV file. A generator whose params change
// its shape but that does not tell Shape fails here.
func TestShapeBoundsLoadedData(t *testing.T) {
	for _, e := range entries.All() {
		if !e.Info.Synthetic && !e.Info.UserFile {
			if e.Info.Rows <= 0 || e.Info.Cols <= 0 {
				t.Errorf("%s: registry shape %d × %d unknown", e.Info.Name, e.Info.Rows, e.Info.Cols)
			}
			continue
		}
		got, err := e.testShape(".") // the user file's test path is relative to the package
		if err != nil {
			t.Fatal(err)
		}
		l, err := e.LoadTest(".")
		if err != nil {
			t.Fatal(err)
		}
		want := loadedShape(l)
		if e.Info.UserFile && got.Values() < want.Values() || e.Info.Synthetic && got != want {
			t.Errorf("%s: Shape %v, loaded %v", e.Info.Name, got, want)
		}
		if def, err := e.Shape("", nil); e.Info.Synthetic && (err != nil || def != (Shape{Rows: int64(e.Info.Rows), Cols: int64(e.Info.Cols)})) {
			t.Errorf("%s: default Shape %v (%v), registry %d × %d", e.Info.Name, def, err, e.Info.Rows, e.Info.Cols)
		}
	}
}

// TestUserFileShape: a user's CSV is bounded by its size, decompressed when
// it is compressed; an absent file bounds nothing (loading reports it).
func TestUserFileShape(t *testing.T) {
	dir := t.TempDir()
	csv := "a,b,label\n" + strings.Repeat("0.5,1.25,1\n", 1000)
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "f.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(csv))
	z.Close()
	f.Close()
	e, _ := Lookup("features-csv")
	for _, path := range []string{"f.csv", filepath.Join(dir, "f.csv.gz")} {
		s, err := e.Shape(dir, strictoml.DecodeKV([]string{"path=" + path, "header=true"}))
		if err != nil || s.Values() < 3000 || s.Values() > int64(len(csv)) {
			t.Errorf("%s: %v (%v), want between the 3,000 values and %d", path, s, err, len(csv))
		}
	}
	if s, err := e.Shape(dir, strictoml.DecodeKV([]string{"path=absent.csv"})); err != nil || s != (Shape{}) {
		t.Errorf("absent file: %v, %v", s, err)
	}
}
