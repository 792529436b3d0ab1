package datasets

const libsvmBinary = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
const tickIJCNN1 = "https://raw.githubusercontent.com/X-DataInitiative/tick-datasets/9d959b6e53e17145e93e9849ff1f9f6d2de8ae51/binary/ijcnn1/"

func init() {
	Register(Info{
		Name:  "ijcnn1",
		Title: "LibSVM ijcnn1 (IJCNN 2001 challenge)",
		Description: "LibSVM files ijcnn1 (tr + val, 49,990 rows) ++ ijcnn1.t (91,701 rows) = 141,691 × 22, as [HMB23] " +
			"(rgm.md §5.2: \"concatenation of train and test\"). Labels ±1 kept as real regression targets; no scaling " +
			"(LibSVM already scaled the features). Not ijcnn1.tr/.val separately.",
		Task:    Regression,
		Papers:  []string{"HMB23 Fig. 1 (v1, v2), Fig. 2 right (v2)"},
		License: "no explicit license (LibSVM data page); mirror tick-datasets is BSD-3-Clause",
		Source:  "Prokhorov, IJCNN 2001 neural network competition; Chang & Lin, LibSVM binary data sets",
		Rows:    141691, Cols: 22,
		Files: []File{
			{Path: "ijcnn1/ijcnn1", URLs: []string{libsvmBinary + "ijcnn1.bz2", tickIJCNN1 + "ijcnn1.trn.bz2"},
				SHA256: "7fe291672c3fefe6a7e3c51529becd23f0e985ba05ffb8d53c9c648c1e91cc19"},
			{Path: "ijcnn1/ijcnn1.t", URLs: []string{libsvmBinary + "ijcnn1.t.bz2", tickIJCNN1 + "ijcnn1.tst.bz2"},
				SHA256: "e7b0bbd518641980dc322746c6bc59d019d3153934e6258e48f9d8cfae2c4bb8"},
		},
	}, loadIJCNN1, NoParams{})
}

// ijcnn1Features is the LibSVM ijcnn1 dimension (rgm.md §5.2: d = 22).
const ijcnn1Features = 22

func loadIJCNN1(dir string, _ NoParams) (*Loaded, error) {
	if err := requireFiles("ijcnn1", dir, "ijcnn1/ijcnn1", "ijcnn1/ijcnn1.t"); err != nil {
		return nil, err
	}
	tr, ytr, err := readLibSVM("ijcnn1", dir, "ijcnn1/ijcnn1", ijcnn1Features)
	if err != nil {
		return nil, err
	}
	te, yte, err := readLibSVM("ijcnn1", dir, "ijcnn1/ijcnn1.t", ijcnn1Features)
	if err != nil {
		return nil, err
	}
	n := tr.Rows + te.Rows
	x := append(tr.Data, te.Data...)
	y := append(ytr, yte...)
	return &Loaded{All: newDataset("ijcnn1", Regression, n, ijcnn1Features, x, y, nil)}, nil
}
