package datasets

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
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

// featuresOf maps images (28 × 28 bytes each, concatenated) to their
// features by the feature datasets' map with filters w.
func featuresOf(t *testing.T, pix []byte, w [][]float64) *mat.Dense {
	t.Helper()
	cols, row, err := convFeatures(w)(imgSide * imgSide)
	if err != nil {
		t.Fatal(err)
	}
	n := len(pix) / (imgSide * imgSide)
	out := mat.NewDense(n, cols, nil)
	mapImages(pix, imgSide*imgSide, out.RawMatrix().Data, cols, row)
	return out
}

// TestConvFeaturesClosedForm: on a constant image of pixel v every 5 × 5
// window of the centred image equals c − 0.5 with c = v/255, so each
// filter's response is (c − 0.5)·Σw_f everywhere and the pooled feature is
// max(0, (c − 0.5)·Σw_f) for all 16 cells of filter f (tolerance 1e-12:
// 25-term sums).
func TestConvFeaturesClosedForm(t *testing.T) {
	w := randomFilters(7, 3)
	for _, v := range []byte{0, 77, 255} {
		c := float64(v) / 255
		got := featuresOf(t, bytes.Repeat([]byte{v}, imgSide*imgSide), w).RawRowView(0)
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
	if _, _, err := convFeatures(w)(27 * 28); err == nil {
		t.Error("27 × 28 images accepted")
	}
}

// TestConvFeaturesLocal: the pool cell (pi, pj) sees only the pixels of its
// 10 × 10 receptive field: a pixel changed outside it leaves the cell
// unchanged, and a bright square inside it changes it. Each row's features
// do not depend on the other rows (data-independent map, parallel rows).
func TestConvFeaturesLocal(t *testing.T) {
	w := randomFilters(1, 8)
	const p = imgSide * imgSide
	x := make([]byte, 3*p)
	for j := 0; j < p; j++ {
		x[j] = byte((j * 7) % 11 * 25)
		x[p+j] = x[j]
		x[2*p+j] = byte((j * 3) % 5 * 60)
	}
	x[p+27*imgSide+27] = 255 - x[p+27*imgSide+27] // bottom-right pixel: only cell (3, 3)
	f := featuresOf(t, x, w)
	alone := featuresOf(t, x[:p], w)
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
	if !mat.Equal(featuresOf(t, x, randomFilters(1, 8)), f) || mat.Equal(featuresOf(t, x, randomFilters(2, 8)), f) {
		t.Error("the map is not a function of its seed alone")
	}
}

// TestImageFeaturesMemoryBoundedByOutput: loading a feature dataset
// allocates little beyond its rows (F·16 features and a label each): the
// images are read a block at a time and mapped straight into the rows, so
// the whole allocation is bounded by the rows' bytes, one block of pixels
// and 512 KB for the readers (gzip, buffers, labels). Before, the loader
// held every image as bytes and then as 784 float64s per kept row, and
// mapped them afterwards (issue 37: 291 MB to build Fashion-MNIST's
// 14,000 × 128; here 55.7 MB for 1,536 rows, against a bound of 2.9 MB and
// 2.6 MB now). Each row is bit for bit the map of its image with the pixel
// scaled (v/255, a float64) and then centred, as the features were built
// before.
func TestImageFeaturesMemoryBoundedByOutput(t *testing.T) {
	const n, pixels = 2048, imgSide * imgSide
	r := rand.New(rand.NewPCG(3, 8))
	pix := make([]byte, n*pixels)
	for i := range pix {
		pix[i] = byte(r.IntN(256))
	}
	labels := make([]byte, n)
	var kept []int
	for i := range labels {
		labels[i] = []byte{3, 8, 3, 1}[i%4] // 1: not kept
		if labels[i] != 1 {
			kept = append(kept, i)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"fashion_mnist/t10k-images-idx3-ubyte.gz": string(idxBytes([]int{n, imgSide, imgSide}, pix)),
		"fashion_mnist/t10k-labels-idx1-ubyte.gz": string(idxBytes([]int{n}, labels)),
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := loadFrom(dir, "fashion-mnist-features", `part="test"`, "seed=5")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	if d.Rows() != len(kept) || d.Cols() != 8*featsPerFi {
		t.Fatalf("%d × %d, want %d × %d", d.Rows(), d.Cols(), len(kept), 8*featsPerFi)
	}
	rows := uint64(len(kept) * (d.Cols() + 1) * 8)
	bound := rows + imageBlock*pixels + 512<<10
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d × %d features: %.2f MB allocated, bound %.2f MB", d.Rows(), d.Cols(), float64(got)/1e6, float64(bound)/1e6)
	if got > bound {
		t.Errorf("loading %d × %d features allocated %.1f MB, above %.1f MB (the rows' %.1f MB, a block of images and 512 KB)",
			d.Rows(), d.Cols(), float64(got)/1e6, float64(bound)/1e6, float64(rows)/1e6)
	}
	w := randomFilters(5, 8)
	want := make([]float64, d.Cols())
	img := make([]float64, pixels)
	for k, i := range kept {
		for j, v := range pix[i*pixels : (i+1)*pixels] {
			x := float64(v) / 255
			img[j] = x - 0.5
		}
		convRow(img, w, want)
		if got := d.X.RawRowView(k); !slices.Equal(got, want) {
			t.Fatalf("row %d (image %d): features differ from the map of its scaled, centred pixels", k, i)
		}
		if d.Y[k] != map[byte]float64{3: 0, 8: 1}[labels[i]] {
			t.Fatalf("row %d: label %v for class %d", k, d.Y[k], labels[i])
		}
	}
}

// TestConvRowMatchesTheDirectLoops: convRow's unrolled sums are bit for bit
// the direct loops over the pool, the patch rows and the five products of a
// row (the loops convRow had before it was unrolled), on random images and
// filters, so the feature datasets are unchanged.
func TestConvRowMatchesTheDirectLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	w := randomFilters(11, 8)
	img := make([]float64, imgSide*imgSide)
	got, want := make([]float64, len(w)*featsPerFi), make([]float64, len(w)*featsPerFi)
	for range 20 {
		for i := range img {
			img[i] = float64(float64(r.IntN(256))/255) - 0.5
		}
		convRow(img, w, got)
		for f, wf := range w {
			for pi := 0; pi < poolOut; pi++ {
				for pj := 0; pj < poolOut; pj++ {
					best := 0.0
					for a := pi * poolSide; a < (pi+1)*poolSide; a++ {
						for b := pj * poolSide; b < (pj+1)*poolSide; b++ {
							var h float64
							for u := 0; u < convSide; u++ {
								row := img[(a+u)*imgSide+b : (a+u)*imgSide+b+convSide]
								ws := wf[u*convSide : (u+1)*convSide]
								h += row[0]*ws[0] + row[1]*ws[1] + row[2]*ws[2] + row[3]*ws[3] + row[4]*ws[4]
							}
							best = max(best, h)
						}
					}
					want[f*featsPerFi+pi*poolOut+pj] = best
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("convRow differs from the direct loops:\n got %v\nwant %v", got, want)
		}
	}
}
