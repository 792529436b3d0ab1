package accounting

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Queries: what "dplab account" asks an accountant. A Request holds the
// command line's parameters (DefineFlags binds them to a flag.FlagSet), and
// Answer builds the event through the command-line form its kind declares
// in the kind table (form, registerForm: one list of event kinds, the
// table's), composes it (--steps, --select), asks the accountants (ε at δ,
// δ at ε, RDP at an order, or a calibration) and returns the answers, which
// print as JSON or text (query_text.go).

// form is an event kind's command-line form: "dplab account NAME" with its
// parameters builds an event of the kind. A kind declares it in its own
// file, next to its registration (registerForm).
type form struct {
	name string // the command-line name, e.g. "sgm"
	// params are parameters only this form takes (queryParams holds the
	// shared ones).
	params []param
	rank   int    // position in the command's help
	usage  string // its lines in the command's help (EVENT and its flags)
	// required and optional list its parameters; the calibrated one is
	// exempt from required when --calibrate is given.
	required, optional []string
	// calibrated is the parameter --calibrate finds ("" when none);
	// calibratedBy, when set, decides it from the request instead.
	calibrated   string
	calibratedBy func(r *Request) string
	// build returns the event with the calibrated parameter c.pick'ed.
	build func(r *Request, c calibration) (Event, error)
	// ownsSteps: --steps is a parameter of the event, not a SelfComposed.
	ownsSteps bool
	// Hooks, each at its place among the checks: checkCalibrate with
	// --calibrate's, check after the required parameters, late after the
	// query's.
	checkCalibrate, check, late func(r *Request) error
	// derive turns other parameters into the form's own (sgm's dataset
	// terms) and returns the sentence saying so ("" when not used); derives
	// lists the parameters only it takes.
	derive  func(r *Request) (string, error)
	derives []string
	// rdpTarget answers --calibrate with --order (an RDP target) instead of
	// the (ε, δ) calibration.
	rdpTarget func(r *Request, cfg Config, res *Result) (*Result, error)
	// conversions adds the form's own conversions to an answer at --delta.
	conversions func(r *Request, res *Result) error
}

// registerForm attaches a command-line form to the registered kind of the
// table. Only init functions call it; a second form for a kind, a form for
// an unregistered kind or a name already taken panics (a programming error).
func registerForm(kind string, f form) {
	k, ok := eventKinds[kind]
	if !ok {
		panic("accounting: form " + f.name + " for the unregistered kind " + kind)
	}
	if k.form != nil {
		panic("accounting: a second form for kind " + kind)
	}
	if _, dup := formByName(f.name); dup || f.name == "" {
		panic("accounting: duplicate or empty form name " + f.name)
	}
	k.form = &f
	eventKinds[kind] = k
}

// calibration is the calibrated parameter's value while --calibrate
// searches it: pick returns x then, else the given value.
type calibration struct {
	x  float64
	on bool
}

func (c calibration) pick(v float64) float64 {
	if c.on {
		return c.x
	}
	return v
}

// jsonForm is "account json --event JSON": any event of the kind table.
func jsonForm() form {
	return form{
		name: "json", rank: 8, required: []string{"event"},
		usage: `  json     --event JSON                       any event of the kind table as dplab writes it, e.g. a
                                              record's ledger from trials.jsonl ("privacy.event"), or
                                              '{"kind":"gaussian","sigma":2,"sensitivity":1}'
`,
		build: func(r *Request, _ calibration) (Event, error) {
			e, err := UnmarshalEvent([]byte(r.str("event")))
			if err != nil {
				return nil, fmt.Errorf("--event: %w", err)
			}
			return e, nil
		},
	}
}

// forms returns the command-line forms: the kinds' and json, by rank.
func forms() []form {
	out := []form{jsonForm()}
	for _, k := range eventKinds {
		if k.form != nil {
			out = append(out, *k.form)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		return out[i].name < out[j].name
	})
	return out
}

func formByName(name string) (form, bool) {
	for _, f := range forms() {
		if f.name == name {
			return f, true
		}
	}
	return form{}, false
}

// EventNames returns the names "dplab account" takes as its EVENT, sorted:
// the command-line forms of the kind table's kinds, and json.
func EventNames() []string {
	var names []string
	for _, f := range forms() {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

func eventNames() string { return strings.Join(EventNames(), ", ") }

// Request is one query of "dplab account": the parameters given on the
// command line (DefineFlags, MarkGiven); Answer answers it for an event.
// The zero value is ready for DefineFlags.
type Request struct {
	floats map[string]*float64
	ints   map[string]*int
	bools  map[string]*bool
	strs   map[string]*string
	set    map[string]bool
}

// DefineFlags defines every parameter of every form, and the general ones
// (queryParams), on fs, bound to r.
func (r *Request) DefineFlags(fs *flag.FlagSet) {
	r.floats, r.ints, r.bools, r.strs = map[string]*float64{}, map[string]*int{}, map[string]*bool{}, map[string]*string{}
	r.set = map[string]bool{}
	for _, p := range queryParams() {
		switch d := p.def.(type) {
		case float64:
			r.floats[p.name] = fs.Float64(p.name, d, p.usage)
		case int:
			r.ints[p.name] = fs.Int(p.name, d, p.usage)
		case bool:
			r.bools[p.name] = fs.Bool(p.name, d, p.usage)
		case string:
			r.strs[p.name] = fs.String(p.name, d, p.usage)
		default:
			panic(fmt.Sprintf("accounting: parameter %s of type %T", p.name, d))
		}
	}
}

// MarkGiven records which of r's parameters fs's command line set (after
// fs.Parse); its other flags are not r's.
func (r *Request) MarkGiven(fs *flag.FlagSet) {
	fs.Visit(func(fl *flag.Flag) {
		if r.has(fl.Name) {
			r.set[fl.Name] = true
		}
	})
}

func (r *Request) has(name string) bool {
	return r.floats[name] != nil || r.ints[name] != nil || r.bools[name] != nil || r.strs[name] != nil
}

// The accessors read a parameter by its flag name; the forms read only
// parameters queryParams defines (TestQueryForms, and every form's tests).
func (r *Request) given(name string) bool    { return r.set[name] }
func (r *Request) float(name string) float64 { return *r.floats[name] }
func (r *Request) int(name string) int       { return *r.ints[name] }
func (r *Request) bool(name string) bool     { return *r.bools[name] }
func (r *Request) str(name string) string    { return *r.strs[name] }
func (r *Request) calib() string             { return r.str("calibrate") }
func (r *Request) steps() int                { return r.int("steps") }

// calibratedOf returns the parameter --calibrate finds for f ("" when none).
func (r *Request) calibratedOf(f form) string {
	if f.calibratedBy != nil {
		return f.calibratedBy(r)
	}
	return f.calibrated
}

// Answer is what "dplab account" reports: one Result per accountant asked
// (three with --accountant all) and, for sgm in dataset terms, how q and T
// were derived.
type Answer struct {
	Results []*Result
	Derived string
}

// Answer answers r for the event named event (one of EventNames). Every
// error is bad input, naming the flag when one is to blame.
func (r *Request) Answer(event string) (*Answer, error) {
	if r.set == nil {
		return nil, errors.New("accounting: Request.Answer before DefineFlags")
	}
	f, ok := formByName(event)
	if !ok {
		return nil, fmt.Errorf("unknown event %q (want %s)", event, eventNames())
	}
	derived, err := r.derive(f)
	if err != nil {
		return nil, err
	}
	if err := r.check(f); err != nil {
		return nil, err
	}
	kinds := []string{r.str("accountant")}
	if c := r.str("conversion"); c == "classic" && kinds[0] != "rdp" && kinds[0] != "all" {
		// The conversion is the RDP accountant's: a PLD or exact answer
		// would ignore it without a word.
		return nil, fmt.Errorf("--conversion %s applies to the rdp accountant, not --accountant %s", c, kinds[0])
	}
	if kinds[0] == "all" {
		kinds = []string{"rdp", "pld", "exact"}
	}
	ans := &Answer{Derived: derived}
	var failed []error
	for _, kind := range kinds {
		cfg := Config{Kind: kind, Orders: r.str("orders"), MaxOrder: r.int("max-order"), SGM: r.str("sgm"), Interval: r.float("interval"), Conversion: r.str("conversion")}
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		res, err := r.result(f, cfg)
		if err != nil {
			err = withHint(err, r.calibratedOf(f), kind)
			if len(kinds) == 1 {
				return nil, err
			}
			failed = append(failed, err)
			res = &Result{Accountant: kind, Error: err.Error()}
		}
		res.Derived = derived
		ans.Results = append(ans.Results, res)
	}
	if len(kinds) > 1 && len(failed) == len(kinds) {
		return nil, noAnswer(kinds, failed)
	}
	return ans, nil
}

// noAnswer is the error of "--accountant all" when no accountant answers:
// invalid input, which every accountant refuses alike (a NaN or negative
// parameter, δ outside [0, 1], ε = +Inf: the single accountants' own error),
// or an event and query none of them evaluates (each one's reason).
// Otherwise the failing accountants' rows say "n/a": they do not apply to
// input the others answer.
func noAnswer(kinds []string, errs []error) error {
	same := true
	for _, err := range errs[1:] {
		same = same && err.Error() == errs[0].Error()
	}
	if same {
		return errs[0]
	}
	parts := make([]string, len(errs))
	for i, err := range errs {
		parts[i] = kinds[i] + ": " + strings.TrimPrefix(err.Error(), "accounting: ")
	}
	return fmt.Errorf("no accountant answers: %s", strings.Join(parts, "; "))
}

// derive runs the form's derive hook; a form without one refuses the
// parameters only another form's derive takes.
func (r *Request) derive(f form) (string, error) {
	if f.derive != nil {
		return f.derive(r)
	}
	for _, g := range forms() {
		for _, n := range g.derives {
			if r.given(n) {
				return "", fmt.Errorf("flag --%s does not apply to event %s (%s only)", n, f.name, g.name)
			}
		}
	}
	return "", nil
}

// withHint adds to an unreachable calibration target which parameter was
// calibrated, and what may reach it: another accountant or finer settings.
func withHint(err error, param, accountant string) error {
	ie, ok := IsInfeasible(err)
	if !ok || ie.Order > 0 {
		return err
	}
	hint := ""
	switch accountant {
	case "rdp":
		hint = "the RDP conversion to (ε, δ) has a floor for small ε: try --accountant pld (often tighter), or --orders integer with a larger --max-order"
	case "pld":
		hint = "the PLD's discretisation sets a floor: try a smaller --interval, or --accountant rdp"
	default:
		hint = "try --accountant pld or rdp"
	}
	return fmt.Errorf("calibrating --%s: target ε = %g at δ = %g is unreachable by the %s accountant: the smallest ε it reaches is %.6g, at --%s %.6g, and ε stops decreasing beyond; %s",
		param, ie.Target.Epsilon, ie.Target.Delta, accountant, ie.Floor, param, ie.X, hint)
}

// calibratable reports whether --calibrate may name p: the parameter some
// form calibrates.
func calibratable(p string) bool {
	for _, f := range forms() {
		if f.calibrated == p {
			return true
		}
	}
	return false
}

// check rejects parameters that do not apply to the form, missing required
// ones and inconsistent queries; each error names the flag.
func (r *Request) check(f form) error {
	allowed := map[string]bool{}
	for _, n := range append(append(append([]string(nil), f.required...), f.optional...), generalParams()...) {
		allowed[n] = true
	}
	var names []string
	for n := range r.set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !allowed[n] {
			return fmt.Errorf("flag --%s does not apply to event %s", n, f.name)
		}
	}
	calibrated := r.calibratedOf(f)
	switch c := r.calib(); {
	case c == "":
	case calibratable(c):
		if calibrated == "" {
			return fmt.Errorf("--calibrate does not apply to event %s (it has no noise flag)", f.name)
		}
		switch {
		case f.rdpTarget != nil && r.given("order") && r.given("epsilon") && !r.given("delta"):
			// An RDP-target solve (rgm.md §2.4).
		case !r.given("epsilon") || !r.given("delta"):
			return errors.New("--calibrate needs both --epsilon (the target) and --delta (rgm: or --order for an RDP target)")
		case r.given("order"):
			return errors.New("--calibrate takes --delta or (rgm) --order, not both")
		}
		if f.checkCalibrate != nil {
			if err := f.checkCalibrate(r); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("--calibrate %q: want sigma (the event's noise parameter)", c)
	}
	for _, n := range f.required {
		if !r.given(n) && !(r.calib() != "" && n == calibrated) {
			return fmt.Errorf("event %s needs --%s", f.name, n)
		}
	}
	if f.check != nil {
		if err := f.check(r); err != nil {
			return err
		}
	}
	if r.calib() != "" && r.given(calibrated) {
		return fmt.Errorf("--%s is what --calibrate finds; drop it", calibrated)
	}
	if r.calib() == "" {
		n := 0
		for _, q := range []string{"delta", "epsilon", "order"} {
			if r.given(q) {
				n++
			}
		}
		if n != 1 {
			return errors.New("give exactly one of --delta, --epsilon or --order (--epsilon with --delta only with --calibrate)")
		}
	}
	if s := r.str("select"); s != "" {
		// Checked here, not only where event builds it: a calibration
		// builds events in a closure that cannot return the error.
		if _, err := parseSelect(s); err != nil {
			return err
		}
	}
	if f.late != nil {
		if err := f.late(r); err != nil {
			return err
		}
	}
	switch acct := r.str("accountant"); {
	case r.given("order") && acct == "all":
		return errors.New("--order is an RDP query: use --accountant rdp (the pld and exact accountants have no RDP curve)")
	case r.given("order") && acct != "rdp":
		return fmt.Errorf("--order is an RDP query; the %s accountant has no RDP curve", acct)
	}
	if r.steps() < 1 {
		return fmt.Errorf("--steps %d: want ≥ 1", r.steps())
	}
	return nil
}

// event builds the form's event with the calibrated parameter picked by c,
// composed --steps times (unless the form owns --steps) and wrapped by
// --select.
func (r *Request) event(f form, c calibration) (Event, error) {
	e, err := f.build(r, c)
	if err != nil {
		return nil, err
	}
	if r.steps() != 1 && !f.ownsSteps {
		e = SelfComposed{Event: e, Count: r.steps()}
	}
	if s := r.str("select"); s != "" {
		sel, err := parseSelect(s)
		if err != nil {
			return nil, err
		}
		sel.Event = e
		e = sel
	}
	return e, nil
}

// parseSelect parses --select poisson:MEAN | tnb:MEAN:ETA | geometric:MEAN | logarithmic:MEAN.
func parseSelect(s string) (RepeatAndSelect, error) {
	parts := strings.Split(s, ":")
	d, err := ParseDistribution(parts[0])
	if err != nil {
		return RepeatAndSelect{}, fmt.Errorf("--select %q: %w", s, err)
	}
	want := 2
	if d == TruncatedNegativeBinomial {
		want = 3
	}
	if len(parts) != want {
		return RepeatAndSelect{}, fmt.Errorf("--select %q: want poisson:MEAN, tnb:MEAN:ETA, geometric:MEAN or logarithmic:MEAN", s)
	}
	r := RepeatAndSelect{Distribution: d}
	if r.Mean, err = strconv.ParseFloat(parts[1], 64); err != nil {
		return r, fmt.Errorf("--select %q: mean: %w", s, err)
	}
	if want == 3 {
		if r.Shape, err = strconv.ParseFloat(parts[2], 64); err != nil {
			return r, fmt.Errorf("--select %q: eta: %w", s, err)
		}
	}
	return r, nil
}

// result answers r with one accountant (cfg): the event (calibrated when
// --calibrate is given), its relation, and the query's numbers.
func (r *Request) result(f form, cfg Config) (*Result, error) {
	res := &Result{Accountant: cfg.Kind}
	if cfg.Kind == "rdp" {
		res.Orders = cfg.Orders
		if cfg.Conversion == "classic" {
			res.Conversion = cfg.Conversion
		}
	}
	if cfg.Kind == "pld" {
		res.Interval = cfg.Interval
	}
	if r.calib() != "" && f.rdpTarget != nil && r.given("order") {
		return f.rdpTarget(r, cfg, res)
	}
	// calibrated builds the event with the calibrated parameter at x.
	calibrated := func(x float64) Event {
		e, _ := r.event(f, calibration{x: x, on: true})
		return e
	}
	if r.calib() != "" {
		param := r.calibratedOf(f)
		cal := NewCalibrator(cfg)
		x, err := cal.Calibrate(calibrated, Target{Epsilon: r.float("epsilon"), Delta: r.float("delta")}, Bracket{})
		if err != nil {
			return nil, fmt.Errorf("calibrate --%s: %w", param, err)
		}
		res.Sigma, res.Parameter = jf(x), param
		res.Event = calibrated(x)
	} else {
		e, err := r.event(f, calibration{})
		if err != nil {
			return nil, err
		}
		res.Event = e
	}
	rel, err := LedgerRelation(res.Event)
	if err != nil {
		return nil, err
	}
	res.Relation = rel
	switch {
	case r.given("order"):
		res.query = "order"
		v, err := cfg.RDP(res.Event, r.float("order"))
		if err != nil {
			return nil, err
		}
		res.Order, res.RDP = jf(r.float("order")), jf(v)
	case r.given("delta"):
		res.query = "epsilon"
		delta := r.float("delta")
		g, err := cfg.Epsilon(res.Event, delta)
		if err != nil {
			return nil, err
		}
		res.Epsilon, res.Delta = jf(g.Epsilon), jf(delta)
		if cfg.Kind == "rdp" {
			res.Order = jf(g.Alpha)
		}
		if res.Sigma != nil && cfg.Kind == "pld" {
			res.Note = pldGridNote(cfg, calibrated, float64(*res.Sigma), g.Epsilon, r.float("epsilon"), delta, res.Parameter)
		}
		if f.conversions != nil && r.str("select") == "" {
			if err := f.conversions(r, res); err != nil {
				return nil, err
			}
		}
	default:
		res.query = "delta"
		d, err := cfg.Delta(res.Event, r.float("epsilon"))
		if err != nil {
			return nil, err
		}
		res.Epsilon, res.Delta = jf(r.float("epsilon")), jf(d)
	}
	if p, ok := res.Event.(Preprocessed); ok {
		pr, err := explainPipeline(cfg, p, res)
		if err != nil {
			return nil, err
		}
		res.Pipeline = pr
	}
	return res, nil
}

// pldGridNote says when a PLD calibration stopped at the grid's limit
// rather than at the target: ε(x) is below the target and the accountant
// cannot evaluate the event just below x (a *SizeError: the loss range
// grows as the noise shrinks), so a smaller value may meet the target at a
// coarser interval. It returns "" otherwise.
func pldGridNote(cfg Config, event func(float64) Event, x, eps, target, delta float64, param string) string {
	if !(eps < target*(1-1e-6)) {
		return ""
	}
	_, err := cfg.Epsilon(event(x*(1-1e-6)), delta)
	var se *SizeError
	if !errors.As(err, &se) {
		return ""
	}
	return fmt.Sprintf("note: ε is below the target because the pld accountant cannot evaluate --%s below %.10g at interval %g (its grid limit): a smaller --%s may meet the target; try a coarser --interval, or the exact or rdp accountant",
		param, x, se.Interval, param)
}
