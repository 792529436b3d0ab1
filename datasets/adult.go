package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// AdultParams are the params of "adult".
type AdultParams struct {
	// Preset "paper" (default, "") keeps every complete row: 30,162 + 15,060 =
	// 45,222. "code" reproduces the benchmark's list[:-2] slicing, which also
	// drops the last complete row of each file: 45,220 rows (objpert.md §5.1).
	Preset string `toml:"preset"`
}

// Validate implements Params.
func (p AdultParams) Validate() error { return checkPreset(p.Preset) }

// checkPreset accepts "", "paper" and "code".
func checkPreset(p string) error {
	switch p {
	case "", "paper", "code":
		return nil
	}
	return fmt.Errorf("preset %q: want \"paper\" or \"code\"", p)
}

var adultColumns = []string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "capital-gain",
	"capital-loss", "hours-per-week", "native-country", "income"}

// adultContinuous are the columns [IYE19] divides by their maximum
// (adult.py: continuous_pos = [0, 2, 4, 10, 11, 12]); the others but the
// label are one-hot encoded.
var adultContinuous = []int{0, 2, 4, 10, 11, 12}

const uciAdult = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"

func init() {
	Register(Info{
		Name:  "adult",
		Title: "UCI Adult (Census Income)",
		Description: "adult.data ++ adult.test with the Iyengar et al. preprocessing (objpert.md §5.1, dpml-benchmark adult.py): " +
			"rows with a '?' dropped, the 6 continuous columns divided by their maximum, the 8 categorical columns one-hot " +
			"(98 indicators first, then the 6 continuous columns), label 1 for >50K and 0 for <=50K. Rows in file order; " +
			"the benchmark's shuffle + first-80% split is the runner's split (test = 0.2). preset = \"code\" drops the last row of each file as the benchmark's slicing does.",
		Task:    Binary,
		Papers:  []string{"RKW23 Fig. 2 (Adult panel), Tab. 2", "IYE19"},
		License: "CC BY 4.0 (UCI)",
		Source:  "Kohavi & Becker 1996, UCI Machine Learning Repository",
		Rows:    45222, Cols: 104,
		DataDependent: []string{
			"the 6 continuous columns divided by their maxima over all rows, test rows included",
			"one-hot columns for the categories present in the data",
		},
		Files: []File{
			{Path: "adult/adult.data", URLs: []string{uciAdult + "adult.data",
				"https://raw.githubusercontent.com/j2kun/boosting/0cc64246127fbdd26f79dce5db8f4786c536dc91/data/adult.data"},
				SHA256: "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"},
			{Path: "adult/adult.test", URLs: []string{uciAdult + "adult.test"},
				SHA256: "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05"},
			{Path: "adult/adult.names", URLs: []string{uciAdult + "adult.names",
				"https://raw.githubusercontent.com/YuzhongHuangCS/fairness/10dcbc38734e5f95a574c44de972b8e084229d38/adult.names"},
				SHA256: "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a", Optional: true},
		},
	}, loadAdult, AdultParams{})
}

// adultRows accumulates the complete rows of the Adult files.
type adultRows struct {
	cats  []*categorical
	codes []int     // n × 8 first-appearance codes
	cont  []float64 // n × 6 raw continuous values
	y     []float64
}

func loadAdult(dir string, p AdultParams) (*Loaded, error) {
	if err := requireFiles("adult", dir, "adult/adult.data", "adult/adult.test"); err != nil {
		return nil, err
	}
	a := &adultRows{}
	for j, name := range adultColumns[:14] {
		if !contains(adultContinuous, j) {
			a.cats = append(a.cats, newCategorical(name))
		}
	}
	for _, rel := range []string{"adult/adult.data", "adult/adult.test"} {
		if err := a.read(dir, rel, p.Preset == "code"); err != nil {
			return nil, err
		}
	}
	if len(a.y) == 0 {
		return nil, errors.New("dataset adult: no complete row in adult.data and adult.test")
	}
	return &Loaded{All: a.dataset()}, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// read appends the complete rows of one Adult file. Lines starting with '|'
// (adult.test's "|1x3 Cross validator") are skipped; a trailing '.' on the
// label (adult.test's ">50K.") is ignored.
func (a *adultRows) read(dir, rel string, dropLast bool) error {
	f, err := openData("adult", dir, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	rec := newRecords(f, f.Path, ',')
	before := len(a.y)
	for {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("dataset adult: %w", err)
		}
		if len(fields[0]) > 0 && fields[0][0] == '|' {
			continue
		}
		if len(fields) != len(adultColumns) {
			return fmt.Errorf("dataset adult: %w", rec.errorf("", "%d fields, want %d", len(fields), len(adultColumns)))
		}
		if hasQuestionMark(fields) {
			continue
		}
		label := bytes.TrimSuffix(fields[14], []byte("."))
		switch string(label) {
		case ">50K":
			a.y = append(a.y, 1)
		case "<=50K":
			a.y = append(a.y, 0)
		default:
			return fmt.Errorf("dataset adult: %w", rec.errorf("income", "%q is neither <=50K nor >50K", fields[14]))
		}
		k := 0
		for j := 0; j < 14; j++ {
			if contains(adultContinuous, j) {
				v, err := parseNumber(fields[j])
				if err != nil {
					return fmt.Errorf("dataset adult: %w", rec.errorf(adultColumns[j], "%v", err))
				}
				a.cont = append(a.cont, v)
				continue
			}
			a.codes = append(a.codes, a.cats[k].code(fields[j]))
			k++
		}
	}
	if dropLast && len(a.y) > before {
		// [IYE19] adult.py: np.array(list_set[:-2]) drops the blank last line's
		// empty row and the last complete row.
		n := len(a.y) - 1
		a.y, a.codes, a.cont = a.y[:n], a.codes[:n*len(a.cats)], a.cont[:n*len(adultContinuous)]
	}
	return nil
}

func hasQuestionMark(fields [][]byte) bool {
	for _, f := range fields {
		if len(f) == 1 && f[0] == '?' {
			return true
		}
	}
	return false
}

// dataset builds X: one-hot blocks (sorted values), then the continuous
// columns divided by their maximum over the kept rows ([IYE19] adult.py:
// col = col/col.max()).
func (a *adultRows) dataset() *Dataset {
	n, nc := len(a.y), len(adultContinuous)
	var names []string
	offsets := make([]int, len(a.cats))
	ranks := make([][]int, len(a.cats))
	for k, c := range a.cats {
		offsets[k] = len(names)
		var cn []string
		cn, ranks[k] = c.columns()
		names = append(names, cn...)
	}
	base := len(names)
	for _, j := range adultContinuous {
		names = append(names, adultColumns[j])
	}
	d := len(names)
	maxes := make([]float64, nc)
	for i := 0; i < n; i++ {
		for j := 0; j < nc; j++ {
			maxes[j] = max(maxes[j], a.cont[i*nc+j])
		}
	}
	x := make([]float64, n*d)
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		for k := range a.cats {
			row[offsets[k]+ranks[k][a.codes[i*len(a.cats)+k]]] = 1
		}
		for j := 0; j < nc; j++ {
			if maxes[j] != 0 {
				row[base+j] = a.cont[i*nc+j] / maxes[j]
			}
		}
	}
	return newDataset("adult", Binary, n, d, x, a.y, names)
}
