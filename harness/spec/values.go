package spec

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Values is a list of values given in a spec either literally (a scalar or
// an array) or by a generator table:
//
//	epsilon = 1
//	epsilon = [0.1, 1, 10]
//	epsilon = { linspace = [0.08, 0.5, 10] }   # numpy.linspace(lo, hi, n)
//	epsilon = { logspace = [-1, 1, 5] }        # numpy.logspace: 10^linspace(a, b, n)
type Values struct {
	List []any // int64, float64, string or bool
	// Sweep is true when the spec gave a list or a generator (even of one
	// element), false for a scalar.
	Sweep bool
}

// TOMLType names what Values decodes from, for "dplab kinds"
// (internal/fielddoc.Typed).
func (*Values) TOMLType() string { return "value or array of values" }

// UnmarshalTOML implements toml.Unmarshaler.
func (v *Values) UnmarshalTOML(raw any) error {
	vals, sweep, err := parseValues(raw)
	if err != nil {
		return err
	}
	*v = Values{List: vals, Sweep: sweep}
	return nil
}

func parseValues(raw any) ([]any, bool, error) {
	switch x := raw.(type) {
	case []any:
		if len(x) == 0 {
			return nil, true, errors.New("empty list")
		}
		for _, e := range x {
			if !isScalar(e) {
				return nil, true, fmt.Errorf("list element %v is not a number, string or boolean", e)
			}
		}
		return x, true, nil
	case map[string]any:
		if len(x) != 1 {
			return nil, true, fmt.Errorf("a generator table has exactly one key, linspace or logspace; got %d keys", len(x))
		}
		for k, args := range x {
			vals, err := generate(k, args)
			return vals, true, err
		}
	}
	if !isScalar(raw) {
		return nil, false, fmt.Errorf("unsupported value %v", raw)
	}
	return []any{raw}, false, nil
}

func isScalar(v any) bool {
	switch v.(type) {
	case int64, float64, string, bool:
		return true
	}
	return false
}

func generate(kind string, raw any) ([]any, error) {
	args, ok := raw.([]any)
	if !ok || len(args) != 3 {
		return nil, fmt.Errorf("%s takes [start, stop, count]", kind)
	}
	lo, err1 := AsFloat(args[0])
	hi, err2 := AsFloat(args[1])
	cnt, ok := args[2].(int64)
	if err1 != nil || err2 != nil || !ok || cnt < 1 || cnt > 100000 {
		return nil, fmt.Errorf("%s takes [start, stop, count] with numbers and an integer count in 1..100000", kind)
	}
	out := make([]any, cnt)
	for i := range out {
		// numpy.linspace: start + i·step, with the last point exactly stop.
		t := lo
		if cnt > 1 {
			t = lo + float64(i)*(hi-lo)/float64(cnt-1)
			if int64(i) == cnt-1 {
				t = hi
			}
		}
		switch kind {
		case "linspace":
			out[i] = t
		case "logspace":
			out[i] = math.Pow(10, t)
		default:
			return nil, fmt.Errorf("unknown generator %q (want linspace or logspace)", kind)
		}
	}
	return out, nil
}

// AsFloat returns a TOML number as a float64 (an error for anything else).
func AsFloat(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// Floats returns the values as float64s.
func (v Values) Floats() ([]float64, error) {
	out := make([]float64, len(v.List))
	for i, e := range v.List {
		f, err := AsFloat(e)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// ParamTable is a params table whose values may be sweeps. It keeps the raw
// TOML values; a registry decodes each sweep point into its typed struct.
type ParamTable struct {
	Keys   []string          // sorted
	Values map[string]Values // by key
}

// UnmarshalTOML implements toml.Unmarshaler.
func (p *ParamTable) UnmarshalTOML(raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("params must be a table, got %v", raw)
	}
	*p = ParamTable{Values: map[string]Values{}}
	for k, v := range m {
		vals, sweep, err := parseValues(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		p.Keys = append(p.Keys, k)
		p.Values[k] = Values{List: vals, Sweep: sweep}
	}
	sort.Strings(p.Keys)
	return nil
}

// Swept lists the keys whose values vary (a list or a generator of more
// than one value), sorted.
func (p ParamTable) Swept() []string {
	var swept []string
	for _, k := range p.Keys {
		if vals := p.Values[k]; vals.Sweep && len(vals.List) > 1 {
			swept = append(swept, k)
		}
	}
	return swept
}

// Points expands the table into the cartesian product of its sweeps, in a
// deterministic order (keys sorted, values in spec order, last key fastest).
// swept lists the keys that vary (Swept).
func (p ParamTable) Points() (points []map[string]any, swept []string) {
	points = []map[string]any{{}}
	for _, k := range p.Keys {
		vals := p.Values[k]
		var next []map[string]any
		for _, pt := range points {
			for _, v := range vals.List {
				q := make(map[string]any, len(pt)+1)
				for kk, vv := range pt {
					q[kk] = vv
				}
				q[k] = v
				next = append(next, q)
			}
		}
		points = next
	}
	return points, p.Swept()
}

// EachPoint calls f with each point of the sweep, in Points' order, building
// one point at a time (validation visits up to a million points); f returns
// false to stop. f may keep the map it is given.
func (p ParamTable) EachPoint(f func(point map[string]any) bool) {
	idx := make([]int, len(p.Keys))
	for {
		pt := make(map[string]any, len(p.Keys))
		for i, k := range p.Keys {
			pt[k] = p.Values[k].List[idx[i]]
		}
		if !f(pt) {
			return
		}
		// Advance the odometer, last key fastest.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(p.Values[p.Keys[i]].List) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// Merged returns a new table: p with the keys of over replacing p's (keys
// sorted); p and over are unchanged.
func (p ParamTable) Merged(over ParamTable) ParamTable {
	out := ParamTable{Values: map[string]Values{}}
	for _, k := range p.Keys {
		out.Values[k] = p.Values[k]
	}
	for _, k := range over.Keys {
		out.Values[k] = over.Values[k]
	}
	for k := range out.Values {
		out.Keys = append(out.Keys, k)
	}
	sort.Strings(out.Keys)
	return out
}

// formatValue prints a param value for labels.
// FormatValue formats a sweep value for a legend label (4 significant
// digits for a float).
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}
