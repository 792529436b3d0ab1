package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// gaussMixRaw is the GaussMix repository's datasets folder at the commit the
// shared copies come from (MANIFEST §3).
const gaussMixRaw = "https://raw.githubusercontent.com/omrilev1/GaussMix/746a96bb690123d315fff2ce8d570071359d9560/datasets/"

// gaussMixFile is a registered file of the GaussMix datasets folder.
func gaussMixFile(name, sha string) File {
	return File{Path: "gaussmix/" + name, URLs: []string{gaussMixRaw + name}, SHA256: sha}
}

// PresetParams are the params of datasets whose authors' code differs from
// the paper-faithful loading.
type PresetParams struct {
	Preset string `toml:"preset"` // "paper" (default, "") or "code"
}

// Validate implements Params.
func (p PresetParams) Validate() error { return checkPreset(p.Preset) }

const lss25Split = " The paper's random permutation + first 80% train, y / max|y_train| and X / max train row norm " +
	"are the runner's split (test = 0.2) and scaling (x = \"max-row-norm\", y = \"max-abs\")."

func init() {
	Register(Info{
		Name:        "boston",
		Title:       "Boston housing",
		Description: "housing.txt (whitespace-separated, 506 × 14); target MEDV (last column), the 13 other columns as features, no standardisation ([LSS+25] GetDataset 'housing')." + lss25Split,
		Task:        Regression, Papers: []string{"LSS+25 Fig. 4(c)"},
		License: "StatLib / UCI; no explicit license", Source: "Harrison & Rubinfeld 1978 (StatLib boston)",
		Rows: 506, Cols: 13,
		Files: []File{gaussMixFile("housing.txt", "baadf72995725d76efe787b664e1f083388c79ba21ef9a7990d87f774184735a")},
	}, func(dir string, _ NoParams) (*Loaded, error) {
		t, err := readTable("boston", dir, "gaussmix/housing.txt", CSVOptions{Sep: ' '})
		if err != nil {
			return nil, err
		}
		d, err := targetLast("boston", t, []string{"CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"})
		return &Loaded{All: d}, err
	}, NoParams{})

	Register(Info{
		Name:        "wine",
		Title:       "Wine Quality (red)",
		Description: "winequality-red.csv (comma-separated copy with a header); exact duplicate rows dropped, keeping the first (1,599 → 1,359 rows, \"1359 measurements of 11-dimensional features\" [LSS+25]); target quality (3..8)." + lss25Split,
		Task:        Regression, Papers: []string{"LSS+25 Fig. 4(a)"},
		License: "CC BY 4.0 (UCI)", Source: "Cortez et al. 2009, UCI Wine Quality (id 186)",
		Rows: 1359, Cols: 11,
		DataDependent: []string{
			"duplicate rows dropped (each row compared with the others)"},
		Files: []File{gaussMixFile("winequality-red.csv", "d6a0d9bd24806944818795f22500c46cb6424cbff517aacda36595d3ed9b2daa")},
	}, loadWine, NoParams{})

	Register(Info{
		Name:  "bike",
		Title: "Bike Sharing (Kaggle bike-sharing-demand train.csv)",
		Description: "bike_train.csv with the Kaggle feature engineering of [LSS+25] GetDataset 'bike': season and weather one-hot " +
			"(season_1..4, weather_1..4), hour, day of week (Monday = 0), month and year (2011 → 0, 2012 → 1) from datetime; " +
			"datetime, casual and registered dropped; target count. Features: holiday, workingday, temp, atemp, humidity, " +
			"windspeed, season_1..4, weather_1..4, hour, day, month, year." + lss25Split,
		Task: Regression, Papers: []string{"LSS+25 Fig. 4(d)"},
		License: "CC BY 4.0 (UCI Bike Sharing; Kaggle competition file)", Source: "Fanaee-T & Gama 2013; Kaggle bike-sharing-demand",
		Rows: 10886, Cols: 18,
		DataDependent: []string{
			"one-hot columns for the season and weather values present in the data"},
		Files: []File{gaussMixFile("bike_train.csv", "0cf70c35eeb6405a40cc9e124854e2da901fa88fe7374a75d141e7401bf4c857")},
	}, loadBike, NoParams{})

	Register(Info{
		Name:  "gas",
		Title: "Gas sensor data (GaussMix GasDataset.csv)",
		Description: "GasDataset.csv (no header, 2,565 × 129); duplicate rows dropped; target last column, the 128 others features, no standardisation. " +
			"preset = \"code\" reproduces the authors' pandas read_csv header bug, which loses the first data row (2,564 rows)." + lss25Split,
		Task: Regression, Papers: []string{"LSS+25 code only (no paper figure)"},
		License: "UCI data (CC BY 4.0); the GaussMix repository has no license", Source: "GaussMix repository datasets/GasDataset.csv",
		Rows: 2565, Cols: 128,
		DataDependent: []string{
			"duplicate rows dropped (each row compared with the others)"},
		Files: []File{gaussMixFile("GasDataset.csv", "4efddd8d2fa99e826a032c696894c9d50a38e60836d32434b66d1386de73873e")},
	}, func(dir string, p PresetParams) (*Loaded, error) {
		t, err := readHeaderless("gas", dir, "gaussmix/GasDataset.csv", ',', p.Preset)
		if err != nil {
			return nil, err
		}
		d, err := targetLast("gas", dedupRows(t), nil)
		return &Loaded{All: d}, err
	}, PresetParams{})

	Register(Info{
		Name:  "tamielectric",
		Title: "Tamil Nadu electricity (GaussMix tamielectric.csv)",
		Description: "tamielectric.csv (no header, 45,781 × 4); target last column; the 3 features standardised (mean, population sd). " +
			"Deviation: GaussMix standardises with training-split statistics; this loader uses all rows, a O(1/√n) difference. " +
			"preset = \"code\" loses the first data row as the authors' pandas header bug does (45,780 rows)." + lss25Split,
		Task: Regression, Papers: []string{"LSS+25 code only (no paper figure)"},
		License: "UCI data (CC BY 4.0); the GaussMix repository has no license", Source: "GaussMix repository datasets/tamielectric.csv",
		Rows: 45781, Cols: 3,
		DataDependent: []string{
			"features standardised with the mean and sd over all rows, test rows included"},
		Files: []File{gaussMixFile("tamielectric.csv", "0681055d07b7e56e6d5876e589e8772fc1e20492a7c2c880add7dcd5cc9c27d7")},
	}, func(dir string, p PresetParams) (*Loaded, error) {
		t, err := readHeaderless("tamielectric", dir, "gaussmix/tamielectric.csv", ',', p.Preset)
		if err != nil {
			return nil, err
		}
		d, err := targetLast("tamielectric", t, nil)
		if err != nil {
			return nil, err
		}
		mean, sd := columnMoments(d, 0)
		standardize(d, mean, sd)
		return &Loaded{All: d}, nil
	}, PresetParams{})

	Register(Info{
		Name:  "breastcancer",
		Title: "Wisconsin Prognostic Breast Cancer (WPBC, 194 complete rows)",
		Description: "breastcancer.txt (194 × 35); target column 3 (time); features columns 2 and 4..34 (outcome, 30 cell features, tumour size), " +
			"column 35 (lymph-node status) dropped as GaussMix does. preset = \"code\" also keeps the ID column 1 as a feature, as the authors' code does " +
			"(reference-code.md §8 item 4)." + lss25Split,
		Task: Regression, Papers: []string{"LSS+25 code only (no paper figure)"},
		License: "CC BY 4.0 (UCI)", Source: "Street, Wolberg & Mangasarian, UCI Breast Cancer Wisconsin (Prognostic)",
		Rows: 194, Cols: 32,
		Files: []File{gaussMixFile("breastcancer.txt", "24d81bacfba23bdde583458e3eace7c79409ca1f89b56db0279c7fa92ee29ecd")},
	}, loadBreastCancer, PresetParams{})
}

// targetLast makes a regression dataset whose target is t's last column.
func targetLast(name string, t *Table, features []string) (*Dataset, error) {
	return selectColumns(name, t, allBut(t.Cols, t.Cols-1), t.Cols-1, features)
}

// allBut returns 0..n-1 without the listed columns.
func allBut(n int, drop ...int) []int {
	var out []int
	for j := 0; j < n; j++ {
		if !contains(drop, j) {
			out = append(out, j)
		}
	}
	return out
}

// selectColumns makes a regression dataset from columns cols of t (in that
// order) and target column target.
// An empty cols, or features not matching cols, is an error about the file.
func selectColumns(name string, t *Table, cols []int, target int, features []string) (*Dataset, error) {
	d := len(cols)
	if d == 0 {
		return nil, t.errorf(name, "%d column(s): no feature column besides the target", t.Cols)
	}
	if features != nil && len(features) != d {
		return nil, t.errorf(name, "%d columns, want %d", t.Cols, len(features)+1)
	}
	x := make([]float64, t.Rows*d)
	y := make([]float64, t.Rows)
	for i := 0; i < t.Rows; i++ {
		src := t.Data[i*t.Cols : (i+1)*t.Cols]
		for k, j := range cols {
			x[i*d+k] = src[j]
		}
		y[i] = src[target]
	}
	if features == nil && t.Names != nil {
		for _, j := range cols {
			features = append(features, t.Names[j])
		}
	}
	return newDataset(name, Regression, t.Rows, d, x, y, features), nil
}

// readHeaderless reads a headerless numeric file; preset "code" drops the
// first data row, as pandas' read_csv with its default header=0 does in the
// authors' code (reference-code.md §8 item 3).
func readHeaderless(name, dir, rel string, sep byte, preset string) (*Table, error) {
	t, err := readTable(name, dir, rel, CSVOptions{Sep: sep})
	if err != nil {
		return nil, err
	}
	if preset == "code" {
		if t.Rows < 2 {
			return nil, t.errorf(name, "preset \"code\" drops the first row, and there is only one")
		}
		t.Data = t.Data[t.Cols:]
		t.Rows--
	}
	return t, nil
}

// dedupRows drops rows equal (bit for bit) to an earlier row, keeping the
// first: pandas' drop_duplicates() on numeric columns.
func dedupRows(t *Table) *Table {
	seen := make(map[string]bool, t.Rows)
	out := &Table{Path: t.Path, Names: t.Names, Cols: t.Cols}
	key := make([]byte, 8*t.Cols)
	for i := 0; i < t.Rows; i++ {
		row := t.Data[i*t.Cols : (i+1)*t.Cols]
		for j, v := range row {
			if v == 0 {
				v = 0 // -0 and +0 are equal for pandas
			}
			bits := math.Float64bits(v)
			for b := 0; b < 8; b++ {
				key[8*j+b] = byte(bits >> (8 * b))
			}
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		out.Data = append(out.Data, row...)
		out.Rows++
	}
	return out
}

func loadWine(dir string, _ NoParams) (*Loaded, error) {
	t, err := readTable("wine", dir, "gaussmix/winequality-red.csv", CSVOptions{Header: true})
	if err != nil {
		return nil, err
	}
	q, ok := t.Column("quality")
	if !ok {
		return nil, t.errorf("wine", "no column \"quality\" in the header")
	}
	t = dedupRows(t)
	d, err := selectColumns("wine", t, allBut(t.Cols, q), q, nil)
	return &Loaded{All: d}, err
}

func loadBreastCancer(dir string, p PresetParams) (*Loaded, error) {
	t, err := readTable("breastcancer", dir, "gaussmix/breastcancer.txt", CSVOptions{})
	if err != nil {
		return nil, err
	}
	if t.Cols != 35 {
		return nil, t.errorf("breastcancer", "%d columns, want 35", t.Cols)
	}
	// GaussMix: X = data[:, [0, 1] + list(range(3, n-1))], y = data[:, 2] (0-based).
	cols := append([]int{0, 1}, allBut(34, 0, 1, 2)...)
	if p.Preset != "code" {
		cols = cols[1:] // the ID column carries no information about the target
	}
	d, err := selectColumns("breastcancer", t, cols, 2, nil)
	return &Loaded{All: d}, err
}

// bikeColumns is the Kaggle train.csv header.
var bikeColumns = []string{"datetime", "season", "holiday", "workingday", "weather", "temp", "atemp",
	"humidity", "windspeed", "casual", "registered", "count"}

func loadBike(dir string, _ NoParams) (*Loaded, error) {
	f, err := openData("bike", dir, "gaussmix/bike_train.csv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fail := func(err error) (*Loaded, error) { return nil, fmt.Errorf("dataset bike: %w", err) }
	rec := newRecords(f, f.Path, ',')
	head, err := rec.next()
	if err != nil {
		return fail(&FileError{Path: f.Path, Err: errors.New("no header line")})
	}
	for j, h := range head {
		if j >= len(bikeColumns) || string(h) != bikeColumns[j] {
			return fail(rec.errorf("", "header %q, want %v", head, bikeColumns))
		}
	}
	if len(head) != len(bikeColumns) {
		return fail(rec.errorf("", "header has %d columns, want %d", len(head), len(bikeColumns)))
	}
	season, weather := newCategorical("season"), newCategorical("weather")
	type row struct {
		vals            [6]float64 // holiday, workingday, temp, atemp, humidity, windspeed
		season, weather int
		hour, day       float64
		month, year     float64
		count           float64
	}
	var rows []row
	for {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if len(fields) != len(bikeColumns) {
			return fail(rec.errorf("", "%d fields, want %d", len(fields), len(bikeColumns)))
		}
		var r row
		ts, err := time.Parse(time.DateTime, string(fields[0]))
		if err != nil {
			return fail(rec.errorf("datetime", "%q is not a \"YYYY-MM-DD hh:mm:ss\" time", fields[0]))
		}
		if ts.Year() != 2011 && ts.Year() != 2012 {
			return fail(rec.errorf("datetime", "year %d: the Kaggle file covers 2011 and 2012", ts.Year()))
		}
		// pandas dayofweek: Monday = 0 ... Sunday = 6; Go: Sunday = 0.
		r.hour, r.day, r.month, r.year = float64(ts.Hour()), float64((int(ts.Weekday())+6)%7), float64(ts.Month()), float64(ts.Year()-2011)
		r.season, r.weather = season.code(fields[1]), weather.code(fields[4])
		for k, j := range []int{2, 3, 5, 6, 7, 8} {
			if r.vals[k], err = parseNumber(fields[j]); err != nil {
				return fail(rec.errorf(bikeColumns[j], "%v", err))
			}
		}
		for _, j := range []int{1, 4, 9, 10} { // categorical and dropped columns must still be numbers
			if _, err := parseNumber(fields[j]); err != nil {
				return fail(rec.errorf(bikeColumns[j], "%v", err))
			}
		}
		if r.count, err = parseNumber(fields[11]); err != nil {
			return fail(rec.errorf("count", "%v", err))
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return fail(&FileError{Path: f.Path, Err: errors.New("no data rows")})
	}
	sNames, sRank := season.columns()
	wNames, wRank := weather.columns()
	names := append([]string{"holiday", "workingday", "temp", "atemp", "humidity", "windspeed"}, sNames...)
	names = append(names, wNames...)
	names = append(names, "hour", "day", "month", "year")
	d := len(names)
	x := make([]float64, len(rows)*d)
	y := make([]float64, len(rows))
	for i, r := range rows {
		out := x[i*d : (i+1)*d]
		copy(out, r.vals[:])
		out[6+sRank[r.season]] = 1
		out[6+len(sNames)+wRank[r.weather]] = 1
		copy(out[d-4:], []float64{r.hour, r.day, r.month, r.year})
		y[i] = r.count
	}
	return &Loaded{All: newDataset("bike", Regression, len(rows), d, x, y, names)}, nil
}
