package report

import (
	"slices"
	"strings"

	"github.com/dplab/dplab/internal/oncemap"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/plotting"
	"github.com/dplab/dplab/results"
)

// quantity is how tables print one stored key of a mechanism's noise
// parameters (records' privacy.noise) or non-private diagnostics
// (diagnostics_nonprivate): a mechanism's own keys as it declares them
// (mechanisms.Quantity, Info.Quantities, in its Register call), the keys
// any mechanism may report and pre-processing's statistics as this file
// lists them. A key may print as several columns.
type quantity struct {
	label string // column header, Unicode math in the source's notation: "γ", "c_code = c/n"
	tex   string // the header in LaTeX: `$\gamma$`
	means string // what the printed value is, in a few words
	unit  string // its unit or scale where several are in use; "" otherwise
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

// mechQuantities are a mechanism's declared quantities (Info.Quantities) in
// the tables' form, by stored key, and whether one of them is derived.
type mechQuantities struct {
	byKey   map[string][]quantity
	derives bool
}

// declaredQuantities holds each mechanism's mechQuantities, converted once
// per process: the registry does not change after init, and tables look a
// mechanism's quantities up for every record.
var declaredQuantities oncemap.Map[string, mechQuantities]

// declared returns the quantities the named mechanism declares, empty for a
// mechanism not registered (a store of an older dplab).
func declared(mech string) mechQuantities {
	m, _ := declaredQuantities.Do(mech, func() (mechQuantities, error) {
		var out mechQuantities
		e, err := mechanisms.Lookup(mech)
		if err != nil {
			return out, nil
		}
		out.byKey = make(map[string][]quantity, len(e.Info.Quantities))
		for key, ds := range e.Info.Quantities {
			qs := make([]quantity, len(ds))
			for i, d := range ds {
				qs[i] = fromDeclared(d)
				out.derives = out.derives || d.Of != nil
			}
			out.byKey[key] = qs
		}
		return out, nil
	})
	return m
}

// fromDeclared is how tables print a mechanism's declared quantity: its
// When reads the record's mechanism params and ledger (nil when the record
// has none that decodes).
func fromDeclared(d mechanisms.Quantity) quantity {
	out := quantity{label: d.Label, tex: d.TeX, means: d.Means, unit: d.Unit, ref: d.Ref, of: d.Of, formula: d.Formula}
	if when := d.When; when != nil {
		out.when = func(r *results.Record) bool {
			ledger, _ := accounting.UnmarshalEvent(r.Privacy.Event) // nil when none decodes
			return when(r.MechParams, ledger)
		}
	}
	return out
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

// refHSS is the source of pre-processing's notation.
const refHSS = "[HSS24]"

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
// of a mechanism prints, or nil when neither the mechanism declares it nor
// this file lists it. Tuning's
// "total_<k>" sums a counter over the runs, "sel_<p>" is the selected
// candidate's param p.
func quantitiesOf(mech, key string) []quantity {
	group, name, _ := cutLast(key)
	if group == "preprocess" || strings.HasPrefix(group, "preprocess/") {
		return preprocessQuantities[name]
	}
	if qs, ok := declared(mech).byKey[name]; ok {
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
func derives(mech string) bool { return declared(mech).derives }

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
// diagnostics, in the notation of the paper or the authors' code (as the
// mechanism declares them, mechanisms.Info.Quantities, or quantities.go
// for solver counters, tuning and pre-processing), or nil when dplab does not know the key (tables then
// print it under its own name).
func ColumnLabels(mechanism, key string) []string {
	var out []string
	for _, q := range quantitiesOf(mechanism, key) {
		out = append(out, q.label)
	}
	return out
}
