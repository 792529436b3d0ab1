package run

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/internal/spectest"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
	"gonum.org/v1/gonum/mat"
)

// TestSplitAllRows: split = { all = true } gives a training part of every
// row in stored order (no shuffle) and no test or validation part, for a
// source of one table (All) and for a source with its own train/test files
// (training rows, then test rows). Rows are identified by their y, which is
// their stored index; scaling is off so values are untouched.
func TestSplitAllRows(t *testing.T) {
	ds := func(ys ...float64) *datasets.Dataset {
		x := mat.NewDense(len(ys), 2, nil)
		for i, y := range ys {
			x.Set(i, 0, y)
			x.Set(i, 1, -y)
		}
		return &datasets.Dataset{Name: "d", Task: datasets.Regression, X: x, Y: ys}
	}
	tests := []struct {
		name   string
		loaded *datasets.Loaded
		want   []float64
	}{
		{"one table", &datasets.Loaded{All: ds(0, 1, 2, 3, 4, 5, 6)}, []float64{0, 1, 2, 3, 4, 5, 6}},
		{"train and test files", &datasets.Loaded{Train: ds(0, 1, 2), Test: ds(3, 4)}, []float64{0, 1, 2, 3, 4}},
	}
	d := spec.DatasetSpec{Name: "d", Label: "D", Split: spec.SplitSpec{All: true}, Scale: spec.ScaleSpec{X: "none", Y: "none"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := splitAndScale(tc.loaded, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sp.test != nil || sp.val != nil {
				t.Errorf("test %v, validation %v: want neither", sp.test, sp.val)
			}
			if !slices.Equal(sp.train.Y, tc.want) {
				t.Errorf("training rows %v, want %v", sp.train.Y, tc.want)
			}
			for i, y := range tc.want {
				if sp.train.X.At(i, 0) != y || sp.train.X.At(i, 1) != -y {
					t.Errorf("row %d: x = (%v, %v), want (%v, %v)", i, sp.train.X.At(i, 0), sp.train.X.At(i, 1), y, -y)
				}
			}
			if tc.loaded.All != nil && &sp.train.Y[0] == &tc.loaded.All.Y[0] {
				t.Error("the training part shares the loaded data: scaling would modify the cache")
			}
		})
	}
}

// TestSplitAllRun: a spec with split.all runs on every row: δ = 1/n is
// evaluated at n = 100, the dataset's size (not 80, the default split's
// training part), and the records hold only the train metric.
func TestSplitAllRun(t *testing.T) {
	src := `name = "all"
seed = 1
trials = 1
epsilon = [1]
delta = "1/n"
[[dataset]]
name = "synthetic-linear"
params = { n = 100, d = 3 }
split = { all = true }
[[mechanism]]
name = "adassp"
`
	// A private mechanism: a non-private one records no δ (null).
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), spectest.MustParse(t, src), Options{OutDir: dir, Cache: &DataCache{}})
	if err != nil || rep.Ran != 1 {
		t.Fatalf("run: %+v, %v", rep, err)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	if float64(r.Privacy.Delta) != 0.01 {
		t.Errorf("δ = %v, want 1/100", r.Privacy.Delta)
	}
	if _, ok := r.Metrics["train_mse"]; !ok || len(r.Metrics) != 1 {
		t.Errorf("metrics %v, want train_mse only", r.Metrics)
	}
}
