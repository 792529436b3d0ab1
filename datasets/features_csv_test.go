package datasets

import (
	"errors"
	"strings"
	"testing"
)

// TestFeaturesCSV loads the user-CSV loader's cases: label last by default,
// by name or by 1-based index, ±1 read as 0/1, a fixed split from
// test_path; and bad input gives errors naming the file and the problem.
func TestFeaturesCSV(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.csv":      "f1,y,f2\n1,1,2\n3,-1,4\n5,0,6\n",
		"b.csv":      "f1,y,f2\n7,1,8\n",
		"bad.csv":    "f1,y,f2\n1,1,3\n\n4,2,6\n",
		"narrow.csv": "f1,y\n1,1\n",
	})
	l, err := loadFrom(dir, "features-csv", `path="a.csv"`, "header=true", `label="y"`)
	if err != nil {
		t.Fatal(err)
	}
	if l.All.Rows() != 3 || l.All.Cols() != 2 || l.All.X.At(1, 1) != 4 || l.All.Y[0] != 1 || l.All.Y[1] != 0 || l.All.Y[2] != 0 {
		t.Errorf("by name: X %v, y %v", l.All.X, l.All.Y)
	}
	if got := strings.Join(l.All.Features, ","); got != "f1,f2" {
		t.Errorf("features %q", got)
	}
	l2, err := loadFrom(dir, "features-csv", `path="a.csv"`, "header=true", `label="2"`)
	if err != nil || !sameData(parts(l), parts(l2)) {
		t.Errorf("by index: %v", err)
	}
	l3, err := loadFrom(dir, "features-csv", `path="a.csv"`, `test_path="b.csv"`, "header=true", `label="y"`)
	if err != nil || l3.Train.Rows() != 3 || l3.Test.Rows() != 1 || l3.All != nil {
		t.Errorf("fixed split: %+v, %v", l3, err)
	}
	for name, kv := range map[string][]string{
		"line 4: column \"y\": label 2": {`path="bad.csv"`, "header=true", `label="y"`},
		"label \"z\"":                   {`path="a.csv"`, "header=true", `label="z"`},
		"columns":                       {`path="a.csv"`, `test_path="narrow.csv"`, "header=true", `label="y"`},
		"path":                          {},
	} {
		_, err := loadFrom(dir, "features-csv", kv...)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	var miss *MissingError
	if _, err := loadFrom(dir, "features-csv", `path="absent.csv"`); !errors.As(err, &miss) {
		t.Errorf("absent file: %v, want a MissingError", err)
	} else {
		// The error says how to point dplab at the file and to check its
		// path; a user file cannot be fetched, so it does not suggest that.
		for _, want := range []string{"absent.csv", "check the path", "--data-dir", "DPLAB_DATA", dir} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("missing-data error does not name %q: %v", want, err)
			}
		}
		if strings.Contains(err.Error(), "fetch") {
			t.Errorf("missing user file: the error suggests fetching it: %v", err)
		}
	}
}

// TestFeaturesCSVRegression: features-csv-regression reads any finite target
// (here 2.5 and −7, which features-csv refuses as labels) as a regression
// task, and bad targets give errors naming the file, the line and the
// column: a non-numeric cell, NaN, an infinite value, a missing column.
func TestFeaturesCSVRegression(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"r.csv":     "f1,y,f2\n1,2.5,2\n3,-7,4\n\n5,0,6\n",
		"text.csv":  "f1,y,f2\n1,2.5,2\n\n3,high,4\n",
		"nan.csv":   "f1,y,f2\n1,NaN,2\n",
		"inf.csv":   "1,2\n3,4\n5,-Inf\n",
		"short.csv": "f1,y,f2\n1,2.5,2\n3,4\n",
	})
	l, err := loadFrom(dir, "features-csv-regression", `path="r.csv"`, "header=true", `label="y"`)
	if err != nil {
		t.Fatal(err)
	}
	if d := l.All; d.Task != Regression || d.Name != "features-csv-regression" || d.Rows() != 3 || d.Cols() != 2 ||
		d.X.At(2, 0) != 5 || d.X.At(2, 1) != 6 || d.Y[0] != 2.5 || d.Y[1] != -7 || d.Y[2] != 0 {
		t.Errorf("regression: task %v, X %v, y %v", d.Task, d.X, d.Y)
	}
	// The same file as a binary task is still refused at its first bad label.
	if _, err := loadFrom(dir, "features-csv", `path="r.csv"`, "header=true", `label="y"`); err == nil ||
		!strings.Contains(err.Error(), `r.csv: line 2: column "y": label 2.5 is not 0/1`) {
		t.Errorf("binary task with a real label: %v", err)
	}
	for file, want := range map[string]string{
		"text.csv":  `text.csv: line 4: column "y": "high" `,
		"nan.csv":   `nan.csv: line 2: column "y": "NaN" is not a finite number`,
		"inf.csv":   `inf.csv: line 3: column #2: "-Inf" is not a finite number`,
		"short.csv": `short.csv: line 3: 2 fields, want 3`,
		"r.csv":     `r.csv: label "z" is neither a column name nor a column index in 1..3`,
	} {
		kv := []string{`path="` + file + `"`, `label="y"`, "header=true"}
		if file == "inf.csv" {
			kv = kv[:1]
		}
		if file == "r.csv" {
			kv[1] = `label="z"`
		}
		_, err := loadFrom(dir, "features-csv-regression", kv...)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "dataset features-csv-regression") {
			t.Errorf("%s: error %v, want it to contain %q", file, err, want)
		}
	}
}
