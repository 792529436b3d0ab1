package datasets

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// ImageParams are the params of "mnist" and "fashion-mnist".
type ImageParams struct {
	// Classes are the two classes kept: label 0 for the first, 1 for the
	// second; nil means [3, 8] ([LSS+25] §6.5: "only classes 3 and 8").
	Classes []int `toml:"classes"`
	// Part "" (default) loads the official train and test files into
	// Train and Test; "test" loads only the test files into All (the shared
	// folder lacks MNIST's training images).
	Part string `toml:"part"`
}

func (p ImageParams) classes() [2]int {
	if p.Classes == nil {
		return [2]int{3, 8}
	}
	return [2]int{p.Classes[0], p.Classes[1]}
}

// Validate implements Params.
func (p ImageParams) Validate() error {
	if p.Classes != nil && (len(p.Classes) != 2 || p.Classes[0] == p.Classes[1] ||
		p.Classes[0] < 0 || p.Classes[0] > 9 || p.Classes[1] < 0 || p.Classes[1] > 9) {
		return fmt.Errorf("classes %v: want two distinct digits 0..9", p.Classes)
	}
	if p.Part != "" && p.Part != "test" {
		return fmt.Errorf("part %q: want \"\" (train and test) or \"test\"", p.Part)
	}
	return nil
}

const (
	mnistGoogle  = "https://storage.googleapis.com/cvdf-datasets/mnist/"
	mnistPytorch = "https://ossci-datasets.s3.amazonaws.com/mnist/"
	fashionS3    = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
	fashionGH    = "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/"
)

func init() {
	imageDesc := " IDX files; a binary task over two classes (classes = [3, 8] by default, the first is label 0). " +
		"Features: the 784 pixels divided by 255, in [0, 1] (raw pixels; [LSS+25] feeds them through a DP CNN " +
		"whose 128 features are not reproduced here). Official train/test files give Train and Test."
	Register(Info{
		Name:  "mnist",
		Title: "MNIST handwritten digits, two classes",
		Description: "MNIST" + imageDesc + " The shared data folder has only the test split (training images " +
			"missing): load it with part = \"test\" (1,984 rows for 3 vs 8), or fetch the training images.",
		Task:    Binary,
		Papers:  []string{"LSS+25 Fig. 5"},
		License: "CC BY-SA 3.0 (LeCun & Cortes)",
		Source:  "LeCun, Cortes & Burges, MNIST database",
		Rows:    13966, Cols: 784,
		Files: mnistFiles(),
	}, func(dir string, p ImageParams) (*Loaded, error) {
		return loadImages("mnist", "mnist/", dir, p, scaledPixels)
	}, ImageParams{Part: "test"})

	Register(Info{
		Name:        "fashion-mnist",
		Title:       "Fashion-MNIST, two classes (3 = Dress vs 8 = Bag by default)",
		Description: "Fashion-MNIST" + imageDesc,
		Task:        Binary,
		Papers:      []string{"LSS+25 Fig. 3"},
		License:     "MIT (Zalando SE)",
		Source:      "Xiao, Rasul & Vollgraf 2017, github.com/zalandoresearch/fashion-mnist",
		Rows:        14000, Cols: 784,
		Files: fashionMNISTFiles(),
	}, func(dir string, p ImageParams) (*Loaded, error) {
		return loadImages("fashion-mnist", "fashion_mnist/", dir, p, scaledPixels)
	}, ImageParams{Part: "test", Classes: []int{0, 1}})
}

// mnistFiles are MNIST's four IDX files (also read by mnist-features).
func mnistFiles() []File {
	return []File{
		{Path: "mnist/train-images-idx3-ubyte", URLs: []string{mnistGoogle + "train-images-idx3-ubyte.gz", mnistPytorch + "train-images-idx3-ubyte.gz"},
			StoredSHA256: "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"},
		{Path: "mnist/train-labels-idx1-ubyte", URLs: []string{mnistGoogle + "train-labels-idx1-ubyte.gz", mnistPytorch + "train-labels-idx1-ubyte.gz"},
			SHA256: "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5", StoredSHA256: "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"},
		{Path: "mnist/t10k-images-idx3-ubyte", URLs: []string{mnistGoogle + "t10k-images-idx3-ubyte.gz", mnistPytorch + "t10k-images-idx3-ubyte.gz"},
			SHA256: "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7", StoredSHA256: "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"},
		{Path: "mnist/t10k-labels-idx1-ubyte", URLs: []string{mnistGoogle + "t10k-labels-idx1-ubyte.gz", mnistPytorch + "t10k-labels-idx1-ubyte.gz"},
			SHA256: "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2", StoredSHA256: "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"},
	}
}

// fashionMNISTFiles are Fashion-MNIST's four IDX files (also read by
// fashion-mnist-features).
func fashionMNISTFiles() []File {
	return []File{
		{Path: "fashion_mnist/train-images-idx3-ubyte", URLs: []string{fashionS3 + "train-images-idx3-ubyte.gz", fashionGH + "train-images-idx3-ubyte.gz"},
			SHA256: "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"},
		{Path: "fashion_mnist/train-labels-idx1-ubyte", URLs: []string{fashionS3 + "train-labels-idx1-ubyte.gz", fashionGH + "train-labels-idx1-ubyte.gz"},
			SHA256: "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"},
		{Path: "fashion_mnist/t10k-images-idx3-ubyte", URLs: []string{fashionS3 + "t10k-images-idx3-ubyte.gz", fashionGH + "t10k-images-idx3-ubyte.gz"},
			SHA256: "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"},
		{Path: "fashion_mnist/t10k-labels-idx1-ubyte", URLs: []string{fashionS3 + "t10k-labels-idx1-ubyte.gz", fashionGH + "t10k-labels-idx1-ubyte.gz"},
			SHA256: "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"},
	}
}

// pixelMap maps images of the given number of pixels (bytes, row major) to
// dataset rows: it returns the row width and the map, which writes the row
// of pix into dst and may be called from several goroutines at once, or an
// error when it cannot map images of that size.
type pixelMap func(pixels int) (cols int, row func(pix []byte, dst []float64), err error)

// scaledPixels is the pixelMap of the image datasets: the pixels divided by
// 255.
func scaledPixels(pixels int) (int, func([]byte, []float64), error) {
	return pixels, func(pix []byte, dst []float64) {
		for j, v := range pix {
			dst[j] = float64(v) / 255
		}
	}, nil
}

// loadImages loads the images of p's parts and classes, each mapped to a row
// by m.
func loadImages(name, prefix, dir string, p ImageParams, m pixelMap) (*Loaded, error) {
	parts := []string{"t10k"}
	if p.Part == "" {
		parts = []string{"train", "t10k"}
	}
	var rels []string
	for _, s := range parts {
		rels = append(rels, prefix+s+"-images-idx3-ubyte", prefix+s+"-labels-idx1-ubyte")
	}
	if err := requireFiles(name, dir, rels...); err != nil {
		return nil, err
	}
	var out []*Dataset
	for k := range parts {
		d, err := readImagePair(name, dir, rels[2*k], rels[2*k+1], p.classes(), m)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if p.Part == "test" {
		return &Loaded{All: out[0]}, nil
	}
	return &Loaded{Train: out[0], Test: out[1]}, nil
}

// imageBlock is how many images readImagePair reads at a time.
const imageBlock = 1024

// readImagePair keeps the images whose label is one of classes, in file
// order, each mapped to a row by m. The images are read a block at a time
// and mapped straight into the rows, so the file's pixels are never held
// whole: the memory is the rows' and one block's.
func readImagePair(name, dir, imgRel, labRel string, classes [2]int, m pixelMap) (*Dataset, error) {
	ldims, labels, err := readIDXFile(name, dir, labRel)
	if err != nil {
		return nil, err
	}
	f, err := openData(name, dir, imgRel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fail := func(err error) error { return fmt.Errorf("dataset %s: %w", name, err) }
	img, err := newIDXReader(f, f.Path)
	if err != nil {
		return nil, fail(err)
	}
	idims := img.Dims
	if len(idims) != 3 || len(ldims) != 1 || idims[0] != ldims[0] {
		return nil, fail(&FileError{Path: f.Path, Err: fmt.Errorf("image dimensions %v do not match label dimensions %v", idims, ldims)})
	}
	pixels := idims[1] * idims[2]
	cols, row, err := m(pixels)
	if err != nil {
		return nil, fail(&FileError{Path: f.Path, Err: err})
	}
	var y []float64
	for _, l := range labels {
		switch int(l) {
		case classes[0]:
			y = append(y, 0)
		case classes[1]:
			y = append(y, 1)
		}
	}
	if len(y) == 0 {
		return nil, fail(errors.New("no image of the chosen classes"))
	}
	x := make([]float64, len(y)*cols)
	buf := make([]byte, min(imageBlock, len(labels))*pixels)
	rows := 0 // rows of x written
	for i := 0; i < len(labels); i += imageBlock {
		block := buf[:min(imageBlock, len(labels)-i)*pixels]
		if err := img.ReadFull(block); err != nil {
			return nil, fail(err)
		}
		kept := 0 // the block's images of the classes, moved to its front
		for j := range len(block) / pixels {
			if l := int(labels[i+j]); l == classes[0] || l == classes[1] {
				copy(block[kept*pixels:], block[j*pixels:(j+1)*pixels])
				kept++
			}
		}
		mapImages(block[:kept*pixels], pixels, x[rows*cols:(rows+kept)*cols], cols, row)
		rows += kept
	}
	if err := img.End(); err != nil {
		return nil, fail(err)
	}
	return newDataset(name, Binary, len(y), cols, x, y, nil), nil
}

// mapImages writes row(image i of pix) into row i of dst, for the images of
// pixels bytes each in pix and the rows of cols values each in dst. Images
// are independent, so they are mapped in parallel; the result does not
// depend on the scheduling.
func mapImages(pix []byte, pixels int, dst []float64, cols int, row func(pix []byte, dst []float64)) {
	n := len(pix) / pixels
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := g; i < n; i += workers {
				row(pix[i*pixels:(i+1)*pixels], dst[i*cols:(i+1)*cols])
			}
		})
	}
	wg.Wait()
}
