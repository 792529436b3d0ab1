package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// DeltaRule is the spec's δ: a number, or an expression in n (the number of
// training rows) and d (features), such as "1/n^2" or "min(1e-6, 0.01/n)".
// Expressions use + − * / ^, parentheses, and min, max, sqrt, log, exp.
type DeltaRule struct {
	Text string // the rule as written ("1e-06" for a number)
	expr node
}

// UnmarshalTOML implements toml.Unmarshaler.
func (r *DeltaRule) UnmarshalTOML(raw any) error {
	switch x := raw.(type) {
	case float64:
		*r = DeltaRule{Text: strconv.FormatFloat(x, 'g', -1, 64), expr: numNode(x)}
	case int64:
		*r = DeltaRule{Text: strconv.FormatInt(x, 10), expr: numNode(float64(x))}
	case string:
		e, err := parseExpr(x)
		if err != nil {
			return fmt.Errorf("δ rule %q: %w", x, err)
		}
		*r = DeltaRule{Text: x, expr: e}
	default:
		return fmt.Errorf("δ must be a number or a rule string, got %v", raw)
	}
	return nil
}

// MinDelta is the smallest δ a spec may give. Mechanisms' noise formulas
// take log(c/δ) (AdaSSP's log(6/δ), Kifer et al.'s log(2/δ), linear
// mixing's log(3/δ)): below about 1e-308 c/δ overflows to +Inf and the noise
// becomes NaN, and a subnormal δ has lost its precision. 1e-300 keeps every
// such term finite with room to spare (log(1/δ) ≤ 691).
const MinDelta = 1e-300

// Eval returns δ for a training set of n rows and d features; it must lie in
// [MinDelta, 1).
func (r DeltaRule) Eval(n, d int) (float64, error) {
	if r.expr == nil {
		return 0, fmt.Errorf("δ is not set")
	}
	v := r.expr.eval(float64(n), float64(d))
	if err := checkDeltaValue(v); err != nil {
		if r.Constant() {
			return v, fmt.Errorf("δ = %s: %w", r.Text, err)
		}
		return v, fmt.Errorf("δ = %s gives %g for n = %d, d = %d: %w", r.Text, v, n, d, err)
	}
	return v, nil
}

// checkDeltaValue checks one value of δ.
func checkDeltaValue(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("δ must be a number in (0, 1)")
	case !(v > 0 && v < 1):
		return fmt.Errorf("δ must be in (0, 1)")
	case v < MinDelta:
		return fmt.Errorf("δ must be ≥ %g, the smallest supported δ (1/δ overflows in the mechanisms' noise formulas)", MinDelta)
	}
	return nil
}

// deltaGridN and deltaGridD are the training-set sizes at which Check
// evaluates a δ rule: any n ≥ 2 rows up to a billion, any d up to 10⁵
// features. (n = 1 is left out: a one-row training set is no experiment, and
// the textbook δ = 1/n² is 1 there.)
var (
	deltaGridN = []int{2, 3, 5, 10, 30, 100, 300, 1000, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}
	deltaGridD = []int{1, 2, 3, 10, 100, 1000, 1e4, 1e5}
)

// Check evaluates the rule over a grid of training-set sizes (n from 2 to
// 10⁹ rows, d from 1 to 10⁵ features) and returns the first value outside
// [MinDelta, 1), NaN included, as an error naming n and d. A constant is
// checked once.
func (r DeltaRule) Check() error {
	if r.expr == nil {
		return fmt.Errorf("δ is not set")
	}
	if r.Constant() {
		_, err := r.Eval(1, 1)
		return err
	}
	for _, n := range deltaGridN {
		for _, d := range deltaGridD {
			if _, err := r.Eval(n, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// Constant reports whether the rule does not depend on n or d.
func (r DeltaRule) Constant() bool {
	return r.expr != nil && !usesVars(r.expr)
}

// usesVars reports whether the expression mentions n or d.
func usesVars(e node) bool {
	switch x := e.(type) {
	case varNode:
		return true
	case binNode:
		return usesVars(x.l) || usesVars(x.r)
	case callNode:
		for _, a := range x.args {
			if usesVars(a) {
				return true
			}
		}
	}
	return false
}

type node interface{ eval(n, d float64) float64 }

type numNode float64
type varNode byte
type binNode struct {
	op   byte
	l, r node
}
type callNode struct {
	fn   string
	args []node
}

func (x numNode) eval(_, _ float64) float64 { return float64(x) }
func (x varNode) eval(n, d float64) float64 {
	if x == 'n' {
		return n
	}
	return d
}
func (x binNode) eval(n, d float64) float64 {
	a, b := x.l.eval(n, d), x.r.eval(n, d)
	switch x.op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	case '/':
		return a / b
	case '^':
		return math.Pow(a, b)
	}
	panic("experiments: unknown operator")
}
func (x callNode) eval(n, d float64) float64 {
	v := make([]float64, len(x.args))
	for i, a := range x.args {
		v[i] = a.eval(n, d)
	}
	switch x.fn {
	case "min":
		m := v[0]
		for _, y := range v[1:] {
			m = math.Min(m, y)
		}
		return m
	case "max":
		m := v[0]
		for _, y := range v[1:] {
			m = math.Max(m, y)
		}
		return m
	case "sqrt":
		return math.Sqrt(v[0])
	case "log":
		return math.Log(v[0])
	case "exp":
		return math.Exp(v[0])
	}
	panic("experiments: unknown function")
}

// arity of the functions: -1 means one or more.
var functions = map[string]int{"min": -1, "max": -1, "sqrt": 1, "log": 1, "exp": 1}

type parser struct {
	s   string
	pos int
}

func parseExpr(s string) (node, error) {
	p := &parser{s: s}
	e, err := p.sum()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("unexpected %q at position %d", p.s[p.pos:], p.pos+1)
	}
	return e, nil
}

func (p *parser) skip() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *parser) peek() byte {
	p.skip()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *parser) sum() (node, error) {
	l, err := p.product()
	for err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.pos]
		p.pos++
		var r node
		if r, err = p.product(); err == nil {
			l = binNode{op, l, r}
		}
	}
	return l, err
}

func (p *parser) product() (node, error) {
	l, err := p.unary()
	for err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.s[p.pos]
		p.pos++
		var r node
		if r, err = p.unary(); err == nil {
			l = binNode{op, l, r}
		}
	}
	return l, err
}

// power binds tighter than unary minus (-2^2 = -4) and is right-associative;
// its exponent may carry a sign (2^-1).
func (p *parser) power() (node, error) {
	base, err := p.primary()
	if err != nil || p.peek() != '^' {
		return base, err
	}
	p.pos++
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return binNode{'^', base, exp}, nil
}

func (p *parser) unary() (node, error) {
	if p.peek() == '-' {
		p.pos++
		x, err := p.unary()
		return binNode{'-', numNode(0), x}, err
	}
	return p.power()
}

func (p *parser) primary() (node, error) {
	c := p.peek()
	switch {
	case c == 0:
		return nil, fmt.Errorf("unexpected end of expression")
	case c == '(':
		p.pos++
		e, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("missing ) at position %d", p.pos+1)
		}
		p.pos++
		return e, nil
	case c >= '0' && c <= '9' || c == '.':
		start := p.pos
		for p.pos < len(p.s) && (strings.IndexByte("0123456789.eE", p.s[p.pos]) >= 0 ||
			(p.s[p.pos] == '-' || p.s[p.pos] == '+') && (p.s[p.pos-1] == 'e' || p.s[p.pos-1] == 'E')) {
			p.pos++
		}
		v, err := strconv.ParseFloat(p.s[start:p.pos], 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", p.s[start:p.pos])
		}
		return numNode(v), nil
	case unicode.IsLetter(rune(c)):
		start := p.pos
		for p.pos < len(p.s) && unicode.IsLetter(rune(p.s[p.pos])) {
			p.pos++
		}
		name := p.s[start:p.pos]
		if name == "n" || name == "d" {
			return varNode(name[0]), nil
		}
		arity, ok := functions[name]
		if !ok {
			return nil, fmt.Errorf("unknown name %q (use n, d, min, max, sqrt, log, exp)", name)
		}
		if p.peek() != '(' {
			return nil, fmt.Errorf("%s needs arguments in parentheses", name)
		}
		p.pos++
		var args []node
		for {
			a, err := p.sum()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.peek() == ',' {
				p.pos++
				continue
			}
			if p.peek() != ')' {
				return nil, fmt.Errorf("missing ) after the arguments of %s", name)
			}
			p.pos++
			break
		}
		if arity > 0 && len(args) != arity {
			return nil, fmt.Errorf("%s takes %d argument(s), got %d", name, arity, len(args))
		}
		return callNode{fn: name, args: args}, nil
	}
	return nil, fmt.Errorf("unexpected %q at position %d", string(c), p.pos+1)
}

// ReadsN reports whether the rule's value changes with n (at a fixed
// d) anywhere on a grid of n up to 10⁹: a rule such as min(1e-6, 0.01/n) is
// flat for small n but still reads it (DeltaRule.Constant, which compares two
// small points, would call it constant).
func (r DeltaRule) ReadsN() bool {
	if r.expr == nil {
		return false
	}
	ns := []int{1, 2, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 1000000000}
	first, _ := r.Eval(ns[0], 10)
	for _, n := range ns[1:] {
		if v, _ := r.Eval(n, 10); v != first {
			return true
		}
	}
	return false
}

// Set reports whether the spec gave a δ.
func (r DeltaRule) Set() bool { return r.expr != nil }
