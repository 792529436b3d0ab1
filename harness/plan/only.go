package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/suggest"
)

// OnlyDimensions are the dimensions a --only filter may name; a mechanism
// param is "params.KEY".
var OnlyDimensions = []string{"dataset", "epsilon", "mechanism", "params.KEY"}

// onlyFilter is one --only DIMENSION=VALUE.
type onlyFilter struct {
	text, dim, key, value string
	eps                   float64 // dim "epsilon"
}

// OnlyError is a --only filter that cannot be applied: malformed, of an
// unknown dimension, or matching no cell. It is bad input.
type OnlyError struct {
	Only string // the flag's argument ("" when the error is of all of them)
	Err  error
}

func (e *OnlyError) Error() string {
	if e.Only == "" {
		return "--only: " + e.Err.Error()
	}
	return "--only " + e.Only + ": " + e.Err.Error()
}

func (e *OnlyError) Unwrap() error { return e.Err }

func parseOnly(arg string) (onlyFilter, error) {
	dim, value, ok := strings.Cut(arg, "=")
	f := onlyFilter{text: arg, dim: strings.TrimSpace(dim), value: strings.TrimSpace(value)}
	if !ok || f.dim == "" || f.value == "" {
		return f, &OnlyError{Only: arg, Err: fmt.Errorf("want DIMENSION=VALUE, DIMENSION one of %s", strings.Join(OnlyDimensions, ", "))}
	}
	if k, ok := strings.CutPrefix(f.dim, "params."); ok && k != "" {
		f.dim, f.key = "params", k
		return f, nil
	}
	switch f.dim {
	case "dataset", "mechanism":
	case "epsilon":
		x, err := strconv.ParseFloat(f.value, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return f, &OnlyError{Only: arg, Err: fmt.Errorf("%q is not an ε (a finite number > 0)", f.value)}
		}
		f.eps = x
	default:
		return f, &OnlyError{Only: arg, Err: fmt.Errorf("unknown dimension %q%s; dimensions: %s", f.dim, suggest.DidYouMean(f.dim, OnlyDimensions), strings.Join(OnlyDimensions, ", "))}
	}
	return f, nil
}

// match reports whether cell c of p matches f. A cell without ε (a
// non-private reference) matches every epsilon filter: it has no ε axis and
// is drawn at every ε.
func (f onlyFilter) match(p *Plan, c *Cell) bool {
	switch f.dim {
	case "dataset":
		d := p.spec.DatasetAt(c.Dataset)
		return d.Label == f.value || d.Name == f.value
	case "mechanism":
		m := p.spec.Mechanisms[c.Mechanism]
		return m.Label == f.value || m.Name == f.value || c.Label == f.value
	case "epsilon":
		return !c.Private || math.Abs(c.Epsilon-f.eps) <= 1e-9*f.eps
	case "params":
		v, ok := c.Params[f.key]
		return ok && sameParam(v, f.value)
	}
	return false
}

// sameParam reports whether a cell's param value v is the --only text s: a
// number equal to it, or the same text (a string, true, false).
func sameParam(v any, s string) bool {
	x, err := spec.AsFloat(v)
	if err != nil {
		return fmt.Sprint(v) == strings.Trim(s, `"'`)
	}
	y, err := strconv.ParseFloat(s, 64)
	return err == nil && x == y
}

// choices lists the values a filter's dimension takes in p's cells, for
// an error.
func (f onlyFilter) choices(p *Plan) string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for i := range p.cells {
		c := &p.cells[i]
		switch f.dim {
		case "dataset":
			d := p.spec.DatasetAt(c.Dataset)
			add(fmt.Sprintf("%q (%s)", d.Label, d.Name))
		case "mechanism":
			m := p.spec.Mechanisms[c.Mechanism]
			add(fmt.Sprintf("%q (%s)", m.Label, m.Name))
		case "epsilon":
			if c.Private {
				add(strconv.FormatFloat(c.Epsilon, 'g', -1, 64))
			}
		case "params":
			if v, ok := c.Params[f.key]; ok {
				add(fmt.Sprint(v))
			}
		}
	}
	if len(out) == 0 {
		if f.dim == "params" {
			return "no cell has the param " + f.key
		}
		return "none"
	}
	return f.dim + " values: " + strings.Join(out, ", ")
}

// Only returns the plan of the cells of p that match the --only filters
// args (DIMENSION=VALUE: dataset, mechanism (label or registry name),
// epsilon, params.KEY): a cell matches when, for each dimension named, it
// matches one of that dimension's filters. Its spec is a copy of p's whose
// Only records the filters and what they left out (spec.Subset); p is
// unchanged. A malformed filter, an unknown dimension, a filter matching no
// cell and filters no cell matches together are an *OnlyError listing the
// valid values. With no filters it returns p.
func (p *Plan) Only(args []string) (*Plan, error) {
	if len(args) == 0 {
		return p, nil
	}
	if p.spec.Audit != nil {
		return nil, &OnlyError{Err: fmt.Errorf("an audit grid is not filtered (give the audit grid's own spec the targets and ε to audit)")}
	}
	byDim := map[string][]onlyFilter{}
	var dims []string
	for _, a := range args {
		f, err := parseOnly(a)
		if err != nil {
			return nil, err
		}
		d := f.dim + "." + f.key
		if byDim[d] == nil {
			dims = append(dims, d)
		}
		byDim[d] = append(byDim[d], f)
		// An ε matches a private cell of the grid, not only the references.
		if !slices.ContainsFunc(p.cells, func(c Cell) bool { return f.match(p, &c) && (c.Private || f.dim != "epsilon") }) {
			return nil, &OnlyError{Only: a, Err: fmt.Errorf("matches no cell of %s; %s", p.spec.Name, f.choices(p))}
		}
	}
	var cells []Cell
	left := 0
	for i := range p.cells {
		c := &p.cells[i]
		keep := true
		for _, d := range dims {
			keep = keep && slices.ContainsFunc(byDim[d], func(f onlyFilter) bool { return f.match(p, c) })
		}
		if keep {
			cells = append(cells, *c)
		} else {
			left += c.Trials
		}
	}
	if len(cells) == 0 {
		return nil, &OnlyError{Err: fmt.Errorf("no cell of %s matches all of %s (each matches some)", p.spec.Name, strings.Join(args, ", "))}
	}
	s := p.spec.WithOnly(spec.Subset{Filters: slices.Clone(args), Cells: len(cells), LeftCells: len(p.cells) - len(cells), LeftTrials: left})
	return &Plan{spec: s, cells: cells, trials: p.trials, pipes: p.pipes}, nil
}
