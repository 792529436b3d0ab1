package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/plotting"
)

// TestTableFileNames checks that per-dataset table files are unique and
// non-empty however the labels slug (issue 9, item 6): "Data A" and
// "data-a" gave one file that the second table overwrote, and all-Greek
// labels gave "mse-".
func TestTableFileNames(t *testing.T) {
	for _, labels := range [][2]string{{"Data A", "data-a"}, {"α", "β"}, {"Data A", "αβγ"}} {
		t.Run(strings.Join(labels[:], ","), func(t *testing.T) {
			src := fmt.Sprintf(`name = "t"
seed = 1
trials = 1
epsilon = [1]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = %q
params = { n = 100, d = 2, seed = 1 }
[[dataset]]
name = "synthetic-linear"
label = %q
params = { n = 100, d = 2, seed = 2 }
[[mechanism]]
name = "adassp"
[[table]]
name = "mse"
metric = "test_mse"
formats = ["md"]
[[table]]
name = "cal"
kind = "privacy"
formats = ["md"]
[[table]]
name = "time"
kind = "runtime"
formats = ["md"]
`, labels[0], labels[1])
			dir := t.TempDir()
			paths, err := Render(spectest.MustParse(t, src), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := filepath.Glob(filepath.Join(dir, "tables", "*"))
			var files, names []string
			for _, f := range all {
				if !strings.HasSuffix(f, plotting.CaptionMarkdown) && !strings.HasSuffix(f, plotting.CaptionTeX) {
					files, names = append(files, f), append(names, filepath.Base(f))
				}
			}
			sort.Strings(names)
			if len(files) != 6 {
				t.Fatalf("tables/ holds %v; want 6 files (3 tables × 2 datasets); Render wrote %v", names, paths)
			}
			for _, n := range names {
				if strings.Contains(n, "-.") || strings.HasSuffix(strings.TrimSuffix(n, ".md"), "-") {
					t.Errorf("file %q has an empty label part", n)
				}
				b, _ := os.ReadFile(filepath.Join(dir, "tables", n))
				if !strings.Contains(string(b), labels[0]) && !strings.Contains(string(b), labels[1]) {
					t.Errorf("%s does not name its dataset", n)
				}
			}
		})
	}
}

// TestTableNameClash checks that a table split per dataset never
// overwrites another table's file: render refuses the clash.
func TestTableNameClash(t *testing.T) {
	src := `name = "t"
seed = 1
trials = 1
epsilon = [1]
delta = 1e-6
[[dataset]]
name = "synthetic-linear"
label = "Lin"
params = { n = 100, d = 2, seed = 1 }
[[dataset]]
name = "synthetic-linear"
label = "Bike"
params = { n = 100, d = 2, seed = 2 }
[[mechanism]]
name = "adassp"
[[table]]
name = "mse"
metric = "test_mse"
[[table]]
name = "mse-lin"
metric = "train_mse"
datasets = ["Bike"]
`
	_, err := Render(spectest.MustParse(t, src), t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), `table[0] "mse" and table[1] "mse-lin" both write tables/mse-lin.*`) {
		t.Errorf("render: %v", err)
	}
}

// stemRE is what a label stem must look like: a slug, possibly with a hex
// suffix.
var stemRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestLabelStems checks that label stems are unique, non-empty, plain
// file-name parts, the plain slug when it is unambiguous, and independent
// of the labels' order.
func TestLabelStems(t *testing.T) {
	tests := []struct {
		labels []string
		want   map[string]string // "" checks only uniqueness
	}{
		{[]string{"Boston Housing", "Bike"}, map[string]string{"Boston Housing": "boston-housing", "Bike": "bike"}},
		{[]string{"Data A", "data-a", "Data B"}, map[string]string{"Data B": "data-b"}},
		{[]string{"α", "β", "γ"}, nil},
		// A label spelled as another's hashed stem still gets its own name.
		{[]string{"Data A", "data-a", "data-a-" + labelStems([]string{"Data A", "data-a"})["Data A"][len("data-a-"):]}, nil},
		// Long labels (issue 34): cut, with a hash, to at most maxStem
		// bytes; a slug of exactly maxStem bytes is kept.
		{[]string{strings.Repeat("long label ", 30) + "1", strings.Repeat("long label ", 30) + "2", strings.Repeat("x", maxStem)},
			map[string]string{strings.Repeat("x", maxStem): strings.Repeat("x", maxStem)}},
		{[]string{strings.Repeat("α", 200) + "1", strings.Repeat("a", 300), strings.Repeat("a", 300) + "!"}, nil},
	}
	for _, tc := range tests {
		got := labelStems(tc.labels)
		// Stable: the labels in the other order give the same names.
		rev := append([]string(nil), tc.labels...)
		slices.Reverse(rev)
		if again := labelStems(rev); fmt.Sprint(again) != fmt.Sprint(got) {
			t.Errorf("%v: %v, reversed %v", tc.labels, got, again)
		}
		seen := map[string]string{}
		for _, l := range tc.labels {
			s := got[l]
			if !stemRE.MatchString(s) || len(s) > maxStem {
				t.Errorf("%v: label %q has stem %q", tc.labels, l, s)
			}
			if o, dup := seen[s]; dup {
				t.Errorf("%v: %q and %q share stem %q", tc.labels, o, l, s)
			}
			seen[s] = l
			if w, ok := tc.want[l]; ok && w != s {
				t.Errorf("%v: label %q: stem %q, want %q", tc.labels, l, s, w)
			}
		}
	}
}

// TestOutputNamesStayInDir checks that plotting refuses a name that is not
// a plain file stem, so nothing is written outside the directory.
func TestOutputNamesStayInDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tab := &plotting.Table{Name: "../escaped", Columns: []string{"c"}, Rows: []string{"r"}, Cells: [][]plotting.Entry{{{}}}}
	if _, err := plotting.WriteTable(tab, dir, "md"); err == nil {
		t.Error("WriteTable accepted ../escaped")
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "escaped.md")); err == nil {
		t.Error("escaped.md was written outside the directory")
	}
}
