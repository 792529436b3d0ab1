package experiments

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/dplab/dplab/mechanisms/accounting"
)

// CurveFunc evaluates an analytic curve (an ε, a δ, an RDP value, a noise
// level...) at one point of its parameters. An error marks the point as
// undefined (e.g. outside a bound's domain); it is drawn as a gap and listed
// in curves.csv.
type CurveFunc func(p CurveParams) (float64, error)

// CurveParams are a curve point's parameters.
type CurveParams map[string]float64

// Get returns the parameter key; the curve's Info lists required keys, so
// validation has already checked it exists.
func (p CurveParams) Get(key string) float64 { return p[key] }

// CurveInfo describes a registered curve function.
type CurveInfo struct {
	Name   string   // registry name, lowercase-hyphen
	Title  string   // what it computes, e.g. "ε(δ) of GaussMix, Lemma 1 + Prop. 1"
	Ref    string   // paper and theorem
	Params []string // required parameter names
	// Optional parameter names (with defaults documented in Title/Ref).
	Optional []string
}

type curveEntry struct {
	info CurveInfo
	fn   CurveFunc
}

var curveRegistry = map[string]curveEntry{}

// RegisterCurve adds an analytic curve function; call it from init. A
// duplicate name panics.
func RegisterCurve(info CurveInfo, fn CurveFunc) {
	if !nameOK(info.Name) {
		panic("experiments: malformed curve name " + info.Name)
	}
	if _, dup := curveRegistry[info.Name]; dup {
		panic("experiments: duplicate curve " + info.Name)
	}
	curveRegistry[info.Name] = curveEntry{info: info, fn: fn}
}

// Curves lists the registered curve functions, sorted by name.
func Curves() []CurveInfo {
	var out []CurveInfo
	for _, n := range sortedKeys(curveRegistry) {
		out = append(out, curveRegistry[n].info)
	}
	return out
}

func nameOK(s string) bool { return s != "" && specNameRE.MatchString(s) && !strings.Contains(s, "_") }

// CurveSpec is one [[curve]] block: a registered function swept over one of
// its parameters.
type CurveSpec struct {
	Name   string     `toml:"name"`  // registry name
	Label  string     `toml:"label"` // legend entry; default the registry title
	Panel  string     `toml:"panel"` // panel title; curves with the same panel share axes
	X      string     `toml:"x"`     // the swept parameter: the x axis
	Params ParamTable `toml:"params"`
	Dashed bool       `toml:"dashed"`
}

func (s *Spec) validateCurve(i int, labels map[string]bool) error {
	c := &s.Curves[i]
	e, ok := curveRegistry[c.Name]
	if !ok {
		return s.errIn("curve", i, "name", "unknown curve %q; known curves: %s", c.Name, strings.Join(sortedKeys(curveRegistry), ", "))
	}
	if c.Label == "" {
		c.Label = e.info.Title
	}
	id := c.Panel + "\x00" + c.Label
	if labels[id] {
		return s.errIn("curve", i, "label", "duplicate curve label %q in panel %q", c.Label, c.Panel)
	}
	labels[id] = true
	vals, ok := c.Params.Values[c.X]
	if c.X == "" || !ok || !vals.Sweep {
		return s.errIn("curve", i, "x", "x = %q must name a params key given as a list or a generator", c.X)
	}
	known := append(append([]string{}, e.info.Params...), e.info.Optional...)
	for _, k := range c.Params.Keys {
		if !contains(known, k) {
			return s.errIn("curve", i, "params."+k, "unknown key for curve %q (params: %s)", c.Name, strings.Join(known, ", "))
		}
		if _, err := c.Params.Values[k].Floats(); err != nil {
			return s.errIn("curve", i, "params."+k, "curve params must be numbers: %v", err)
		}
		if k != c.X && c.Params.Values[k].Sweep && len(c.Params.Values[k].List) > 1 {
			return s.errIn("curve", i, "params."+k, "only x (%q) may be swept; use one [[curve]] per value of %q", c.X, k)
		}
	}
	for _, k := range e.info.Params {
		if _, ok := c.Params.Values[k]; !ok {
			return s.errIn("curve", i, "params", "curve %q needs param %q", c.Name, k)
		}
	}
	return nil
}

// CurvePoint is one evaluated point.
type CurvePoint struct {
	X, Y float64
	Err  error
}

// evalCurves evaluates every curve of the spec, points in parallel.
func evalCurves(s *Spec) [][]CurvePoint {
	out := make([][]CurvePoint, len(s.Curves))
	var g errgroup.Group
	g.SetLimit(runtime.NumCPU())
	var mu sync.Mutex
	for i := range s.Curves {
		c := s.Curves[i]
		e := curveRegistry[c.Name]
		xs, _ := c.Params.Values[c.X].Floats()
		out[i] = make([]CurvePoint, len(xs))
		for j, x := range xs {
			g.Go(func() error {
				p := CurveParams{}
				for _, k := range c.Params.Keys {
					v, _ := c.Params.Values[k].Floats()
					p[k] = v[0]
				}
				p[c.X] = x
				y, err := e.fn(p)
				if err == nil && math.IsNaN(y) {
					err = fmt.Errorf("curve %s returned NaN", c.Name)
				}
				mu.Lock()
				out[i][j] = CurvePoint{X: x, Y: y, Err: err}
				mu.Unlock()
				return nil
			})
		}
	}
	g.Wait()
	for i := range out {
		sort.SliceStable(out[i], func(a, b int) bool { return out[i][a].X < out[i][b].X })
	}
	return out
}

func init() {
	// Two general curves; the paper-specific ones live in curves_<paper>.go.
	RegisterCurve(CurveInfo{
		Name: "gaussian-rdp", Title: "Gaussian RDP α·Δ²/(2σ²)", Ref: "Mironov 2017, Prop. 7",
		Params: []string{"alpha", "sigma"}, Optional: []string{"sensitivity"},
	}, func(p CurveParams) (float64, error) {
		d := p.Get("sensitivity")
		if d == 0 {
			d = 1
		}
		return p.Get("alpha") * d * d / (2 * p.Get("sigma") * p.Get("sigma")), nil
	})
	RegisterCurve(CurveInfo{
		Name: "gaussian-epsilon", Title: "ε(δ) of the Gaussian mechanism", Ref: "RDP accountant, dp_accounting orders refined over continuous α",
		Params: []string{"sigma", "delta"}, Optional: []string{"sensitivity", "count"},
	}, func(p CurveParams) (float64, error) {
		d, n := p.Get("sensitivity"), int(p.Get("count"))
		if d == 0 {
			d = 1
		}
		var e accounting.Event = accounting.Gaussian{Sigma: p.Get("sigma"), Sensitivity: d}
		if n > 1 {
			e = accounting.SelfComposed{Event: e, Count: n}
		}
		g, err := accounting.Config{}.Epsilon(e, p.Get("delta"))
		return g.Epsilon, err
	})
}
