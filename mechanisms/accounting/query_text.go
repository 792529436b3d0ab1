package accounting

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Float is a number of an Answer's JSON: a JSON number as encoding/json
// writes a float64, or the string "inf" or "-inf" (as the golden vectors
// write them), since JSON has no infinities. (results.Float, the records',
// writes null instead since schema 3.)
type Float float64

// MarshalJSON implements json.Marshaler.
func (x Float) MarshalJSON() ([]byte, error) {
	switch v := float64(x); {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	}
	return json.Marshal(float64(x))
}

func jf(x float64) *Float { v := Float(x); return &v }

// Result is one accountant's answer to a Request.
type Result struct {
	Event      Event  `json:"event"`
	Accountant string `json:"accountant"`
	Orders     string `json:"orders,omitempty"`
	Conversion string `json:"conversion,omitempty"` // "classic" when asked; empty for the default
	Relation   string `json:"relation"`
	Epsilon    *Float `json:"epsilon,omitempty"`
	Delta      *Float `json:"delta,omitempty"`
	Order      *Float `json:"order,omitempty"`
	RDP        *Float `json:"rdp,omitempty"`
	// Sigma is the calibrated value of Parameter (--calibrate).
	Sigma     *Float  `json:"sigma,omitempty"`
	Parameter string  `json:"parameter,omitempty"`
	Interval  float64 `json:"interval,omitempty"`
	// RGM only: the RDP-target solve's rule and baseline noise, and with
	// --delta Corollary 1's closed form (valid: its condition holds) and
	// the numeric optimum of the paper's conversion.
	Rule            string `json:"rule,omitempty"`
	Gamma           *Float `json:"gamma,omitempty"`
	BaselineSigma   *Float `json:"baseline_sigma,omitempty"`
	Corollary1      *Float `json:"corollary1,omitempty"`
	Corollary1Valid *bool  `json:"corollary1_valid,omitempty"`
	Mironov         *Float `json:"mironov,omitempty"`
	MironovOrder    *Float `json:"mironov_order,omitempty"`
	// A preprocessed event (pipeline, or json of one): every analysis.
	Pipeline *PipelineResult `json:"pipeline,omitempty"`
	// Derived says how q and T were derived from --n, --batch-size and
	// --epochs (sgm); "" otherwise.
	Derived string `json:"derived,omitempty"`
	// Error is why this accountant could not answer (--accountant all
	// only: a single accountant's error is the request's).
	Error string `json:"error,omitempty"`
	// Note qualifies a calibrated value: the PLD grid's limit, not the
	// target, stopped the search (pldGridNote).
	Note  string `json:"note,omitempty"`
	query string // "epsilon" (ε at δ), "delta" (δ at ε), "order" or "rdp-target"
}

// WriteJSON writes the answer as one JSON object and a newline: the one
// Result, or {"accountants": [...]} for several.
func (a *Answer) WriteJSON(w io.Writer) error {
	if len(a.Results) == 1 {
		return json.NewEncoder(w).Encode(a.Results[0])
	}
	return json.NewEncoder(w).Encode(map[string]any{"accountants": a.Results})
}

// WriteText writes the answer for a reader: one line per accountant (and a
// pipeline's table of analyses before it).
func (a *Answer) WriteText(w io.Writer) {
	if len(a.Results) == 1 {
		a.Results[0].writeText(w)
		return
	}
	for _, r := range a.Results {
		fmt.Fprintf(w, "%-6s ", r.Accountant+":")
		if r.Error != "" {
			fmt.Fprintf(w, "n/a, does not apply to this input (%s)\n", strings.TrimPrefix(r.Error, "accounting: "))
			continue
		}
		one := *r
		one.Derived = ""
		one.writeText(w)
	}
	if a.Derived != "" {
		fmt.Fprintln(w, a.Derived)
	}
}

func (r *Result) how() string {
	switch r.Accountant {
	case "rdp":
		if r.Conversion != "" {
			return fmt.Sprintf("rdp accountant, %s orders, %s conversion", r.Orders, r.Conversion)
		}
		return fmt.Sprintf("rdp accountant, %s orders", r.Orders)
	case "pld":
		return fmt.Sprintf("pld accountant, interval %g", r.Interval)
	}
	return r.Accountant + " accountant"
}

func fmtNum(x *Float) string { return strconv.FormatFloat(float64(*x), 'g', 10, 64) }

func (r *Result) writeText(w io.Writer) {
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

// writeText prints the pipeline's analyses as a table (before the answer).
func (p *PipelineResult) writeText(w io.Writer, query string, alpha float64) {
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
