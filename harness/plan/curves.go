package plan

import (
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/internal/suggest"
)

func (s *checker) validateCurve(i int, labels map[string]bool) error {
	c := s.Curves[i]
	info, ok := curves.Lookup(c.Name)
	if !ok {
		return s.ErrIn("curve", i, "name", "unknown curve %q; known curves: %s", c.Name, strings.Join(curves.Names(), ", "))
	}
	id := c.Panel + "\x00" + c.Label
	if labels[id] {
		return s.ErrIn("curve", i, "label", "duplicate curve label %q in panel %q", c.Label, c.Panel)
	}
	labels[id] = true
	vals, ok := c.Params.Values[c.X]
	if c.X == "" || !ok || !vals.Sweep {
		return s.ErrIn("curve", i, "x", "x = %q must name a params key given as a list or a generator", c.X)
	}
	known := append(append([]string{}, info.Params...), info.Optional...)
	for _, k := range c.Params.Keys {
		if !slices.Contains(known, k) {
			return s.ErrIn("curve", i, "params."+k, "unknown key for curve %q%s (params: %s)", c.Name, suggest.DidYouMean(k, known), strings.Join(known, ", "))
		}
		if _, err := c.Params.Values[k].Floats(); err != nil {
			return s.ErrIn("curve", i, "params."+k, "curve params must be numbers: %v", err)
		}
		if k != c.X && c.Params.Values[k].Sweep && len(c.Params.Values[k].List) > 1 {
			return s.ErrIn("curve", i, "params."+k, "only x (%q) may be swept; use one [[curve]] per value of %q", c.X, k)
		}
	}
	for _, k := range info.Params {
		if _, ok := c.Params.Values[k]; !ok {
			return s.ErrIn("curve", i, "params", "curve %q needs param %q", c.Name, k)
		}
	}
	return nil
}
