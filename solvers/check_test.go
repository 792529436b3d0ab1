package solvers

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCheckFiniteMatrix: checkFiniteMatrix names the first row and column
// holding a NaN or ±Inf, also when the row's other entries would cancel or
// overflow its sum; accepts rows of huge finite entries whose sum overflows;
// and ignores entries beyond the columns of a strided view.
func TestCheckFiniteMatrix(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		rows int
		cols int
		data []float64 // rows × (cols+1): the last column is outside the view
		want string    // "" for no error
	}{
		{"finite", 2, 3, []float64{1, 2, 3, nan, -4, 5, 6, inf}, ""},
		{"overflowing sum", 2, 2, []float64{1e308, 1e308, nan, -1e308, -1e308, inf}, ""},
		{"NaN", 2, 3, []float64{1, 2, 3, 0, 4, nan, 6, 0}, "X[1,1] = NaN"},
		{"+Inf", 2, 3, []float64{1, 2, inf, 0, 4, 5, 6, 0}, "X[0,2] = +Inf"},
		{"-Inf", 2, 3, []float64{1, 2, 3, 0, -inf, 5, 6, 0}, "X[1,0] = -Inf"},
		{"Inf and -Inf", 1, 3, []float64{inf, -inf, 1, 0}, "X[0,0] = +Inf"},
		{"Inf among huge", 1, 3, []float64{-1e308, -1e308, inf, 0}, "X[0,2] = +Inf"},
		{"first of two", 2, 2, []float64{0, 0, 0, nan, inf, 0}, "X[1,0] = NaN"},
	} {
		x := mat.NewDense(tc.rows, tc.cols+1, tc.data).Slice(0, tc.rows, 0, tc.cols)
		err := checkFiniteMatrix("X", x.(*mat.Dense))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}
