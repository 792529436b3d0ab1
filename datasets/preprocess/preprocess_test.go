package preprocess

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// all returns one of every pre-processor Build makes.
func all(t *testing.T) []Preprocessor {
	t.Helper()
	var out []Preprocessor
	for _, name := range Names() {
		p, err := Build(name, Params{Eta: 0.1, K: 1, Trim: 1})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestClipRows(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{3, 4, 0, 0.1, 0.2, 0.3, math.NaN(), 6, 8})
	c := ClipRows(x)
	if x.At(0, 0) != 3 {
		t.Fatal("ClipRows modified its input")
	}
	want := [][]float64{{0.6, 0.8, 0}, {0.1, 0.2, 0.3}, {math.NaN(), 0.6, 0.8}}
	for i, w := range want {
		for j, v := range w {
			if g := c.At(i, j); !(g == v || math.Abs(g-v) < 1e-15 || math.IsNaN(g) && math.IsNaN(v)) {
				t.Errorf("clipped[%d][%d] = %v, want %v", i, j, g, v)
			}
		}
	}
}

// TestFitRefusesBadInput: every pre-processor returns an error naming the
// problem — never a panic — on empty data, one row, an infinite value, a row
// outside the unit ball, and NaN (accepted by imputers only).
func TestFitRefusesBadInput(t *testing.T) {
	bad := []struct {
		name string
		x    *mat.Dense
		want string
	}{
		{"nil", nil, "no rows"},
		{"empty", &mat.Dense{}, "no rows"},
		{"one row", mat.NewDense(1, 2, []float64{0.1, 0.2}), "at least 2 rows"},
		{"inf", mat.NewDense(2, 2, []float64{0.1, math.Inf(1), 0, 0}), "infinite"},
		{"outside the ball", mat.NewDense(2, 2, []float64{0.9, 0.9, 0, 0}), "clip rows first"},
	}
	for _, p := range all(t) {
		for _, b := range bad {
			_, err := p.Fit(b.x)
			if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), p.Name()) {
				t.Errorf("%s on %s: err = %v, want one naming %q and %q", p, b.name, err, p.Name(), b.want)
			}
		}
		nan := mat.NewDense(5, 2, []float64{0.1, math.NaN(), 0.2, 0.3, -0.1, 0.2, 0.3, 0.1, 0, 0.4})
		_, err := p.Fit(nan)
		if isImputer(p) != (err == nil) {
			t.Errorf("%s on NaN: err = %v", p, err)
		}
	}
	if _, err := Build("nope", Params{}); err == nil || !strings.Contains(err.Error(), "impute-mean") {
		t.Errorf("Build(nope): %v, want the known names", err)
	}
	for _, name := range []string{"dedup", "quantize", "pca-rank", "pca-dim"} {
		if _, err := Build(name, Params{}); err == nil {
			t.Errorf("Build(%s) with zero params: no error", name)
		}
	}
	if _, err := Build("impute-trimmed", Params{Trim: -1}); err == nil {
		t.Error("trim −1 accepted")
	}
}

// TestSensitivityRefusesBadCollections: every bound names what the
// collection lacks instead of returning a number.
func TestSensitivityRefusesBadCollections(t *testing.T) {
	for _, p := range all(t) {
		for _, m := range []Mode{Paper, Safe} {
			if _, err := p.Sensitivity(Collection{N: 1}, m); err == nil || !strings.Contains(err.Error(), "n = 1") {
				t.Errorf("%s %s, n = 1: %v", p, m, err)
			}
			if _, err := p.Sensitivity(Collection{N: 100, Relation: "zero_out"}, m); err == nil {
				t.Errorf("%s %s, relation zero_out: no error", p, m)
			}
		}
		if _, err := p.Sensitivity(Collection{N: 100}, "exact"); err == nil {
			t.Errorf("%s: mode exact accepted", p)
		}
	}
	cases := []struct {
		p    Preprocessor
		m    Mode
		c    Collection
		want string
	}{
		{&Dedup{Eta: 0.1}, Paper, Collection{N: 100}, "max_cluster"},
		{MeanImputer{}, Paper, Collection{N: 100, MaxMissingRows: 100}, "max_missing_rows"},
		{MeanImputer{}, Safe, Collection{N: 100, MaxMissingRows: 99}, "n − p − 1"},
		{MeanImputer{}, Paper, Collection{N: 100, Relation: "add_remove"}, "add/remove"},
		{MedianImputer{}, Paper, Collection{N: 100, MaxMissingRows: 5}, "order_band"},
		{MedianImputer{}, Safe, Collection{N: 100, MaxMissingRows: 5, OrderBand: []float64{0, 1}}, "max_imputed_features"},
		{&TrimmedMeanImputer{Trim: 40}, Paper, Collection{N: 100, MaxMissingRows: 30, OrderBand: []float64{0, 1}}, "nothing is retained"},
		{LinRegImputer{}, Paper, Collection{N: 100, LambdaMin: 1}, "lambda_max"},
		{LinRegImputer{}, Safe, Collection{N: 100}, "lambda_min"},
		{&PCA{K: 2}, Paper, Collection{N: 100}, "gap_k"},
	}
	for _, c := range cases {
		if _, err := c.p.Sensitivity(c.c, c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %+v: err = %v, want one naming %q", c.p, c.m, c.c, err, c.want)
		}
	}
}

// TestCheckAndDiagnostics: the declared collection against what a fit read.
func TestCheckAndDiagnostics(t *testing.T) {
	ds, ids, err := datasets.GenerateClusteredUnitBall(datasets.ClusteredUnitBallParams{N: 200, D: 5, Eta: 0.1, MaxCluster: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	size := map[int]int{}
	b := 0
	for _, k := range ids {
		size[k]++
		b = max(b, size[k])
	}
	f, err := (&Dedup{Eta: 0.1}).Fit(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	if o := f.Observed(); o.N != 200 || o.MaxCluster != b {
		t.Fatalf("observed %+v, want n = 200, b = %d (the generator's largest cluster)", o, b)
	}
	if err := f.Check(Collection{N: 200, MaxCluster: b}); err != nil {
		t.Errorf("declared b = observed: %v", err)
	}
	err = f.Check(Collection{N: 200, MaxCluster: b - 1})
	var v *ViolationError
	if !errors.As(err, &v) || len(v.Violations) != 1 || v.Violations[0].Param != "max_cluster" || !strings.Contains(err.Error(), "refuse") {
		t.Errorf("b − 1 declared: err = %v", err)
	}
	if err := f.Check(Collection{N: 199}); err == nil {
		t.Error("n = 199 declared for 200 rows: no violation")
	}
	if d := f.Diagnostics(); d["max_cluster"] != float64(b) || d["n"] != 200 {
		t.Errorf("diagnostics %v", d)
	}
	// Merge takes the worse of each side.
	m := Merge(Collection{N: 10, MaxCluster: 3, GapK: 0.2, OrderBand: []float64{-1, 0}}, Collection{N: 10, MaxCluster: 5, GapK: 0.1, Gap1: 0.4, OrderBand: []float64{-0.5, 0.5}})
	if m.MaxCluster != 5 || m.GapK != 0.1 || m.Gap1 != 0.4 || m.OrderBand[0] != -1 || m.OrderBand[1] != 0.5 {
		t.Errorf("Merge = %+v", m)
	}
}

// TestOutputDataset: labels pass through untouched; removed rows stay as
// zeros or are dropped.
func TestOutputDataset(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0.1, 0.1, 0.1, 0.1001, 0.5, -0.5, -0.5, 0.5})
	src := &datasets.Dataset{Name: "toy", Task: datasets.Binary, X: x, Y: []float64{1, 0, 1, 0}}
	f, err := FitDataset(src, &Dedup{Eta: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if f2, _ := FitDataset(src, &Dedup{Eta: 0.01}); f2 != f {
		t.Error("FitDataset did not memoise")
	}
	out := f.Output()
	if out.Kept() != 3 || !out.Removed[1] || floats.Norm(out.X.RawRowView(1), 2) != 0 {
		t.Fatalf("removed %v, row 1 = %v: want row 1 removed and zero", out.Removed, out.X.RawRowView(1))
	}
	keep, err := out.Dataset(src, false)
	if err != nil || keep.Rows() != 4 || keep.Y[1] != 0 {
		t.Fatalf("kept: %v %v", keep, err)
	}
	drop, err := out.Dataset(src, true)
	if err != nil || drop.Rows() != 3 || drop.Y[1] != 1 || drop.X.At(2, 0) != -0.5 {
		t.Fatalf("dropped: rows %d, y %v, err %v", drop.Rows(), drop.Y, err)
	}
}
