package accounting

import (
	"errors"
	"fmt"
	"math"
)

// rgmForm is RGM's command-line form, "account rgm": with --calibrate
// gamma and --order it solves γ and σ for an RDP target (rgmTarget), and
// with --delta it adds Corollary 1 and the paper's conversion
// (rgmConversions).
func rgmForm() form {
	return form{
		name: "rgm", rank: 7, calibrated: "gamma",
		required: []string{"eta", "gamma", "d"}, optional: []string{"v1", "sigma", "r-rel", "form", "rule"},
		usage: `  rgm      --eta E --gamma G --d D [--sigma S --r-rel R] [--form std_linear] [--v1]
                                              relative Gaussian mechanism (Hendrikx et al. Thm 1, v2):
                                              noise N(0, (γ‖R(x)‖² + σ²)I) for a query with
                                              (η, R_rel)-relative sensitivity in dimension d; the
                                              std_linear form is the authors' code (std √γ‖R(x)‖ + σ)
`,
		build: func(r *Request, c calibration) (Event, error) {
			e := RGM{Eta: r.float("eta"), Gamma: c.pick(r.float("gamma")), D: r.int("d"), V1: r.bool("v1"),
				Sigma: r.float("sigma"), RRel: r.float("r-rel"), Form: r.str("form")}
			if c.on {
				// Scaling γ: the baseline noise that makes Theorem 1 hold at
				// every order, σ = √γ·R_rel/η (§4.2's choice; both forms).
				e.Sigma = math.Sqrt(c.x) * e.RRel / e.Eta * (1 + 1e-12)
			}
			return e, nil
		},
		checkCalibrate: func(r *Request) error {
			if r.given("sigma") {
				return errors.New("--sigma is set by --calibrate for rgm; drop it")
			}
			return nil
		},
		late: func(r *Request) error {
			if r.given("rule") && !(r.calib() != "" && r.given("order")) {
				return errors.New("--rule applies to rgm's RDP-target calibration (--calibrate gamma --epsilon E --order A)")
			}
			return nil
		},
		rdpTarget:   rgmTarget,
		conversions: rgmConversions,
	}
}

// rgmTarget solves γ and σ of --steps RGM releases for the RDP target
// --epsilon at --order by --rule (RGMCalibrate; ε/T per release).
func rgmTarget(r *Request, cfg Config, res *Result) (*Result, error) {
	rule, err := ParseRGMRule(r.str("rule"))
	if err != nil {
		return nil, fmt.Errorf("--rule: %w", err)
	}
	if r.given("form") || r.given("v1") {
		return nil, errors.New("--form and --v1 follow from --rule in an RDP-target calibration; drop them")
	}
	order, eps, steps := r.float("order"), r.float("epsilon"), r.steps()
	one, err := RGMCalibrate(RGMTarget{Eta: r.float("eta"), RRel: r.float("r-rel"), D: r.int("d"),
		Alpha: order, Epsilon: eps / float64(steps), Rule: rule})
	if err != nil {
		return nil, fmt.Errorf("calibrate --gamma: %w", err)
	}
	var e Event = one
	if steps != 1 {
		e = SelfComposed{Event: one, Count: steps}
	}
	v, err := cfg.RDP(e, order)
	if err != nil {
		return nil, err
	}
	res.query, res.Event, res.Relation, res.Rule = "rdp-target", e, RelationReplaceOne, string(rule)
	res.Gamma, res.BaselineSigma = jf(one.Gamma), jf(one.Sigma)
	res.Order, res.RDP, res.Epsilon = jf(order), jf(v), jf(eps)
	return res, nil
}

// rgmConversions adds Corollary 1 and the numeric optimum of the paper's
// conversion for --steps releases of the RGM event.
func rgmConversions(r *Request, res *Result) error {
	e := res.Event
	if c, ok := e.(SelfComposed); ok {
		e = c.Event
	}
	rgm := e.(RGM)
	delta := r.float("delta")
	cf, ok, err := RGMCorollary1(rgm, r.steps(), delta)
	if err != nil {
		return err
	}
	m, a, err := RGMEpsilonMironov(rgm, r.steps(), delta)
	if err != nil {
		return err
	}
	res.Corollary1, res.Corollary1Valid, res.Mironov, res.MironovOrder = jf(cf), &ok, jf(m), jf(a)
	return nil
}
