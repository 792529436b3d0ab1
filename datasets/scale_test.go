package datasets

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// rows builds a regression dataset from literal rows.
func rows(y []float64, x ...[]float64) *Dataset {
	var data []float64
	for _, r := range x {
		data = append(data, r...)
	}
	return newDataset("lit", Regression, len(x), len(x[0]), data, y, nil)
}

func TestScalingModesAgainstHandValues(t *testing.T) {
	// Training rows (3,4) and (0,1): norms 5 and 1; columns have means (1.5, 2.5)
	// and population deviations (1.5, 1.5); max |y_train| = 4.
	// The other part's row (6,8) has norm 10, (0,0) is a zero row.
	const tol = 1e-15 // a few exact float operations
	cases := []struct {
		name              string
		s                 Scaling
		wantTrain, wantTe [][]float64
		wantYTrain, wantY []float64
	}{
		{"max-row-norm", Scaling{X: ScaleMaxRowNorm},
			[][]float64{{0.6, 0.8}, {0, 0.2}}, [][]float64{{1.2, 1.6}, {0, 0}}, []float64{-4, 2}, []float64{8}},
		{"max-row-norm bound 2, y max-abs", Scaling{X: ScaleMaxRowNorm, Bound: 2, Y: ScaleMaxAbs},
			[][]float64{{1.2, 1.6}, {0, 0.4}}, [][]float64{{2.4, 3.2}, {0, 0}}, []float64{-1, 0.5}, []float64{2}},
		{"unit-rows", Scaling{X: ScaleUnitRows},
			[][]float64{{0.6, 0.8}, {0, 1}}, [][]float64{{0.6, 0.8}, {0, 0}}, []float64{-4, 2}, []float64{8}},
		{"clip 2", Scaling{X: ScaleClip, Bound: 2},
			[][]float64{{1.2, 1.6}, {0, 1}}, [][]float64{{1.2, 1.6}, {0, 0}}, []float64{-4, 2}, []float64{8}},
		{"standardize", Scaling{X: ScaleStandardize},
			[][]float64{{1, 1}, {-1, -1}}, [][]float64{{3, 11.0 / 3}, {-1, -5.0 / 3}}, []float64{-4, 2}, []float64{8}},
		{"none", Scaling{},
			[][]float64{{3, 4}, {0, 1}}, [][]float64{{6, 8}, {0, 0}}, []float64{-4, 2}, []float64{8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			train := rows([]float64{-4, 2}, []float64{3, 4}, []float64{0, 1})
			test := rows([]float64{8, 8}, []float64{6, 8}, []float64{0, 0})
			if err := tc.s.Apply(train, nil, test); err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.wantTrain {
				for j, w := range want {
					if g := train.X.At(i, j); !scalar.EqualWithinAbs(g, w, tol) {
						t.Errorf("train[%d,%d] = %v, want %v", i, j, g, w)
					}
				}
			}
			for i, want := range tc.wantTe {
				for j, w := range want {
					if g := test.X.At(i, j); !scalar.EqualWithinAbs(g, w, tol) {
						t.Errorf("test[%d,%d] = %v, want %v", i, j, g, w)
					}
				}
			}
			for i, w := range tc.wantYTrain {
				if train.Y[i] != w {
					t.Errorf("y_train[%d] = %v, want %v", i, train.Y[i], w)
				}
			}
			if test.Y[0] != tc.wantY[0] {
				t.Errorf("y_test[0] = %v, want %v", test.Y[0], tc.wantY[0])
			}
		})
	}
}

func TestScalingRejectsBadConfigurations(t *testing.T) {
	bin := rows([]float64{0, 1}, []float64{1}, []float64{2})
	bin.Task = Binary
	cases := []struct {
		name string
		s    Scaling
		d    *Dataset
		want string
	}{
		{"unknown x", Scaling{X: "l2"}, nil, `unknown x mode "l2"`},
		{"unknown y", Scaling{Y: "std"}, nil, `unknown y mode "std"`},
		{"clip without bound", Scaling{X: ScaleClip}, nil, "bound"},
		{"negative bound", Scaling{X: ScaleMaxRowNorm, Bound: -1}, nil, "bound -1"},
		{"bound unused", Scaling{X: ScaleStandardize, Bound: 2}, nil, "bound 2"},
		{"binary y", Scaling{Y: ScaleMaxAbs}, bin, "binary"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.d == nil {
				err = tc.s.Validate()
			} else {
				err = tc.s.Apply(tc.d)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if err := (Scaling{}).Apply(rows([]float64{1}, []float64{1, 2}), rows([]float64{1}, []float64{1})); err == nil {
		t.Error("column mismatch accepted")
	}
}
