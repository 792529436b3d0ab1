package datasets

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Task is what a dataset's targets are.
type Task int

const (
	// Regression targets are real numbers.
	Regression Task = iota
	// Binary labels are 0 or 1.
	Binary
)

// String returns "regression" or "binary".
func (t Task) String() string {
	switch t {
	case Regression:
		return "regression"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// Dataset is a design matrix with its targets. Datasets handed to mechanisms are
// read-only: a mechanism that needs to transform the data works on a copy.
type Dataset struct {
	Name     string
	Task     Task
	X        *mat.Dense // n × d
	Y        []float64  // real targets, or labels in {0, 1} for Binary
	Features []string   // optional column names, len d when set
}

// Rows returns n, the number of examples.
func (d *Dataset) Rows() int { r, _ := d.X.Dims(); return r }

// Cols returns d, the number of features.
func (d *Dataset) Cols() int { _, c := d.X.Dims(); return c }
