package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// FeaturesCSVParams are the params of "features-csv": a feature matrix the
// user supplies, e.g. the 128 penultimate features of a DP-SGD-trained CNN
// exported from PyTorch ([LSS+25] §5.3), for the private logistic heads.
type FeaturesCSVParams struct {
	// Path is the CSV file (comma-separated; .gz and .bz2 are decompressed):
	// absolute, or relative to the data directory. Required.
	Path string `toml:"path"`
	// TestPath, when set, is a second file with the same columns: Path is
	// then the training part and TestPath the test part (a fixed split).
	TestPath string `toml:"test_path"`
	// Header says the first line holds column names.
	Header bool `toml:"header"`
	// Label is the label column: its name (with a header) or its 1-based
	// index; "" means the last column. Labels must be 0/1 or −1/+1 (read as
	// 0/1); every other column is a feature.
	Label string `toml:"label"`
}

// Validate implements Params.
func (p FeaturesCSVParams) Validate() error {
	if p.Path == "" {
		return errors.New("path is required: the CSV file of features and labels")
	}
	return nil
}

// shape bounds the values of the user's files by their size.
func (p FeaturesCSVParams) shape(dir string, _ Info) (Shape, error) {
	var n int64
	for _, path := range []string{p.Path, p.TestPath} {
		v, err := fileValues(dir, path)
		if err != nil {
			return Shape{}, err
		}
		n += v
	}
	return Shape{Rows: n}, nil
}

func init() {
	Register(Info{
		Name:  "features-csv",
		Title: "User-supplied feature matrix (CSV)",
		Description: "A binary task from a CSV file of features and a label column (0/1 or −1/+1) that the user names in " +
			"params (path, optional test_path for a fixed split, header, label). For [LSS+25] Figures 3 and 5 with the " +
			"paper's own DP-CNN features: export them (and charge the feature extractor's privacy separately).",
		Task: Binary, UserFile: true, Papers: []string{"LSS+25 Figs. 3, 5 (user features)"},
		License: "the user's", Source: "the user's file",
	}, loadFeaturesCSV, FeaturesCSVParams{Path: "testdata/features.csv", Header: true})
}

func loadFeaturesCSV(dir string, p FeaturesCSVParams) (*Loaded, error) {
	train, err := readFeaturesCSV(dir, p.Path, p)
	if err != nil || p.TestPath == "" {
		return &Loaded{All: train}, err
	}
	test, err := readFeaturesCSV(dir, p.TestPath, p)
	if err != nil {
		return nil, err
	}
	if test.Cols() != train.Cols() {
		return nil, fmt.Errorf("dataset features-csv: %w", &FileError{Path: p.TestPath,
			Err: fmt.Errorf("%d feature columns, but %s has %d", test.Cols(), p.Path, train.Cols())})
	}
	return &Loaded{Train: train, Test: test}, nil
}

func readFeaturesCSV(dir, path string, p FeaturesCSVParams) (*Dataset, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, filepath.FromSlash(path))
	}
	t, err := ReadCSVFile(full, CSVOptions{Header: p.Header})
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat(full); statErr != nil {
			return nil, &MissingError{Dataset: "features-csv", Dir: dir, Files: []string{path}, UserFile: true}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dataset features-csv: %w", err)
	}
	label := t.Cols - 1
	if p.Label != "" {
		if j, ok := t.Column(p.Label); ok {
			label = j
		} else if k, err := strconv.Atoi(p.Label); err == nil && k >= 1 && k <= t.Cols {
			label = k - 1
		} else {
			return nil, fmt.Errorf("dataset features-csv: %w", &FileError{Path: full,
				Err: fmt.Errorf("label %q is neither a column name nor a column index in 1..%d", p.Label, t.Cols)})
		}
	}
	if t.Cols < 2 {
		return nil, fmt.Errorf("dataset features-csv: %w", &FileError{Path: full, Err: errors.New("need a label and at least one feature column")})
	}
	d := t.Cols - 1
	x := make([]float64, 0, t.Rows*d)
	y := make([]float64, t.Rows)
	var names []string
	if t.Names != nil {
		names = append(append([]string(nil), t.Names[:label]...), t.Names[label+1:]...)
	}
	for i := 0; i < t.Rows; i++ {
		row := t.Data[i*t.Cols : (i+1)*t.Cols]
		switch row[label] {
		case 0, -1:
			y[i] = 0
		case 1:
			y[i] = 1
		default:
			return nil, fmt.Errorf("dataset features-csv: %w", &FileError{Path: full, Line: t.Line(i), Column: columnLabel(t.Names, label),
				Err: fmt.Errorf("label %v is not 0/1 or −1/+1", row[label])})
		}
		for j, v := range row {
			if j == label {
				continue
			}
			x = append(x, v)
		}
	}
	return newDataset("features-csv", Binary, t.Rows, d, x, y, names), nil
}
