package accounting

import (
	"encoding/json"
	"fmt"
	"math"
)

// Preprocessed is a mechanism run on data pre-processed by a non-private,
// data-dependent π: fit π_S on the private S, apply it to every row, run the
// mechanism on π_S(S) ([HSS24] §3). π's sensitivities ([HSS24] Def. 4,
// Eq. 2) are declared: at most DeltaInf rows of the common part change when
// one record is replaced, each by at most Delta2 in L2 norm. They hold over
// the collection 𝓛 the spec declares (maximum cluster size, missing rows,
// minimum eigengap, …): the event carries the numbers, and its guarantee is
// conditional on 𝓛 (preprocessing.md §4.5) unless a PTR test certifies it
// (PTREvent).
//
// Event is the mechanism's own ledger on the pre-processed data (its RDP
// curve, as the mechanism would charge it without pre-processing); SRDP
// describes the same mechanism's smooth-RDP curve ([HSS24] Def. 3). Without
// SRDP (objective perturbation, RGM, GaussMix: no SRDP result) only group
// privacy is valid and Theorem 2 is never applied.
//
// Its RDP at order α is the pointwise minimum, over the analyses listed in
// Analyses (default DefaultAnalyses) that are valid for this mechanism, of
// (preprocessing.md §4.4; each documented at its constant):
//
//	paper         1.05·(ε~(2α', τ) + ε(2α')), α' = max(α, 11)        [HSS24] Eq. 43
//	exact_factor  (2α−1)/(2(α−1))·(ε~(2α, τ) + ε(2α))                 Eq. 43 before rounding
//	tight_pq      Theorem 2 minimised over p and q, the max of its two branches
//	tight_pq_min  the min of the two branches (each bounds both directions)
//	frobenius     tight_pq with τ_F = Δ₂√Δ∞ and the Frobenius curve   footnote 3
//	group         the mechanism on datasets differing in g rows        §1.7 [rec]
//
// with τ = Δ₂·Δ∞ and, for pure-DP mechanisms (Laplace, exponential), the
// p = q = 1 form ε(∞) + ε~(∞, τ) (Eqs. 44–45) in paper, tight_pq,
// tight_pq_min and frobenius. The pointwise minimum of valid RDP curves is a
// valid RDP curve. PreprocessedAnalyses reports every analysis and the
// winner at an order.
//
// Relation is the neighbouring relation of the sensitivities: replace-one
// (the paper's; the default) or add/remove (footnote 4's sensitivities:
// Theorem 2 carries over, preprocessing.md §4.3); relations fixed inside
// Event must agree (LedgerRelation refuses mixing). The RDP accountant
// evaluates it; the PLD and exact accountants report it as unsupported.
type Preprocessed struct {
	Event    Event   `json:"event"`          // the mechanism's ledger on the pre-processed data
	SRDP     *SRDP   `json:"srdp,omitempty"` // nil: no SRDP result (group privacy only)
	DeltaInf int     `json:"delta_inf"`      // Δ∞ ≥ 0: common rows π maps differently (capped at N)
	Delta2   float64 `json:"delta_2"`        // Δ₂ ≥ 0: the largest L2 move of such a row
	// N is the dataset size n; it caps Δ∞ and the group size. 0: no cap.
	N int `json:"n,omitempty"`
	// Analyses are the analyses to consider (Analysis* names); empty means
	// DefaultAnalyses.
	Analyses []string `json:"analyses,omitempty"`
	// GroupSizeOffset is added to Δ∞ for the group size: replace-one
	// g = min(Δ∞ + offset, n), add/remove g = min(2Δ∞ + offset, 2n − 1)
	// (a changed row is a removal and an addition). 0 means 1: the Δ∞
	// changed rows plus the swapped (or added) record itself. Larger values
	// are conservative. The paper's unstated g = Δ∞ is not a guarantee with
	// Def. 4's Δ∞ and is not offered here.
	GroupSizeOffset int `json:"group_size_offset,omitempty"`
	// Relation is "" or RelationReplaceOne (replace-one), or
	// RelationAddRemove.
	Relation string `json:"relation,omitempty"`
}

// maxRows bounds the row counts of Preprocessed (so that 2Δ∞ + offset
// cannot overflow).
const maxRows = 1_000_000_000_000

// The analyses of Preprocessed (preprocessing.md §4.4).
const (
	AnalysisPaper       = "paper"
	AnalysisExactFactor = "exact_factor"
	AnalysisTightPQ     = "tight_pq"
	AnalysisTightPQMin  = "tight_pq_min"
	AnalysisFrobenius   = "frobenius"
	AnalysisGroup       = "group"
)

// analysisOrder is every analysis, in the order ties are broken (the
// paper-faithful ones first, so a derived analysis wins only when strictly
// better).
var analysisOrder = []string{AnalysisPaper, AnalysisExactFactor, AnalysisTightPQ, AnalysisTightPQMin, AnalysisFrobenius, AnalysisGroup}

// AllAnalyses returns every analysis name, in tie-breaking order.
func AllAnalyses() []string { return append([]string(nil), analysisOrder...) }

// DefaultAnalyses returns the analyses a Preprocessed event considers when
// Analyses is empty: every valid one but paper, which exact_factor
// dominates at every order ≥ 11 and which only reproduces the paper
// (preprocessing.md §4.4 [rec], plus tight_pq_min: see thm2Branches).
func DefaultAnalyses() []string {
	return []string{AnalysisExactFactor, AnalysisTightPQ, AnalysisTightPQMin, AnalysisFrobenius, AnalysisGroup}
}

func init() {
	registerLeaf(Preprocessed{
		Event:    Gaussian{Sigma: 4, Sensitivity: 1},
		SRDP:     &SRDP{Mechanism: SRDPGaussian, Sigma: 4, Sensitivity: 1, L12: 1, LF: 1},
		DeltaInf: 10, Delta2: 0.1, N: 1000,
	})
	registerForm("preprocessed", pipelineForm())
}

// Kind implements Event.
func (Preprocessed) Kind() string { return "preprocessed" }

func (Preprocessed) isEvent() {}

// relation implements leafEvent: Relation, replace-one by default.
func (e Preprocessed) relation() string {
	if e.Relation == "" {
		return RelationReplaceOne
	}
	return e.Relation
}

// wrapped exposes Event to deep walks (relations, assumptions).
func (e Preprocessed) wrapped() Event { return e.Event }

// Validate checks the fields (errors name the field) and that SRDP and
// Event describe the same mechanism where SRDP determines an event
// (srdpMatchesEvent).
func (e Preprocessed) Validate() error {
	if e.Event == nil {
		return fmt.Errorf("accounting: preprocessed: event is missing")
	}
	if err := Validate(e.Event); err != nil {
		return fmt.Errorf("preprocessed: event: %w", err)
	}
	if e.DeltaInf < 0 || e.DeltaInf > maxRows {
		return fieldErr(e, "delta_inf", e.DeltaInf, "in [0, 10¹²] (a number of rows)")
	}
	if !finite(e.Delta2) || e.Delta2 < 0 {
		return fieldErr(e, "delta_2", e.Delta2, "a finite distance ≥ 0")
	}
	if e.N < 0 || e.N > maxRows {
		return fieldErr(e, "n", e.N, "in [0, 10¹²] (0: no cap)")
	}
	if e.GroupSizeOffset < 0 || e.GroupSizeOffset > maxRows {
		return fieldErr(e, "group_size_offset", e.GroupSizeOffset, "in [0, 10¹²] (0 means 1)")
	}
	switch e.Relation {
	case "", RelationReplaceOne, RelationAddRemove:
	default:
		return fieldErr(e, "relation", e.Relation, `"" (replace_one), replace_one or add_remove`)
	}
	if e.SRDP != nil {
		if err := e.SRDP.Validate(); err != nil {
			return fmt.Errorf("preprocessed: srdp: %w", err)
		}
		if err := srdpMatchesEvent(*e.SRDP, e.Event); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i, a := range e.Analyses {
		known := false
		for _, k := range analysisOrder {
			known = known || a == k
		}
		switch {
		case !known:
			return fieldErr(e, fmt.Sprintf("analyses[%d]", i), fmt.Sprintf("%q", a), "one of paper, exact_factor, tight_pq, tight_pq_min, frobenius, group")
		case seen[a]:
			return fieldErr(e, fmt.Sprintf("analyses[%d]", i), fmt.Sprintf("%q", a), "each analysis once")
		case a != AnalysisGroup && e.SRDP == nil:
			return fieldErr(e, fmt.Sprintf("analyses[%d]", i), fmt.Sprintf("%q", a), "group: without an SRDP curve Theorem 2 does not apply")
		case a == AnalysisFrobenius && !e.SRDP.SupportsFrobenius():
			return fieldErr(e, fmt.Sprintf("analyses[%d]", i), fmt.Sprintf("%q", a), "an analysis the mechanism supports: frobenius needs the Gaussian, Laplace or exponential mechanism with lf set")
		}
		seen[a] = true
	}
	return nil
}

// srdpMatchesEvent checks that the SRDP description and the ledger event are
// of one mechanism: where the SRDP kind determines an event (SRDP.Event),
// both must have the same RDP at orders 2 and 10 (relative 1e-9). Theorem 2
// combines ε(·) from the event with ε~(·) from the description; a noise
// level in one that is not the other's would make the bound wrong.
func srdpMatchesEvent(s SRDP, e Event) error {
	want, err := s.Event()
	if err != nil {
		return nil // dp_sgd_samp, dp_sgd_iter: no event to compare with
	}
	if r, ok := e.(ReplaceByRemoveAdd); ok {
		e = r.Event // the same release, read for replace-one neighbours
	}
	o := rdpOptions{orders: GridOrders()}
	got, err := newCurve(e, o)
	if err != nil || got.approx.leaf != nil || got.infinite {
		return nil // reported when the event is evaluated
	}
	ref, err := newCurve(want, o)
	if err != nil {
		return err
	}
	for _, a := range []float64{2, 10} {
		g, w := got.at(a), ref.at(a)
		if g == w || (finite(g) && finite(w) && math.Abs(g-w) <= 1e-9*math.Max(math.Abs(g), math.Abs(w))) {
			continue
		}
		return fmt.Errorf("accounting: preprocessed: srdp describes a %s mechanism whose RDP at α = %g is %.6g, but the event's is %.6g: they are not the same release", s.Mechanism, a, w, g)
	}
	return nil
}

// MarshalJSON encodes the event with its "kind".
func (e Preprocessed) MarshalJSON() ([]byte, error) {
	type plain Preprocessed
	return withKind(e.Kind(), plain(e))
}

func (Preprocessed) decodeJSON(data []byte, path string) (Event, error) {
	var v struct {
		kindTag
		Event           json.RawMessage `json:"event"`
		SRDP            *SRDP           `json:"srdp"`
		DeltaInf        int             `json:"delta_inf"`
		Delta2          float64         `json:"delta_2"`
		N               int             `json:"n"`
		Analyses        []string        `json:"analyses"`
		GroupSizeOffset int             `json:"group_size_offset"`
		Relation        string          `json:"relation"`
	}
	if err := decodeStrict(data, &v); err != nil {
		return nil, decodeErr(path, "preprocessed", err)
	}
	sub, err := unmarshalEvent(v.Event, path+".event")
	if err != nil {
		return nil, err
	}
	return Preprocessed{Event: sub, SRDP: v.SRDP, DeltaInf: v.DeltaInf, Delta2: v.Delta2, N: v.N,
		Analyses: v.Analyses, GroupSizeOffset: v.GroupSizeOffset, Relation: v.Relation}, nil
}

// rdp implements rdpEvent: the pointwise minimum of the valid analyses
// (pipeline.at), on the union of their order domains.
func (e Preprocessed) rdp(o rdpOptions) (rdpTerm, error) {
	p, err := newPipeline(e, o)
	if err != nil {
		return rdpTerm{}, err
	}
	if p.infinite {
		return rdpTerm{infinite: true}, nil
	}
	t := rdpTerm{
		at: func(a float64) float64 {
			v, _ := p.values(a)
			return v.min()
		},
		costly: p.base.costly,
		// The exact factor (2α−1)/(2(α−1)) decreases in α, so the minimum
		// may too: no pruning of the order grid, no ⌈α⌉ fallback.
		nonMonotone: true,
	}
	if sup := p.sup(); !math.IsInf(sup, 1) {
		t.sup = sup
	}
	return t, nil
}
