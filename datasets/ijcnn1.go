package datasets

import "fmt"

const libsvmBinary = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
const tickIJCNN1 = "https://raw.githubusercontent.com/X-DataInitiative/tick-datasets/9d959b6e53e17145e93e9849ff1f9f6d2de8ae51/binary/ijcnn1/"

// ijcnn1Files are the LibSVM files both ijcnn1 entries read, with the
// SHA-256 of their content (MANIFEST §2).
var ijcnn1Files = []File{
	{Path: "ijcnn1/ijcnn1", URLs: []string{libsvmBinary + "ijcnn1.bz2", tickIJCNN1 + "ijcnn1.trn.bz2"},
		SHA256: "7fe291672c3fefe6a7e3c51529becd23f0e985ba05ffb8d53c9c648c1e91cc19"},
	{Path: "ijcnn1/ijcnn1.t", URLs: []string{libsvmBinary + "ijcnn1.t.bz2", tickIJCNN1 + "ijcnn1.tst.bz2"},
		SHA256: "e7b0bbd518641980dc322746c6bc59d019d3153934e6258e48f9d8cfae2c4bb8"},
}

const (
	ijcnn1Title   = "LibSVM ijcnn1 (IJCNN 2001 challenge)"
	ijcnn1License = "no explicit license (LibSVM data page); mirror tick-datasets is BSD-3-Clause"
	ijcnn1Source  = "Prokhorov, IJCNN 2001 neural network competition; Chang & Lin, LibSVM binary data sets"
	ijcnn1Rows    = 141691
)

func init() {
	Register(Info{
		Name:  "ijcnn1",
		Title: ijcnn1Title,
		Description: "LibSVM files ijcnn1 (tr + val, 49,990 rows) ++ ijcnn1.t (91,701 rows) = 141,691 × 22, as [HMB23] " +
			"(rgm.md §5.2: \"concatenation of train and test\"). Labels ±1 kept as real regression targets; no scaling " +
			"(LibSVM already scaled the features). Not ijcnn1.tr/.val separately.",
		Task:    Regression,
		Papers:  []string{"HMB23 Fig. 1 (v1, v2), Fig. 2 right (v2)"},
		License: ijcnn1License,
		Source:  ijcnn1Source,
		Rows:    ijcnn1Rows, Cols: ijcnn1Features,
		Files: ijcnn1Files,
	}, loadIJCNN1, NoParams{})
	Register(Info{
		Name:  "ijcnn1-binary",
		Title: ijcnn1Title + ", binary labels",
		Description: "The same rows as ijcnn1 (ijcnn1 ++ ijcnn1.t = 141,691 × 22, file order) as a binary classification " +
			"task: LibSVM labels +1 → 1, −1 → 0 (13,565 positives, 9.6%). No scaling.",
		Task:    Binary,
		Papers:  []string{"issue 14 comparison suite (ijcnn1 as classification, as LibSVM's binary page lists it)"},
		License: ijcnn1License,
		Source:  ijcnn1Source,
		Rows:    ijcnn1Rows, Cols: ijcnn1Features,
		Files: ijcnn1Files,
	}, loadIJCNN1Binary, NoParams{})
}

// ijcnn1Features is the LibSVM ijcnn1 dimension (rgm.md §5.2: d = 22).
const ijcnn1Features = 22

// readIJCNN1 reads ijcnn1 then ijcnn1.t, in file order: the dense rows and
// the labels, each passed through label (nil keeps them) with its file and
// 1-based example number for errors.
func readIJCNN1(name, dir string, label func(file string, example int, v float64) (float64, error)) (n int, x, y []float64, err error) {
	if err := requireFiles(name, dir, "ijcnn1/ijcnn1", "ijcnn1/ijcnn1.t"); err != nil {
		return 0, nil, nil, err
	}
	for _, file := range []string{"ijcnn1/ijcnn1", "ijcnn1/ijcnn1.t"} {
		t, ys, err := readLibSVM(name, dir, file, ijcnn1Features)
		if err != nil {
			return 0, nil, nil, err
		}
		if label != nil {
			for i, v := range ys {
				if ys[i], err = label(file, i+1, v); err != nil {
					return 0, nil, nil, err
				}
			}
		}
		n += t.Rows
		x, y = append(x, t.Data...), append(y, ys...)
	}
	return n, x, y, nil
}

func loadIJCNN1(dir string, _ NoParams) (*Loaded, error) {
	n, x, y, err := readIJCNN1("ijcnn1", dir, nil)
	if err != nil {
		return nil, err
	}
	return &Loaded{All: newDataset("ijcnn1", Regression, n, ijcnn1Features, x, y, nil)}, nil
}

// loadIJCNN1Binary maps the LibSVM labels +1 → 1 and −1 → 0; any other label
// is an error naming the file and example.
func loadIJCNN1Binary(dir string, _ NoParams) (*Loaded, error) {
	n, x, y, err := readIJCNN1("ijcnn1-binary", dir, func(file string, example int, v float64) (float64, error) {
		switch v {
		case 1:
			return 1, nil
		case -1:
			return 0, nil
		}
		return 0, fmt.Errorf("dataset ijcnn1-binary: %w", &FileError{Path: file, Err: fmt.Errorf("example %d: label %v, want +1 or −1", example, v)})
	})
	if err != nil {
		return nil, err
	}
	return &Loaded{All: newDataset("ijcnn1-binary", Binary, n, ijcnn1Features, x, y, nil)}, nil
}
