package report

// Proportions (quantity = "proportion:KEY"): the share of a cell's trials
// in which the diagnostic KEY, a 0/1 indicator such as ptr_bot (1:
// Algorithm 1 returned ⊥), is 1: k of n trials, with the exact binomial
// 95% interval of Clopper and Pearson [CP34] rather than the mean's
// Student-t interval, which is 0 wide when every trial agrees. pool =
// COORD counts the trials of the points that differ only in that
// coordinate together, as one point ("⊥ in 40 of 40 trials for ε ≤ 2").
// experiments/README.md, "Paper claims", documents both.
//
// [CP34] C. J. Clopper, E. S. Pearson. The use of confidence or fiducial
// limits illustrated in the case of the binomial. Biometrika 26(4):404–413,
// 1934.

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mathext"

	"github.com/dplab/dplab/results"
)

// readProportion returns the share of trials whose indicator is 1, per
// diagnostic group when the key is recorded per group ("node1/KEY").
func (q claimQuantity) readProportion(a *results.CellSummary) []groupValue {
	var out []groupValue
	for _, gs := range keyedStats(a.Diagnostics, q.name) {
		out = append(out, proportionOf(gs.stat, q.name, gs.group))
	}
	if len(out) == 0 {
		return []groupValue{{mean: math.NaN(), half: math.NaN(), why: "no diagnostic " + q.name + " recorded"}}
	}
	return out
}

// proportionOf is k of n from the summary of an indicator's values. The
// summary holds no values, but it tells a 0/1 indicator apart: for values
// in [0, 1], Σx² ≤ Σx with equality exactly when each is 0 or 1, and Σx²
// = (n − 1)·SD² + n·mean². A key whose values are not all 0 or 1 has no
// proportion.
func proportionOf(st results.Stat, name, group string) groupValue {
	g := groupValue{group: group, mean: math.NaN(), half: math.NaN(), n: st.Count}
	n := float64(st.Count)
	k := math.Round(st.Sum)
	sumSq := n * st.Mean * st.Mean
	if st.Count > 1 {
		sumSq += (n - 1) * st.SD * st.SD
	}
	tol := 1e-9 * math.Max(1, n)
	switch {
	case st.Count == 0:
		g.why = "no trial recorded " + name
	case math.IsNaN(st.Sum):
		g.why = "diagnostic " + name + " is not a number in some trial"
	case st.Min < 0 || st.Max > 1 || math.Abs(st.Sum-k) > tol || math.Abs(sumSq-k) > tol:
		g.why = fmt.Sprintf("diagnostic %s is not a 0/1 indicator (its values lie in [%g, %g] and sum to %g)", name, st.Min, st.Max, st.Sum)
	default:
		count := int(k)
		g.mean, g.count = k/n, &count
	}
	return g
}

// clopperPearson is the exact binomial 95% interval of a proportion from k
// successes in n trials [CP34]: its ends are the 2.5% quantile of
// Beta(k, n − k + 1) (0 when k = 0) and the 97.5% quantile of Beta(k + 1,
// n − k) (1 when k = n). Without trials it is [0, 1].
func clopperPearson(k, n int) (lo, hi float64) {
	const alpha = 0.05
	lo, hi = 0, 1
	if n <= 0 {
		return lo, hi
	}
	if k > 0 {
		lo = mathext.InvRegIncBeta(float64(k), float64(n-k+1), alpha/2)
	}
	if k < n {
		hi = mathext.InvRegIncBeta(float64(k+1), float64(n-k), 1-alpha/2)
	}
	return lo, hi
}

// decodePool checks pool: a coordinate the points may differ in, for a
// proportion only (its trials can be counted together), neither the
// check's axis nor its any_of coordinate.
func (c *claim) decodePool(b *Block) error {
	p := c.spec.Pool
	if p == "" {
		return nil
	}
	if c.q.kind != "proportion" {
		return b.Errorf("pool", "pool counts the trials of several points together: it applies to proportion quantities only, not %s", c.spec.Quantity)
	}
	switch p {
	case "epsilon", "dataset", "group", "mechanism":
		c.pool = p
	default:
		if !c.hasParamsKey(b.Spec, p) {
			return b.Errorf("pool", "pool = %q: want a coordinate the points differ in: epsilon, dataset, group, mechanism or a swept params key", p)
		}
		c.pool = "param:" + p
	}
	switch {
	case c.pool == c.axis:
		return b.Errorf("pool", "pool = %q is the check's axis (over): the points along it cannot be counted together", p)
	case c.pool == c.anyOf:
		return b.Errorf("pool", "pool = %q is also any_of's coordinate", p)
	case c.pool == "epsilon" && c.paperOn == "epsilon":
		return b.Errorf("pool", "paper_value gives a value per ε: ε cannot be pooled")
	}
	return nil
}

// pooled merges the rows that differ only in the pool coordinate into one
// row: their trials and successes add up; the merged row's coordinate
// lists the pooled values ("ε = 0.25, 0.5, 1, 2"). A pool with a row not
// run is not run, saying which.
func (c *claim) pooled(rows []row) []row {
	if c.pool == "" {
		return rows
	}
	pooledCoord := func(name string) bool { return name == c.pool || c.pool == "mechanism" && isMechCoord(name) }
	type pool struct {
		r             row
		name          string
		values, texts []string
		k, n          int
	}
	var order []*pool
	byKey := map[string]*pool{}
	for _, r := range rows {
		var parts []string
		var in coord
		var kept []coord
		for _, k := range r.coords {
			if pooledCoord(k.name) {
				in = k
				continue
			}
			kept = append(kept, k)
			parts = append(parts, k.name+"="+k.value)
		}
		key := strings.Join(parts, "\x00")
		p := byKey[key]
		if p == nil {
			p = &pool{r: r, name: in.name}
			p.r.coords, p.r.eps, p.r.axis, p.r.why = kept, math.NaN(), math.NaN(), ""
			byKey[key] = p
			order = append(order, p)
		}
		if in.name != "" {
			p.values, p.texts = append(p.values, in.value), append(p.texts, in.text)
		}
		switch {
		case p.r.why != "":
		case r.why != "":
			p.r.why = r.why
			if in.text != "" {
				p.r.why = pointName(in) + ": " + r.why
			}
		case r.side.Count != nil:
			p.k += *r.side.Count
			p.n += r.side.N
		}
	}
	out := make([]row, 0, len(order))
	for _, p := range order {
		r := p.r
		if len(p.values) > 0 {
			r.coords = append(r.coords, coord{p.name, strings.Join(p.values, ","), strings.Join(p.texts, ", ")})
			if isMechCoord(p.name) {
				r.side.Label = strings.Join(p.texts, ", ")
			}
		}
		if r.why == "" {
			k := p.k
			r.side.Mean, r.side.Half, r.side.N, r.side.Count = results.Float(float64(k)/float64(p.n)), results.Float(math.NaN()), p.n, &k
		}
		out = append(out, r)
	}
	return out
}

// pointName writes one coordinate as a point's name shows it: "ε = 4",
// "split = random", "Lin".
func pointName(k coord) string {
	k.name = strings.TrimSuffix(strings.TrimSuffix(k.name, sideA), sideB)
	switch {
	case k.name == "epsilon":
		return "ε = " + k.text
	case strings.HasPrefix(k.name, "param:"):
		return strings.TrimPrefix(k.name, "param:") + " = " + k.text
	}
	return k.text
}
