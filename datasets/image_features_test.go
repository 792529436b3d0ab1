package datasets

import (
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func init() {
	// Real-data checks of the feature datasets (TestRealDatasets): row and
	// label counts from MANIFEST §7–8 (Fashion-MNIST 6000+6000 train and
	// 1000+1000 test images of classes 3 and 8; the MNIST test split 1,010
	// threes and 974 eights), 128 columns by construction.
	realChecks["fashion-mnist-features"] = realCheck{rows: 14000, cols: 128, train: 12000, test: 2000, positives: 7000}
	realChecks["mnist-features"] = realCheck{kv: []string{`part="test"`}, rows: 1984, cols: 128, positives: 974}
	// features-csv reads the committed testdata file by absolute path.
	abs, err := filepath.Abs("testdata/features.csv")
	if err != nil {
		panic(err)
	}
	realChecks["features-csv"] = realCheck{kv: []string{`path="` + abs + `"`, "header=true"}, rows: 24, cols: 3, positives: 12}
	// features-csv-regression reads the same file with column f3 as the
	// target: range by awk -F, 'NR>1' over $3.
	realChecks["features-csv-regression"] = realCheck{kv: []string{`path="` + abs + `"`, "header=true", `label="f3"`}, rows: 24, cols: 3, yMin: -2.2194, yMax: 1.8686}
}

// TestConvFeaturesClosedForm: on a constant image x ≡ c every 5 × 5 window
// of the centred image equals c − 0.5, so each filter's response is
// (c − 0.5)·Σw_f everywhere and the pooled feature is max(0, (c − 0.5)·Σw_f)
// for all 16 cells of filter f (tolerance 1e-12: 25-term sums).
func TestConvFeaturesClosedForm(t *testing.T) {
	w := randomFilters(7, 3)
	for _, c := range []float64{0, 0.3, 1} {
		x := mat.NewDense(1, imgSide*imgSide, nil)
		for j := 0; j < imgSide*imgSide; j++ {
			x.Set(0, j, c)
		}
		got := convFeatures(x, w).RawRowView(0)
		for f, wf := range w {
			var s float64
			for _, v := range wf {
				s += v
			}
			want := math.Max(0, (c-0.5)*s)
			for cell := 0; cell < featsPerFi; cell++ {
				if math.Abs(got[f*featsPerFi+cell]-want) > 1e-12 {
					t.Fatalf("c = %v, filter %d, cell %d: %v, want %v", c, f, cell, got[f*featsPerFi+cell], want)
				}
			}
		}
	}
}

// TestConvFeaturesLocal: the pool cell (pi, pj) sees only the pixels of its
// 10 × 10 receptive field: a pixel changed outside it leaves the cell
// unchanged, and a bright square inside it changes it. Each row's features
// do not depend on the other rows (data-independent map, parallel rows).
func TestConvFeaturesLocal(t *testing.T) {
	w := randomFilters(1, 8)
	x := mat.NewDense(3, imgSide*imgSide, nil)
	for j := 0; j < imgSide*imgSide; j++ {
		x.Set(0, j, float64((j*7)%11)/10)
		x.Set(1, j, x.At(0, j))
		x.Set(2, j, float64((j*3)%5)/4)
	}
	x.Set(1, 27*imgSide+27, 1-x.At(1, 27*imgSide+27)) // bottom-right pixel: only cell (3, 3)
	f := convFeatures(x, w)
	alone := convFeatures(mat.DenseCopyOf(x.Slice(0, 1, 0, imgSide*imgSide)), w)
	if !mat.Equal(f.Slice(0, 1, 0, f.RawMatrix().Cols), alone) {
		t.Error("a row's features depend on the other rows")
	}
	changed := 0
	for fi := range w {
		for cell := 0; cell < featsPerFi; cell++ {
			a, b := f.At(0, fi*featsPerFi+cell), f.At(1, fi*featsPerFi+cell)
			if cell != featsPerFi-1 && a != b {
				t.Fatalf("filter %d cell %d changed by a pixel outside its receptive field", fi, cell)
			}
			if cell == featsPerFi-1 && a != b {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("no filter's last cell responds to its own corner pixel")
	}
	if c := f.RawMatrix().Cols; c != 128 {
		t.Errorf("%d features, want 8·16 = 128", c)
	}
	if !mat.Equal(convFeatures(x, randomFilters(1, 8)), f) || mat.Equal(convFeatures(x, randomFilters(2, 8)), f) {
		t.Error("the map is not a function of its seed alone")
	}
}
