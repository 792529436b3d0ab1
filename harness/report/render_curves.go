package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
)

// CurvesFile is the table of evaluated analytic curves in a result directory.
const CurvesFile = "curves.csv"

// curvesCSV lists every evaluated point: curve, panel, x name, x, y and the
// error of undefined points.
func (v *view) curvesCSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"panel", "curve", "function", "x_name", "x", "y", "error"})
	for i, c := range v.spec.Curves {
		for _, p := range v.curves[i] {
			errText, y := "", strconv.FormatFloat(p.Y, 'g', -1, 64)
			if p.Err != nil {
				errText, y = p.Err.Error(), ""
			}
			w.Write([]string{c.Panel, c.Label, c.Name, c.X, strconv.FormatFloat(p.X, 'g', -1, 64), y, errText})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// panels returns the curve panels in first-appearance order, filtered.
func (v *view) panels(want []string) []string {
	var out []string
	for _, c := range v.spec.Curves {
		if !slices.Contains(out, c.Panel) && (len(want) == 0 || slices.Contains(want, c.Panel)) {
			out = append(out, c.Panel)
		}
	}
	if len(want) > 0 {
		// The figure's own order.
		sort.SliceStable(out, func(i, j int) bool { return slices.Index(want, out[i]) < slices.Index(want, out[j]) })
	}
	return out
}

// curveCaption is the caption of curves drawn in panels (and among
// labels, when given): no line, and as notes each part of each curve's
// source (its registry entry's reference, parts split at "; " outside
// parentheses) and its
// fixed parameters, each phrase once, naming the curves (and panels) it
// concerns (phrases.texts), then the points left out and extra.
func (v *view) curveCaption(labels, panels []string, extra string, undefined int) plotting.Caption {
	var p phrases
	for _, c := range v.spec.Curves {
		if len(labels) > 0 && !slices.Contains(labels, c.Label) || !slices.Contains(panels, c.Panel) {
			continue
		}
		for _, part := range splitTop(curveRef(c.Name), "; ") {
			p.add(part, c.Panel, c.Label)
		}
		var fixed []string
		for _, k := range c.Params.Keys {
			if k != c.X {
				fixed = append(fixed, k+" = "+spec.FormatValue(c.Params.Values[k].List[0]))
			}
		}
		if len(fixed) > 0 {
			p.add(strings.Join(fixed, ", "), c.Panel, c.Label)
		}
	}
	notes := p.texts()
	if undefined > 0 {
		notes = append(notes, fmt.Sprintf("%d points outside a curve's domain are not drawn (see curves.csv)", undefined))
	}
	return plotting.Caption{Notes: append(notes, extra)}
}

// evalCurves evaluates every [[curve]] block of the spec.
func evalCurves(s *spec.Spec) [][]curves.Point {
	sweeps := make([]curves.Sweep, len(s.Curves))
	for i, c := range s.Curves {
		fixed := curves.CurveParams{}
		for _, k := range c.Params.Keys {
			v, _ := c.Params.Values[k].Floats()
			fixed[k] = v[0]
		}
		xs, _ := c.Params.Values[c.X].Floats()
		sweeps[i] = curves.Sweep{Name: c.Name, Fixed: fixed, X: c.X, Xs: xs}
	}
	return curves.Eval(sweeps)
}

// curveRef is the paper and theorem of a registered curve.
func curveRef(name string) string {
	info, _ := curves.Lookup(name)
	return info.Ref
}
