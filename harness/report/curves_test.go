package report

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/run"
)

const curvesSpec = `name = "curves"
title = "Gaussian RDP"
[[curve]]
name = "gaussian-rdp"
label = "σ = 1"
panel = "RDP"
x = "alpha"
params = { sigma = 1, alpha = { linspace = [1.5, 10, 5] } }
[[curve]]
name = "gaussian-rdp"
label = "σ = 2"
panel = "RDP"
x = "alpha"
params = { sigma = 2, alpha = [2, 4] }
[[curve]]
name = "gaussian-epsilon"
label = "ε(δ)"
panel = "conversion"
x = "delta"
params = { sigma = 5, delta = [1e-5, 1e-3] }
[[figure]]
name = "rdp"
kind = "curves"
x_label = "α"
y_label = "RDP ε(α)"
log_y = true
[[table]]
name = "rdp"
kind = "curves"
`

// TestCurvesSpec runs an analytic-curves spec (no trials) and checks the
// values against the closed form α/(2σ²) and a monotonicity property.
func TestCurvesSpec(t *testing.T) {
	s := spectest.MustParse(t, curvesSpec)
	if len(spectest.Cells(t, s)) != 0 {
		t.Fatal("a curves-only spec has cells")
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, outs, err := runAndRender(s, run.Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) < 6 {
		t.Errorf("outputs: %v", outs)
	}
	f, err := os.Open(filepath.Join(dir, CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(f).ReadAll()
	f.Close()
	if len(rows) != 1+5+2+2 {
		t.Fatalf("%d rows in curves.csv", len(rows))
	}
	var eps []float64
	for _, r := range rows[1:] {
		x, _ := strconv.ParseFloat(r[4], 64)
		y, _ := strconv.ParseFloat(r[5], 64)
		switch r[1] {
		case "σ = 1":
			if math.Abs(y-x/2) > 1e-15 {
				t.Errorf("σ=1, α=%v: %v, want %v", x, y, x/2)
			}
		case "σ = 2":
			if math.Abs(y-x/8) > 1e-15 {
				t.Errorf("σ=2, α=%v: %v, want %v", x, y, x/8)
			}
		default:
			eps = append(eps, y)
		}
	}
	if !(eps[0] > eps[1]) {
		t.Errorf("ε(δ) does not fall with δ: %v", eps)
	}
	for _, p := range []string{"figures/rdp.png", "figures/rdp.svg", "tables/rdp-rdp.md", "tables/rdp-conversion.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("missing output %s", p)
		}
	}
}

func TestCurveSpecErrors(t *testing.T) {
	for name, src := range map[string]string{
		"unknown curve":  "name = \"c\"\n[[curve]]\nname = \"nope\"\nx = \"a\"\nparams = { a = [1, 2] }\n",
		"x not swept":    "name = \"c\"\n[[curve]]\nname = \"gaussian-rdp\"\nx = \"alpha\"\nparams = { alpha = 2, sigma = 1 }\n",
		"unknown param":  "name = \"c\"\n[[curve]]\nname = \"gaussian-rdp\"\nx = \"alpha\"\nparams = { alpha = [2], sigma = 1, rho = 3 }\n",
		"missing param":  "name = \"c\"\n[[curve]]\nname = \"gaussian-rdp\"\nx = \"alpha\"\nparams = { alpha = [2] }\n",
		"two sweeps":     "name = \"c\"\n[[curve]]\nname = \"gaussian-rdp\"\nx = \"alpha\"\nparams = { alpha = [2], sigma = [1, 2] }\n",
		"metric on kind": curvesSpec + "[[figure]]\nname = \"x\"\nkind = \"curves\"\nmetric = \"test_mse\"\n",
	} {
		if _, err := parseChecked("c.toml", src); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCurvesTableRowsPanels: rows = "panels" gives one table whose rows are
// the (panel, x) pairs in panel order and whose columns are the curve labels
// of every panel; values are the closed form α/(2σ²), and a curve absent
// from a panel leaves its cell empty.
func TestCurvesTableRowsPanels(t *testing.T) {
	src := `name = "cases"
[[curve]]
name = "gaussian-rdp"
label = "σ = 1"
panel = "case A"
x = "alpha"
params = { sigma = 1, alpha = [2, 4] }
[[curve]]
name = "gaussian-rdp"
label = "σ = 1"
panel = "case B"
x = "alpha"
params = { sigma = 1, alpha = [3] }
[[curve]]
name = "gaussian-rdp"
label = "σ = 2"
panel = "case B"
x = "alpha"
params = { sigma = 2, alpha = [3] }
[[table]]
name = "cases"
kind = "curves"
rows = "panels"
formats = ["csv"]
`
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(spectest.MustParse(t, src), run.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "tables", "cases.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"case A; alpha = 2", "1", ""}, {"case A; alpha = 4", "2", ""}, {"case B; alpha = 3", "1.5", "0.375"}}
	// CSV columns: the row label, then mean and CI per curve label.
	if len(rows) != 1+len(want) || len(rows[0]) != 5 || rows[0][1] != "σ = 1 mean" || rows[0][3] != "σ = 2 mean" {
		t.Fatalf("table:\n%v", rows)
	}
	for i, w := range want {
		r := rows[1+i]
		if r[0] != w[0] {
			t.Errorf("row %d: %q, want %q", i, r[0], w[0])
		}
		for j := 1; j < 3; j++ {
			cell := r[2*j-1]
			if w[j] == "" {
				if cell != "" {
					t.Errorf("row %d col %d: %q, want empty", i, j, cell)
				}
				continue
			}
			got, err := strconv.ParseFloat(cell, 64)
			want, _ := strconv.ParseFloat(w[j], 64)
			if err != nil || math.Abs(got-want) > 1e-9 {
				t.Errorf("row %d col %d: %v, want %s", i, j, got, w[j])
			}
		}
	}
}

// TestCurvesTableFormulas: formulas = true adds <name>-formulas with each
// curve's function, its registry title (the formula) and its source.
func TestCurvesTableFormulas(t *testing.T) {
	src := `name = "f"
[[curve]]
name = "gaussian-rdp"
label = "σ = 2"
panel = "p"
x = "alpha"
params = { sigma = 2, alpha = [2] }
[[table]]
name = "t"
kind = "curves"
formulas = true
formats = ["csv"]
`
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(spectest.MustParse(t, src), run.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tables", "t-formulas.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "σ = 2,gaussian-rdp,,Gaussian RDP α·Δ²/(2σ²),,\"Mironov 2017, Prop. 7\","
	if !strings.Contains(string(b), want) {
		t.Errorf("formulas table:\n%s\nwant a row %q", b, want)
	}
}

// TestReadmeCurvesExample: the "Analytic curves" example of
// experiments/README.md decodes with the curve registry and the curves
// figure and table kinds, and evaluates every point.
func TestReadmeCurvesExample(t *testing.T) {
	b, err := os.ReadFile("../../experiments/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "## Analytic curves")
	if i < 0 {
		t.Fatal(`experiments/README.md has no "## Analytic curves" section`)
	}
	_, rest, ok := strings.Cut(text[i:], "```toml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the Analytic curves section has no toml block")
	}
	s := spectest.MustParse(t, "name = \"readme-curves\"\nseed = 1\ntrials = 1\nepsilon = [1]\ndelta = 1e-5\n"+example)
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Curves) != 2 || len(s.Figures) != 1 || len(s.Tables) != 1 {
		t.Fatalf("%d curves, %d figures, %d tables; want 2, 1, 1", len(s.Curves), len(s.Figures), len(s.Tables))
	}
}
