package datasets

import (
	"fmt"
)

// A data-independent, privacy-free feature map for the binary image tasks of
// [LSS+25] Figures 3 and 5. The paper trains a small CNN with DP-SGD (at
// ε/10) and feeds its 128 penultimate features to the private logistic
// heads; here a fixed random convolution replaces that network. Its weights
// depend only on a seed, never on the data, so the features cost no privacy
// and the heads get the whole budget — a documented deviation: the accuracy
// levels are those of random features, not of the paper's DP CNN.
//
//	x̃ = x/255 − 0.5                         the paper's Normalize(mean 0.5, std 1)
//	h_f = ReLU(W_f ⋆ x̃)                       F filters 5 × 5, valid: 28 × 28 → 24 × 24
//	φ_f = maxpool_{6×6}(h_f)                  24 × 24 → 4 × 4
//	features = (φ_1, …, φ_F)                  F·16 values (F = 8: 128, the paper's width)
//
// W_f has i.i.d. N(0, 1/25) entries from the ChaCha8 stream of
// ("random-conv", seed); no bias.

// ImageFeaturesParams are the params of "mnist-features" and
// "fashion-mnist-features".
type ImageFeaturesParams struct {
	// Classes and Part select the images as ImageParams does: classes [3, 8]
	// by default (the first is label 0); part "test" loads only the test
	// files into All.
	Classes []int  `toml:"classes"`
	Part    string `toml:"part"`
	// Seed is the seed of the random filters; the map is the same for every
	// dataset at the same seed.
	Seed uint64 `toml:"seed"`
	// Filters is the number F of 5 × 5 filters; 0 means 8 (128 features).
	Filters int `toml:"filters"`
}

// Validate implements Params.
func (p ImageFeaturesParams) Validate() error {
	if err := p.images().Validate(); err != nil {
		return err
	}
	if p.Filters < 0 || p.Filters > 256 {
		return fmt.Errorf("filters = %d: want 1..256 (0 means 8)", p.Filters)
	}
	return nil
}

// shape is the registry's rows of F·16 features: the images are mapped as
// they are read, a block at a time (readImagePair), never held whole.
func (p ImageFeaturesParams) shape(_ string, info Info) (Shape, error) {
	return Shape{Rows: int64(info.Rows), Cols: int64(featsPerFi * orDefault(p.Filters, 8))}, nil
}

func (p ImageFeaturesParams) images() ImageParams {
	return ImageParams{Classes: p.Classes, Part: p.Part}
}

// Geometry of the map on 28 × 28 images.
const (
	imgSide    = 28
	convSide   = 5
	convOut    = imgSide - convSide + 1 // 24
	poolSide   = 6
	poolOut    = convOut / poolSide // 4
	featsPerFi = poolOut * poolOut  // 16
)

func init() {
	desc := " images (classes 3 and 8 by default, the first is label 0) mapped to F·16 = 128 features by a fixed random " +
		"convolution (F = 8 filters 5 × 5 with i.i.d. N(0, 1/25) weights from the seed, on pixels/255 − 0.5), ReLU and " +
		"6 × 6 max-pooling. Data-independent and privacy-free: it stands in for [LSS+25]'s DP-SGD-trained CNN features " +
		"(a documented deviation). Rows are not scaled here (the runner's max-row-norm scaling does it)."
	Register(Info{
		Name:        "fashion-mnist-features",
		Title:       "Fashion-MNIST 3 vs 8, random-convolution features",
		Description: "Fashion-MNIST" + desc + " Official train and test files give Train (12,000) and Test (2,000).",
		Task:        Binary, Papers: []string{"LSS+25 Fig. 3 (stand-in features)"},
		License: "MIT (Zalando SE)", Source: "Xiao, Rasul & Vollgraf 2017; features: this package",
		Rows: 14000, Cols: 128,
		Files: fashionMNISTFiles(),
	}, func(dir string, p ImageFeaturesParams) (*Loaded, error) {
		return imageFeatures("fashion-mnist-features", "fashion_mnist/", dir, p)
	}, ImageFeaturesParams{Part: "test", Classes: []int{0, 1}, Filters: 2})
	Register(Info{
		Name:  "mnist-features",
		Title: "MNIST 3 vs 8, random-convolution features",
		Description: "MNIST" + desc + " The shared data folder has only MNIST's test split: part = \"test\" loads it " +
			"into All (1,984 rows) for a random split.",
		Task: Binary, Papers: []string{"LSS+25 Fig. 5 (stand-in features)"},
		License: "CC BY-SA 3.0 (LeCun & Cortes)", Source: "LeCun, Cortes & Burges, MNIST; features: this package",
		Rows: 13966, Cols: 128,
		Files: mnistFiles(),
	}, func(dir string, p ImageFeaturesParams) (*Loaded, error) {
		return imageFeatures("mnist-features", "mnist/", dir, p)
	}, ImageFeaturesParams{Part: "test", Filters: 2})
}

// imageFeatures loads the image pairs, mapping each image to its features
// as it is read.
func imageFeatures(name, prefix, dir string, p ImageFeaturesParams) (*Loaded, error) {
	w := randomFilters(p.Seed, orDefault(p.Filters, 8))
	return loadImages(name, prefix, dir, p.images(), convFeatures(w))
}

// randomFilters returns F filters of 5 × 5 i.i.d. N(0, 1/25) weights, row
// major, from the stream of ("random-conv", seed).
func randomFilters(seed uint64, filters int) [][]float64 {
	r := generatorRand("random-conv", seed)
	w := make([][]float64, filters)
	for f := range w {
		w[f] = gaussianMatrix(r, convSide, convSide)
		for i := range w[f] {
			w[f][i] /= convSide // std 1/5
		}
	}
	return w
}

// convFeatures returns the pixelMap of the feature datasets: each 28 × 28
// image (bytes, row major) to its len(w)·16 features.
func convFeatures(w [][]float64) pixelMap {
	return func(pixels int) (int, func([]byte, []float64), error) {
		if pixels != imgSide*imgSide {
			return 0, nil, fmt.Errorf("images have %d pixels, want %d × %d", pixels, imgSide, imgSide)
		}
		return len(w) * featsPerFi, func(pix []byte, dst []float64) {
			var img [imgSide * imgSide]float64
			for j, v := range pix {
				// The image datasets' pixel (v/255, rounded to float64 by
				// the conversion), then centred.
				img[j] = float64(float64(v)/255) - 0.5
			}
			convRow(img[:], w, dst)
		}, nil
	}
}

// convRow writes the features of one centred image into dst. Each
// convolution sums its 5 × 5 products in the same order (row u of the patch,
// five products left to right, added to h for u = 0..4), so the features are
// bit for bit those of the direct loops; the patch and the filter are views
// of fixed size, which lets the compiler drop the bounds checks.
func convRow(img []float64, w [][]float64, dst []float64) {
	im := (*[imgSide * imgSide]float64)(img)
	for f, wf := range w {
		k := (*[convSide * convSide]float64)(wf)
		for pi := 0; pi < poolOut; pi++ {
			for pj := 0; pj < poolOut; pj++ {
				best := 0.0 // ReLU: the max over the pool of max(h, 0)
				for a := pi * poolSide; a < (pi+1)*poolSide; a++ {
					for b := pj * poolSide; b < (pj+1)*poolSide; b++ {
						r := (*[(convSide-1)*imgSide + convSide]float64)(im[a*imgSide+b:])
						var h float64
						h += r[0]*k[0] + r[1]*k[1] + r[2]*k[2] + r[3]*k[3] + r[4]*k[4]
						h += r[imgSide]*k[5] + r[imgSide+1]*k[6] + r[imgSide+2]*k[7] + r[imgSide+3]*k[8] + r[imgSide+4]*k[9]
						h += r[2*imgSide]*k[10] + r[2*imgSide+1]*k[11] + r[2*imgSide+2]*k[12] + r[2*imgSide+3]*k[13] + r[2*imgSide+4]*k[14]
						h += r[3*imgSide]*k[15] + r[3*imgSide+1]*k[16] + r[3*imgSide+2]*k[17] + r[3*imgSide+3]*k[18] + r[3*imgSide+4]*k[19]
						h += r[4*imgSide]*k[20] + r[4*imgSide+1]*k[21] + r[4*imgSide+2]*k[22] + r[4*imgSide+3]*k[23] + r[4*imgSide+4]*k[24]
						best = max(best, h)
					}
				}
				dst[f*featsPerFi+pi*poolOut+pj] = best
			}
		}
	}
}
