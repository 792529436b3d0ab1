package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dplab/dplab/mechanisms/accounting"
)

var accountCommand = &command{
	Name: "account",
	UsageLine: "account EVENT [event flags] [--steps T] [--select poisson:MEAN | tnb:MEAN:ETA | geometric:MEAN | logarithmic:MEAN]\n" +
		"              (--delta D | --epsilon E | --order A) [--accountant rdp|pld|exact|all] [--orders default|grid|opacus|integer]\n" +
		"              [--interval H] [--calibrate sigma] [--json]",
	Short: "evaluate or calibrate the privacy of a mechanism (RDP, PLD or exact)",
	Long: `Account asks the accountant what a mechanism's privacy is, as one would ask
dp_accounting or Opacus.

EVENT and its flags:
  gaussian --sigma S [--sensitivity C]        Gaussian mechanism, L2 sensitivity C (default 1)
  laplace  --scale B [--sensitivity C]        Laplace mechanism, L1 sensitivity C (default 1)
  sgm      --q Q --sigma S                    one DP-SGD step: Poisson rate Q, noise multiplier S
  sgm      --n N --batch-size B --epochs E --sigma S
                                              DP-SGD as Opacus and TF Privacy users give it: q = B/N
                                              and T = ⌈E·N/B⌉ steps (TF Privacy's compute_dp_sgd_privacy;
                                              Opacus counts ⌊E/q⌋, the same when B divides E·N); the
                                              derived q and T are printed
  objpert  --sigma S --lambda L --beta B --lipschitz L
                                              objective perturbation (Redberg et al. Thm 3.2)
  amp      (objpert flags) --tau T --sigma-out S
                                              Algorithm 1 of Redberg et al. (Thm 4.1)
  gaussmix --k K --gamma G                    Gaussian mixing (Lev et al. Lemma 1)
  rgm      --eta E --gamma G --d D [--sigma S --r-rel R] [--form std_linear] [--v1]
                                              relative Gaussian mechanism (Hendrikx et al. Thm 1, v2):
                                              noise N(0, (γ‖R(x)‖² + σ²)I) for a query with
                                              (η, R_rel)-relative sensitivity in dimension d; the
                                              std_linear form is the authors' code (std √γ‖R(x)‖ + σ)
  json     --event JSON                       any event of the kind table as dplab writes it, e.g. a
                                              record's ledger from trials.jsonl ("privacy.event"), or
                                              '{"kind":"gaussian","sigma":2,"sensitivity":1}'
  pipeline --mech M (M's flags) --delta-inf P --delta-2 D [--n N] [--analysis A,B,...]
           [--relation replace_one|add_remove] [--group-size-offset K]
                                              mechanism M run on data pre-processed by a non-private,
                                              data-dependent step with sensitivities Δ∞ = P rows moved by
                                              at most Δ₂ = D each (Hu et al., Theorem 2); prints every
                                              analysis (paper, exact_factor, tight_pq, tight_pq_min,
                                              frobenius, group) and the one that wins. M and its flags:
             gaussian --sigma S --l12 L [--lf L] [--sensitivity C]   release f + N(0, S²), f L-Lipschitz
                                              in the L12 (and Frobenius) distance; --steps releases
             laplace  --scale B --l12 L [--lf L] [--sensitivity C]   f + Lap(B) (pure DP)
             dp-gd    --sigma S --n N --lipschitz L --mu-x M        full-batch DP-GD, noise S on the
                                              averaged gradient, loss L-Lipschitz, gradient M-smooth in x
             dp-sgd   --q Q --sigma Z --clip C --mu-x M             DP-SGD (Poisson rate Q, noise
                                              multiplier Z, clip C; add/remove: --relation add_remove)

--steps T composes the event T times; --select runs it a random number of times
(Papernot & Steinke) and releases the best run.

Queries (one of):
  --delta D            print ε at δ = D (and the optimal RDP order α*)
  --epsilon E          print δ at ε = E
  --order A            print the composed RDP ε(A) itself (rdp accountant)
  --calibrate sigma --epsilon E --delta D
                       print the smallest noise parameter with ε ≤ E at δ = D (σ for
                       gaussian, sgm, objpert and amp, the scale b for laplace, γ for
                       gaussmix and rgm); its own flag is then not needed
  --calibrate gamma --epsilon E --order A [--rule R]   (rgm only)
                       solve γ and σ of one RGM release for the RDP target ε at order A
                       by rule R: theorem_v2 (default; exact, d term included),
                       neglect_d (the paper's experiments), local (§4.2), std_linear
                       (the authors' code) or theorem_v1 (the invalid v1 bound);
                       with --steps T, for T releases (ε/T each)

For pipeline, --delta prints each analysis' ε (by the accountant and by the paper's
conversion, Lemma M: min over α of ε(α) + log(1/δ)/(α − 1)) and the pipeline's ε (the
pointwise minimum of the analyses' RDP curves) with the analysis that produced it;
--order prints each analysis' RDP ε(α); for laplace the pure ε (δ = 0) is printed
too. The guarantee is conditional on the declared sensitivities.

For rgm, --delta also prints Corollary 1's closed form and the numeric optimum
of ε_RDP(α) + log(1/δ)/(α − 1) over α (the paper's conversion), next to the
accountant's (tighter) conversion.

Accountants: all (rdp, pld and exact side by side, each with its ε or δ, or
"n/a" and why when it cannot evaluate a valid event the others answer; invalid
input is an error, as with one accountant), rdp (default; orders "default" = dp_accounting's grid refined by a
continuous search over α, "grid" = dp_accounting's grid exactly, "opacus",
"integer" = 2..--max-order), pld (pessimistic connect-the-dots PLD, --interval),
exact (the tight closed form of a composed Gaussian or one objective
perturbation). Neighbouring relation: add/remove (gaussmix: zero-out;
rgm: replace-one; pipeline: replace-one unless --relation add_remove). The
pld and exact accountants do not evaluate pipelines.`,
	Run: cmdAccount,
}

// accountFlags holds the parsed flags of "dplab account".
type accountFlags struct {
	sigma, sensitivity, scale, q         float64
	lambda, beta, lipschitz, tau, sigOut float64
	k, d, steps, maxOrder                int
	gamma, eta, rrel                     float64
	v1, asJSON                           bool
	sel, accountant, orders, sgm, calib  string
	form, rule                           string
	eventJSON                            string
	delta, epsilon, order, interval      float64
	set                                  map[string]bool
	// pipeline
	mech, analysis, relation   string
	deltaInf, n, groupOffset   int
	delta2, l12, lf, clip, muX float64
	// sgm in the practitioner's terms
	batchSize int
	epochs    float64
}

// eventFlags lists the flags each event takes; required ones first (the
// calibrated parameter is exempt when --calibrate is given).
var eventFlags = map[string]struct{ required, optional []string }{
	"gaussian": {[]string{"sigma"}, []string{"sensitivity"}},
	"laplace":  {[]string{"scale"}, []string{"sensitivity"}},
	"sgm":      {[]string{"q", "sigma"}, []string{"n", "batch-size", "epochs"}},
	"objpert":  {[]string{"sigma", "lambda", "beta", "lipschitz"}, nil},
	"amp":      {[]string{"sigma", "lambda", "beta", "lipschitz", "tau", "sigma-out"}, nil},
	"gaussmix": {[]string{"k", "gamma"}, nil},
	"rgm":      {[]string{"eta", "gamma", "d"}, []string{"v1", "sigma", "r-rel", "form", "rule"}},
	"json":     {[]string{"event"}, nil},
	"pipeline": {[]string{"mech", "delta-inf", "delta-2"}, []string{"sigma", "scale", "sensitivity", "l12", "lf", "q", "clip",
		"mu-x", "lipschitz", "n", "analysis", "relation", "group-size-offset"}},
}

// pipelineMechs lists, per --mech of "account pipeline", its required and
// optional flags (the calibrated one first).
var pipelineMechs = map[string]struct{ required, optional []string }{
	"gaussian": {[]string{"sigma", "l12"}, []string{"lf", "sensitivity", "n"}},
	"laplace":  {[]string{"scale", "l12"}, []string{"lf", "sensitivity", "n"}},
	"dp-gd":    {[]string{"sigma", "n", "lipschitz", "mu-x"}, nil},
	"dp-sgd":   {[]string{"sigma", "q", "clip", "mu-x"}, []string{"n"}},
}

// pipelineFlags are the flags of "account pipeline" that belong to the
// mechanism (checked against pipelineMechs).
var pipelineFlags = []string{"sigma", "scale", "sensitivity", "l12", "lf", "q", "clip", "mu-x", "lipschitz", "n"}

// calibratedFlag is the flag whose value --calibrate finds, per event
// (pipeline: per --mech, calibratedOf).
var calibratedFlag = map[string]string{
	"gaussian": "sigma", "laplace": "scale", "sgm": "sigma", "objpert": "sigma",
	"amp": "sigma", "gaussmix": "gamma", "rgm": "gamma",
}

// calibratedOf returns the flag --calibrate finds for the event ("" when
// none): calibratedFlag, or for pipeline the --mech's noise flag.
func (f *accountFlags) calibratedOf(event string) string {
	if event == "pipeline" {
		if m, ok := pipelineMechs[f.mech]; ok {
			return m.required[0]
		}
		return ""
	}
	return calibratedFlag[event]
}

// generalFlags apply to every event.
var generalFlags = []string{"steps", "select", "delta", "epsilon", "order", "accountant", "orders",
	"max-order", "sgm", "interval", "calibrate", "json"}

func eventNames() string {
	names := make([]string, 0, len(eventFlags))
	for n := range eventFlags {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func cmdAccount(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var f accountFlags
	fs := newFlagSet("account", stdout)
	fs.Float64Var(&f.sigma, "sigma", 0, "noise standard deviation σ (gaussian, objpert, amp) or noise multiplier (sgm)")
	fs.Float64Var(&f.sensitivity, "sensitivity", 1, "L2 (gaussian) or L1 (laplace) sensitivity")
	fs.Float64Var(&f.scale, "scale", 0, "Laplace scale b")
	fs.Float64Var(&f.q, "q", 0, "Poisson sampling rate (sgm)")
	fs.Float64Var(&f.lambda, "lambda", 0, "ridge regularisation λ > β (objpert, amp)")
	fs.Float64Var(&f.beta, "beta", 0, "smoothness β of the loss (objpert, amp)")
	fs.Float64Var(&f.lipschitz, "lipschitz", 0, "Lipschitz bound L, or clip norm C for amp (objpert, amp)")
	fs.Float64Var(&f.tau, "tau", 0, "gradient-norm tolerance τ (amp)")
	fs.Float64Var(&f.sigOut, "sigma-out", 0, "output noise σ_out (amp)")
	fs.IntVar(&f.k, "k", 0, "sketch size k (gaussmix)")
	fs.Float64Var(&f.gamma, "gamma", 0, "γ (gaussmix: > 1; rgm: > 0)")
	fs.Float64Var(&f.eta, "eta", 0, "relative sensitivity η (rgm)")
	fs.IntVar(&f.d, "d", 0, "output dimension (rgm)")
	fs.BoolVar(&f.v1, "v1", false, "use the (invalid near its order limit) v1 bound of RGM Theorem 1")
	fs.Float64Var(&f.rrel, "r-rel", 0, "absolute part R_rel of the relative sensitivity (rgm)")
	fs.StringVar(&f.form, "form", "", "noise form (rgm): empty (variance γ‖R‖² + σ²) or std_linear (the authors' code)")
	fs.StringVar(&f.rule, "rule", "theorem_v2", "RDP-target calibration rule (rgm): theorem_v2, neglect_d, local, std_linear or theorem_v1")
	fs.IntVar(&f.steps, "steps", 1, "number of adaptive repetitions T")
	fs.StringVar(&f.sel, "select", "", "private selection: poisson:MEAN, tnb:MEAN:ETA, geometric:MEAN or logarithmic:MEAN")
	fs.Float64Var(&f.delta, "delta", 0, "δ at which to report ε")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "ε at which to report δ (or the calibration target)")
	fs.Float64Var(&f.order, "order", 0, "report the RDP ε(α) at this order α")
	fs.StringVar(&f.accountant, "accountant", "rdp", "accountant: rdp, pld, exact, or all (the three side by side)")
	fs.StringVar(&f.orders, "orders", "default", "RDP orders: default, grid, opacus or integer")
	fs.IntVar(&f.maxOrder, "max-order", 256, "largest order of --orders integer (at most 1000000)")
	fs.StringVar(&f.sgm, "sgm", "bound", "sampled-Gaussian fractional orders: bound (dp_accounting) or exact")
	fs.Float64Var(&f.interval, "interval", accounting.DefaultInterval, "PLD discretisation interval")
	fs.StringVar(&f.calib, "calibrate", "", "calibrate the noise parameter: sigma")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&f.eventJSON, "event", "", "the event as JSON (event json)")
	fs.StringVar(&f.mech, "mech", "", "pipeline: the mechanism (gaussian, laplace, dp-gd or dp-sgd)")
	fs.IntVar(&f.deltaInf, "delta-inf", 0, "pipeline: Δ∞, the rows of the common part the pre-processing maps differently")
	fs.Float64Var(&f.delta2, "delta-2", 0, "pipeline: Δ₂, the largest L2 move of such a row")
	fs.IntVar(&f.n, "n", 0, "dataset size n (sgm: with --batch-size and --epochs; pipeline: caps the group size; dp-gd: its n)")
	fs.IntVar(&f.batchSize, "batch-size", 0, "sgm: expected batch size B (q = B/n)")
	fs.Float64Var(&f.epochs, "epochs", 0, "sgm: epochs E (T = ⌈E·n/B⌉ steps)")
	fs.StringVar(&f.analysis, "analysis", "", "pipeline: comma-separated analyses (default exact_factor,tight_pq,tight_pq_min,frobenius,group)")
	fs.StringVar(&f.relation, "relation", "", "pipeline: neighbouring relation of the sensitivities, replace_one (default) or add_remove")
	fs.IntVar(&f.groupOffset, "group-size-offset", 0, "pipeline: g = min(Δ∞ + K, n) (0 means 1)")
	fs.Float64Var(&f.l12, "l12", 0, "pipeline: Lipschitz constant of the query in the L12 distance (gaussian, laplace)")
	fs.Float64Var(&f.lf, "lf", 0, "pipeline: Lipschitz constant of the query in the Frobenius distance (gaussian, laplace)")
	fs.Float64Var(&f.clip, "clip", 0, "pipeline: per-example clipping norm C (dp-sgd)")
	fs.Float64Var(&f.muX, "mu-x", 0, "pipeline: smoothness of the per-example gradient in the data (dp-gd, dp-sgd)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if len(pos) != 1 {
		return badInput(fmt.Errorf("want exactly one EVENT (%s), got %d arguments", eventNames(), len(pos)))
	}
	name := pos[0]
	spec, ok := eventFlags[name]
	if !ok {
		return badInput(fmt.Errorf("unknown event %q (want %s)", name, eventNames()))
	}
	derived, err := f.practitionerSGM(name)
	if err != nil {
		return badInput(err)
	}
	if err := f.checkFlags(name, spec.required, spec.optional); err != nil {
		return badInput(err)
	}
	kinds := []string{f.accountant}
	if f.accountant == "all" {
		kinds = []string{"rdp", "pld", "exact"}
	}
	var all []*accountResult
	var failed []error
	for _, kind := range kinds {
		g := f
		g.accountant = kind
		cfg := accounting.Config{Kind: kind, Orders: f.orders, MaxOrder: f.maxOrder, SGM: f.sgm, Interval: f.interval}
		if err := cfg.Validate(); err != nil {
			return badInput(err)
		}
		res, err := g.run(name, cfg)
		if err != nil {
			err = withHint(err, g.calibratedOf(name), kind)
			if len(kinds) == 1 {
				return badInput(err)
			}
			failed = append(failed, err)
			res = &accountResult{Accountant: kind, Error: err.Error()}
		}
		res.Derived = derived
		all = append(all, res)
	}
	if len(kinds) > 1 && len(failed) == len(kinds) {
		return badInput(noAnswer(kinds, failed))
	}
	if len(all) == 1 {
		if f.asJSON {
			return all[0].writeJSON(stdout)
		}
		all[0].writeText(stdout)
		return nil
	}
	if f.asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"accountants": all})
	}
	for _, r := range all {
		fmt.Fprintf(stdout, "%-6s ", r.Accountant+":")
		if r.Error != "" {
			fmt.Fprintf(stdout, "n/a, does not apply to this input (%s)\n", strings.TrimPrefix(r.Error, "accounting: "))
			continue
		}
		r.Derived = ""
		r.writeText(stdout)
	}
	if derived != "" {
		fmt.Fprintln(stdout, derived)
	}
	return nil
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

// practitionerSGM turns "sgm --n N --batch-size B --epochs E" into --q and
// --steps: q = B/N, T = ⌈E·N/B⌉, TF Privacy's compute_dp_sgd_privacy count
// (Opacus' accountants count ⌊E/q⌋ steps, the same when B divides E·N). It
// returns the sentence saying so ("" when the flags are not used).
func (f *accountFlags) practitionerSGM(event string) (string, error) {
	used := f.set["batch-size"] || f.set["epochs"] || event == "sgm" && f.set["n"]
	if !used {
		return "", nil
	}
	if event != "sgm" {
		for _, n := range []string{"batch-size", "epochs"} {
			if f.set[n] {
				return "", fmt.Errorf("flag --%s does not apply to event %s (sgm only)", n, event)
			}
		}
		return "", nil
	}
	switch {
	case !f.set["n"] || !f.set["batch-size"] || !f.set["epochs"]:
		return "", errors.New("sgm in dataset terms needs all of --n, --batch-size and --epochs (or give --q and --steps)")
	case f.set["q"] || f.set["steps"]:
		return "", errors.New("give either --n, --batch-size and --epochs or --q and --steps, not both")
	case f.n < 1:
		return "", fmt.Errorf("--n %d: want ≥ 1", f.n)
	case f.batchSize < 1 || f.batchSize > f.n:
		return "", fmt.Errorf("--batch-size %d: want 1 ≤ B ≤ n = %d", f.batchSize, f.n)
	case !(f.epochs > 0) || math.IsInf(f.epochs, 0):
		return "", fmt.Errorf("--epochs %g: want a finite E > 0", f.epochs)
	}
	f.q = float64(f.batchSize) / float64(f.n)
	steps := math.Ceil(f.epochs * float64(f.n) / float64(f.batchSize))
	if steps > math.MaxInt32 {
		return "", fmt.Errorf("--epochs %g with n = %d, B = %d gives %g steps; too many", f.epochs, f.n, f.batchSize, steps)
	}
	f.steps = int(steps)
	f.set["q"], f.set["steps"] = true, true
	delete(f.set, "n")
	delete(f.set, "batch-size")
	delete(f.set, "epochs")
	return fmt.Sprintf("(from --n %d --batch-size %d --epochs %g: sampling rate q = B/n = %.6g, steps T = ⌈E·n/B⌉ = %d)",
		f.n, f.batchSize, f.epochs, f.q, f.steps), nil
}

// withHint adds to an unreachable calibration target which parameter was
// calibrated, and what may reach it: another accountant or finer settings.
func withHint(err error, param, accountant string) error {
	ie, ok := accounting.IsInfeasible(err)
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

// checkFlags rejects flags that do not apply to the event, missing required
// flags and inconsistent queries; each error names the flag.
func (f *accountFlags) checkFlags(event string, required, optional []string) error {
	allowed := map[string]bool{}
	for _, n := range append(append(append([]string(nil), required...), optional...), generalFlags...) {
		allowed[n] = true
	}
	var names []string
	for n := range f.set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !allowed[n] {
			return fmt.Errorf("flag --%s does not apply to event %s", n, event)
		}
	}
	switch f.calib {
	case "":
	case "sigma", "scale", "gamma":
		if f.calibratedOf(event) == "" {
			return fmt.Errorf("--calibrate does not apply to event %s (it has no noise flag)", event)
		}
		switch {
		case event == "rgm" && f.set["order"] && f.set["epsilon"] && !f.set["delta"]:
			// RGM's RDP-target solve (rgm.md §2.4).
		case !f.set["epsilon"] || !f.set["delta"]:
			return errors.New("--calibrate needs both --epsilon (the target) and --delta (rgm: or --order for an RDP target)")
		case f.set["order"]:
			return errors.New("--calibrate takes --delta or (rgm) --order, not both")
		}
		if event == "rgm" && f.set["sigma"] {
			return errors.New("--sigma is set by --calibrate for rgm; drop it")
		}
	default:
		return fmt.Errorf("--calibrate %q: want sigma (the event's noise parameter)", f.calib)
	}
	for _, n := range required {
		if !f.set[n] && !(f.calib != "" && n == f.calibratedOf(event)) {
			return fmt.Errorf("event %s needs --%s", event, n)
		}
	}
	if event == "pipeline" {
		if err := f.checkPipelineFlags(); err != nil {
			return err
		}
	}
	if f.calib != "" && f.set[f.calibratedOf(event)] {
		return fmt.Errorf("--%s is what --calibrate finds; drop it", f.calibratedOf(event))
	}
	if f.calib == "" {
		n := 0
		for _, q := range []string{"delta", "epsilon", "order"} {
			if f.set[q] {
				n++
			}
		}
		if n != 1 {
			return errors.New("give exactly one of --delta, --epsilon or --order (--epsilon with --delta only with --calibrate)")
		}
	}
	if f.set["rule"] && !(event == "rgm" && f.calib != "" && f.set["order"]) {
		return errors.New("--rule applies to rgm's RDP-target calibration (--calibrate gamma --epsilon E --order A)")
	}
	switch {
	case f.set["order"] && f.accountant == "all":
		return errors.New("--order is an RDP query: use --accountant rdp (the pld and exact accountants have no RDP curve)")
	case f.set["order"] && f.accountant != "rdp":
		return fmt.Errorf("--order is an RDP query; the %s accountant has no RDP curve", f.accountant)
	}
	if f.steps < 1 {
		return fmt.Errorf("--steps %d: want ≥ 1", f.steps)
	}
	return nil
}

// event builds the event with the calibrated parameter set to x (ignored
// without --calibrate).
func (f *accountFlags) event(name string, x float64, calibrating bool) (accounting.Event, error) {
	pick := func(v float64) float64 {
		if calibrating {
			return x
		}
		return v
	}
	var e accounting.Event
	switch name {
	case "gaussian":
		e = accounting.Gaussian{Sigma: pick(f.sigma), Sensitivity: f.sensitivity}
	case "laplace":
		e = accounting.Laplace{Scale: pick(f.scale), Sensitivity: f.sensitivity}
	case "sgm":
		e = accounting.PoissonSampledGaussian{Q: f.q, NoiseMultiplier: pick(f.sigma)}
	case "objpert":
		e = accounting.ObjectivePerturbation{Sigma: pick(f.sigma), Lambda: f.lambda, Beta: f.beta, L: f.lipschitz}
	case "amp":
		e = accounting.AMP{ObjPert: accounting.ObjectivePerturbation{Sigma: pick(f.sigma), Lambda: f.lambda, Beta: f.beta, L: f.lipschitz},
			Tau: f.tau, SigmaOut: f.sigOut}
	case "gaussmix":
		e = accounting.GaussMix{K: f.k, Gamma: pick(f.gamma)}
	case "rgm":
		r := accounting.RGM{Eta: f.eta, Gamma: pick(f.gamma), D: f.d, V1: f.v1, Sigma: f.sigma, RRel: f.rrel, Form: f.form}
		if calibrating {
			// Scaling γ: the baseline noise that makes Theorem 1 hold at
			// every order, σ = √γ·R_rel/η (§4.2's choice; both forms).
			r.Sigma = math.Sqrt(x) * f.rrel / f.eta * (1 + 1e-12)
		}
		e = r
	case "json":
		var err error
		if e, err = accounting.UnmarshalEvent([]byte(f.eventJSON)); err != nil {
			return nil, fmt.Errorf("--event: %w", err)
		}
	case "pipeline":
		var err error
		if e, err = f.pipelineEvent(pick); err != nil {
			return nil, err
		}
	}
	if f.steps != 1 && name != "pipeline" { // pipeline: --steps is the mechanism's
		e = accounting.SelfComposed{Event: e, Count: f.steps}
	}
	if f.sel != "" {
		sel, err := parseSelect(f.sel)
		if err != nil {
			return nil, err
		}
		sel.Event = e
		e = sel
	}
	return e, nil
}

// parseSelect parses --select poisson:MEAN | tnb:MEAN:ETA | geometric:MEAN | logarithmic:MEAN.
func parseSelect(s string) (accounting.RepeatAndSelect, error) {
	parts := strings.Split(s, ":")
	d, err := accounting.ParseDistribution(parts[0])
	if err != nil {
		return accounting.RepeatAndSelect{}, fmt.Errorf("--select %q: %w", s, err)
	}
	want := 2
	if d == accounting.TruncatedNegativeBinomial {
		want = 3
	}
	if len(parts) != want {
		return accounting.RepeatAndSelect{}, fmt.Errorf("--select %q: want poisson:MEAN, tnb:MEAN:ETA, geometric:MEAN or logarithmic:MEAN", s)
	}
	r := accounting.RepeatAndSelect{Distribution: d}
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

// accountResult is what "dplab account" reports.
type accountResult struct {
	Event      accounting.Event `json:"event"`
	Accountant string           `json:"accountant"`
	Orders     string           `json:"orders,omitempty"`
	Relation   string           `json:"relation"`
	Epsilon    *jsonFloat       `json:"epsilon,omitempty"`
	Delta      *jsonFloat       `json:"delta,omitempty"`
	Order      *jsonFloat       `json:"order,omitempty"`
	RDP        *jsonFloat       `json:"rdp,omitempty"`
	Sigma      *jsonFloat       `json:"sigma,omitempty"`
	Parameter  string           `json:"parameter,omitempty"`
	Interval   float64          `json:"interval,omitempty"`
	// RGM only: the RDP-target solve's rule and baseline noise, and with
	// --delta Corollary 1's closed form (valid: its condition holds) and
	// the numeric optimum of the paper's conversion.
	Rule            string     `json:"rule,omitempty"`
	Gamma           *jsonFloat `json:"gamma,omitempty"`
	BaselineSigma   *jsonFloat `json:"baseline_sigma,omitempty"`
	Corollary1      *jsonFloat `json:"corollary1,omitempty"`
	Corollary1Valid *bool      `json:"corollary1_valid,omitempty"`
	Mironov         *jsonFloat `json:"mironov,omitempty"`
	MironovOrder    *jsonFloat `json:"mironov_order,omitempty"`
	// A preprocessed event (pipeline, or json of one): every analysis.
	Pipeline *pipelineResult `json:"pipeline,omitempty"`
	// Derived says how q and T were derived from --n, --batch-size and
	// --epochs (sgm); "" otherwise.
	Derived string `json:"derived,omitempty"`
	// Error is why this accountant could not answer (--accountant all
	// only: a single accountant's error is the command's).
	Error string `json:"error,omitempty"`
	// Note qualifies a calibrated value: the PLD grid's limit, not the
	// target, stopped the search (pldGridNote).
	Note  string `json:"note,omitempty"`
	query string // "epsilon" (ε at δ), "delta" (δ at ε), "order" or "rdp-target"
}

// rgmOf returns the RGM leaf of an event built by "dplab account rgm".
func rgmOf(e accounting.Event) accounting.RGM {
	if c, ok := e.(accounting.SelfComposed); ok {
		e = c.Event
	}
	return e.(accounting.RGM)
}

// runRGMTarget solves γ and σ of --steps RGM releases for the RDP target
// --epsilon at --order by --rule (accounting.RGMCalibrate; ε/T per release).
func (f *accountFlags) runRGMTarget(cfg accounting.Config, res *accountResult) (*accountResult, error) {
	rule, err := accounting.ParseRGMRule(f.rule)
	if err != nil {
		return nil, fmt.Errorf("--rule: %w", err)
	}
	if f.set["form"] || f.set["v1"] {
		return nil, errors.New("--form and --v1 follow from --rule in an RDP-target calibration; drop them")
	}
	one, err := accounting.RGMCalibrate(accounting.RGMTarget{Eta: f.eta, RRel: f.rrel, D: f.d,
		Alpha: f.order, Epsilon: f.epsilon / float64(f.steps), Rule: rule})
	if err != nil {
		return nil, fmt.Errorf("calibrate --gamma: %w", err)
	}
	var e accounting.Event = one
	if f.steps != 1 {
		e = accounting.SelfComposed{Event: one, Count: f.steps}
	}
	r, err := cfg.RDP(e, f.order)
	if err != nil {
		return nil, err
	}
	res.query, res.Event, res.Relation, res.Rule = "rdp-target", e, accounting.RelationReplaceOne, string(rule)
	res.Gamma, res.BaselineSigma = jf(one.Gamma), jf(one.Sigma)
	res.Order, res.RDP, res.Epsilon = jf(f.order), jf(r), jf(f.epsilon)
	return res, nil
}

// addRGMConversions adds Corollary 1 and the numeric optimum of the paper's
// conversion for --steps releases of the RGM event.
func (r *accountResult) addRGMConversions(steps int, delta float64) error {
	e := rgmOf(r.Event)
	cf, ok, err := accounting.RGMCorollary1(e, steps, delta)
	if err != nil {
		return err
	}
	m, a, err := accounting.RGMEpsilonMironov(e, steps, delta)
	if err != nil {
		return err
	}
	r.Corollary1, r.Corollary1Valid, r.Mironov, r.MironovOrder = jf(cf), &ok, jf(m), jf(a)
	return nil
}

// jsonFloat encodes ±Inf as the strings "inf"/"-inf" (as the golden
// vectors do), since JSON has no infinities.
type jsonFloat float64

func (x jsonFloat) MarshalJSON() ([]byte, error) {
	switch v := float64(x); {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	}
	return json.Marshal(float64(x))
}

func jf(x float64) *jsonFloat { v := jsonFloat(x); return &v }

func (f *accountFlags) run(name string, cfg accounting.Config) (*accountResult, error) {
	res := &accountResult{Accountant: f.accountant}
	if f.accountant == "rdp" {
		res.Orders = f.orders
	}
	if f.accountant == "pld" {
		res.Interval = f.interval
	}
	if f.calib != "" && name == "rgm" && f.set["order"] {
		return f.runRGMTarget(cfg, res)
	}
	// calibrated builds the event with the calibrated parameter at x.
	calibrated := func(x float64) accounting.Event {
		e, _ := f.event(name, x, true)
		return e
	}
	if f.calib != "" {
		param := f.calibratedOf(name)
		cal := accounting.NewCalibrator(cfg)
		x, err := cal.Calibrate(calibrated, accounting.Target{Epsilon: f.epsilon, Delta: f.delta}, accounting.Bracket{})
		if err != nil {
			return nil, fmt.Errorf("calibrate --%s: %w", param, err)
		}
		res.Sigma, res.Parameter = jf(x), param
		res.Event = calibrated(x)
	} else {
		e, err := f.event(name, 0, false)
		if err != nil {
			return nil, err
		}
		res.Event = e
	}
	rel, err := accounting.LedgerRelation(res.Event)
	if err != nil {
		return nil, err
	}
	res.Relation = rel
	switch {
	case f.set["order"]:
		res.query = "order"
		r, err := cfg.RDP(res.Event, f.order)
		if err != nil {
			return nil, err
		}
		res.Order, res.RDP = jf(f.order), jf(r)
	case f.set["delta"]:
		res.query = "epsilon"
		g, err := cfg.Epsilon(res.Event, f.delta)
		if err != nil {
			return nil, err
		}
		res.Epsilon, res.Delta = jf(g.Epsilon), jf(f.delta)
		if f.accountant == "rdp" {
			res.Order = jf(g.Alpha)
		}
		if res.Sigma != nil && f.accountant == "pld" {
			res.Note = pldGridNote(cfg, calibrated, float64(*res.Sigma), g.Epsilon, f.epsilon, f.delta, res.Parameter)
		}
		if name == "rgm" && f.sel == "" {
			if err := res.addRGMConversions(f.steps, f.delta); err != nil {
				return nil, err
			}
		}
	default:
		res.query = "delta"
		d, err := cfg.Delta(res.Event, f.epsilon)
		if err != nil {
			return nil, err
		}
		res.Epsilon, res.Delta = jf(f.epsilon), jf(d)
	}
	if p, ok := res.Event.(accounting.Preprocessed); ok {
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
func pldGridNote(cfg accounting.Config, event func(float64) accounting.Event, x, eps, target, delta float64, param string) string {
	if !(eps < target*(1-1e-6)) {
		return ""
	}
	_, err := cfg.Epsilon(event(x*(1-1e-6)), delta)
	var se *accounting.SizeError
	if !errors.As(err, &se) {
		return ""
	}
	return fmt.Sprintf("note: ε is below the target because the pld accountant cannot evaluate --%s below %.10g at interval %g (its grid limit): a smaller --%s may meet the target; try a coarser --interval, or the exact or rdp accountant",
		param, x, se.Interval, param)
}

func (r *accountResult) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(r)
}

func (r *accountResult) how() string {
	switch r.Accountant {
	case "rdp":
		return fmt.Sprintf("rdp accountant, %s orders", r.Orders)
	case "pld":
		return fmt.Sprintf("pld accountant, interval %g", r.Interval)
	}
	return r.Accountant + " accountant"
}

func fmtNum(x *jsonFloat) string { return strconv.FormatFloat(float64(*x), 'g', 10, 64) }

func (r *accountResult) writeText(w io.Writer) {
	if r.Pipeline != nil {
		at := 0.0
		if r.Order != nil {
			at = float64(*r.Order)
		}
		r.Pipeline.writeText(w, r.query, at)
	}
	alpha := ""
	if r.Order != nil && r.query != "order" {
		alpha = fmt.Sprintf(", α* = %.6g", float64(*r.Order))
	}
	switch {
	case r.Sigma != nil:
		fmt.Fprintf(w, "%s = %s gives ε = %s at δ = %s (%s%s)\n", r.Parameter, fmtNum(r.Sigma), fmtNum(r.Epsilon), fmtNum(r.Delta), r.how(), alpha)
	case r.query == "rdp-target":
		fmt.Fprintf(w, "γ = %s, σ = %s (rule %s) give RDP ε(α = %g) = %s for target %s (theorem 1 v2, %s)\n",
			fmtNum(r.Gamma), fmtNum(r.BaselineSigma), r.Rule, float64(*r.Order), fmtNum(r.RDP), fmtNum(r.Epsilon), r.how())
	case r.query == "order":
		fmt.Fprintf(w, "RDP ε(α = %g) = %s (%s)\n", float64(*r.Order), fmtNum(r.RDP), r.how())
	case r.query == "epsilon":
		fmt.Fprintf(w, "ε = %s at δ = %s (%s%s)\n", fmtNum(r.Epsilon), fmtNum(r.Delta), r.how(), alpha)
		if r.Corollary1 != nil {
			valid := ""
			if !*r.Corollary1Valid {
				valid = "; its condition does not hold here, so it is not a guarantee"
			}
			fmt.Fprintf(w, "  Corollary 1 closed form: ε = %s%s\n", fmtNum(r.Corollary1), valid)
			fmt.Fprintf(w, "  numeric optimum of ε_RDP(α) + log(1/δ)/(α−1): ε = %s at α = %.6g\n", fmtNum(r.Mironov), float64(*r.MironovOrder))
		}
	default:
		fmt.Fprintf(w, "δ = %s at ε = %s (%s)\n", fmtNum(r.Delta), fmtNum(r.Epsilon), r.how())
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	if r.Derived != "" {
		fmt.Fprintln(w, r.Derived)
	}
}

// checkPipelineFlags checks the mechanism flags of "account pipeline"
// against --mech (pipelineMechs); each error names the flag.
func (f *accountFlags) checkPipelineFlags() error {
	m, ok := pipelineMechs[f.mech]
	if !ok {
		return fmt.Errorf("--mech %q: want gaussian, laplace, dp-gd or dp-sgd", f.mech)
	}
	allowed := map[string]bool{}
	for _, n := range append(append([]string(nil), m.required...), m.optional...) {
		allowed[n] = true
	}
	for _, n := range pipelineFlags {
		if f.set[n] && !allowed[n] {
			return fmt.Errorf("flag --%s does not apply to --mech %s", n, f.mech)
		}
	}
	for _, n := range m.required {
		if !f.set[n] && !(f.calib != "" && n == m.required[0]) {
			return fmt.Errorf("--mech %s needs --%s", f.mech, n)
		}
	}
	switch {
	case f.deltaInf < 0:
		return fmt.Errorf("--delta-inf %d: want ≥ 0 (a number of rows)", f.deltaInf)
	case !(f.delta2 >= 0) || math.IsInf(f.delta2, 0):
		return fmt.Errorf("--delta-2 %v: want a finite distance ≥ 0", f.delta2)
	case f.n < 0:
		return fmt.Errorf("--n %d: want ≥ 0", f.n)
	case f.groupOffset < 0:
		return fmt.Errorf("--group-size-offset %d: want ≥ 0 (0 means 1)", f.groupOffset)
	}
	return nil
}

// pipelineEvent builds the Preprocessed event of "account pipeline": the
// mechanism's SRDP description from the flags and its ledger event from it
// (SRDP.Event, so the two agree), with the noise flag through pick.
func (f *accountFlags) pipelineEvent(pick func(float64) float64) (accounting.Event, error) {
	var s accounting.SRDP
	switch f.mech {
	case "gaussian":
		s = accounting.SRDP{Mechanism: accounting.SRDPGaussian, Sigma: pick(f.sigma), Sensitivity: f.sensitivity, L12: f.l12, LF: f.lf, Count: f.steps}
	case "laplace":
		s = accounting.SRDP{Mechanism: accounting.SRDPLaplace, Scale: pick(f.scale), Sensitivity: f.sensitivity, L12: f.l12, LF: f.lf, Count: f.steps}
	case "dp-gd":
		s = accounting.SRDP{Mechanism: accounting.SRDPDPGD, Sigma: pick(f.sigma), N: f.n, Lipschitz: f.lipschitz, MuX: f.muX, Steps: f.steps}
	case "dp-sgd":
		s = accounting.SRDP{Mechanism: accounting.SRDPDPSGD, NoiseMultiplier: pick(f.sigma), Clip: f.clip, MuX: f.muX, Steps: f.steps, Q: f.q}
	}
	if s.Count == 1 {
		s.Count = 0
	}
	ev, err := s.Event()
	if err != nil {
		return nil, fmt.Errorf("--mech %s: %w", f.mech, err)
	}
	var analyses []string
	for _, a := range strings.Split(f.analysis, ",") {
		if a = strings.TrimSpace(a); a != "" {
			analyses = append(analyses, a)
		}
	}
	e := accounting.Preprocessed{Event: ev, SRDP: &s, DeltaInf: f.deltaInf, Delta2: f.delta2, N: f.n,
		Analyses: analyses, GroupSizeOffset: f.groupOffset, Relation: f.relation}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// pipelineResult is what "account pipeline" (or "account json" of a
// preprocessed event) adds: every analysis and the winner.
type pipelineResult struct {
	SRDP         *accounting.SRDP `json:"srdp,omitempty"`
	DeltaInf     int              `json:"delta_inf"`
	Delta2       float64          `json:"delta_2"`
	Relation     string           `json:"relation"`
	Tau          float64          `json:"tau"`
	TauF         *jsonFloat       `json:"tau_frobenius,omitempty"`
	GroupSize    int              `json:"group_size"`
	Analyses     []analysisResult `json:"analyses"`
	Winner       string           `json:"winner,omitempty"`        // the analysis that wins at the order of the answer
	LemmaM       *jsonFloat       `json:"lemma_m,omitempty"`       // the pipeline's ε by Lemma M (--delta)
	LemmaMAlpha  *jsonFloat       `json:"lemma_m_alpha,omitempty"` // its order
	PureEpsilon  *jsonFloat       `json:"pure_epsilon,omitempty"`  // pure-DP mechanisms: ε at δ = 0
	PureAnalysis string           `json:"pure_analysis,omitempty"`
}

// analysisResult is one analysis alone.
type analysisResult struct {
	Analysis    string     `json:"analysis"`
	Epsilon     *jsonFloat `json:"epsilon,omitempty"` // --delta: by the accountant
	Alpha       *jsonFloat `json:"alpha,omitempty"`
	LemmaM      *jsonFloat `json:"lemma_m,omitempty"` // --delta: by Lemma M, the paper's conversion
	LemmaMAlpha *jsonFloat `json:"lemma_m_alpha,omitempty"`
	Delta       *jsonFloat `json:"delta,omitempty"` // --epsilon
	RDP         *jsonFloat `json:"rdp,omitempty"`   // --order
	Note        string     `json:"note,omitempty"`
}

// explainPipeline evaluates every applicable analysis of p alone for the
// query of res, and the winner (at the answer's α* for --delta, at the
// order for --order; none for --epsilon).
func explainPipeline(cfg accounting.Config, p accounting.Preprocessed, res *accountResult) (*pipelineResult, error) {
	tau, tauF := p.Tau()
	rel, err := accounting.LedgerRelation(p)
	if err != nil {
		return nil, err
	}
	pr := &pipelineResult{SRDP: p.SRDP, DeltaInf: p.DeltaInf, Delta2: p.Delta2, Relation: rel, Tau: tau, GroupSize: p.GroupSize()}
	if p.SRDP != nil && p.SRDP.SupportsFrobenius() {
		pr.TauF = jf(tauF)
	}
	switch res.query {
	case "epsilon":
		delta := float64(*res.Delta)
		pg, err := accounting.PreprocessedEpsilon(cfg, p, delta)
		if err != nil {
			return nil, err
		}
		pr.Winner = pg.Analysis
		for _, a := range pg.PerAnalysis {
			ar := analysisResult{Analysis: a.Analysis, Epsilon: jf(a.Epsilon), Alpha: jf(a.Alpha), Note: a.Err}
			if delta > 0 && delta < 1 {
				lm, la, err := accounting.LemmaMEpsilon(cfg, p.Only(a.Analysis), delta)
				if err != nil {
					return nil, err
				}
				ar.LemmaM, ar.LemmaMAlpha = jf(lm), jf(la)
			}
			pr.Analyses = append(pr.Analyses, ar)
		}
		if delta > 0 && delta < 1 {
			lm, la, err := accounting.LemmaMEpsilon(cfg, p, delta)
			if err != nil {
				return nil, err
			}
			pr.LemmaM, pr.LemmaMAlpha = jf(lm), jf(la)
		}
	case "order":
		at, err := accounting.PreprocessedAnalyses(cfg, p, float64(*res.Order))
		if err != nil {
			return nil, err
		}
		pr.Winner = at.Analysis
		app := map[string]bool{}
		for _, a := range p.Applicable() {
			app[a] = true
		}
		for _, v := range at.Values {
			if app[v.Analysis] {
				pr.Analyses = append(pr.Analyses, analysisResult{Analysis: v.Analysis, RDP: jf(v.RDP), Note: v.Note})
			}
		}
	default:
		for _, a := range p.Applicable() {
			d, err := cfg.Delta(p.Only(a), float64(*res.Epsilon))
			if err != nil {
				return nil, err
			}
			pr.Analyses = append(pr.Analyses, analysisResult{Analysis: a, Delta: jf(d)})
		}
	}
	if eps, a, ok := p.PureEpsilon(); ok {
		pr.PureEpsilon, pr.PureAnalysis = jf(eps), a
	}
	return pr, nil
}

// writeText prints the pipeline's analyses as a table (before the answer).
func (p *pipelineResult) writeText(w io.Writer, query string, alpha float64) {
	mech := "no SRDP result: group privacy only"
	if p.SRDP != nil {
		b, _ := json.Marshal(p.SRDP)
		mech = string(b)
	}
	fro := ""
	if p.TauF != nil {
		fro = ", τ_F = " + fmtNum(p.TauF)
	}
	fmt.Fprintf(w, "pipeline: mechanism %s\n", mech)
	fmt.Fprintf(w, "  after a pre-processing with Δ∞ = %d, Δ₂ = %.10g (τ = %.10g%s), %s neighbours, group size g = %d;\n",
		p.DeltaInf, p.Delta2, p.Tau, fro, p.Relation, p.GroupSize)
	fmt.Fprintln(w, "  conditional on the declared sensitivities (Hu et al., Theorem 2)")
	switch query {
	case "order":
		fmt.Fprintf(w, "  %-13s %14s  %s\n", "analysis", "RDP ε(α)", "note")
		for _, a := range p.Analyses {
			fmt.Fprintf(w, "  %-13s %14s  %s\n", a.Analysis, fmtNum(a.RDP), a.Note)
		}
	case "epsilon":
		fmt.Fprintf(w, "  %-13s %14s %10s %14s %10s\n", "analysis", "ε (accountant)", "α*", "ε (Lemma M)", "α*")
		for _, a := range p.Analyses {
			lm, la := "", ""
			if a.LemmaM != nil {
				lm, la = fmtNum(a.LemmaM), fmt.Sprintf("%.6g", float64(*a.LemmaMAlpha))
			}
			fmt.Fprintf(w, "  %-13s %14s %10.6g %14s %10s\n", a.Analysis, fmtNum(a.Epsilon), float64(*a.Alpha), lm, la)
		}
		if p.LemmaM != nil {
			fmt.Fprintf(w, "  %-13s %14s %10s %14s %10.6g\n", "minimum", "(below)", "", fmtNum(p.LemmaM), float64(*p.LemmaMAlpha))
		}
	default:
		fmt.Fprintf(w, "  %-13s %14s\n", "analysis", "δ")
		for _, a := range p.Analyses {
			fmt.Fprintf(w, "  %-13s %14s\n", a.Analysis, fmtNum(a.Delta))
		}
	}
	if p.PureEpsilon != nil {
		fmt.Fprintf(w, "  pure DP (δ = 0): ε = %s by %s\n", fmtNum(p.PureEpsilon), p.PureAnalysis)
	}
	if p.Winner != "" {
		fmt.Fprintf(w, "  the pipeline's RDP is the minimum of the analyses' curves; at α = %.6g it is %s's\n", alpha, p.Winner)
	}
}
