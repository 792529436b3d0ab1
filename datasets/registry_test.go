package datasets

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/strictoml"
)

func TestListIsSortedAndWellFormed(t *testing.T) {
	infos := List()
	if len(infos) == 0 {
		t.Fatal("empty registry")
	}
	if !sort.SliceIsSorted(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name }) {
		t.Error("List is not sorted by name")
	}
	hexRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	// 'dplab datasets info' prints the description to users, who cannot
	// look up an unexported Go name or a source file.
	goRE := regexp.MustCompile(`\b[a-z]{2,}[A-Z][A-Za-z0-9]*\b|\b\w+\.go\b|\bGenerate[A-Z]\w*`)
	for _, in := range infos {
		if in.Title == "" || in.Description == "" || in.License == "" || in.Source == "" {
			t.Errorf("%s: Title, Description, License and Source must be set", in.Name)
		}
		if m := goRE.FindString(in.Description + " " + in.Title); m != "" {
			t.Errorf("%s: the description names the Go identifier or file %q", in.Name, m)
		}
		if in.Task != Regression && in.Task != Binary {
			t.Errorf("%s: task %v", in.Name, in.Task)
		}
		for _, f := range in.Files {
			if strings.HasSuffix(f.Path, ".gz") || strings.HasSuffix(f.Path, ".bz2") || strings.HasPrefix(f.Path, "/") {
				t.Errorf("%s: file path %q must be relative and without a compression suffix", in.Name, f.Path)
			}
			switch hasSum := f.SHA256 != "" || f.StoredSHA256 != ""; {
			case !hasSum && !f.Unverified:
				t.Errorf("%s: %s has no checksum (a file whose checksum is not known must say so: Unverified)", in.Name, f.Path)
			case hasSum && f.Unverified:
				t.Errorf("%s: %s is marked Unverified but has a checksum", in.Name, f.Path)
			}
			for _, h := range []string{f.SHA256, f.StoredSHA256} {
				if h != "" && !hexRE.MatchString(h) {
					t.Errorf("%s: %s: malformed SHA-256 %q", in.Name, f.Path, h)
				}
			}
		}
	}
}

func TestLookupUnknownNameListsKnownNames(t *testing.T) {
	_, err := Lookup("no-such-data")
	if err == nil {
		t.Fatal("Lookup of an unknown name succeeded")
	}
	for _, want := range []string{`"no-such-data"`, "synthetic-linear", "synthetic-logistic"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestRegisterRejectsDuplicatesAndBadNames(t *testing.T) {
	for _, name := range []string{"synthetic-linear", "Bad_Name", "trailing-"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(Info{Name: name, Synthetic: true}, func(string, NoParams) (*Loaded, error) { return nil, nil }, NoParams{})
		}()
	}
}

func TestLoadDecodesValidatesAndNames(t *testing.T) {
	e, err := Lookup("synthetic-linear")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		pairs   []string
		wantErr string // substring; "" means success
	}{
		{"defaults", nil, ""},
		{"set", []string{"n=7", "d=2", "noise=0.5", "seed=3"}, ""},
		{"unknown key", []string{"rows=7"}, `unknown key "rows"`},
		{"misspelt key", []string{"seeed=7"}, `unknown key "seeed" (did you mean "seed"?)`},
		{"wrong type", []string{"n=seven"}, `key "n"`},
		{"invalid", []string{"n=-3"}, "n = -3"},
		{"bad noise", []string{"noise=-1"}, "noise = -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := e.Load("", strictoml.DecodeKV(tc.pairs))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "synthetic-linear") {
					t.Fatalf("err = %v, want one naming the dataset and containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.All == nil || l.All.Name != "synthetic-linear" {
				t.Fatalf("loaded %+v", l)
			}
		})
	}
}

// TestSyntheticEntriesAreDeterministic loads every generator twice with its
// test params and once with another seed: same seed, same bits; another seed,
// other data. Shapes and labels are checked against the task.
func TestSyntheticEntriesAreDeterministic(t *testing.T) {
	for _, in := range List() {
		if !in.Synthetic {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			t.Parallel()
			e, _ := Lookup(in.Name)
			a, err := e.LoadTest("")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := e.LoadTest("")
			if !sameData(parts(a), parts(b)) {
				t.Fatal("two loads with the same params differ")
			}
			if len(e.Missing(t.TempDir())) != 0 {
				t.Error("a generator reports missing files")
			}
			for _, d := range parts(a) {
				checkWellFormed(t, d, in.Task)
			}
		})
	}
}

// parts returns the non-nil datasets of l in a fixed order.
func parts(l *Loaded) []*Dataset {
	var out []*Dataset
	for _, d := range []*Dataset{l.All, l.Train, l.Test} {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

func sameData(a, b []*Dataset) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		ra, ca := a[k].X.Dims()
		rb, cb := b[k].X.Dims()
		if ra != rb || ca != cb || len(a[k].Y) != len(b[k].Y) {
			return false
		}
		for i := 0; i < ra; i++ {
			for j, v := range a[k].X.RawRowView(i) {
				if math.Float64bits(v) != math.Float64bits(b[k].X.At(i, j)) {
					return false
				}
			}
			if math.Float64bits(a[k].Y[i]) != math.Float64bits(b[k].Y[i]) {
				return false
			}
		}
	}
	return true
}

// checkWellFormed asserts the package invariants on d: finite values, labels
// in {0, 1} for a binary task, len(Y) = rows, Features absent or of length d.
func checkWellFormed(t *testing.T, d *Dataset, task Task) {
	t.Helper()
	if d.Task != task {
		t.Errorf("task %v, registered %v", d.Task, task)
	}
	n, c := d.X.Dims()
	if len(d.Y) != n {
		t.Fatalf("%d targets for %d rows", len(d.Y), n)
	}
	if d.Features != nil && len(d.Features) != c {
		t.Errorf("%d feature names for %d columns", len(d.Features), c)
	}
	for i := 0; i < n; i++ {
		for j, v := range d.X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("X[%d,%d] = %v", i, j, v)
			}
		}
		y := d.Y[i]
		if math.IsNaN(y) || math.IsInf(y, 0) || (task == Binary && y != 0 && y != 1) {
			t.Fatalf("Y[%d] = %v", i, y)
		}
	}
}
