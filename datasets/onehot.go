package datasets

import "sort"

// categorical collects the values of one categorical column and encodes them
// one-hot, one indicator column per distinct value in sorted order (the order
// of sklearn's LabelEncoder + OneHotEncoder and of pandas' get_dummies).
type categorical struct {
	name   string
	index  map[string]int // value → code in order of first appearance
	values []string
}

func newCategorical(name string) *categorical {
	return &categorical{name: name, index: map[string]int{}}
}

// code returns the first-appearance code of v, adding it when new.
func (c *categorical) code(v []byte) int {
	if k, ok := c.index[string(v)]; ok { // no allocation for the lookup
		return k
	}
	k := len(c.values)
	c.values = append(c.values, string(v))
	c.index[c.values[k]] = k
	return k
}

// columns returns the indicator column names ("name=value", sorted by value)
// and rank, mapping a first-appearance code to its column offset.
func (c *categorical) columns() (names []string, rank []int) {
	order := make([]int, len(c.values))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return c.values[order[a]] < c.values[order[b]] })
	rank = make([]int, len(c.values))
	names = make([]string, len(c.values))
	for pos, k := range order {
		rank[k] = pos
		names[pos] = c.name + "=" + c.values[k]
	}
	return names, rank
}
