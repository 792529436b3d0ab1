package accounting

import (
	"fmt"
	"math"
	"strings"
)

// pipelineForm is Preprocessed's command-line form, "account pipeline": a
// mechanism (--mech and its flags, pipelineMechs) run on data pre-processed
// with sensitivities --delta-inf and --delta-2 ([HSS24] Theorem 2).
func pipelineForm() form {
	return form{
		name: "pipeline", rank: 9,
		required: []string{"mech", "delta-inf", "delta-2"},
		optional: []string{"sigma", "scale", "sensitivity", "l12", "lf", "q", "clip",
			"mu-x", "lipschitz", "n", "analysis", "relation", "group-size-offset"},
		calibratedBy: func(r *Request) string {
			if m, ok := pipelineMechs()[r.str("mech")]; ok {
				return m.required[0]
			}
			return ""
		},
		ownsSteps: true, // --steps is the mechanism's
		check:     checkPipeline,
		build:     pipelineEvent,
		usage: `  pipeline --mech M (M's flags) --delta-inf P --delta-2 D [--n N] [--analysis A,B,...]
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
`,
	}
}

// pipelineMechs lists, per --mech of "account pipeline", its required and
// optional flags (the calibrated one first).
func pipelineMechs() map[string]struct{ required, optional []string } {
	return map[string]struct{ required, optional []string }{
		"gaussian": {[]string{"sigma", "l12"}, []string{"lf", "sensitivity", "n"}},
		"laplace":  {[]string{"scale", "l12"}, []string{"lf", "sensitivity", "n"}},
		"dp-gd":    {[]string{"sigma", "n", "lipschitz", "mu-x"}, nil},
		"dp-sgd":   {[]string{"sigma", "q", "clip", "mu-x"}, []string{"n"}},
	}
}

// checkPipeline checks the mechanism flags of "account pipeline" against
// --mech (pipelineMechs); each error names the flag.
func checkPipeline(r *Request) error {
	mech := r.str("mech")
	m, ok := pipelineMechs()[mech]
	if !ok {
		return fmt.Errorf("--mech %q: want gaussian, laplace, dp-gd or dp-sgd", mech)
	}
	allowed := map[string]bool{}
	for _, n := range append(append([]string(nil), m.required...), m.optional...) {
		allowed[n] = true
	}
	// The flags of "account pipeline" that belong to the mechanism.
	for _, n := range []string{"sigma", "scale", "sensitivity", "l12", "lf", "q", "clip", "mu-x", "lipschitz", "n"} {
		if r.given(n) && !allowed[n] {
			return fmt.Errorf("flag --%s does not apply to --mech %s", n, mech)
		}
	}
	for _, n := range m.required {
		if !r.given(n) && !(r.calib() != "" && n == m.required[0]) {
			return fmt.Errorf("--mech %s needs --%s", mech, n)
		}
	}
	switch d2 := r.float("delta-2"); {
	case r.int("delta-inf") < 0:
		return fmt.Errorf("--delta-inf %d: want ≥ 0 (a number of rows)", r.int("delta-inf"))
	case !(d2 >= 0) || math.IsInf(d2, 0):
		return fmt.Errorf("--delta-2 %v: want a finite distance ≥ 0", d2)
	case r.int("n") < 0:
		return fmt.Errorf("--n %d: want ≥ 0", r.int("n"))
	case r.int("group-size-offset") < 0:
		return fmt.Errorf("--group-size-offset %d: want ≥ 0 (0 means 1)", r.int("group-size-offset"))
	}
	return nil
}

// pipelineEvent builds the Preprocessed event of "account pipeline": the
// mechanism's SRDP description from the flags and its ledger event from it
// (SRDP.Event, so the two agree), with the noise flag picked by c.
func pipelineEvent(r *Request, c calibration) (Event, error) {
	var s SRDP
	steps := r.steps()
	switch mech := r.str("mech"); mech {
	case "gaussian":
		s = SRDP{Mechanism: SRDPGaussian, Sigma: c.pick(r.float("sigma")), Sensitivity: r.float("sensitivity"), L12: r.float("l12"), LF: r.float("lf"), Count: steps}
	case "laplace":
		s = SRDP{Mechanism: SRDPLaplace, Scale: c.pick(r.float("scale")), Sensitivity: r.float("sensitivity"), L12: r.float("l12"), LF: r.float("lf"), Count: steps}
	case "dp-gd":
		s = SRDP{Mechanism: SRDPDPGD, Sigma: c.pick(r.float("sigma")), N: r.int("n"), Lipschitz: r.float("lipschitz"), MuX: r.float("mu-x"), Steps: steps}
	case "dp-sgd":
		s = SRDP{Mechanism: SRDPDPSGD, NoiseMultiplier: c.pick(r.float("sigma")), Clip: r.float("clip"), MuX: r.float("mu-x"), Steps: steps, Q: r.float("q")}
	}
	if s.Count == 1 {
		s.Count = 0
	}
	ev, err := s.Event()
	if err != nil {
		return nil, fmt.Errorf("--mech %s: %w", r.str("mech"), err)
	}
	var analyses []string
	for _, a := range strings.Split(r.str("analysis"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			analyses = append(analyses, a)
		}
	}
	e := Preprocessed{Event: ev, SRDP: &s, DeltaInf: r.int("delta-inf"), Delta2: r.float("delta-2"), N: r.int("n"),
		Analyses: analyses, GroupSizeOffset: r.int("group-size-offset"), Relation: r.str("relation")}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// PipelineResult is what the answer for a Preprocessed event ("account
// pipeline", or "account json" of one) adds: every analysis and the winner.
type PipelineResult struct {
	SRDP         *SRDP            `json:"srdp,omitempty"`
	DeltaInf     int              `json:"delta_inf"`
	Delta2       float64          `json:"delta_2"`
	Relation     string           `json:"relation"`
	Tau          float64          `json:"tau"`
	TauF         *Float           `json:"tau_frobenius,omitempty"`
	GroupSize    int              `json:"group_size"`
	Analyses     []AnalysisResult `json:"analyses"`
	Winner       string           `json:"winner,omitempty"`        // the analysis that wins at the order of the answer
	LemmaM       *Float           `json:"lemma_m,omitempty"`       // the pipeline's ε by Lemma M (--delta)
	LemmaMAlpha  *Float           `json:"lemma_m_alpha,omitempty"` // its order
	PureEpsilon  *Float           `json:"pure_epsilon,omitempty"`  // pure-DP mechanisms: ε at δ = 0
	PureAnalysis string           `json:"pure_analysis,omitempty"`
}

// AnalysisResult is one analysis of a Preprocessed event alone.
type AnalysisResult struct {
	Analysis    string `json:"analysis"`
	Epsilon     *Float `json:"epsilon,omitempty"` // --delta: by the accountant
	Alpha       *Float `json:"alpha,omitempty"`
	LemmaM      *Float `json:"lemma_m,omitempty"` // --delta: by Lemma M, the paper's conversion
	LemmaMAlpha *Float `json:"lemma_m_alpha,omitempty"`
	Delta       *Float `json:"delta,omitempty"` // --epsilon
	RDP         *Float `json:"rdp,omitempty"`   // --order
	Note        string `json:"note,omitempty"`
}

// explainPipeline evaluates every applicable analysis of p alone for the
// query of res, and the winner (at the answer's α* for --delta, at the
// order for --order; none for --epsilon).
func explainPipeline(cfg Config, p Preprocessed, res *Result) (*PipelineResult, error) {
	tau, tauF := p.Tau()
	rel, err := LedgerRelation(p)
	if err != nil {
		return nil, err
	}
	pr := &PipelineResult{SRDP: p.SRDP, DeltaInf: p.DeltaInf, Delta2: p.Delta2, Relation: rel, Tau: tau, GroupSize: p.GroupSize()}
	if p.SRDP != nil && p.SRDP.SupportsFrobenius() {
		pr.TauF = jf(tauF)
	}
	switch res.query {
	case "epsilon":
		delta := float64(*res.Delta)
		pg, err := PreprocessedEpsilon(cfg, p, delta)
		if err != nil {
			return nil, err
		}
		pr.Winner = pg.Analysis
		for _, a := range pg.PerAnalysis {
			ar := AnalysisResult{Analysis: a.Analysis, Epsilon: jf(a.Epsilon), Alpha: jf(a.Alpha), Note: a.Err}
			if delta > 0 && delta < 1 {
				lm, la, err := LemmaMEpsilon(cfg, p.Only(a.Analysis), delta)
				if err != nil {
					return nil, err
				}
				ar.LemmaM, ar.LemmaMAlpha = jf(lm), jf(la)
			}
			pr.Analyses = append(pr.Analyses, ar)
		}
		if delta > 0 && delta < 1 {
			lm, la, err := LemmaMEpsilon(cfg, p, delta)
			if err != nil {
				return nil, err
			}
			pr.LemmaM, pr.LemmaMAlpha = jf(lm), jf(la)
		}
	case "order":
		at, err := PreprocessedAnalyses(cfg, p, float64(*res.Order))
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
				pr.Analyses = append(pr.Analyses, AnalysisResult{Analysis: v.Analysis, RDP: jf(v.RDP), Note: v.Note})
			}
		}
	default:
		for _, a := range p.Applicable() {
			d, err := cfg.Delta(p.Only(a), float64(*res.Epsilon))
			if err != nil {
				return nil, err
			}
			pr.Analyses = append(pr.Analyses, AnalysisResult{Analysis: a, Delta: jf(d)})
		}
	}
	if eps, a, ok := p.PureEpsilon(); ok {
		pr.PureEpsilon, pr.PureAnalysis = jf(eps), a
	}
	return pr, nil
}
