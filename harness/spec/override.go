package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/internal/strictoml"
)

// An override is one --set PATH=VALUE of the command line: VALUE, a TOML
// value, replaces (or adds) the key PATH addresses in the spec's TOML
// document before the document is decoded, so that the spec decoded is a
// new one and every check (unknown keys, types, validation) is the normal
// one. PATH is keys joined by dots ("accountant.kind", "quick.params.\"AdaSSP\".rho");
// a key holding an array of tables ([[mechanism]]) takes a selector,
// "[i]" (0-based) or "[key=VALUE]" (the one element whose key equals VALUE):
// mechanism[label="AdaSSP"].params.rho.
type override struct {
	text  string // as given: PATH=VALUE
	path  []segment
	value any
	at    string // the key path it set, with the selected elements' indices ("mechanism[1].params.rho")
}

// segment is one key of a path with its selectors.
type segment struct {
	key string
	sel []selector
}

// selector picks one element of an array of tables: by index, or by the
// value of one of its keys.
type selector struct {
	index int // ≥ 0: by index; -1: by key
	key   string
	value any
	text  string // as written, for errors
}

// OverrideError is a --set that cannot be applied: malformed, or a path
// that addresses nothing (a selector matching no element or several).
type OverrideError struct {
	Set string // the flag's argument, PATH=VALUE
	Err error
}

func (e *OverrideError) Error() string { return "--set " + shortSet(e.Set) + ": " + e.Err.Error() }

// shortSet is a --set argument as errors quote it: at most 200 bytes.
func shortSet(s string) string {
	if len(s) > 200 {
		return strings.ToValidUTF8(s[:197], "") + "…"
	}
	return s
}

func (e *OverrideError) Unwrap() error { return e.Err }

// parseOverride parses one --set argument, PATH=VALUE.
func parseOverride(arg string) (*override, error) {
	o := &override{text: arg}
	fail := func(format string, args ...any) error {
		return &OverrideError{Set: arg, Err: fmt.Errorf(format, args...)}
	}
	p := pathScanner{s: arg}
	for {
		seg, err := p.segment()
		if err != nil {
			return nil, fail("%v (want PATH=VALUE, e.g. trials=50 or 'mechanism[label=\"AdaSSP\"].params.rho=[1e-3, 1e-2]')", err)
		}
		o.path = append(o.path, seg)
		if p.eat('.') {
			continue
		}
		if !p.eat('=') {
			return nil, fail("want PATH=VALUE, e.g. trials=50 (a key is letters, digits, _ and -, or quoted)")
		}
		break
	}
	v, err := tomlValue(strings.TrimSpace(p.s[p.i:]))
	if err != nil {
		return nil, fail("%v", err)
	}
	o.value = v
	return o, nil
}

// tomlValue parses text as one TOML value.
func tomlValue(text string) (any, error) {
	if text == "" {
		return nil, errors.New("no VALUE after '='")
	}
	// The bounds of a spec file hold for a VALUE too: the TOML library's
	// time grows faster than its nesting (source.go).
	if line, depth := tooDeep([]byte("v = "+text), MaxNesting); line > 0 || len(text) > MaxSourceBytes {
		return nil, fmt.Errorf("VALUE is larger (%d bytes) or nested deeper (%d levels) than a spec may be (%d bytes, %d levels)", len(text), depth, MaxSourceBytes, MaxNesting)
	}
	var doc map[string]any
	if _, err := toml.Decode("v = "+text, &doc); err != nil || len(doc) != 1 {
		msg := "malformed"
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		return nil, fmt.Errorf("VALUE %s is not a TOML value (%s); a string is quoted: name='\"x\"'", shortSet(text), msg)
	}
	return doc["v"], nil
}

// pathScanner reads a PATH.
type pathScanner struct {
	s string
	i int
}

func (p *pathScanner) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// key reads a bare or quoted key.
func (p *pathScanner) key() (string, error) {
	start := p.i
	if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
		end, _ := skipString([]byte(p.s), p.i)
		if end >= len(p.s) || end == p.i || p.s[end] != p.s[start] {
			return "", fmt.Errorf("unterminated quoted key at %q", p.s[start:])
		}
		p.i = end + 1
		if p.s[start] == '\'' {
			return p.s[start+1 : end], nil
		}
		k, err := strconv.Unquote(p.s[start:p.i])
		if err != nil {
			return "", fmt.Errorf("bad quoted key %s", p.s[start:p.i])
		}
		return k, nil
	}
	for p.i < len(p.s) && bareKeyByte(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		if p.i >= len(p.s) {
			return "", errors.New("a key is missing at the end")
		}
		return "", fmt.Errorf("a key is missing at %q", p.s[p.i:])
	}
	return p.s[start:p.i], nil
}

func bareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// segment reads a key and its selectors.
func (p *pathScanner) segment() (segment, error) {
	k, err := p.key()
	if err != nil {
		return segment{}, err
	}
	seg := segment{key: k}
	for p.eat('[') {
		start := p.i
		end := p.closing()
		if end < 0 {
			return seg, fmt.Errorf("no ']' closes the selector at %q", p.s[start-1:])
		}
		body := strings.TrimSpace(p.s[start:end])
		p.i = end + 1
		sel := selector{index: -1, text: "[" + body + "]"}
		if n, err := strconv.Atoi(body); err == nil {
			if n < 0 {
				return seg, fmt.Errorf("selector %s: an index is ≥ 0", sel.text)
			}
			sel.index = n
		} else {
			q := pathScanner{s: body}
			if sel.key, err = q.key(); err != nil || !q.eat('=') {
				return seg, fmt.Errorf("selector %s: want [index] or [key=VALUE], e.g. [label=\"AdaSSP\"]", sel.text)
			}
			if sel.value, err = tomlValue(strings.TrimSpace(body[q.i:])); err != nil {
				return seg, fmt.Errorf("selector %s: %v", sel.text, err)
			}
		}
		seg.sel = append(seg.sel, sel)
	}
	return seg, nil
}

// closing returns the index of the ']' that closes a selector opened just
// before p.i (strings and nested brackets skipped), -1 when none does.
func (p *pathScanner) closing() int {
	depth := 0
	for j := p.i; j < len(p.s); j++ {
		switch c := p.s[j]; c {
		case '"', '\'':
			j, _ = skipString([]byte(p.s), j)
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// apply sets o's value in the document doc (the raw tables a TOML parse
// gives), creating missing tables on the way, and records the key path it
// set.
func (o *override) apply(doc map[string]any) error {
	fail := func(format string, args ...any) error {
		return &OverrideError{Set: o.text, Err: fmt.Errorf(format, args...)}
	}
	table, at := doc, ""
	for n, seg := range o.path {
		at = joinPath(at, seg.key)
		last := n == len(o.path)-1
		child, ok := table[seg.key]
		if len(seg.sel) == 0 {
			if last {
				table[seg.key] = o.value
				o.at = at
				return nil
			}
			switch c := child.(type) {
			case nil:
				if ok {
					return fail("%s is not a table", at)
				}
				next := map[string]any{}
				table[seg.key], table = next, next
			case map[string]any:
				table = c
			case []map[string]any:
				return fail("%s holds %d tables ([[%s]]): pick one with a selector, %s[0] or %s[label=\"…\"]", at, len(c), seg.key, at, at)
			default:
				return fail("%s is a %s, not a table", at, strictoml.TypeName(child))
			}
			continue
		}
		if !ok {
			return fail("%s: the spec has no %s to select from", at, at)
		}
		elems, ok := tableElems(child)
		if !ok {
			return fail("%s is a %s, not an array of tables: it takes no selector", at, strictoml.TypeName(child))
		}
		idx := make([]int, len(elems))
		for i := range idx {
			idx[i] = i
		}
		// The selectors narrow together, then must leave exactly one.
		selected := at
		for _, sel := range seg.sel {
			var err error
			if idx, err = sel.pick(selected, seg.key, elems, idx); err != nil {
				return fail("%v", err)
			}
			selected += sel.text
		}
		if len(idx) > 1 {
			last := seg.sel[len(seg.sel)-1] // a key selector: an index selects one
			return fail("%s: %d [[%s]] have %s = %s (elements %v): add a selector, e.g. %s[%d]", selected, len(idx), seg.key, last.key, tomlText(last.value), idx, selected, idx[0])
		}
		at = fmt.Sprintf("%s[%d]", at, idx[0])
		if last {
			v, ok := o.value.(map[string]any)
			if !ok {
				return fail("%s is a table: its VALUE must be an inline table, got a %s", at, strictoml.TypeName(o.value))
			}
			setElem(child, idx[0], v)
			o.at = at
			return nil
		}
		table = elems[idx[0]]
	}
	return nil
}

// tableElems returns the tables of an array of tables (as the TOML
// library gives [[array]] elements, or an inline array of inline tables).
func tableElems(v any) ([]map[string]any, bool) {
	switch a := v.(type) {
	case []map[string]any:
		return a, true
	case []any:
		out := make([]map[string]any, len(a))
		for i, e := range a {
			t, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out[i] = t
		}
		return out, len(a) > 0
	}
	return nil, false
}

// setElem replaces element i of an array of tables.
func setElem(arr any, i int, v map[string]any) {
	switch a := arr.(type) {
	case []map[string]any:
		a[i] = v
	case []any:
		a[i] = v
	}
}

// pick narrows the candidate elements idx of the array at path (elements
// elems; path includes the selectors applied before sel) to those sel
// selects, of which there must be at least one.
func (sel selector) pick(path, key string, elems []map[string]any, idx []int) ([]int, error) {
	if sel.index >= 0 {
		switch {
		case sel.index >= len(elems):
			return nil, fmt.Errorf("%s%s: there is no element %d; the spec has %d [[%s]] (0 to %d)", path, sel.text, sel.index, len(elems), key, len(elems)-1)
		case !slices.Contains(idx, sel.index):
			return nil, fmt.Errorf("%s%s: element %d is not among those %s selects (elements %v)", path, sel.text, sel.index, path, idx)
		}
		return []int{sel.index}, nil
	}
	var out []int
	var values []string
	for _, i := range idx {
		v, ok := elems[i][sel.key]
		if !ok {
			values = append(values, fmt.Sprintf("[%d] none", i))
			continue
		}
		values = append(values, fmt.Sprintf("[%d] %s", i, tomlText(v)))
		if sameValue(v, sel.value) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s%s: no [[%s]] has %s = %s; %s values: %s", path, sel.text, key, sel.key, tomlText(sel.value), sel.key, strings.Join(values, ", "))
	}
	return out, nil
}

// sameValue reports whether two raw TOML values are equal, an integer and
// a float of the same number included.
func sameValue(a, b any) bool {
	x, errA := AsFloat(a)
	y, errB := AsFloat(b)
	if errA == nil || errB == nil {
		return errA == nil && errB == nil && x == y
	}
	return reflect.DeepEqual(a, b)
}

// tomlText writes a raw value as TOML.
func tomlText(v any) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// overridden returns the --set whose key path is, contains or lies within
// key (a decoder's or validator's key path), nil when none does.
func overridden(sets []*override, key string) *override {
	if key == "" {
		return nil
	}
	within := func(inner, outer string) bool {
		return inner == outer || strings.HasPrefix(inner, outer+".") || strings.HasPrefix(inner, outer+"[")
	}
	for i := len(sets) - 1; i >= 0; i-- { // the last --set of a key is the one that holds
		if within(key, sets[i].at) || within(sets[i].at, key) {
			return sets[i]
		}
	}
	return nil
}

// withOverrides applies the --set arguments sets to the document doc of
// the spec source src (from path) and returns them parsed, with the
// TOML source of the document they give: a header naming the original
// file's SHA-256 and the overrides in canonical form, then the document (the original's
// comments and layout are not kept). This is the spec a run saves as its
// spec.toml, which renders again as it ran.
func withOverrides(path string, src []byte, doc map[string]any, sets []string) ([]*override, []byte, error) {
	var out []*override
	for _, arg := range sets {
		o, err := parseOverride(arg)
		if err == nil {
			err = o.apply(doc)
		}
		if err != nil {
			return nil, nil, &SpecError{File: path, Err: err}
		}
		out = append(out, o)
	}
	// The header is canonical, so that the spec's SHA-256 does not depend
	// on how the path or the flags were typed: the original's SHA-256
	// and each override as the key path it set = the value in JSON.
	var b bytes.Buffer
	sum := sha256.Sum256(src)
	fmt.Fprintf(&b, "# Generated by dplab from a spec file of sha256 %s with --set overrides (each as the key path set = the value in JSON, or Go's %%v for inf and nan):\n", hex.EncodeToString(sum[:]))
	for _, o := range out {
		fmt.Fprintf(&b, "#   --set %s\n", strconv.Quote(o.at+"="+canonicalValue(o.value)))
	}
	b.WriteString("# (the original's comments and key order are not kept)\n\n")
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return nil, nil, &SpecError{File: path, Err: fmt.Errorf("--set: writing the spec with the overrides: %w", err)}
	}
	// The spec a run saves must be readable as a spec file.
	if err := CheckSource(path+" with --set", b.Bytes()); err != nil {
		return nil, nil, err
	}
	return out, b.Bytes(), nil
}

// canonicalValue is v in JSON, or Go's %v for inf and nan, which JSON has
// no form for.
func canonicalValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// CanonicalSet returns the --set argument arg in a form that does not
// depend on how it was typed: each key bare or quoted (strconv.Quote), each
// selector [index] or [key=VALUE], and the VALUEs in canonical form
// (canonicalValue), so that "epsilon=[1,2]" and "epsilon=[ 1.0, 2 ]" give
// one string. Selectors are not resolved (no spec is read): [0] and
// [label="A"] stay apart. A malformed arg is an error.
func CanonicalSet(arg string) (string, error) {
	o, err := parseOverride(arg)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, seg := range o.path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(canonicalKey(seg.key))
		for _, sel := range seg.sel {
			if sel.index >= 0 {
				fmt.Fprintf(&b, "[%d]", sel.index)
			} else {
				fmt.Fprintf(&b, "[%s=%s]", canonicalKey(sel.key), canonicalValue(sel.value))
			}
		}
	}
	return b.String() + "=" + canonicalValue(o.value), nil
}

// canonicalKey is a key bare when it may be, else quoted.
func canonicalKey(k string) string {
	if k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		return k
	}
	return strconv.Quote(k)
}

// overrideHint names the --set that made e, an error at a key path the
// overrides set (or inside it, or around it): the line of the file then
// shows the value the override replaced, not the one that failed.
func (s *Spec) overrideHint(e *SpecError) *SpecError {
	if o := overridden(s.sets, e.Key); o != nil {
		e.Line = 0
		e.Err = fmt.Errorf("%w (set by --set %s)", e.Err, shortSet(o.text))
	}
	return e
}

// CheckQuickSets returns an error naming the first --set that the [quick]
// block replaces under --quick (WithQuick), or that targets a [[dataset]] or
// [[mechanism]] block [quick] drops: the smoke run would silently ignore
// it. The error names the quick.* key to set instead. nil without [quick]
// or such a --set. ([quick] runs only caps runs; a --set of them stays.)
func (s *Spec) CheckQuickSets() error {
	q := s.Quick
	if q == nil {
		return nil
	}
	for _, o := range s.sets {
		if msg := quickReplaces(s, q, o); msg != "" {
			return &SpecError{File: s.File, Key: o.at, Err: &OverrideError{Set: o.text, Err: errors.New(msg)}}
		}
	}
	return nil
}

// quickReplaces says what [quick] q does to the key path of s that the
// --set o set (o.at: "trials", "mechanism[1].params.rho"), "" when it
// leaves it alone.
func quickReplaces(s *Spec, q *QuickSpec, o *override) string {
	at := o.at
	replaced := func(key, quickKey string) string {
		return fmt.Sprintf("--quick replaces %s with %s: set that instead (--set %s=…)", key, quickKey, quickKey)
	}
	switch {
	case at == "trials" && q.Trials > 0:
		return replaced(at, "quick.trials")
	case at == "epsilon" && len(q.Epsilon.List) > 0:
		return replaced(at, "quick.epsilon")
	case q.Runs > 0 && (at == "audit.runs" || runsKey.MatchString(at)):
		// ApplyQuick caps an audit's runs at quick.runs: a larger value
		// would not be run.
		if v, err := AsFloat(o.value); err == nil && v > float64(q.Runs) {
			return fmt.Sprintf("--quick caps %s at quick.runs = %d: set that instead (--set quick.runs=…)", at, q.Runs)
		}
	}
	for _, b := range []struct {
		block, list, params string
		labels              []string
		keep                []string
		quickParams         func(label string) (map[string]bool, bool)
	}{
		{"dataset", "quick.datasets", "quick.dataset_params", datasetLabels(s), q.Datasets, func(l string) (map[string]bool, bool) {
			t, ok := q.DatasetParams[l]
			return keySet(t), ok
		}},
		{"mechanism", "quick.mechanisms", "quick.params", mechanismLabels(s), q.Mechanisms, func(l string) (map[string]bool, bool) {
			t, ok := q.Params[l]
			return keySet(t.Values), ok
		}},
	} {
		rest, ok := strings.CutPrefix(at, b.block+"[")
		if !ok {
			continue
		}
		num, rest, ok := strings.Cut(rest, "]")
		i, err := strconv.Atoi(num)
		if !ok || err != nil || i < 0 || i >= len(b.labels) {
			return ""
		}
		label := b.labels[i]
		if len(b.keep) > 0 && !slices.Contains(b.keep, label) {
			return fmt.Sprintf("--quick drops %s %q (%s): this --set would have no effect", b.block, label, b.list)
		}
		keys, ok := b.quickParams(label)
		if !ok {
			return ""
		}
		if rest == ".params" && len(keys) > 0 {
			return replaced(at, b.params+"."+label)
		}
		key, _, _ := strings.Cut(strings.TrimPrefix(rest, ".params."), ".")
		if strings.HasPrefix(rest, ".params.") && keys[key] {
			return replaced(at, b.params+"."+label+"."+key)
		}
	}
	return ""
}

// runsKey matches a [[mechanism]] block's audit runs key path.
var runsKey = regexp.MustCompile(`^mechanism\[[0-9]+\]\.runs$`)

// keySet returns the keys of m.
func keySet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// datasetLabels returns the labels of s's [[dataset]] blocks in order.
func datasetLabels(s *Spec) []string {
	var out []string
	for _, d := range s.Datasets {
		out = append(out, d.Label)
	}
	return out
}

// mechanismLabels returns the labels of s's [[mechanism]] blocks in order.
func mechanismLabels(s *Spec) []string {
	var out []string
	for _, m := range s.Mechanisms {
		out = append(out, m.Label)
	}
	return out
}
