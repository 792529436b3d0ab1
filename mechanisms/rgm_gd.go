package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/solvers"
)

// DGD is distributed full-batch gradient descent for ridge regression
// without intercept on N nodes under local differential privacy, the
// experiment of [HMB23] §6 and App. C. Node i holds n_i rows and the
// objective f_i(θ) = (1/(2n_i))‖X_iθ − y_i‖² + (μ/2)‖θ‖² (v2 Eq. (9); the last
// node of the "bias" split optimises f_i(θ − B)). At step t every node
// computes its gradient at the common θ_t and releases it through its own
// noiser; the server averages:
//
//	θ_{t+1} = θ_t − τ·(1/N) Σ_i g_t^(i),   τ = step_factor / max_i λ_max(A_i),   θ_0 = 0
//
// Ref: [HMB23] v2 Eq. (79) (the update), App. C (τ = 0.5/max_i λ_max(A_i));
// rgm.md §3.3, §5.1, §6 items 1–4.
//
// Three registered mechanisms share this file:
//
//   - "dgd": no noise, g^(i) = A_iθ − b_i (v2 Eq. (80)); non-private.
//   - "dgd-rgm": each node releases its gradient through the relative
//     Gaussian mechanism (v2 Eq. (83), Def. 3), g^(i) = ∇f_i + N(0, v·I_d),
//     v = γ_i‖∇f_i‖² + σ_i² (the code preset: std √γ_i‖∇f_i‖ + σ_i).
//   - "dgd-clip": each node releases the mean of its per-sample gradients
//     clipped to c_i plus N(0, σ_i²I_d) (v2 Eqs. (81)–(82)).
//
// The fit returns θ_T, and Release.Trace["excess_objective"][t] = F(θ_t) − F*
// and Trace["dist_to_opt"][t] = ‖θ_t − θ*‖² for t = 0..T, with F = Σ_i f_i
// (rgm.md §6 item 4), evaluated on the nodes' data without noise.
//
// Privacy. Every node is private for its own records (local DP; the split
// is fixed and public): the ledger is accounting.Parallel over the nodes,
// each part the T releases of that node, under replace-one neighbours (v2
// App. B.4). The sensitivities η_i, R_rel,i and the thresholds c_i are read
// from each node's data without noise, as in the paper ("does not strictly
// guarantee differential privacy, as it uses local datasets", App. C);
// Release.Assumptions says so and the records repeat it.
//
// epsilon_scope "per_step" (default) reproduces the paper: the budget's ε
// is the RDP ε of one release at order α, the ledger records what the T
// steps actually spend, and Release.TargetScope says so. "total" calibrates
// one noise scale with Budget.Calibrate so that the whole ledger (all T
// steps, the largest node) meets the (ε, δ) target under the spec's
// accountant (Release.Calibrated).
//
// Ledgers (relation replace-one throughout):
//
//	dgd:       NonPrivate
//	dgd-rgm:   Parallel{ SelfComposed{RGM_i, T} per node (NoOp for a node that never updates) }
//	           with ptr: Composed{ Parallel{ Composed{Laplace{1/ε_PTR, 1}, SelfComposed{RGM_i, T}} }, ApproxDP{0, δ/2} }
//	dgd-clip:  Parallel{ SelfComposed{Gaussian{σ_i/Δ_i, 1}, T} per node },  Δ_i = 2c_i/n_i
//
// RGM_i per step: per_step solves (γ_i, σ_i) from (η_i, R_rel,i, d, α, ε) by
// the rule (accounting.RGMCalibrate: the paper preset neglects the d term as
// App. C says, the code preset uses the code's std-linear noise); the event
// is always accounted by Theorem 1 of v2 (a "theorem_v1" rule sets the
// noise only). total calibrates one scale x: γ_i = x·η_i², σ_i² = x·R_rel,i²
// (Theorem 1's baseline condition at every order). Stats
// node<i>/eps_step_v2 is Theorem 1 v2's ε at α for one step, d term
// included.
//
// With feature clipping (dgd-rgm), the released gradient is that of the
// node's clipped or filtered rows, as in the paper and the code; the traces
// still evaluate F on the original rows, so they show the bias it costs.
type DGD struct {
	kind dgdKind
	p    DGDParams
}

type dgdKind int

const (
	dgdPlain dgdKind = iota
	dgdRGM
	dgdClip
)

// Registry names of the family.
const (
	dgdPlainName = "dgd"
	dgdRGMName   = "dgd-rgm"
	dgdClipName  = "dgd-clip"
)

func (k dgdKind) name() string {
	switch k {
	case dgdRGM:
		return dgdRGMName
	case dgdClip:
		return dgdClipName
	}
	return dgdPlainName
}

// Values of the string params.
const (
	dgdSplitRandom = "random"
	dgdSplitLabel  = "label"
	dgdSplitBias   = "bias"

	scopePerStep = "per_step"
	scopeTotal   = "total"

	featureClipNone   = "none"
	featureClipV1     = "v1_ellipse"
	featureClipFilter = "code_filter"

	clipRuleMax       = "max"
	clipRuleFrobenius = "frobenius"

	sensPaper      = "paper"
	sensReplaceOne = "replace_one"
)

// DGDParams is the params table of "dgd", "dgd-rgm" and "dgd-clip". Zero
// values mean the documented defaults. Keys marked "dgd-rgm only" or
// "dgd-clip only" are refused by the other mechanisms, and alpha and
// epsilon_scope by the non-private "dgd".
type DGDParams struct {
	// Nodes is the number of nodes N ≥ 1; 0 means 2 ([HMB23] §6).
	Nodes int `toml:"nodes" default:"2" range:"≥ 1"`
	// Split is "random" (default: one seeded shuffle, node sizes ⌊n/N⌋ and
	// the rest on the last node), "label" (2 nodes: 50 random rows each,
	// then one label to node 1 and the other to node 2; the code preset
	// reproduces the authors' index-offset bug) or "bias" (random, and the
	// last node optimises f(θ − B) with B = bias_scale·1_d). rgm.md §5.3,
	// §6 items 13–15.
	Split string `toml:"split" default:"random" range:"random | label | bias"`
	// SplitSeed seeds the split. The split is drawn once per training set
	// and shared by every method and trial (rgm.md §6 item 15); 0 is a seed
	// like any other.
	SplitSeed uint64 `toml:"split_seed" default:"0" range:"any integer ≥ 0"`
	// BiasScale is B's value on every coordinate (split = "bias" only); 0
	// means 100 (the authors' code, rgm.md §5.3).
	BiasScale float64 `toml:"bias_scale" default:"100" range:"finite, ≠ 0"`
	// Mu is the ridge regularization μ > 0; 0 means 0.03 ([HMB23] §6).
	Mu float64 `toml:"mu" default:"0.03" range:"> 0"`
	// Iterations is T; 0 means 40 (the authors' code, rgm.md §6 item 1).
	Iterations int `toml:"iterations" default:"40" range:"≥ 1"`
	// StepFactor sets τ = step_factor/max_i λ_max(A_i); 0 means 0.5 (App. C).
	StepFactor float64 `toml:"step_factor" default:"0.5" range:"> 0"`
	// Preset is "paper" (default) or "code" (the authors' code,
	// HadrienHx/RGM 953a431; rgm.md §5.5 and §6): the code's label split
	// (offset bug), η from mean-centred rows, R_rel with factor 1 instead of
	// 2, the std-linear RGM noise, the Frobenius clipping threshold, and a
	// node with η > 1 that skips its updates.
	Preset string `toml:"preset" default:"paper" range:"paper | code"`

	// Alpha is the Rényi order of the per-step target (private mechanisms);
	// 0 means 2 ([HMB23] §6).
	Alpha float64 `toml:"alpha" default:"2" range:"> 1" only:"dgd-rgm dgd-clip"`
	// EpsilonScope is "per_step" (default: the budget's ε is the per-step
	// RDP ε at Alpha, as in the paper) or "total" (the whole run's (ε, δ)
	// meets the budget under the spec's accountant).
	EpsilonScope string `toml:"epsilon_scope" default:"per_step" range:"per_step | total" only:"dgd-rgm dgd-clip"`

	// Rule (dgd-rgm only, per_step) overrides the preset's RGM calibration
	// rule (paper: "neglect_d", code: "std_linear"); any
	// accounting.RGMRule. "theorem_v1" sets the noise by the v1 formula but
	// the ledger is always accounted by Theorem 1 of v2.
	Rule string `toml:"rule" default:"the preset's (paper: neglect_d, code: std_linear)" range:"theorem_v2 | neglect_d | local | std_linear | theorem_v1" only:"dgd-rgm"`
	// RigorousConstants (dgd-rgm only) uses the constants of the derivation
	// instead of the paper's constant-free estimates: η² × 6 and
	// R_rel = √2η‖b‖ + 2√3 max_j‖x_j y_j‖/n (rgm.md §4.2).
	RigorousConstants bool `toml:"rigorous_constants" default:"false" only:"dgd-rgm"`
	// FeatureClip (dgd-rgm only) is "none" (default, v2 and the code),
	// "v1_ellipse" (v1 App. C.2: score ‖x‖²xᵀC⁻²x with C the full training
	// set's XᵀX/N + μI, keep the rows at or below the Quantile-quantile of
	// the scores, drop the rest) or "code_filter" (the code's outlier
	// filter, Rounds rounds scaling rows towards the node mean, rgm.md §5.5).
	FeatureClip string `toml:"feature_clip" default:"none" range:"none | v1_ellipse | code_filter" only:"dgd-rgm"`
	// Quantile (dgd-rgm, with a feature clip) is the kept quantile in
	// (0, 1]; 0 means 0.99 (v1 App. C.2).
	Quantile float64 `toml:"quantile" default:"0.99" range:"(0, 1]" only:"dgd-rgm"`
	// Rounds (dgd-rgm, feature_clip = "code_filter") is the number of filter
	// rounds; 0 means 1.
	Rounds int `toml:"rounds" default:"1" range:"≥ 1" only:"dgd-rgm"`
	// PTR (dgd-rgm only) runs v2's Propose-Test-Release check (Prop. 2,
	// C = Ã, ρ = 1/2) before training: Δ̂ = Δ₊ + Lap(1/ε_PTR) per node,
	// and the fit fails when Δ̂ ≤ log(1/δ)/ε_PTR. The test's Laplace
	// release and its failure probability δ/2 are charged. Without it Δ₊ and
	// exp(−εΔ₊) are still reported as diagnostics.
	PTR bool `toml:"ptr" default:"false" only:"dgd-rgm"`
	// PTREpsilon (dgd-rgm, ptr) is the test's ε_PTR; 0 means the budget's
	// ε under per_step. Required (and < ε) under total.
	PTREpsilon float64 `toml:"ptr_epsilon" default:"the budget's ε (per_step); required under total" range:"(0, ε)" only:"dgd-rgm"`

	// ClipFactor (dgd-clip only) multiplies the threshold: 1 (default) is
	// the paper's c, 10 "clip high", 0.1 "clip low".
	ClipFactor float64 `toml:"clip_factor" default:"1" range:"> 0" only:"dgd-clip"`
	// ClipRule (dgd-clip only) is "max" (paper preset: c_i = max_j
	// ‖∇ℓ_ij(θ_i*)‖ at the node's local optimum) or "frobenius" (code
	// preset: the Frobenius norm of the 1/n-scaled per-sample gradients,
	// i.e. c = √(Σ_j‖∇ℓ_ij(θ_i*)‖²) on the paper's scale, rgm.md §5.5).
	// Empty: the preset's.
	ClipRule string `toml:"clip_rule" default:"the preset's (paper: max, code: frobenius)" range:"max | frobenius" only:"dgd-clip"`
	// Sensitivity (dgd-clip only, per_step) is "paper" (default: σ_i² =
	// αc_i²/(εn_i²), v2 Eq. (82)) or "replace_one" (σ_i² = 2αc_i²/(εn_i²)).
	// The clipped mean's replace-one sensitivity is 2c_i/n_i, so "paper"
	// spends 2ε per step at α (the paper's convention, rgm.md §3.4 item 2)
	// and "replace_one" spends ε. The ledger records the true 2c_i/n_i
	// either way.
	Sensitivity string `toml:"sensitivity" default:"paper" range:"paper | replace_one" only:"dgd-clip"`
}

// dgdConfig is DGDParams with the defaults and the preset resolved.
type dgdConfig struct {
	nodes       int
	split       string
	splitSeed   uint64
	biasScale   float64
	mu          float64
	iterations  int
	stepFactor  float64
	code        bool
	alpha       float64
	total       bool
	rule        accounting.RGMRule
	rigorous    bool
	featureClip string
	quantile    float64
	rounds      int
	ptr         bool
	ptrEpsilon  float64
	clipFactor  float64
	clipRule    string
	replaceOne  bool
}

// Validate implements Params: ranges and names, whatever the mechanism.
func (p DGDParams) Validate() error {
	if p.Nodes < 0 {
		return fmt.Errorf("nodes = %d must be ≥ 1 (0 means 2)", p.Nodes)
	}
	if err := oneOf("split", p.Split, dgdSplitRandom, dgdSplitLabel, dgdSplitBias); err != nil {
		return err
	}
	if !finite(p.BiasScale) {
		return fmt.Errorf("bias_scale = %v must be finite", p.BiasScale)
	}
	if p.BiasScale != 0 && p.Split != dgdSplitBias {
		return fmt.Errorf("bias_scale applies only to split = %q", dgdSplitBias)
	}
	if p.Split == dgdSplitLabel && p.Nodes != 0 && p.Nodes != 2 {
		return fmt.Errorf("nodes = %d: split = %q needs 2 nodes", p.Nodes, dgdSplitLabel)
	}
	if err := checkDefaults(param{"mu", p.Mu}, param{"step_factor", p.StepFactor}, param{"clip_factor", p.ClipFactor},
		param{"ptr_epsilon", p.PTREpsilon}); err != nil {
		return err
	}
	if p.Iterations < 0 {
		return fmt.Errorf("iterations = %d must be ≥ 1 (0 means 40)", p.Iterations)
	}
	if err := oneOf("preset", p.Preset, presetPaper, presetCode); err != nil {
		return err
	}
	if p.Alpha != 0 && !(p.Alpha > 1 && finite(p.Alpha)) {
		return fmt.Errorf("alpha = %v must be a finite order > 1 (0 means 2)", p.Alpha)
	}
	if err := oneOf("epsilon_scope", p.EpsilonScope, scopePerStep, scopeTotal); err != nil {
		return err
	}
	if p.Rule != "" {
		if _, err := accounting.ParseRGMRule(p.Rule); err != nil {
			return fmt.Errorf("rule: %w", err)
		}
		if p.EpsilonScope == scopeTotal {
			return fmt.Errorf("rule applies only to epsilon_scope = %q (under %q one noise scale γ, with σ² = γR_rel²/η², is calibrated to the whole run)", scopePerStep, scopeTotal)
		}
	}
	if err := oneOf("feature_clip", p.FeatureClip, featureClipNone, featureClipV1, featureClipFilter); err != nil {
		return err
	}
	if p.Quantile != 0 {
		if !(p.Quantile > 0 && p.Quantile <= 1) {
			return fmt.Errorf("quantile = %v must be in (0, 1] (0 means 0.99)", p.Quantile)
		}
		if p.FeatureClip == "" || p.FeatureClip == featureClipNone {
			return fmt.Errorf("quantile applies only to feature_clip = %q or %q", featureClipV1, featureClipFilter)
		}
	}
	if p.Rounds < 0 {
		return fmt.Errorf("rounds = %d must be ≥ 1 (0 means 1)", p.Rounds)
	}
	if p.Rounds != 0 && p.FeatureClip != featureClipFilter {
		return fmt.Errorf("rounds applies only to feature_clip = %q", featureClipFilter)
	}
	if p.PTREpsilon != 0 && !p.PTR {
		return errors.New("ptr_epsilon applies only with ptr = true")
	}
	if p.PTR && p.EpsilonScope == scopeTotal && p.PTREpsilon == 0 {
		return fmt.Errorf("ptr_epsilon: with ptr = true and epsilon_scope = %q, set the test's share ptr_epsilon (< ε) of the budget", scopeTotal)
	}
	if err := oneOf("clip_rule", p.ClipRule, clipRuleMax, clipRuleFrobenius); err != nil {
		return err
	}
	if err := oneOf("sensitivity", p.Sensitivity, sensPaper, sensReplaceOne); err != nil {
		return err
	}
	if p.Sensitivity != "" && p.EpsilonScope == scopeTotal {
		return fmt.Errorf("sensitivity applies only to epsilon_scope = %q (under %q the noise is calibrated on the replace-one sensitivity 2c/n)", scopePerStep, scopeTotal)
	}
	return nil
}

// oneOf returns an error naming key unless v is empty or one of allowed.
func oneOf(key, v string, allowed ...string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s = %q: want one of %q", key, v, allowed)
}

// refuse returns an error naming the first key that is set but belongs to
// another mechanism of the family.
func (p DGDParams) refuse(k dgdKind) error {
	type key struct {
		name   string
		set    bool
		owners []dgdKind
	}
	private := []dgdKind{dgdRGM, dgdClip}
	for _, c := range []key{
		{"alpha", p.Alpha != 0, private},
		{"epsilon_scope", p.EpsilonScope != "", private},
		{"rule", p.Rule != "", []dgdKind{dgdRGM}},
		{"rigorous_constants", p.RigorousConstants, []dgdKind{dgdRGM}},
		{"feature_clip", p.FeatureClip != "", []dgdKind{dgdRGM}},
		{"quantile", p.Quantile != 0, []dgdKind{dgdRGM}},
		{"rounds", p.Rounds != 0, []dgdKind{dgdRGM}},
		{"ptr", p.PTR, []dgdKind{dgdRGM}},
		{"ptr_epsilon", p.PTREpsilon != 0, []dgdKind{dgdRGM}},
		{"clip_factor", p.ClipFactor != 0, []dgdKind{dgdClip}},
		{"clip_rule", p.ClipRule != "", []dgdKind{dgdClip}},
		{"sensitivity", p.Sensitivity != "", []dgdKind{dgdClip}},
	} {
		if c.set && !slices.Contains(c.owners, k) {
			names := make([]string, len(c.owners))
			for i, o := range c.owners {
				names[i] = o.name()
			}
			return fmt.Errorf("mechanism %s: params: %s applies only to %q", k.name(), c.name, names)
		}
	}
	return nil
}

// config resolves the defaults and the preset.
func (p DGDParams) config() dgdConfig {
	c := dgdConfig{
		nodes: p.Nodes, split: orString(p.Split, dgdSplitRandom), splitSeed: p.SplitSeed,
		biasScale: orDefault(p.BiasScale, 100), mu: orDefault(p.Mu, 0.03), iterations: p.Iterations,
		stepFactor: orDefault(p.StepFactor, 0.5), code: p.Preset == presetCode, alpha: orDefault(p.Alpha, 2),
		total: p.EpsilonScope == scopeTotal, rigorous: p.RigorousConstants,
		featureClip: orString(p.FeatureClip, featureClipNone), quantile: orDefault(p.Quantile, 0.99),
		rounds: p.Rounds, ptr: p.PTR, ptrEpsilon: p.PTREpsilon, clipFactor: orDefault(p.ClipFactor, 1),
		clipRule: p.ClipRule, replaceOne: p.Sensitivity == sensReplaceOne,
	}
	if c.nodes == 0 {
		c.nodes = 2
	}
	if c.split != dgdSplitBias {
		c.biasScale = 0
	}
	if c.iterations == 0 {
		c.iterations = 40
	}
	if c.rounds == 0 {
		c.rounds = 1
	}
	c.rule = accounting.RGMNeglectD // [HMB23] App. C: the d term is neglected
	if c.code {
		c.rule = accounting.RGMCodeStdLinear // rgm.md §5.5
	}
	if p.Rule != "" {
		c.rule, _ = accounting.ParseRGMRule(p.Rule)
	}
	if c.clipRule == "" {
		c.clipRule = clipRuleMax // [HMB23] §6
		if c.code {
			c.clipRule = clipRuleFrobenius // rgm.md §5.5
		}
	}
	return c
}

// The quantities of the distributed-GD family as tables print them
// (Info.Quantities): [HMB23]'s notation, and the authors' code's units
// where a reader compares with it.
const (
	refHMB        = "[HMB23] v2"
	refRGMCode    = "authors' code, rgm.md §5.5"
	dgdPaperScale = "paper scale: gradients ∇ℓ_j"
	dgdCodeScale  = "code scale: gradients ∇ℓ_j/n"
)

// dgdQuantities are the diagnostics every mechanism of the family reports
// (per node under "node<i>/", τ and the wall time per step for the run).
var dgdQuantities = map[string][]Quantity{
	"tau":        {quantity("τ", `$\tau$`, "step size 0.5/max_i λ_max(A_i)", refHMB+" App. C")},
	"n":          {quantity("n", `$n$`, "records of the node", refHMB+" §6")},
	"lambda_max": {quantity("λ_max", `$\lambda_{\max}$`, "largest eigenvalue of the node's A = XᵀX/n + μI", refHMB+" App. C")},
	"lambda_min": {quantity("λ_min", `$\lambda_{\min}$`, "smallest eigenvalue of the node's A", refHMB+" App. C")},
	"eta":        {quantity("η", `$\eta$`, "relative sensitivity of the node's gradient, constant-free (code preset: centred rows)", refHMB+" Eq. (11), App. C.2; rgm.md §5.5")},
	"r_rel":      {quantity("R_rel", `$R_{\mathrm{rel}}$`, "absolute term of the relative sensitivity (the code's R*)", refHMB+" Def. 2, App. C.2; rgm.md §5.5")},
	"c_max":      {quantity("c_max", `$c_{\max}$`, "max_j ‖∇ℓ_j(θ*)‖ at the node's optimum: the paper's threshold c", refHMB+" §6").in(dgdPaperScale)},
	"c_frobenius": {
		quantity("n‖G‖_F", `$n\|G\|_F$`, "√(Σ_j ‖∇ℓ_j(θ*)‖²), the code's threshold rule", refRGMCode).in(dgdPaperScale),
		derivedQuantity("‖G‖_F", `$\|G\|_F$`, "c_frobenius/n", "Frobenius norm of the per-sample gradient matrix: the code's c at c_fac = 1", refRGMCode, perRow("c_frobenius")).in(dgdCodeScale),
	},
	"delta_plus":       {quantity("Δ₊", `$\Delta_+$`, "PTR distance lower bound (C = Ã, ρ = 1/2)", refHMB+" Prop. 2")},
	"wall_ns_per_iter": {quantity("ns/iter", `ns/iter`, "wall time per iteration, setup excluded", "").in("ns")},
}

// qDeltaPTR is the PTR check's failure probability the private members of
// the family report.
var qDeltaPTR = []Quantity{quantity("δ_PTR", `$\delta_{\mathrm{PTR}}$`, "exp(−εΔ₊), the PTR failure probability (paper: ≈ 1e-34)", refHMB+" §6")}

// withDGD returns the family's diagnostics and extra.
func withDGD(extra map[string][]Quantity) map[string][]Quantity {
	out := maps.Clone(dgdQuantities)
	maps.Copy(out, extra)
	return out
}

// stdLinearRGM reports whether the ledger accounts a relative Gaussian
// release in the authors' code's form (noise std linear in ‖g‖,
// accounting.RGMStdLinear), whose γ the code prints as √γ.
func stdLinearRGM(_ map[string]any, ledger accounting.Event) bool {
	if ledger == nil {
		return false
	}
	found := false
	accounting.Leaves(ledger, func(l accounting.Event, _ float64) {
		if g, ok := l.(accounting.RGM); ok && g.Form == accounting.RGMStdLinear {
			found = true
		}
	})
	return found
}

// codePreset reports whether the mechanism ran its "code" preset (the
// authors' released code).
func codePreset(params map[string]any, _ accounting.Event) bool {
	return params["preset"] == presetCode
}

func init() {
	reg := []datasets.Task{datasets.Regression}
	build := func(k dgdKind) func(p DGDParams) (Mechanism, error) {
		return func(p DGDParams) (Mechanism, error) {
			if err := p.refuse(k); err != nil {
				return nil, err
			}
			return &DGD{kind: k, p: p}, nil
		}
	}
	// Test configurations: tiny and fast, and (total scope) calibrated, so
	// that the conformance tests' loose (ε, δ) target is met; μ = 1 keeps η
	// small on the 200-row nodes of the test data.
	Register(Info{Name: dgdPlainName, Title: "No noise", Ref: "HMB23", Tasks: reg, Private: false, Version: 1, Events: []string{"non_private"},
		Quantities: dgdQuantities, QuantityParams: []string{`iterations = 2, mu = 1`}},
		build(dgdPlain), DGDParams{Iterations: 3})
	Register(Info{Name: dgdRGMName, Title: "Relative (RGM)", Ref: "HMB23", Tasks: reg, Private: true, Version: 1, Relation: accounting.RelationReplaceOne, Events: []string{"rgm", "laplace", "approx_dp"},
		Calibration: []CalibrationClaim{{Calibrated: false}, {Params: `epsilon_scope = "total", mu = 1`, Calibrated: true}, {Params: `preset = "code"`, Calibrated: false}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Regression, Rows: 200, Dim: 3, Layout: AuditLayoutSpread, Params: []string{"iterations=1", "mu=1", "epsilon_scope=total"},
			Note: "one step; 200 spread rows make the nodes' relative-gradient statistics large enough for the calibration to meet ε = 1 (with 20 orthogonal rows it is infeasible)"},
			Trials: 3000, Trust: TrustRow{Claimed: "1.000", Real: "0.000", Broken: "under-charged: 1.301", Caught: "yes"}}},
		Quantities: withDGD(map[string][]Quantity{
			"gamma": {
				quantity("γ", `$\gamma$`, "coefficient of ‖g‖² in the noise variance γ‖g‖² + σ² (code preset: std √γ‖g‖ + σ)", refHMB+" Def. 3, Eq. (83)"),
				derivedQuantity("γ_code = √γ", `$\gamma_{\mathrm{code}} = \sqrt{\gamma}$`, "√gamma", "the authors' code's γ = η√(α/ε), the noise std per unit ‖g‖ (std-linear noise only)", refRGMCode, sqrtOf("gamma")).onlyFor(stdLinearRGM),
			},
			"sigma":       {quantity("σ", `$\sigma$`, "baseline noise std per coordinate (the code's σ = R*√(α/ε))", refHMB+" Def. 3; "+refRGMCode)},
			"delta_ptr":   qDeltaPTR,
			"eps_step_v2": {quantity("ε_step", `$\varepsilon_{\mathrm{step}}$`, "RDP ε of one release at α by Theorem 1 (v2), d term included", refHMB+" Thm 1")},
			"skipped":     {quantity("skipped", `skipped`, "1: the node never updates (code preset, η > 1)", refRGMCode)},
			"ptr_epsilon": {quantity("ε_PTR", `$\varepsilon_{\mathrm{PTR}}$`, "ε of the PTR test's Laplace release", refHMB+" Prop. 2")},
		}),
		// The PTR check's keys; the code preset's η > 1 on 5-row nodes
		// with μ = 1e-6 skips a node.
		QuantityParams: []string{`iterations = 2, mu = 1`, `iterations = 2, mu = 1, ptr = true`, `iterations = 2, nodes = 80, mu = 1e-6, preset = "code"`}},
		build(dgdRGM), DGDParams{Iterations: 3, Mu: 1, EpsilonScope: scopeTotal})
	Register(Info{Name: dgdClipName, Title: "Clipped", Ref: "HMB23", Tasks: reg, Private: true, Version: 1, Relation: accounting.RelationReplaceOne, Events: []string{"gaussian"},
		Calibration: []CalibrationClaim{{Calibrated: false}, {Params: `epsilon_scope = "total", mu = 1`, Calibrated: true}},
		Audits: []Audit{{Setup: AuditSetup{Task: datasets.Regression, Rows: 20, Dim: 3, Params: []string{"iterations=1", "mu=1", "epsilon_scope=total"},
			Note: AuditCanaryNote + "; one clipped gradient step"},
			Trials: 4000, Trust: TrustRow{Claimed: "1.000", Real: "0.185", Broken: "under-charged: 2.150", Caught: "yes"}}},
		Quantities: withDGD(map[string][]Quantity{
			"clip": {
				quantity("c", `$c$`, "clipping threshold of the per-sample gradients", refHMB+" Eqs. (81)–(82)").in(dgdPaperScale),
				derivedQuantity("c_code = c/n", `$c_{\mathrm{code}} = c/n$`, "clip/n", "the authors' code's clipping threshold c (code preset only)", refRGMCode, perRow("clip")).in(dgdCodeScale).onlyFor(codePreset),
			},
			"sigma":            {quantity("σ", `$\sigma$`, "noise std per coordinate on the clipped mean, σ² = αc²/(εn²) (the code's c√(α/ε))", refHMB+" Eq. (82); "+refRGMCode)},
			"delta_ptr":        qDeltaPTR,
			"noise_multiplier": {quantity("σ/Δ", `$\sigma/\Delta$`, "σ over the clipped mean's replace-one sensitivity 2c/n", "[Mir17] Prop. 7")},
			"clipped_fraction": {quantity("clipped", `clipped`, "fraction of per-sample gradients clipped, over all steps", "")},
		}),
		QuantityParams: []string{`iterations = 2, mu = 1`, `iterations = 2, mu = 1, preset = "code"`}},
		build(dgdClip), DGDParams{Iterations: 3, Mu: 1, EpsilonScope: scopeTotal})
}

// ---------------------------------------------------------------------------
// Data-only setup: the split, each node's quadratic, sensitivities,
// thresholds and the global optimum, memoised on the training set.

// dgdData is what every fit on one training set and split shares.
type dgdData struct {
	d     int
	nodes []*dgdNode
	hess  []float64 // H = Σ_i A_i, d × d row-major
	opt   []float64 // θ* = H⁻¹ Σ_i (b_i + A_i B_i)
	lmax  float64   // max_i λ_max(A_i)
}

// dgdNode is one node's data-only statistics.
type dgdNode struct {
	rows  []int              // rows of the training set (repeats possible: the code's label split)
	obj   *solvers.RidgeNode // f_i on the node's rows
	bias  []float64          // B_i; nil: none
	scan  rowScan            // η, max‖x y‖/n and Δ₊ of the node's rows
	cMax  float64            // max_j ‖∇ℓ_ij(θ_i*)‖
	cFrob float64            // √(Σ_j ‖∇ℓ_ij(θ_i*)‖²): the code's ‖G‖_F times n_i
}

// rowScan holds the sensitivity estimates of one node's rows against its A.
type rowScan struct {
	eta, etaCentred float64 // max_j ‖x_j‖·‖A⁻¹x_j‖/n, and with x_j − x̄ (the code)
	maxXY           float64 // max_j ‖x_j‖·|y_j|/n
	deltaPlus       float64 // PTR Δ₊ with C = A, ρ = 1/2
}

// memoKey identifies the data-only setup of c (the parts of the params it
// reads).
func (c dgdConfig) memoKey() string {
	impl := ""
	if c.split == dgdSplitLabel && c.code {
		impl = "|code-offset"
	}
	return fmt.Sprintf("mechanisms/dgd|split=%s%s|nodes=%d|seed=%d|bias=%g|mu=%g",
		c.split, impl, c.nodes, c.splitSeed, c.biasScale, c.mu)
}

// dgdSetup returns the memoised data-only setup of train under c.
func dgdSetup(train *datasets.Dataset, c dgdConfig) (*dgdData, error) {
	v, err := train.Memo(c.memoKey(), func() (any, error) { return newDGDData(train, c) })
	if err != nil {
		return nil, err
	}
	return v.(*dgdData), nil
}

func newDGDData(train *datasets.Dataset, c dgdConfig) (*dgdData, error) {
	n, d := train.Rows(), train.Cols()
	parts, err := dgdSplitRows(train.Y, n, c)
	if err != nil {
		return nil, err
	}
	data := &dgdData{d: d, nodes: make([]*dgdNode, len(parts))}
	for i, rows := range parts {
		nd, err := newDGDNode(train, rows, c, i == len(parts)-1)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i+1, err)
		}
		data.nodes[i] = nd
	}
	return data.assemble()
}

// newDGDNode is one node's data-only setup.
func newDGDNode(train *datasets.Dataset, rows []int, c dgdConfig, last bool) (*dgdNode, error) {
	obj, err := nodeObjective(train, rows, c.mu)
	if err != nil {
		return nil, err
	}
	nd := &dgdNode{rows: rows, obj: obj, scan: scanRows(obj)}
	if c.split == dgdSplitBias && last {
		// B = bias_scale·1_d on the last node, f(θ − B) (rgm.md §5.3, §6 item 14)
		nd.bias = make([]float64, train.Cols())
		for k := range nd.bias {
			nd.bias[k] = c.biasScale
		}
	}
	// c_i at the node's local optimum θ_i* = A_i⁻¹b_i (+ B_i, where the
	// per-sample gradients are evaluated at θ_i* − B_i = A_i⁻¹b_i): [HMB23]
	// §6 "maximum of the individual stochastic gradients at optimum"; the
	// code's Frobenius rule, rgm.md §5.5.
	mx, ss := obj.SampleGradNorms(obj.Optimum())
	nd.cMax, nd.cFrob = mx, math.Sqrt(ss)
	return nd, nil
}

// assemble sets the global quantities of data from its nodes: H = Σ_i A_i,
// θ* and max_i λ_max(A_i).
func (data *dgdData) assemble() (*dgdData, error) {
	d := data.d
	// F* = min Σ_i f_i(θ − B_i): (Σ A_i)θ* = Σ (b_i + A_i B_i) (rgm.md §6 item 4)
	h := mat.NewSymDense(d, nil)
	rhs := make([]float64, d)
	tmp := make([]float64, d)
	data.lmax = 0
	for _, nd := range data.nodes {
		_, lmax := nd.obj.Eigen()
		data.lmax = math.Max(data.lmax, lmax)
		a := nd.obj.A()
		for r := 0; r < d; r++ {
			for s := r; s < d; s++ {
				h.SetSym(r, s, h.At(r, s)+a.At(r, s))
			}
		}
		for k, v := range nd.obj.B() {
			rhs[k] += v
		}
		if nd.bias != nil {
			mulSym(tmp, a, nd.bias)
			for k := range rhs {
				rhs[k] += tmp[k]
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, errors.New("Σ_i A_i is not positive definite")
	}
	opt := mat.NewVecDense(d, nil)
	if err := ch.SolveVecTo(opt, mat.NewVecDense(d, rhs)); err != nil {
		return nil, fmt.Errorf("solve for the global optimum: %w", err)
	}
	data.opt = opt.RawVector().Data
	data.hess = make([]float64, d*d)
	for r := 0; r < d; r++ {
		for s := 0; s < d; s++ {
			data.hess[r*d+s] = h.At(r, s)
		}
	}
	return data, nil
}

// nodeObjective builds f_i on the given rows of train (copied, contiguous).
func nodeObjective(train *datasets.Dataset, rows []int, mu float64) (*solvers.RidgeNode, error) {
	d := train.Cols()
	x := make([]float64, len(rows)*d)
	y := make([]float64, len(rows))
	for k, r := range rows {
		copy(x[k*d:(k+1)*d], train.X.RawRowView(r))
		y[k] = train.Y[r]
	}
	return solvers.NewRidgeNode(mat.NewDense(len(rows), d, x), y, mu)
}

// mulSym stores A·v in dst for a symmetric A.
func mulSym(dst []float64, a *mat.SymDense, v []float64) {
	for r := range dst {
		var s float64
		for k, vk := range v {
			s += a.At(r, k) * vk
		}
		dst[r] = s
	}
}

// dgdSplitRows returns the training rows of each node.
//
//   - random: one shuffle from split_seed (math/rand/v2 ChaCha8 through
//     rngs.Derive); node i gets ⌊n/N⌋ consecutive shuffled rows, the last
//     node the rest (rgm.md §5.3: 70,845 and 70,846 on ijcnn1).
//   - label, paper preset (the text, rgm.md §6 item 13): 50 random rows per
//     node from the shuffle, then every other row with label u₀ to node 1 and
//     with label u₁ to node 2.
//   - label, code preset (rgm.md §5.3, the authors' targets_split(100)):
//     node 1 gets rows 0..49 and every j < n − 100 whose row j + 100 has
//     label u₀; node 2 rows 50..99 and the j whose row j + 100 has label u₁
//     (np.where on targets[100:] without the offset). Rows 0..99 can sit in
//     both nodes, as in the code.
//
// u₀ is the first label of Python's set of the two labels: +1 for {−1, +1}
// (hash(−1) = −2 puts it after 1), the smaller label otherwise ({0, 1}: 0).
func dgdSplitRows(y []float64, n int, c dgdConfig) ([][]int, error) {
	if n < c.nodes {
		return nil, fmt.Errorf("nodes = %d exceeds the %d training rows", c.nodes, n)
	}
	perm := func() []int {
		return rngs.Derive("dplab/dgd-split", strconv.FormatUint(c.splitSeed, 10)).Rand().Perm(n)
	}
	if c.split != dgdSplitLabel {
		p := perm()
		size := n / c.nodes
		out := make([][]int, c.nodes)
		for i := range out {
			hi := (i + 1) * size
			if i == c.nodes-1 {
				hi = n
			}
			out[i] = p[i*size : hi : hi]
		}
		return out, nil
	}
	const seeds = 50 // rows per node before the split by label ([HMB23] §6)
	if c.nodes != 2 {
		return nil, fmt.Errorf("split = %q needs nodes = 2, have %d", dgdSplitLabel, c.nodes)
	}
	if n <= 2*seeds {
		return nil, fmt.Errorf("split = %q needs more than %d rows, have %d", dgdSplitLabel, 2*seeds, n)
	}
	labels := distinct(y)
	if len(labels) != 2 {
		return nil, fmt.Errorf("split = %q needs targets with exactly two values (binary labels), found %d distinct values", dgdSplitLabel, len(labels))
	}
	u0 := labels[0]
	if labels[0] == -1 && labels[1] == 1 {
		u0 = 1
	}
	node1, node2 := make([]int, 0, n/2), make([]int, 0, n/2)
	if c.code {
		for j := 0; j < seeds; j++ {
			node1 = append(node1, j)
			node2 = append(node2, seeds+j)
		}
		for j := 0; j < n-2*seeds; j++ {
			if y[j+2*seeds] == u0 {
				node1 = append(node1, j)
			} else {
				node2 = append(node2, j)
			}
		}
		return [][]int{node1, node2}, nil
	}
	p := perm()
	node1 = append(node1, p[:seeds]...)
	node2 = append(node2, p[seeds:2*seeds]...)
	for _, r := range p[2*seeds:] {
		if y[r] == u0 {
			node1 = append(node1, r)
		} else {
			node2 = append(node2, r)
		}
	}
	return [][]int{node1, node2}, nil
}

// distinct returns the sorted distinct values of y, stopping at 3.
func distinct(y []float64) []float64 {
	var out []float64
	for _, v := range y {
		if !slices.Contains(out, v) {
			out = append(out, v)
			if len(out) > 2 {
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// scanRows computes one node's sensitivity estimates in one pass over its
// rows, with u_j = A⁻¹x_j:
//
//	η       = max_j ‖x_j‖·‖A⁻¹x_j‖ / n                  [HMB23] v2 Eq. (11), App. C.2 (constant-free)
//	η_c     = max_j ‖x_j − x̄‖·‖A⁻¹(x_j − x̄)‖ / n        the code's remove_mean (rgm.md §5.5)
//	maxXY   = max_j ‖x_j‖·|y_j| / n                      max_j ‖b_ij‖, v2 App. C.2
//	s_j     = x_jᵀ(A − ρC)⁻¹x_j = 2x_jᵀA⁻¹x_j             v2 Prop. 2 with C = Ã = A, ρ = 1/2 (§6)
//	Δ₊      = min{|I| : Σ_{j∈I} s_j ≥ n}                  v2 Prop. 2 (+Inf if Σ_j s_j < n)
func scanRows(obj *solvers.RidgeNode) rowScan {
	n, d := obj.Dims()
	xbar := make([]float64, d)
	for j := 0; j < n; j++ {
		x, _ := obj.Row(j)
		for k, v := range x {
			xbar[k] += v
		}
	}
	for k := range xbar {
		xbar[k] /= float64(n)
	}
	ubar := make([]float64, d)
	obj.SolveA(ubar, xbar)
	s := make([]float64, n)
	var sc rowScan
	obj.MulRows(obj.AInverse(), func(j int, x, u []float64) {
		var xx, uu, vv, ww, xu float64
		for k := range x {
			xx += x[k] * x[k]
			uu += u[k] * u[k]
			xu += x[k] * u[k]
			v, w := x[k]-xbar[k], u[k]-ubar[k]
			vv += v * v
			ww += w * w
		}
		_, yj := obj.Row(j)
		sc.eta = math.Max(sc.eta, math.Sqrt(xx*uu))
		sc.etaCentred = math.Max(sc.etaCentred, math.Sqrt(vv*ww))
		sc.maxXY = math.Max(sc.maxXY, math.Sqrt(xx)*math.Abs(yj))
		s[j] = 2 * xu
	})
	sc.eta /= float64(n)
	sc.etaCentred /= float64(n)
	sc.maxXY /= float64(n)
	sc.deltaPlus = ptrDeltaPlus(s, n)
	return sc
}

// ptrDeltaPlus returns Δ₊ = min{|I| : Σ_{j∈I} s_j ≥ n}: sort the s_j in
// descending order and take the smallest k whose prefix sum reaches n, +Inf
// if the total never does. Ref: [HMB23] v2 Prop. 2 (rgm.md §4.6).
func ptrDeltaPlus(s []float64, n int) float64 {
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	var cum float64
	for k := len(sorted) - 1; k >= 0; k-- {
		cum += sorted[k]
		if cum >= float64(n) {
			return float64(len(sorted) - k)
		}
	}
	return math.Inf(1)
}

// quantileLinear is numpy.quantile(v, q) with linear interpolation (the
// authors' code's filter, rgm.md §5.5).
func quantileLinear(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	h := float64(len(s)-1) * q
	lo := int(math.Floor(h))
	out := s[lo]
	if lo+1 < len(s) {
		out += (h - float64(lo)) * (s[lo+1] - s[lo])
	}
	return out
}

// ---------------------------------------------------------------------------
// The relative sensitivity of each node's gradient.

// rgmSens is what the RGM noiser of one node uses.
type rgmSens struct {
	obj       *solvers.RidgeNode // the data whose gradient is released (feature-clipped or the node's)
	eta, rRel float64
	deltaPlus float64
}

// rgmSensitivities returns each node's (η_i, R_rel,i) under c, with
// feature clipping when c asks for it (memoised: it is data-only).
//
//	paper:     η = η_free,          R_rel = η‖b‖ + 2·max_j‖x_j y_j‖/n      [HMB23] App. C.2 (v1 Eq. (10), v2 Eq. (11))
//	code:      η = η_free centred,  R_rel = η‖b‖ + max_j‖x_j y_j‖/n        rgm.md §5.5 (factor 1)
//	rigorous:  η = √6·η_free,       R_rel = √2η‖b‖ + 2√3·max_j‖x_j y_j‖/n  rgm.md §4.2 (the derivation's constants)
func rgmSensitivities(train *datasets.Dataset, data *dgdData, c dgdConfig) ([]rgmSens, error) {
	objs := make([]*solvers.RidgeNode, len(data.nodes))
	scans := make([]rowScan, len(data.nodes))
	for i, nd := range data.nodes {
		objs[i], scans[i] = nd.obj, nd.scan
	}
	if c.featureClip != featureClipNone {
		key := fmt.Sprintf("%s|fc=%s|q=%g|rounds=%d|centre=%t", c.memoKey(), c.featureClip, c.quantile, c.rounds, c.code)
		v, err := train.Memo(key, func() (any, error) { return featureClipped(train, data, c) })
		if err != nil {
			return nil, err
		}
		objs = v.([]*solvers.RidgeNode)
		for i, o := range objs {
			scans[i] = scanRows(o)
		}
	}
	out := make([]rgmSens, len(objs))
	for i, o := range objs {
		sc := scans[i]
		eta := sc.eta
		if c.code {
			eta = sc.etaCentred
		}
		bn := norm2(o.B())
		s := rgmSens{obj: o, deltaPlus: sc.deltaPlus}
		switch {
		case c.rigorous:
			s.eta = math.Sqrt(6) * eta
			s.rRel = math.Sqrt2*s.eta*bn + 2*math.Sqrt(3)*sc.maxXY
		case c.code:
			s.eta = eta
			s.rRel = eta*bn + sc.maxXY
		default:
			s.eta = eta
			s.rRel = eta*bn + 2*sc.maxXY
		}
		if !(s.eta > 0) {
			return nil, fmt.Errorf("node %d: η = %v: the node's feature rows are all zero", i+1, s.eta)
		}
		out[i] = s
	}
	return out, nil
}

// featureClipped returns each node's objective on its feature-clipped rows.
//
// v1_ellipse ([HMB23] v1 App. C.2, Assumption 1 with C the full training
// set's covariance; rgm.md §6 item 9): with C = XᵀX/N + μI over every
// training row, s_j = ‖x_j‖²·x_jᵀC⁻²x_j; the rows with s_j above the
// quantile-quantile of the s_j over the whole training set are dropped.
//
// code_filter (the authors' filter_outliers, rgm.md §5.5; golden vectors
// rgm_calibration "code"): each round, with x̄ the node mean (0 in the paper
// preset, which does not centre), v_j = x_j − x̄ and the current A,
// d_j = ‖v_j‖²‖A⁻¹v_j‖²/n, q = quantile(d), c_j = (q/max(d_j, q))^{1/4},
// x_j ← x̄ + c_j v_j and y_j ← c_j y_j; then A, b, x̄ are rebuilt.
func featureClipped(train *datasets.Dataset, data *dgdData, c dgdConfig) ([]*solvers.RidgeNode, error) {
	out := make([]*solvers.RidgeNode, len(data.nodes))
	if c.featureClip == featureClipV1 {
		full, err := solvers.NewRidgeNode(train.X, train.Y, c.mu)
		if err != nil {
			return nil, fmt.Errorf("feature_clip: %w", err)
		}
		n, _ := full.Dims()
		score := make([]float64, n)
		full.MulRows(full.AInverse(), func(j int, x, u []float64) {
			score[j] = dotf(x, x) * dotf(u, u)
		})
		thr := quantileLinear(score, c.quantile)
		for i, nd := range data.nodes {
			var kept []int
			for _, r := range nd.rows {
				if score[r] <= thr {
					kept = append(kept, r)
				}
			}
			if len(kept) == 0 {
				return nil, fmt.Errorf("feature_clip: node %d keeps no row at quantile %g", i+1, c.quantile)
			}
			o, err := nodeObjective(train, kept, c.mu)
			if err != nil {
				return nil, fmt.Errorf("feature_clip: node %d: %w", i+1, err)
			}
			out[i] = o
		}
		return out, nil
	}
	for i, nd := range data.nodes {
		o, err := codeFilter(nd.obj, c.code, c.quantile, c.rounds)
		if err != nil {
			return nil, fmt.Errorf("feature_clip: node %d: %w", i+1, err)
		}
		out[i] = o
	}
	return out, nil
}

// codeFilter runs the authors' outlier filter (see featureClipped) on obj's
// rows, centring by the node mean when centre is set.
func codeFilter(obj *solvers.RidgeNode, centre bool, q float64, rounds int) (*solvers.RidgeNode, error) {
	n, d := obj.Dims()
	cur := obj
	for r := 0; r < rounds; r++ {
		x := make([]float64, n*d)
		y := make([]float64, n)
		xbar := make([]float64, d)
		for j := 0; j < n; j++ {
			row, yj := cur.Row(j)
			copy(x[j*d:], row)
			y[j] = yj
			if centre {
				for k, v := range row {
					xbar[k] += v / float64(n)
				}
			}
		}
		ubar := make([]float64, d)
		cur.SolveA(ubar, xbar)
		ds := make([]float64, n)
		cur.MulRows(cur.AInverse(), func(j int, row, u []float64) {
			var vv, ww float64
			for k := range row {
				v, w := row[k]-xbar[k], u[k]-ubar[k]
				vv += v * v
				ww += w * w
			}
			ds[j] = vv * ww / float64(n)
		})
		dq := quantileLinear(ds, q)
		for j := 0; j < n; j++ {
			cj := 1.0
			if m := math.Max(ds[j], dq); m > 0 {
				cj = math.Pow(dq/m, 0.25)
			}
			for k := 0; k < d; k++ {
				x[j*d+k] = xbar[k] + (x[j*d+k]-xbar[k])*cj
			}
			y[j] *= cj
		}
		next, err := solvers.NewRidgeNode(mat.NewDense(n, d, x), y, cur.Mu())
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// ---------------------------------------------------------------------------
// Fit.

// Fit implements Mechanism.
func (m *DGD) Fit(ctx context.Context, train *datasets.Dataset, b Budget, rs rngs.Streams) (*Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := m.kind.name()
	c := m.p.config()
	if err := m.checkBudget(b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data, err := dgdSetup(train, c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rel *Release
	switch m.kind {
	case dgdRGM:
		rel, err = m.fitRGM(ctx, train, data, c, b, rs)
	case dgdClip:
		rel, err = m.fitClip(ctx, data, c, b, rs)
	default:
		rel, err = m.fitPlain(ctx, data, c)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkLinear(name, rel.Model.(*Linear)); err != nil {
		return nil, err
	}
	return rel, nil
}

// checkBudget refuses the budgets a fit refuses whatever the data (EventShapes
// refuses the same).
func (m *DGD) checkBudget(b Budget) error {
	if m.kind == dgdPlain {
		return nil
	}
	c := m.p.config()
	if !(b.Epsilon > 0 && finite(b.Epsilon)) {
		return fmt.Errorf("ε = %v: want a finite target > 0", b.Epsilon)
	}
	if c.ptr {
		if !(b.Delta > 0 && b.Delta < 1) {
			return fmt.Errorf("ptr: the budget's δ = %v must be in (0, 1): it sets the test's threshold log(1/δ)/ε", b.Delta)
		}
		if c.total && !(c.ptrEpsilon < b.Epsilon) {
			return fmt.Errorf("ptr_epsilon = %g must be below the budget's ε = %g under epsilon_scope = %q", c.ptrEpsilon, b.Epsilon, scopeTotal)
		}
		if c.total && b.Wrap != nil {
			return errors.New("ptr = true with epsilon_scope = \"total\" cannot be tuned privately: the test's failure probability (an (ε, δ) term) cannot be repeated a random number of times")
		}
	}
	return nil
}

// nodeKey returns the 1-based key prefix of node i ("node1/").
func nodeKey(i int) string { return "node" + strconv.Itoa(i+1) + "/" }

// nodeStreams returns node i's own randomness: results do not depend on the
// order in which nodes draw.
func nodeStreams(rs rngs.Streams, i int) rngs.Streams { return rs.Sub("node" + strconv.Itoa(i+1)) }

// stats returns the data-only diagnostics of every node (η and R_rel by
// the preset's constant-free rule) and τ.
func (data *dgdData) stats(c dgdConfig, tau float64) map[string]float64 {
	st := map[string]float64{"tau": tau}
	for i, nd := range data.nodes {
		k := nodeKey(i)
		n, _ := nd.obj.Dims()
		lmin, lmax := nd.obj.Eigen()
		st[k+"n"] = float64(n)
		st[k+"lambda_min"] = lmin
		st[k+"lambda_max"] = lmax
		st[k+"c_max"] = nd.cMax
		st[k+"c_frobenius"] = nd.cFrob
		st[k+"delta_plus"] = nd.scan.deltaPlus
		eta := nd.scan.eta
		if c.code {
			eta = nd.scan.etaCentred
		}
		st[k+"eta"] = eta
		bn := norm2(nd.obj.B())
		if c.code {
			st[k+"r_rel"] = eta*bn + nd.scan.maxXY
		} else {
			st[k+"r_rel"] = eta*bn + 2*nd.scan.maxXY
		}
	}
	return st
}

// The assumptions the records state ([HMB23] App. C; rgm.md §5.4).
const (
	assumeNodes   = "the split of records across nodes is fixed and public; each node's guarantee is for its own records (local DP, parallel composition over nodes)"
	assumeRGMSens = "η_i and R_rel,i (relative sensitivity) read from each node's data without noise ([HMB23] App. C: \"does not strictly guarantee differential privacy, as it uses local datasets\")"
	assumeClipC   = "clipping threshold c_i read from each node's data at its local optimum without noise ([HMB23] §6, App. C)"
	assumeLabel   = "the node split by label reads the records' labels without noise (a record's node depends on its label; in the code preset on another record's label) and is treated as fixed"
	assumeV1Clip  = "the feature-clipping ellipse (full-data covariance and its quantile radius) read from the training data without noise ([HMB23] v1 App. C.2)"
	assumeFilter  = "the outlier filter's quantile read from each node's data without noise (the authors' code)"
	assumePTR     = "PTR treats Δ₊ as a sensitivity-1 lower bound on the distance to a dataset failing Ã ⪰ ρC, as [HMB23] v2 Prop. 2 does; dplab does not verify its sensitivity"
)

func (c dgdConfig) assumptions(k dgdKind) []string {
	out := []string{assumeNodes}
	if c.split == dgdSplitLabel {
		out = append(out, assumeLabel)
	}
	switch k {
	case dgdRGM:
		out = append(out, assumeRGMSens)
		switch c.featureClip {
		case featureClipV1:
			out = append(out, assumeV1Clip)
		case featureClipFilter:
			out = append(out, assumeFilter)
		}
		if c.ptr {
			out = append(out, assumePTR)
		}
	case dgdClip:
		out = append(out, assumeClipC)
	}
	return out
}

func (c dgdConfig) targetScope() string {
	if c.total {
		return ""
	}
	return fmt.Sprintf("per-step RDP ε at α = %g", c.alpha)
}

// fitPlain runs non-private distributed GD (v2 Eq. (80)).
func (m *DGD) fitPlain(ctx context.Context, data *dgdData, c dgdConfig) (*Release, error) {
	grads := make([]nodeGrad, len(data.nodes))
	for i, nd := range data.nodes {
		grads[i] = func(dst, theta []float64) { nd.obj.Grad(dst, theta) }
	}
	theta, trace, st, err := data.run(ctx, c, grads)
	if err != nil {
		return nil, err
	}
	return &Release{Model: &Linear{Theta: theta}, Event: accounting.NonPrivate{}, Stats: st, Trace: trace}, nil
}

// rgmShape is a representative RGM step, for EventShapes.
func rgmShape(c dgdConfig) accounting.Event {
	e := accounting.RGM{Eta: 0.01, Gamma: shapeNoise, D: 1, Sigma: 1, RRel: 0.01}
	if !c.total && c.rule == accounting.RGMCodeStdLinear {
		e.Form = accounting.RGMStdLinear
	}
	return e
}

// rgmLedger assembles dgd-rgm's ledger from each node's per-step event (nil:
// the node never releases), with the PTR test when c.ptr.
func rgmLedger(c dgdConfig, steps []accounting.Event, ptrEps, ptrDelta float64) accounting.Event {
	parts := make([]accounting.Event, len(steps))
	for i, e := range steps {
		if e == nil {
			parts[i] = accounting.NoOp{}
			continue
		}
		var part accounting.Event = accounting.SelfComposed{Event: e, Count: c.iterations}
		if c.ptr {
			// [HMB23] v2 Prop. 2: the test releases Δ₊ + Lap(1/ε_PTR) once,
			// before training.
			part = accounting.NewComposed(accounting.Laplace{Scale: 1 / ptrEps, Sensitivity: 1}, part)
		}
		parts[i] = part
	}
	var ledger accounting.Event = accounting.Parallel{Parts: parts, Relation: accounting.RelationReplaceOne}
	if c.ptr {
		// The test passes on a dataset at distance 0 when the Laplace draw
		// exceeds log(1/δ)/ε: probability ½exp(−log(1/δ)) = δ/2. Only the
		// node holding the differing record matters (parallel), so one δ/2.
		ledger = accounting.NewComposed(ledger, accounting.ApproxDP{Delta: ptrDelta / 2})
	}
	return ledger
}

// fitRGM runs distributed GD with the relative Gaussian mechanism.
func (m *DGD) fitRGM(ctx context.Context, train *datasets.Dataset, data *dgdData, c dgdConfig, b Budget, rs rngs.Streams) (*Release, error) {
	sens, err := rgmSensitivities(train, data, c)
	if err != nil {
		return nil, err
	}
	d := data.d
	n := len(sens)
	skip := make([]bool, n)
	for i, s := range sens {
		// preset "code": a node with η > 1 never updates (the code's
		// UnboundedNoiser returns θ unchanged, rgm.md §5.5 and §6 item 7).
		skip[i] = c.code && s.eta > 1
	}
	ptrEps, ptrDelta := c.ptrEpsilon, b.Delta
	if ptrEps == 0 {
		ptrEps = b.Epsilon
	}
	if c.ptr {
		// [HMB23] v2 Prop. 2 and §5.4: propose ρ = 1/2 (C = Ã), test
		// Δ̂ = Δ₊ + Lap(1/ε) against log(1/δ)/ε, abort below it.
		thr := math.Log(1/ptrDelta) / ptrEps
		for i, s := range sens {
			if skip[i] {
				continue
			}
			r := nodeStreams(rs, i).Get("ptr")
			z := (r.ExpFloat64() - r.ExpFloat64()) / ptrEps
			if dh := s.deltaPlus + z; !(dh > thr) {
				return nil, fmt.Errorf("node %d: propose-test-release refused: Δ̂ = Δ₊ + Lap(1/ε) = %.6g ≤ log(1/δ)/ε = %.6g (Δ₊ = %g, ε = %g, δ = %g)",
					i+1, dh, thr, s.deltaPlus, ptrEps, ptrDelta)
			}
		}
	}
	steps := make([]accounting.Event, n)
	rgms := make([]accounting.RGM, n)
	calibrated := false
	if c.total {
		// One scale x for every node: γ_i = x·η_i², σ_i² = γ_iR_rel,i²/η_i²
		// = x·R_rel,i² (Theorem 1's baseline condition then holds at every
		// order, [HMB23] v2 Thm 1), the smallest x whose whole ledger meets
		// the budget under the spec's accountant (Budget.Calibrate re-checks
		// it, so it never overshoots).
		family := func(x float64) []accounting.RGM {
			out := make([]accounting.RGM, n)
			for i, s := range sens {
				out[i] = accounting.RGM{Eta: s.eta, Gamma: x * s.eta * s.eta, D: d, Sigma: math.Sqrt(x) * s.rRel * (1 + 1e-12), RRel: s.rRel}
			}
			return out
		}
		event := func(x float64) accounting.Event {
			es := family(x)
			st := make([]accounting.Event, n)
			for i := range es {
				if !skip[i] {
					st[i] = es[i]
				}
			}
			return rgmLedger(c, st, ptrEps, ptrDelta)
		}
		x := 1.0
		if slices.Contains(skip, false) {
			if x, err = b.Calibrate(event, accounting.Bracket{}); err != nil {
				return nil, fmt.Errorf("calibrate γ: %w", err)
			}
		}
		rgms = family(x)
		for i := range rgms {
			if !skip[i] {
				steps[i] = rgms[i]
			}
		}
		calibrated = true
	} else {
		for i, s := range sens {
			if skip[i] {
				continue
			}
			e, err := accounting.RGMCalibrate(accounting.RGMTarget{Eta: s.eta, RRel: s.rRel, D: d, Alpha: c.alpha, Epsilon: b.Epsilon, Rule: c.rule})
			var inf *accounting.InfeasibleError
			switch {
			case err != nil && c.rule == accounting.RGMCodeStdLinear && errors.As(err, &inf):
				// The code calibrates without Theorem 1's order condition
				// (η(α−1)(2+η) < 1): std = √(α/ε)(η‖g‖ + R*) regardless
				// (rgm.md §5.5). The ledger holds it; its RDP is finite only
				// below the order limit.
				f := math.Sqrt(c.alpha / b.Epsilon)
				e = accounting.RGM{Eta: s.eta, Gamma: s.eta * s.eta * c.alpha / b.Epsilon, D: d,
					Sigma: f * s.rRel * (1 + 1e-12), RRel: s.rRel, Form: accounting.RGMStdLinear}
			case err != nil:
				return nil, fmt.Errorf("node %d (η = %.6g, R_rel = %.6g): %w", i+1, s.eta, s.rRel, err)
			}
			// theorem_v1 chooses the noise by the v1 formula; the ledger is
			// accounted by the valid v2 bound (rgm.md §2.3).
			e.V1 = false
			rgms[i], steps[i] = e, e
		}
	}
	grads := make([]nodeGrad, n)
	for i, s := range sens {
		if skip[i] {
			grads[i] = func(dst, _ []float64) { clear(dst) }
			continue
		}
		grads[i] = rgmNoiser(s.obj, rgms[i], nodeStreams(rs, i).Get("noise"))
	}
	theta, trace, st, err := data.run(ctx, c, grads)
	if err != nil {
		return nil, err
	}
	nz := map[string]float64{}
	for i, s := range sens {
		k := nodeKey(i)
		st[k+"eta"], st[k+"r_rel"], st[k+"delta_plus"] = s.eta, s.rRel, s.deltaPlus
		st[k+"delta_ptr"] = math.Exp(-ptrEps * s.deltaPlus)
		if skip[i] {
			st[k+"skipped"] = 1
			continue
		}
		e := rgms[i]
		nz[k+"gamma"], nz[k+"sigma"] = e.Gamma, e.Sigma
		eps, err := accounting.RGMEpsilon(e, c.alpha)
		if err != nil {
			eps = math.Inf(1) // α outside Theorem 1's domain: no bound at α
		}
		st[k+"eps_step_v2"] = eps
	}
	if c.ptr {
		st["ptr_epsilon"] = ptrEps
	}
	return &Release{Model: &Linear{Theta: theta}, Event: rgmLedger(c, steps, ptrEps, ptrDelta), Noise: nz, Stats: st,
		Trace: trace, Calibrated: calibrated, TargetScope: c.targetScope(), Assumptions: c.assumptions(dgdRGM)}, nil
}

// rgmNoiser returns a node's RGM release of its gradient at θ under e:
//
//	g = ∇f(θ) + ξ,   ξ ~ N(0, v·I_d),   v = γ‖∇f(θ)‖² + σ²
//
// or, for the std-linear form (preset "code"), std √v = √γ‖∇f(θ)‖ + σ.
// Ref: [HMB23] v2 Eq. (83) and Def. 3 (one variance for every coordinate,
// rgm.md §1.4); rgm.md §5.5 (the code's form). O(d²) per call.
func rgmNoiser(obj *solvers.RidgeNode, e accounting.RGM, r *rand.Rand) nodeGrad {
	std := e.Form == accounting.RGMStdLinear
	sg := math.Sqrt(e.Gamma)
	return func(dst, theta []float64) {
		obj.Grad(dst, theta)
		g := norm2(dst)
		var sd float64
		if std {
			sd = sg*g + e.Sigma
		} else {
			sd = math.Sqrt(e.Gamma*g*g + e.Sigma*e.Sigma)
		}
		for k := range dst {
			dst[k] += sd * r.NormFloat64()
		}
	}
}

// clipNoiser returns a node's clipped release at θ: the mean of the
// per-sample gradients clipped to c plus N(0, σ²I_d) ([HMB23] v2 Eqs.
// (81)–(82)); it adds the number of clipped rows to *clipped. O(nd) per call.
func clipNoiser(obj *solvers.RidgeNode, c, sigma float64, r *rand.Rand, clipped *int) nodeGrad {
	n, _ := obj.Dims()
	work := make([]float64, n)
	return func(dst, theta []float64) {
		*clipped += obj.ClippedGrad(dst, theta, c, work)
		for k := range dst {
			dst[k] += sigma * r.NormFloat64()
		}
	}
}

// clipLedger is dgd-clip's ledger: node i's T clipped releases, each a
// Gaussian mechanism with noise multiplier mult (σ_i divided by the
// clipped mean's replace-one sensitivity 2c_i/n_i), written with unit
// sensitivity. The RDP of a Gaussian release depends on σ/Δ only ([Mir17]
// Prop. 7), so this is the same guarantee as Gaussian{σ_i, 2c_i/n_i}, and
// runs that differ only in their threshold (clip_factor) spend the same
// event, which private tuning over the threshold requires.
func clipLedger(c dgdConfig, n int, mult float64) accounting.Event {
	parts := make([]accounting.Event, n)
	for i := range parts {
		parts[i] = accounting.SelfComposed{Event: accounting.Gaussian{Sigma: mult, Sensitivity: 1}, Count: c.iterations}
	}
	return accounting.Parallel{Parts: parts, Relation: accounting.RelationReplaceOne}
}

// fitClip runs distributed GD with per-sample clipping and the Gaussian
// mechanism.
func (m *DGD) fitClip(ctx context.Context, data *dgdData, c dgdConfig, b Budget, rs rngs.Streams) (*Release, error) {
	n := len(data.nodes)
	cs, sens, sigmas := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, nd := range data.nodes {
		base := nd.cMax
		if c.clipRule == clipRuleFrobenius {
			base = nd.cFrob
		}
		cs[i] = c.clipFactor * base
		if !(cs[i] > 0) {
			return nil, fmt.Errorf("node %d: clipping threshold c = %v: every per-sample gradient vanishes at the local optimum", i+1, cs[i])
		}
		ni, _ := nd.obj.Dims()
		// The clipped mean (1/n)Σ_j clip(∇ℓ_j) changes by at most 2c/n when
		// one record is replaced.
		sens[i] = 2 * cs[i] / float64(ni)
	}
	// [HMB23] v2 Eq. (82): σ_i² = αc_i²/(εn_i²), i.e. σ_i = m·2c_i/n_i with
	// m = √(α/ε)/2; "replace_one": σ_i² = α(2c_i/n_i)²/(2ε) = 2αc_i²/(εn_i²)
	// ([Mir17] Prop. 7), m = √(2α/ε)/2.
	f := c.alpha / b.Epsilon
	if c.replaceOne {
		f *= 2
	}
	mult := math.Sqrt(f) / 2
	calibrated := false
	if c.total {
		// One noise multiplier for every node, the smallest whose whole
		// ledger meets the budget (Budget.Calibrate re-checks it).
		x, err := b.Calibrate(func(x float64) accounting.Event { return clipLedger(c, n, x) }, accounting.Bracket{})
		if err != nil {
			return nil, fmt.Errorf("calibrate σ: %w", err)
		}
		mult, calibrated = x, true
	}
	for i := range sigmas {
		sigmas[i] = mult * sens[i]
	}
	clipped := make([]int, n)
	grads := make([]nodeGrad, n)
	for i, nd := range data.nodes {
		grads[i] = clipNoiser(nd.obj, cs[i], sigmas[i], nodeStreams(rs, i).Get("noise"), &clipped[i])
	}
	theta, trace, st, err := data.run(ctx, c, grads)
	if err != nil {
		return nil, err
	}
	nz := map[string]float64{}
	for i, nd := range data.nodes {
		k := nodeKey(i)
		ni, _ := nd.obj.Dims()
		nz[k+"clip"], nz[k+"sigma"] = cs[i], sigmas[i]
		st[k+"clipped_fraction"] = float64(clipped[i]) / float64(ni*c.iterations)
		if !c.total {
			st[k+"delta_ptr"] = math.Exp(-b.Epsilon * nd.scan.deltaPlus)
		}
	}
	nz["noise_multiplier"] = mult
	return &Release{Model: &Linear{Theta: theta}, Event: clipLedger(c, n, mult), Noise: nz, Stats: st,
		Trace: trace, Calibrated: calibrated, TargetScope: c.targetScope(), Assumptions: c.assumptions(dgdClip)}, nil
}

// nodeGrad stores node i's released gradient at θ' (the node's own
// argument: θ − B_i) in dst.
type nodeGrad func(dst, theta []float64)

// run descends with the step τ = step_factor/max_i λ_max(A_i) ([HMB23] v2
// App. C: the same for every method) and returns θ_T, the traces and the
// diagnostics (data.stats, plus the measured wall time per step).
func (data *dgdData) run(ctx context.Context, c dgdConfig, grads []nodeGrad) ([]float64, map[string][]float64, map[string]float64, error) {
	tau := c.stepFactor / data.lmax
	theta, trace, ns, err := data.descend(ctx, tau, c.iterations, grads)
	if err != nil {
		return nil, nil, nil, err
	}
	st := data.stats(c, tau)
	st["wall_ns_per_iter"] = ns
	return theta, trace, st, nil
}

// descend runs T steps of θ ← θ − τ·(1/N)Σ_i g^(i)(θ − B_i) from θ_0 = 0
// ([HMB23] v2 Eq. (79)), checking ctx every step. It returns θ_T, the
// traces and the wall time per step in ns. The excess objective is the
// exact quadratic form F(θ) − F* = ½(θ − θ*)ᵀH(θ − θ*) with H = Σ_i A_i
// (F is quadratic with Hessian H and minimiser θ*), which does not lose
// digits to cancellation as F(θ) − F(θ*) would.
func (data *dgdData) descend(ctx context.Context, tau float64, T int, grads []nodeGrad) ([]float64, map[string][]float64, float64, error) {
	d, n := data.d, len(data.nodes)
	theta := make([]float64, d)
	arg, g, sum, e, he := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	excess := make([]float64, 0, min(T+1, 1<<12))
	dist := make([]float64, 0, min(T+1, 1<<12))
	record := func() {
		for k := range e {
			e[k] = theta[k] - data.opt[k]
		}
		for r := 0; r < d; r++ {
			he[r] = dotf(data.hess[r*d:(r+1)*d], e)
		}
		excess = append(excess, 0.5*dotf(e, he))
		dist = append(dist, dotf(e, e))
	}
	record()
	start := time.Now()
	for t := 0; t < T; t++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		clear(sum)
		for i, nd := range data.nodes {
			copy(arg, theta)
			for k, bk := range nd.bias {
				arg[k] -= bk
			}
			grads[i](g, arg)
			for k := range sum {
				sum[k] += g[k]
			}
		}
		for k := range theta {
			theta[k] -= tau * sum[k] / float64(n)
		}
		record()
	}
	ns := 0.0
	if T > 0 {
		ns = float64(time.Since(start).Nanoseconds()) / float64(T)
	}
	return theta, map[string][]float64{"excess_objective": excess, "dist_to_opt": dist}, ns, nil
}

// EventShapes implements Mechanism.
func (m *DGD) EventShapes(b Budget) ([]accounting.Event, error) {
	if err := m.checkBudget(b); err != nil {
		return nil, err
	}
	c := m.p.config()
	switch m.kind {
	case dgdRGM:
		// A node may skip every update (preset "code", η > 1): NoOp part.
		return []accounting.Event{rgmLedger(c, []accounting.Event{rgmShape(c), nil}, 1, 1e-6)}, nil
	case dgdClip:
		return []accounting.Event{clipLedger(c, 1, shapeNoise)}, nil
	}
	return []accounting.Event{accounting.NonPrivate{}}, nil
}

// norm2 returns ‖v‖₂.
func norm2(v []float64) float64 { return math.Sqrt(dotf(v, v)) }

// dotf returns aᵀb.
func dotf(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
