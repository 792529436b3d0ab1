package curves

import (
	"fmt"
	"math"
	"regexp"
	"runtime"
	"sort"
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
		panic("curves: malformed curve name " + info.Name)
	}
	if _, dup := curveRegistry[info.Name]; dup {
		panic("curves: duplicate curve " + info.Name)
	}
	curveRegistry[info.Name] = curveEntry{info: info, fn: fn}
}

// Names returns the registered curve names, sorted.
func Names() []string {
	names := make([]string, 0, len(curveRegistry))
	for n := range curveRegistry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the registered curve called name.
func Lookup(name string) (CurveInfo, bool) {
	e, ok := curveRegistry[name]
	return e.info, ok
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

func nameOK(s string) bool { return nameRE.MatchString(s) }

// Point is one evaluated point.
type Point struct {
	X, Y float64
	Err  error
}

// Sweep is a curve to evaluate: a registered function, its fixed
// parameters, and the parameter swept over Xs.
type Sweep struct {
	Name  string
	Fixed CurveParams
	X     string
	Xs    []float64
}

// Eval evaluates every sweep, all points in parallel; each sweep's points
// come back sorted by X. An unknown curve name panics (validation checks
// names first).
func Eval(sweeps []Sweep) [][]Point {
	out := make([][]Point, len(sweeps))
	var g errgroup.Group
	g.SetLimit(runtime.NumCPU())
	var mu sync.Mutex
	for i, c := range sweeps {
		e, ok := curveRegistry[c.Name]
		if !ok {
			panic("curves: unknown curve " + c.Name)
		}
		out[i] = make([]Point, len(c.Xs))
		for j, x := range c.Xs {
			g.Go(func() error {
				p := CurveParams{}
				for k, v := range c.Fixed {
					p[k] = v
				}
				p[c.X] = x
				y, err := e.fn(p)
				if err == nil && math.IsNaN(y) {
					err = fmt.Errorf("curve %s returned NaN", c.Name)
				}
				mu.Lock()
				out[i][j] = Point{X: x, Y: y, Err: err}
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
