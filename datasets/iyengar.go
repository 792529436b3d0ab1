package datasets

import (
	"fmt"
)

const uciGisette = "https://archive.ics.uci.edu/ml/machine-learning-databases/gisette/GISETTE/"

const iyengarDesc = " Labels ±1 mapped to {0, 1}. No scaling: [RKW23] normalise rows to unit norm (the runner's " +
	"x = \"unit-rows\"), and the benchmark's shuffle + first-80% split is the runner's split (test = 0.2)."

func init() {
	synth := func(name, file, title, call, fileSHA string, n, d int, papers []string) {
		Register(Info{
			Name:  name,
			Title: title,
			Description: "synthetic/" + file + " (header x0..x{d-1},y): " + call + " with Debian python3-sklearn 1.2.1, " +
				"labels mapped as in sunblaze-ucb/dpml-benchmark common/datasets.py (MANIFEST §6). There is no download " +
				"source: regenerate it with that call, or use " + name + "-gen, dplab's port of the algorithm (not bit-identical)." + iyengarDesc,
			Task: Binary, Papers: papers, License: "generated data; no restriction",
			Source: "Iyengar et al. 2019 benchmark (sunblaze-ucb/dpml-benchmark), sklearn make_classification",
			Rows:   n, Cols: d,
			Files: []File{{Path: "synthetic/" + file, SHA256: fileSHA}},
		}, func(dir string, _ NoParams) (*Loaded, error) {
			return loadIyengarSynthetic(name, dir, "synthetic/"+file)
		}, NoParams{})
	}
	synth("synthetic-l", "synthetic_l.csv", "Synthetic-L (Iyengar et al.; make_classification, 10,000 × 40)",
		"make_classification(n_samples=10000, n_features=40, n_informative=30, n_classes=2, class_sep=2.0, random_state=1000)",
		"7a877c787f4d1da0ea1d1fc3672252417574e628d552a4f6149245e0043da24a", 10000, 40, []string{"RKW23 Fig. 2 (Synthetic-L panel), Tab. 1"})
	synth("synthetic-h", "synthetic_h.csv", "Synthetic-H (Iyengar et al.; make_classification, 2,000 × 2,000)",
		"make_classification(n_samples=2000, n_features=2000, n_informative=10, n_redundant=0, n_classes=2, class_sep=2.0, random_state=1)",
		"2831b001ecdf22c9b718037953d07be6b256bc708a8c24b43aa6cf17a3b5a60c", 2000, 2000, []string{"RKW23 Fig. 2 (Synthetic-H panel)"})

	Register(Info{
		Name:  "gisette",
		Title: "UCI GISETTE (NIPS 2003 feature selection challenge), training part",
		Description: "gisette_train.data (6,000 lines of 5,000 space-separated integers) and gisette_train.labels (±1), " +
			"the training part only, as the Iyengar et al. benchmark uses (gisette.py)." + iyengarDesc,
		Task: Binary, Papers: []string{"RKW23 Fig. 2 (Gisette panel)"},
		License: "CC BY 4.0 (UCI)", Source: "Guyon et al. 2004, UCI GISETTE",
		Rows: 6000, Cols: 5000,
		Files: []File{
			{Path: "gisette/gisette_train.data", URLs: []string{uciGisette + "gisette_train.data"},
				SHA256: "6d4c5e998afe67937b9e77a3334e03c85e545ebc65a6eb1333ffc14125cfc389"},
			{Path: "gisette/gisette_train.labels", URLs: []string{uciGisette + "gisette_train.labels"},
				SHA256: "42bd681fe51b161f033df773df14a0116e492676555ab14616c1b72edc054075"},
		},
	}, loadGisette, NoParams{})
}

// toBinary maps the ±1 labels of d to {0, 1}; any other label is reported by
// bad(i, y), which names the file position of label i.
func toBinary(d *Dataset, bad func(i int, y float64) error) error {
	d.Task = Binary
	for i, y := range d.Y {
		switch y {
		case 1:
		case -1:
			d.Y[i] = 0
		default:
			return bad(i, y)
		}
	}
	return nil
}

// labelError is the *FileError of a label that is not ±1.
func labelError(name, path string, line int, column string, y float64) error {
	return fmt.Errorf("dataset %s: %w", name, &FileError{Path: path, Line: line, Column: column, Err: fmt.Errorf("label %v is not -1 or 1", y)})
}

func loadIyengarSynthetic(name, dir, rel string) (*Loaded, error) {
	t, err := readTable(name, dir, rel, CSVOptions{Header: true})
	if err != nil {
		return nil, err
	}
	d, err := targetLast(name, t, nil)
	if err != nil {
		return nil, err
	}
	if err := toBinary(d, func(i int, y float64) error { return labelError(name, t.Path, i+2, t.Names[t.Cols-1], y) }); err != nil {
		return nil, err
	}
	return &Loaded{All: d}, nil
}

func loadGisette(dir string, _ NoParams) (*Loaded, error) {
	const dataRel, labelRel = "gisette/gisette_train.data", "gisette/gisette_train.labels"
	if err := requireFiles("gisette", dir, dataRel, labelRel); err != nil {
		return nil, err
	}
	x, err := readTable("gisette", dir, dataRel, CSVOptions{Sep: ' '})
	if err != nil {
		return nil, err
	}
	y, err := readTable("gisette", dir, labelRel, CSVOptions{Sep: ' '})
	if err != nil {
		return nil, err
	}
	if y.Cols != 1 || y.Rows != x.Rows {
		return nil, y.errorf("gisette", "%d × %d labels for %d examples", y.Rows, y.Cols, x.Rows)
	}
	d := newDataset("gisette", Binary, x.Rows, x.Cols, x.Data, y.Data, nil)
	if err := toBinary(d, func(i int, v float64) error { return labelError("gisette", y.Path, i+1, "", v) }); err != nil {
		return nil, err
	}
	return &Loaded{All: d}, nil
}
