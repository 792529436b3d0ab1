package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

const uciCrime = "https://archive.ics.uci.edu/ml/machine-learning-databases/communities/"
const crimeMirror = "https://raw.githubusercontent.com/HanaSturlan/Communities-and-Crime-Data-Set/109972458a21f35e4973bd559cde88ca750a8d85/"

func init() {
	Register(Info{
		Name:  "crime",
		Title: "Communities and Crime (UCI)",
		Description: "communities.data with the column names of communities.names and GaussMix's read_crimes (gaussmix.md §6.2): " +
			"drop state, county, community, fold, communityname; fill OtherPerCap's missing value with its mean; drop every " +
			"other column with a missing value (the 22 police columns); target ViolentCrimesPerPop; remove the sensitive " +
			"attribute racepctblack from the features; z-score every feature with its mean and sample sd (ddof = 1) over all " +
			"1,994 rows; then keep the rows with racepctblack ≥ 0.1 (822 × 99), in file order." + lss25Split,
		Task:    Regression,
		Papers:  []string{"LSS+25 Fig. 2 (Communities & Crime panel)"},
		License: "CC BY 4.0 (UCI)",
		Source:  "Redmond & Baveja 2002, UCI Communities and Crime",
		Rows:    822, Cols: 99,
		DataDependent: []string{
			"features z-scored with their mean and sd over all 1,994 rows, test rows included",
			"OtherPerCap's missing value filled with its mean over all rows",
			"columns dropped for having a missing value in some row",
		},
		Files: []File{
			{Path: "communities_crime/communities.data", URLs: []string{uciCrime + "communities.data", crimeMirror + "communities.data"},
				SHA256: "09e0b5c07eae24c1efab19b2edee05e160e7f5743b6f31e31eec3d73624da2ea"},
			{Path: "communities_crime/communities.names", URLs: []string{uciCrime + "communities.names", crimeMirror + "communities.names"},
				SHA256: "d4c5560c798d2c723d4455cdea7c87be59a10327dee20ef175a17eaea1445827"},
		},
	}, loadCrime, NoParams{})
}

// crimeColumns are the columns read_crimes names.
var crimeColumns = []string{"state", "county", "community", "communityname", "fold", "OtherPerCap", "racepctblack", "ViolentCrimesPerPop"}

// crimeThreshold is GaussMix's env_partition: rows with racepctblack ≥ 0.1
// (Code_LinearRegression.py: read_crimes(env_partition=0.1)).
const crimeThreshold = 0.1

func loadCrime(dir string, _ NoParams) (*Loaded, error) {
	const dataRel, namesRel = "communities_crime/communities.data", "communities_crime/communities.names"
	if err := requireFiles("crime", dir, dataRel, namesRel); err != nil {
		return nil, err
	}
	names, err := readAttributeNames(dir, namesRel)
	if err != nil {
		return nil, err
	}
	t, err := readCrimeTable(dir, dataRel, names)
	if err != nil {
		return nil, err
	}
	col := func(name string) int {
		j, ok := t.Column(name)
		if !ok {
			panic("datasets: crime column " + name + " missing after readAttributeNames checked it")
		}
		return j
	}
	// Fill OtherPerCap with the mean of its present values.
	o := col("OtherPerCap")
	var sum float64
	var cnt int
	for i := 0; i < t.Rows; i++ {
		if v := t.Data[i*t.Cols+o]; !math.IsNaN(v) {
			sum, cnt = sum+v, cnt+1
		}
	}
	for i := 0; i < t.Rows; i++ {
		if math.IsNaN(t.Data[i*t.Cols+o]) {
			t.Data[i*t.Cols+o] = sum / float64(cnt)
		}
	}
	drop := []int{col("state"), col("county"), col("community"), col("fold"), col("communityname"),
		col("ViolentCrimesPerPop"), col("racepctblack")}
	var features []int
	for j := 0; j < t.Cols; j++ {
		if contains(drop, j) {
			continue
		}
		hasNaN := false
		for i := 0; i < t.Rows && !hasNaN; i++ {
			hasNaN = math.IsNaN(t.Data[i*t.Cols+j])
		}
		if !hasNaN {
			features = append(features, j)
		}
	}
	all, err := selectColumns("crime", t, features, col("ViolentCrimesPerPop"), nil)
	if err != nil {
		return nil, err
	}
	mean, sd := columnMoments(all, 1) // pandas Series.std(): ddof = 1
	standardize(all, mean, sd)
	z := col("racepctblack")
	var keep []int
	for i := 0; i < t.Rows; i++ {
		if t.Data[i*t.Cols+z] >= crimeThreshold {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, t.errorf("crime", "no row with racepctblack ≥ %v", crimeThreshold)
	}
	return &Loaded{All: all.Subset(keep)}, nil
}

// readAttributeNames returns the names of the "@attribute NAME TYPE" lines.
func readAttributeNames(dir, rel string) ([]string, error) {
	f, err := openData("crime", dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) >= 2 && string(fields[0]) == "@attribute" {
			names = append(names, string(fields[1]))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset crime: %w", &FileError{Path: f.Path, Err: readErr(err)})
	}
	if len(names) != 128 {
		return nil, fmt.Errorf("dataset crime: %w", &FileError{Path: f.Path, Err: fmt.Errorf("%d @attribute lines, want 128", len(names))})
	}
	for _, want := range crimeColumns {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			return nil, fmt.Errorf("dataset crime: %w", &FileError{Path: f.Path, Err: fmt.Errorf("no @attribute %s", want)})
		}
	}
	return names, nil
}

// readCrimeTable reads communities.data: "?" is missing (NaN) and the string
// column communityname is read as NaN (it is dropped).
func readCrimeTable(dir, rel string, names []string) (*Table, error) {
	f, err := openData("crime", dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Table{Path: f.Path, Names: names, Cols: len(names)}
	rec := newRecords(f, f.Path, ',')
	for {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dataset crime: %w", err)
		}
		if len(fields) != t.Cols {
			return nil, fmt.Errorf("dataset crime: %w", rec.errorf("", "%d fields, want %d", len(fields), t.Cols))
		}
		for j, c := range fields {
			v := math.NaN()
			if names[j] != "communityname" && !(len(c) == 1 && c[0] == '?') {
				if v, err = parseNumber(c); err != nil {
					return nil, fmt.Errorf("dataset crime: %w", rec.errorf(names[j], "%v", err))
				}
			}
			t.Data = append(t.Data, v)
		}
		t.Rows++
	}
	if t.Rows == 0 {
		return nil, fmt.Errorf("dataset crime: %w", &FileError{Path: f.Path, Err: errors.New("no data rows")})
	}
	return t, nil
}
