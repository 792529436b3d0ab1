package report

import (
	"math"
	"slices"
	"strings"

	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// quantity is how tables print one stored key of a mechanism's noise
// parameters (records' privacy.noise, Release.Noise) or non-private
// diagnostics (diagnostics_nonprivate, Release.Stats): a column in the
// notation and units of the paper the mechanism reproduces, or, where a
// reader compares with the authors' code, of that code, labelled as such.
// A key may print as several columns (the paper's value and the code's).
type quantity struct {
	label string // column header, Unicode math in the source's notation: "γ", "c_code = c/n"
	tex   string // the header in LaTeX: `$\gamma$`
	means string // what the printed value is, in a few words
	unit  string // its unit or scale where several are in use (sumScale, codeScale, …); "" otherwise
	ref   string // where the symbol and its units are defined
	// of, when set, computes the printed value of one record from the
	// stored values of its row's keys (get reads "<group>/<key>" from the
	// record's noise parameters, then its diagnostics); formula says how,
	// in stored keys ("√gamma"). Nil: the key's stored value is printed.
	of      func(get func(key string) (float64, bool)) (float64, bool)
	formula string
	// when, if set, restricts a derived quantity to the records it holds
	// for (the authors' code's units, printed for its preset only); a
	// derived column no row of a table has is left out.
	when func(r *results.Record) bool
}

// q is a quantity printed as stored.
func q(label, tex, means, ref string) quantity {
	return quantity{label: label, tex: tex, means: means, ref: ref}
}

// in returns q with its unit.
func (q quantity) in(unit string) quantity {
	q.unit = unit
	return q
}

// derived is a quantity computed from the stored keys by of, as formula says.
func derived(label, tex, formula, means, ref string, of func(func(string) (float64, bool)) (float64, bool)) quantity {
	return quantity{label: label, tex: tex, formula: formula, means: means, ref: ref, of: of}
}

// onlyFor returns q printed for the records when holds for.
func (q quantity) onlyFor(when func(r *results.Record) bool) quantity {
	q.when = when
	return q
}

// stdLinearRGM reports whether the record's ledger accounts a relative
// Gaussian release in the authors' code's form (noise std linear in ‖g‖,
// accounting.RGMStdLinear), whose γ the code prints as √γ.
func stdLinearRGM(r *results.Record) bool {
	e, err := accounting.UnmarshalEvent(r.Privacy.Event)
	if err != nil {
		return false
	}
	found := false
	accounting.Leaves(e, func(l accounting.Event, _ float64) {
		if g, ok := l.(accounting.RGM); ok && g.Form == accounting.RGMStdLinear {
			found = true
		}
	})
	return found
}

// codePreset reports whether the record's mechanism ran its "code" preset
// (the authors' released code).
func codePreset(r *results.Record) bool { return r.MechParams["preset"] == "code" }

// sqrtOf is the printed √(key).
func sqrtOf(key string) func(func(string) (float64, bool)) (float64, bool) {
	return func(get func(string) (float64, bool)) (float64, bool) {
		x, ok := get(key)
		return math.Sqrt(x), ok
	}
}

// perRow is the printed key/n, n the row's number of records (its "n").
func perRow(key string) func(func(string) (float64, bool)) (float64, bool) {
	return func(get func(string) (float64, bool)) (float64, bool) {
		x, ok := get(key)
		n, okN := get("n")
		return x / n, ok && okN
	}
}

// Units and scales the quantities name.
const (
	paperScale = "paper scale: gradients ∇ℓ_j"
	codeScale  = "code scale: gradients ∇ℓ_j/n"
	rawUnits   = "raw: units of C² = C_X² + C_Y²"
	sumScale   = "sum scale: loss summed over the records"
)

// Sources the quantities cite (docs/references.md; the research notes of
// /work/shared/research name the authors' code).
const (
	refHMB     = "[HMB23] v2"
	refRGMCode = "authors' code, rgm.md §5.5"
	refLSS     = "[LSS+25]"
	refRKW     = "[RKW23]"
	refHSS     = "[HSS24]"
	refWang    = "[Wang18] Alg. 2; [LSS+25] Alg. 3"
	refACG     = "[ACG+16] Alg. 1"
)

// dgdQuantities are the diagnostics every mechanism of the [HMB23]
// distributed-GD family reports (per node under "node<i>/", τ and the wall
// time per step for the run).
var dgdQuantities = map[string][]quantity{
	"tau":        {q("τ", `$\tau$`, "step size 0.5/max_i λ_max(A_i)", refHMB+" App. C")},
	"n":          {q("n", `$n$`, "records of the node", refHMB+" §6")},
	"lambda_max": {q("λ_max", `$\lambda_{\max}$`, "largest eigenvalue of the node's A = XᵀX/n + μI", refHMB+" App. C")},
	"lambda_min": {q("λ_min", `$\lambda_{\min}$`, "smallest eigenvalue of the node's A", refHMB+" App. C")},
	"eta":        {q("η", `$\eta$`, "relative sensitivity of the node's gradient, constant-free (code preset: centred rows)", refHMB+" Eq. (11), App. C.2; rgm.md §5.5")},
	"r_rel":      {q("R_rel", `$R_{\mathrm{rel}}$`, "absolute term of the relative sensitivity (the code's R*)", refHMB+" Def. 2, App. C.2; rgm.md §5.5")},
	"c_max":      {q("c_max", `$c_{\max}$`, "max_j ‖∇ℓ_j(θ*)‖ at the node's optimum: the paper's threshold c", refHMB+" §6").in(paperScale)},
	"c_frobenius": {
		q("n‖G‖_F", `$n\|G\|_F$`, "√(Σ_j ‖∇ℓ_j(θ*)‖²), the code's threshold rule", refRGMCode).in(paperScale),
		derived("‖G‖_F", `$\|G\|_F$`, "c_frobenius/n", "Frobenius norm of the per-sample gradient matrix: the code's c at c_fac = 1", refRGMCode, perRow("c_frobenius")).in(codeScale),
	},
	"delta_plus":       {q("Δ₊", `$\Delta_+$`, "PTR distance lower bound (C = Ã, ρ = 1/2)", refHMB+" Prop. 2")},
	"wall_ns_per_iter": {q("ns/iter", `ns/iter`, "wall time per iteration, setup excluded", "").in("ns")},
}

// qDeltaPTR is the PTR check's failure probability the private members of
// the family report.
var qDeltaPTR = []quantity{q("δ_PTR", `$\delta_{\mathrm{PTR}}$`, "exp(−εΔ₊), the PTR failure probability (paper: ≈ 1e-34)", refHMB+" §6")}

// withDGD returns the distributed-GD diagnostics and extra.
func withDGD(extra map[string][]quantity) map[string][]quantity {
	out := make(map[string][]quantity, len(dgdQuantities)+len(extra))
	for k, v := range dgdQuantities {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Quantities shared by several mechanisms.
var (
	qNoiseMultiplier = []quantity{q("σ/Δ", `$\sigma/\Delta$`, "noise multiplier: the noise std over the release's sensitivity", "[Mir17] Prop. 7")}
	qK               = []quantity{q("k", `$k$`, "sketch size (rows of S)", refLSS+" Alg. 1")}
	qSigma2          = []quantity{q("σ²", `$\sigma^2$`, "variance of the sketch noise (Alg. 1: η̃²C²; Alg. 4: γ)", refLSS+" Lemma 1, Alg. 1 l. 6–7 (corrected), Alg. 4 l. 3").in(rawUnits)}
	qGammaMix        = []quantity{q("γ", `$\gamma$`, "GaussMix γ = (σ² + λ̄)/C² of the ledger", refLSS+" Lemma 1").in("dimensionless")}
	qObjSigma        = []quantity{q("σ", `$\sigma$`, "std of the objective's linear noise b ~ N(0, σ²I)", refRKW+" Alg. 1").in(sumScale)}
	qObjLambda       = []quantity{q("λ", `$\lambda$`, "ridge penalty (λ/2)‖θ‖²", refRKW+" Alg. 1").in(sumScale)}
	qObjTau          = []quantity{q("τ", `$\tau$`, "gradient-norm tolerance ‖∇L^P(θ̃)‖ ≤ τ", refRKW+" Alg. 1").in(sumScale)}
	qSigmaOut        = []quantity{q("σ_out", `$\sigma_{\mathrm{out}}$`, "std of the output noise N(0, σ_out²I)", refRKW+" Alg. 1")}
	qClipC           = []quantity{q("C", `$C$`, "clipping norm of the per-example gradients (= L, the Lipschitz bound)", refRKW+" §4, Thm F.2")}
	qDPGDSigma       = []quantity{q("σ", `$\sigma$`, "DP-GD noise std on the averaged gradient", refHSS+" Thm 12")}
)

// quantities is the one table of how tables print noise parameters and
// diagnostics: by mechanism registry name, then stored key (the part after
// a group: "node1/gamma" → "gamma"). Keys every mechanism may report are in
// sharedQuantities, pre-processing statistics in preprocessQuantities. A
// key without an entry prints under its own name (a store of an older
// dplab); TestQuantitiesCoverMechanisms keeps every key a mechanism reports
// listed.
var quantities = map[string]map[string][]quantity{
	"dgd": dgdQuantities,
	"dgd-rgm": withDGD(map[string][]quantity{
		"gamma": {
			q("γ", `$\gamma$`, "coefficient of ‖g‖² in the noise variance γ‖g‖² + σ² (code preset: std √γ‖g‖ + σ)", refHMB+" Def. 3, Eq. (83)"),
			derived("γ_code = √γ", `$\gamma_{\mathrm{code}} = \sqrt{\gamma}$`, "√gamma", "the authors' code's γ = η√(α/ε), the noise std per unit ‖g‖ (std-linear noise only)", refRGMCode, sqrtOf("gamma")).onlyFor(stdLinearRGM),
		},
		"sigma":       {q("σ", `$\sigma$`, "baseline noise std per coordinate (the code's σ = R*√(α/ε))", refHMB+" Def. 3; "+refRGMCode)},
		"delta_ptr":   qDeltaPTR,
		"eps_step_v2": {q("ε_step", `$\varepsilon_{\mathrm{step}}$`, "RDP ε of one release at α by Theorem 1 (v2), d term included", refHMB+" Thm 1")},
		"skipped":     {q("skipped", `skipped`, "1: the node never updates (code preset, η > 1)", refRGMCode)},
		"ptr_epsilon": {q("ε_PTR", `$\varepsilon_{\mathrm{PTR}}$`, "ε of the PTR test's Laplace release", refHMB+" Prop. 2")},
	}),
	"dgd-clip": withDGD(map[string][]quantity{
		"clip": {
			q("c", `$c$`, "clipping threshold of the per-sample gradients", refHMB+" Eqs. (81)–(82)").in(paperScale),
			derived("c_code = c/n", `$c_{\mathrm{code}} = c/n$`, "clip/n", "the authors' code's clipping threshold c (code preset only)", refRGMCode, perRow("clip")).in(codeScale).onlyFor(codePreset),
		},
		"sigma":            {q("σ", `$\sigma$`, "noise std per coordinate on the clipped mean, σ² = αc²/(εn²) (the code's c√(α/ε))", refHMB+" Eq. (82); "+refRGMCode)},
		"delta_ptr":        qDeltaPTR,
		"noise_multiplier": {q("σ/Δ", `$\sigma/\Delta$`, "σ over the clipped mean's replace-one sensitivity 2c/n", "[Mir17] Prop. 7")},
		"clipped_fraction": {q("clipped", `clipped`, "fraction of per-sample gradients clipped, over all steps", "")},
	}),
	"adassp": {
		"noise_multiplier": {q("σ/Δ", `$\sigma/\Delta$`, "noise multiplier √log(6/δ)/(ε/3) of each release", refWang)},
		"lambda":           {q("λ", `$\lambda$`, "ridge penalty of line 4", refWang)},
		"lambda_min_tilde": {q("λ̃_min", `$\tilde\lambda_{\min}$`, "private, downward-shifted λ_min(XᵀX) of line 3", refWang)},
	},
	"linear-mixing": {
		"gamma":        qGammaMix,
		"sigma2":       qSigma2,
		"lambda_tilde": {q("λ̃", `$\tilde\lambda$`, "private, downward-shifted λ_min(ZᵀZ)", refLSS+" Alg. 1 l. 5").in(rawUnits)},
		"eta_std":      {q("σ_λ", `$\sigma_\lambda$`, "std of the noise on λ_min: ηC², η = γ/√k (code preset: √(γC²/√k))", refLSS+" Alg. 1 l. 5, Alg. 2").in(rawUnits)},
		"k":            qK,
	},
	"sheffet17":       sheffetQuantities,
	"sheffet17-renyi": sheffetQuantities,
	"ssp": {
		"sigma": {q("σ", `$\sigma$`, "std of the Gaussian noise on each entry of XᵀX and Xᵀy", refHSS)},
	},
	"dpgd": {
		"sigma":      qDPGDSigma,
		"iterations": {q("T", `$T$`, "DP-GD steps", refHSS+" Thm 12")},
	},
	"dppca-dpgd": {
		"sigma":     qDPGDSigma,
		"sigma_pca": {q("σ_PCA", `$\sigma_{\mathrm{PCA}}$`, "std of the noise on each entry of XᵀX (DP-PCA)", refHSS)},
	},
	"ptr-pca-dpgd": {
		"sigma":        qDPGDSigma,
		"test_epsilon": {q("ε_T", `$\varepsilon_T$`, "ε of the PTR test", refHSS+" Alg. 1")},
		"ptr_bot":      {q("⊥", `$\bot$`, "1: the test refused (Algorithm 1 returned ⊥)", refHSS+" Alg. 1")},
		"ptr_distance": {q("J(S)", `$J(S)$`, "distance to a dataset whose PCA is unstable", refHSS+" Alg. 1")},
	},
	"dpsgd": {
		"noise_multiplier": {q("σ/Δ", `$\sigma/\Delta$`, "noise multiplier σ: the noise std is σC on the clipped sum", refACG)},
		"q":                {q("q", `$q$`, "sampling rate", refACG)},
		"steps":            {q("T", `$T$`, "SGD steps", refACG)},
		"clip":             {q("C", `$C$`, "per-example gradient clipping norm", refACG)},
		"clipped":          {q("clipped", `clipped`, "per-example gradients clipped, over all steps", "")},
	},
	"objpert-amp": {
		"sigma": qObjSigma, "lambda": qObjLambda, "tau": qObjTau, "sigma_out": qSigmaOut, "clip": qClipC,
		"beta": {q("β", `$\beta$`, "smoothness of the loss, f″ ≤ β", refRKW+" Thm 3.2")},
	},
	"objpert-kifer": {
		"sigma": qObjSigma, "lambda": qObjLambda, "tau": qObjTau, "sigma_out": qSigmaOut,
	},
	"objpert-output": {
		"sigma":            {q("σ_out", `$\sigma_{\mathrm{out}}$`, "std of the output noise N(0, σ_out²I) = (σ/Δ)·(C + 2τ)/λ", "[CMS11] Alg. 1")},
		"lambda":           qObjLambda,
		"tau":              qObjTau,
		"clip":             qClipC,
		"noise_multiplier": qNoiseMultiplier,
	},
}

// sheffetQuantities are the noise parameters of [She17] Algorithm 1 as
// [LSS+25] App. H.2 adapts it (Algorithms 4 and 5).
var sheffetQuantities = map[string][]quantity{
	"gamma":           qGammaMix,
	"sigma2":          qSigma2,
	"threshold":       {q("W", `$W$`, "threshold of the no-noise test λ_min > W + z + shift (Alg. 4 l. 5: W = γ)", refLSS+" Alg. 4 l. 5").in(rawUnits)},
	"laplace_scale":   {q("b", `$b$`, "scale of the test's Laplace noise z ~ Lap(b), 4C²/ε", refLSS+" Alg. 4 l. 5").in(rawUnits)},
	"k":               qK,
	"no_noise_branch": {q("no noise", `no noise`, "1: the test passed and no noise was added (Alg. 4 l. 6)", refLSS+" Alg. 4")},
}

// sharedQuantities are keys any mechanism may report: solver counters and
// private tuning's number of runs.
var sharedQuantities = map[string][]quantity{
	"iterations": {q("iterations", `iterations`, "optimiser iterations", "")},
	"passes":     {q("passes", `passes`, "full-gradient evaluations (passes over the data)", "")},
	"grad_evals": {q("∇ evals", `$\nabla$ evals`, "per-example gradient evaluations", "")},
	"hess_evals": {q("∇² evals", `$\nabla^2$ evals`, "Hessian evaluations", "")},
	"grad_norm":  {q("‖∇J‖", `$\|\nabla J\|$`, "gradient norm of the objective at the returned point", "")},
	"converged":  {q("converged", `converged`, "1: the optimiser met its tolerance", "")},
	"runs":       {q("runs", `runs`, "tuning: runs made (K for private tuning, the candidates for oracle tuning)", "[PS22]")},
}

// preprocessQuantities are the statistics a pre-processing step observes on
// the training rows (diagnostics "preprocess/…"), in the notation of
// [HSS24]'s data collection.
var preprocessQuantities = map[string][]quantity{
	"n":                    {q("n", `$n$`, "rows", refHSS)},
	"max_cluster":          {q("max |B|", `$\max|B|$`, "largest good cluster (Δ_∞ = 2 max |B|)", refHSS+" Prop. 3")},
	"max_local":            {q("m", `$m$`, "most rows within 4η of a point (dplab's safe mode)", "")},
	"max_missing_rows":     {q("p", `$p$`, "rows with a missing value", refHSS+" Table 3, Prop. 15")},
	"max_imputed_features": {q("imputed features", `imputed features`, "most missing features in one row", "")},
	"order_band_lo":        {q("band low", `band low`, "lower end of the band holding the order statistics", refHSS+" Table 3")},
	"order_band_hi":        {q("band high", `band high`, "upper end of the band holding the order statistics", refHSS+" Table 3")},
	"lambda_min":           {q("λ_min(XᵀX)", `$\lambda_{\min}(X^\top X)$`, "over the complete rows", refHSS+" Table 3")},
	"lambda_max":           {q("λ_max(XᵀX)", `$\lambda_{\max}(X^\top X)$`, "over the complete rows", refHSS+" Table 3")},
	"gap_k":                {q("δᵏ_min", `$\delta^k_{\min}$`, "eigengap λ_k − λ_{k+1} of the covariance", refHSS+" Table 2, Prop. 5")},
	"gap_1":                {q("δ¹_min", `$\delta^1_{\min}$`, "eigengap λ_1 − λ_2", refHSS+" Prop. 5")},
	"gap_all":              {q("min gap", `min gap`, "smallest eigengap λ_i − λ_{i+1}, i ≤ k (dplab's safe mode)", "")},
	"sign_margin":          {q("sign margin", `sign margin`, "min_i |⟨v_i, 1⟩|/√d (dplab's safe mode)", "")},
}

// quantitiesOf returns how the stored key (with its group, "node1/gamma")
// of a mechanism prints, or nil when the table does not know it. Tuning's
// "total_<k>" sums a counter over the runs, "sel_<p>" is the selected
// candidate's param p.
func quantitiesOf(mech, key string) []quantity {
	group, name, _ := cutLast(key)
	if group == "preprocess" || strings.HasPrefix(group, "preprocess/") {
		return preprocessQuantities[name]
	}
	if qs, ok := quantities[mech][name]; ok {
		return qs
	}
	if qs, ok := sharedQuantities[name]; ok {
		return qs
	}
	if base, ok := strings.CutPrefix(name, "total_"); ok {
		var out []quantity
		for _, b := range quantitiesOf(mech, base) {
			if b.of == nil { // a sum of derived values means nothing
				out = append(out, quantity{label: "Σ " + b.label, tex: `$\Sigma$ ` + b.tex, means: "summed over the tuning runs: " + b.means, unit: b.unit, ref: b.ref})
			}
		}
		return out
	}
	if p, ok := strings.CutPrefix(name, "sel_"); ok {
		return []quantity{{label: "selected " + p, tex: "selected " + plotting.TeXEscape(p), means: "the selected candidate's " + p, ref: "[PS22]"}}
	}
	return nil
}

// columnsOf is quantitiesOf, or the key printed under its own name when the
// table does not know it.
func columnsOf(mech, key string) []quantity {
	if qs := quantitiesOf(mech, key); qs != nil {
		return qs
	}
	_, name, _ := cutLast(key)
	return []quantity{{label: name, tex: plotting.TeXEscape(name)}}
}

// derivedKey is the key under which derived values (quantity.of) of a group
// are aggregated.
func derivedKey(group, label string) string {
	if group == "" {
		return label
	}
	return group + "/" + label
}

// derives reports whether some key of mech prints a derived value.
func derives(mech string) bool {
	for _, qs := range quantities[mech] {
		if slices.ContainsFunc(qs, func(q quantity) bool { return q.of != nil }) {
			return true
		}
	}
	return false
}

// derivedValues returns the derived values (quantity.of) of an ok record
// of mech, by derivedKey: computed record by record, so that their means
// and intervals over trials are those of the printed quantity.
func derivedValues(mech string, r *results.Record) map[string]results.Float {
	out := map[string]results.Float{}
	add := func(m map[string]results.Float) {
		for key := range m {
			group, _, _ := cutLast(key)
			get := func(k string) (float64, bool) {
				k = derivedKey(group, k)
				if x, ok := r.Privacy.Noise[k]; ok {
					return float64(x), true
				}
				x, ok := r.Diagnostics[k]
				return float64(x), ok
			}
			for _, q := range quantitiesOf(mech, key) {
				if q.of == nil || q.when != nil && !q.when(r) {
					continue
				}
				if x, ok := q.of(get); ok {
					out[derivedKey(group, q.label)] = results.Float(x)
				}
			}
		}
	}
	add(r.Privacy.Noise)
	add(r.Diagnostics)
	return out
}

// quantityStat returns the summary over the cell's trials of q, one of the
// quantities of the stored key (with its group) of its noise parameters or
// diagnostics: the key's own, or that of the values derived from it record
// by record.
func (v *view) quantityStat(cellKey string, noise bool, key string, q quantity) (results.Stat, bool) {
	if q.of != nil {
		group, _, _ := cutLast(key)
		st, ok := v.derived[cellKey].Diagnostics[derivedKey(group, q.label)]
		return st, ok
	}
	a := v.agg[cellKey]
	m := a.Diagnostics
	if noise {
		m = a.Noise
	}
	st, ok := m[key]
	return st, ok
}

// columnLegend says what the printed columns of a table are: each label
// once, with each distinct meaning it has in the table and, when it has
// several, the mechanisms of each.
type columnLegend struct {
	labels  []string
	entries map[string][]*legendEntry
}

type legendEntry struct {
	q     quantity
	key   string   // the stored key (without group)
	mechs []string // spec labels of the mechanisms it is printed for
}

// add notes that q, printed from the stored key, is a column of mech's rows.
func (l *columnLegend) add(q quantity, key, mech string) {
	if q.means == "" {
		return // a key the table does not know: printed under its name
	}
	if l.entries == nil {
		l.entries = map[string][]*legendEntry{}
	}
	es := l.entries[q.label]
	if len(es) == 0 {
		l.labels = append(l.labels, q.label)
	}
	for _, e := range es {
		if e.q.means == q.means && e.q.unit == q.unit && e.q.ref == q.ref && e.key == key {
			if !slices.Contains(e.mechs, mech) {
				e.mechs = append(e.mechs, mech)
			}
			return
		}
	}
	l.entries[q.label] = append(es, &legendEntry{q: q, key: key, mechs: []string{mech}})
}

// String is the legend, "" for none: each label with its meaning, and in
// parentheses the stored key it is printed from and the source of its
// notation ("γ_code = √γ: the authors' code's γ … (√gamma; HadrienHx/RGM …)");
// a label with several meanings in the table gives each with its
// mechanisms, separated by " / ".
func (l *columnLegend) String() string {
	if len(l.labels) == 0 {
		return ""
	}
	var parts []string
	for _, label := range l.labels {
		es := l.entries[label]
		var ms []string
		for _, e := range es {
			src := e.key
			if e.q.formula != "" {
				src = e.q.formula
			}
			if e.q.ref != "" {
				src += "; " + e.q.ref
			}
			m := e.q.means
			if e.q.unit != "" {
				m += " [" + e.q.unit + "]"
			}
			m += " (" + src + ")"
			if len(es) > 1 {
				m = strings.Join(e.mechs, ", ") + ": " + m
			}
			ms = append(ms, m)
		}
		parts = append(parts, label+": "+strings.Join(ms, " / "))
	}
	return "columns: " + strings.Join(parts, "; ")
}

// ColumnLabels returns the headers under which tables print a stored key
// ("node1/gamma") of the named mechanism's noise parameters or non-private
// diagnostics, in the notation of the paper or the authors' code
// (quantities.go), or nil when dplab does not know the key (tables then
// print it under its own name).
func ColumnLabels(mechanism, key string) []string {
	var out []string
	for _, q := range quantitiesOf(mechanism, key) {
		out = append(out, q.label)
	}
	return out
}
