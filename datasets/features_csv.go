package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// FeaturesCSVParams are the params of "features-csv" and
// "features-csv-regression": a feature matrix the user supplies, e.g. the 128
// penultimate features of a DP-SGD-trained CNN exported from PyTorch
// ([LSS+25] §5.3), for the private logistic heads, or the user's own
// regression data for the linear mechanisms.
type FeaturesCSVParams struct {
	// Path is the CSV file (comma-separated; .gz and .bz2 are decompressed):
	// absolute, or relative to the data directory. Required.
	Path string `toml:"path"`
	// TestPath, when set, is a second file with the same columns: Path is
	// then the training part and TestPath the test part (a fixed split).
	TestPath string `toml:"test_path"`
	// Header says the first line holds column names.
	Header bool `toml:"header"`
	// Label is the label (target) column: its name (with a header) or its
	// 1-based index; "" means the last column. For features-csv labels must
	// be 0/1 or −1/+1 (read as 0/1); for features-csv-regression any finite
	// number. Every other column is a feature.
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

// The task is part of a dataset's registry entry (plan checks it against
// each mechanism's tasks before any data are read), so the real-valued
// variant is its own name sharing the loader.
func init() {
	registerFeaturesCSV(Info{
		Name:  "features-csv",
		Title: "User-supplied feature matrix (CSV)",
		Description: "A binary task from a CSV file of features and a label column (0/1 or −1/+1) that the user names in " +
			"params (path, optional test_path for a fixed split, header, label). For [LSS+25] Figures 3 and 5 with the " +
			"paper's own DP-CNN features: export them (and charge the feature extractor's privacy separately).",
		Task: Binary, Papers: []string{"LSS+25 Figs. 3, 5 (user features)"},
	})
	registerFeaturesCSV(Info{
		Name:  "features-csv-regression",
		Title: "User-supplied regression data (CSV)",
		Description: "A regression task from a CSV file of features and a real-valued target column that the user names " +
			"in params (path, optional test_path for a fixed split, header, label), with the same line-numbered errors " +
			"as features-csv. Scaled like every regression dataset (scale.y defaults to max-abs).",
		Task: Regression,
	})
}

// registerFeaturesCSV registers a user-CSV dataset of info's name and task.
func registerFeaturesCSV(info Info) {
	info.UserFile, info.License, info.Source = true, "the user's", "the user's file"
	Register(info, func(dir string, p FeaturesCSVParams) (*Loaded, error) {
		return loadFeaturesCSV(dir, info.Name, info.Task, p)
	}, FeaturesCSVParams{Path: "testdata/features.csv", Header: true})
}

func loadFeaturesCSV(dir, name string, task Task, p FeaturesCSVParams) (*Loaded, error) {
	train, err := readFeaturesCSV(dir, name, task, p.Path, p)
	if err != nil || p.TestPath == "" {
		return &Loaded{All: train}, err
	}
	test, err := readFeaturesCSV(dir, name, task, p.TestPath, p)
	if err != nil {
		return nil, err
	}
	if test.Cols() != train.Cols() {
		return nil, fmt.Errorf("dataset %s: %w", name, &FileError{Path: p.TestPath,
			Err: fmt.Errorf("%d feature columns, but %s has %d", test.Cols(), p.Path, train.Cols())})
	}
	return &Loaded{Train: train, Test: test}, nil
}

// readFeaturesCSV reads one user CSV; a Binary task's labels must be 0/1 or
// ±1, a Regression task's targets any finite number (ReadCSVFile refuses
// non-numeric, NaN and infinite cells with their line and column).
func readFeaturesCSV(dir, name string, task Task, path string, p FeaturesCSVParams) (*Dataset, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, filepath.FromSlash(path))
	}
	t, err := ReadCSVFile(full, CSVOptions{Header: p.Header})
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat(full); statErr != nil {
			return nil, &MissingError{Dataset: name, Dir: dir, Files: []string{path}, UserFile: true}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	label := t.Cols - 1
	if p.Label != "" {
		if j, ok := t.Column(p.Label); ok {
			label = j
		} else if k, err := strconv.Atoi(p.Label); err == nil && k >= 1 && k <= t.Cols {
			label = k - 1
		} else {
			return nil, fmt.Errorf("dataset %s: %w", name, &FileError{Path: full,
				Err: fmt.Errorf("label %q is neither a column name nor a column index in 1..%d", p.Label, t.Cols)})
		}
	}
	if t.Cols < 2 {
		return nil, fmt.Errorf("dataset %s: %w", name, &FileError{Path: full, Err: errors.New("need a label and at least one feature column")})
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
		switch {
		case task == Regression:
			y[i] = row[label]
		case row[label] == 0 || row[label] == -1:
			y[i] = 0
		case row[label] == 1:
			y[i] = 1
		default:
			return nil, fmt.Errorf("dataset %s: %w", name, &FileError{Path: full, Line: t.Line(i), Column: columnLabel(t.Names, label),
				Err: fmt.Errorf("label %v is not 0/1 or −1/+1", row[label])})
		}
		for j, v := range row {
			if j == label {
				continue
			}
			x = append(x, v)
		}
	}
	return newDataset(name, task, t.Rows, d, x, y, names), nil
}
