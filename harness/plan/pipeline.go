package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/internal/strictoml"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Pre-processing in front of a mechanism ([HSS24], issue 12): a mechanism
// block may declare
//
//	preprocess = [{ name = "quantize", eta = 0.1 }, "impute-mean", …]
//	[mechanism.pipeline]
//	mode = "safe"                       # sensitivities: safe (default) | paper
//	collection = { max_local = 40 }     # the declared collection 𝓛 (preprocess.Collection keys)
//	analyses = ["tight_pq", "group"]    # default accounting.DefaultAnalyses()
//	group_size_offset = 1               # ≥ 1 (default 1)
//	on_violation = "fail"               # fail (default) | group
//
// The runner clips the training rows to the unit ball, fits the steps on
// them (non-private, data-dependent), checks the declared collection, and
// fits the mechanism on the pre-processed rows; the charged event is
// accounting.Preprocessed around the mechanism's own (Pipeline.Event). The
// guarantee is conditional on the declared collection, never on statistics
// read from the data.

// stepParams names the params each step reads (preprocess.Build).
var stepParams = map[string]string{
	"dedup": "eta", "quantize": "eta", "impute-trimmed": "trim", "pca-rank": "k", "pca-dim": "k",
	"impute-mean": "no params", "impute-median": "no params", "impute-linreg": "no params",
}

// unusedParam returns a param set on the step that its pre-processor does
// not read ("" when none): a strict spec refuses it rather than ignore it.
func unusedParam(p spec.PreprocessStep) string {
	takes, ok := stepParams[p.Name]
	if !ok {
		return "" // an unknown name: Build names it
	}
	for _, c := range []struct {
		key string
		set bool
	}{{"eta", p.Eta != 0}, {"k", p.K != 0}, {"trim", p.Trim != 0}} {
		if c.set && takes != c.key {
			return c.key
		}
	}
	return ""
}

// stepParamsOf returns step p's preprocess.Params.
func stepParamsOf(p spec.PreprocessStep) preprocess.Params {
	return preprocess.Params{Eta: p.Eta, K: p.K, Trim: p.Trim}
}

// On-violation policies.
const (
	ViolationFail  = "fail"
	ViolationGroup = "group"
)

// Pipeline is a mechanism block's validated pre-processing.
type Pipeline struct {
	Steps []preprocess.Preprocessor // in order
	// Pre is the one step, or the Chain of several (preprocess.NewChain,
	// preprocessing.md §4.7 as corrected by preprocess.ComposeSensitivity).
	Pre  preprocess.Preprocessor
	Mode preprocess.Mode
	// Collection is the declared collection; N = 0 means the training size.
	Collection preprocess.Collection
	// Declared is the collection as the spec wrote it (for the records).
	Declared        spec.RawTable
	Analyses        []string // nil: accounting.DefaultAnalyses()
	GroupSizeOffset int      // ≥ 1
	OnViolation     string   // ViolationFail or ViolationGroup
}

// StepsText names the steps with their params: "quantize[eta=0.1]",
// "impute-mean→pca-rank[k=5]".
func (p *Pipeline) StepsText() string {
	parts := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		parts[i] = s.String()
	}
	return strings.Join(parts, "→")
}

// Relation returns the neighbouring relation of the declared collection
// (replace-one when it declares none).
func (p *Pipeline) Relation() string {
	if p.Collection.Relation == "" {
		return accounting.RelationReplaceOne
	}
	return p.Collection.Relation
}

// CollectionText states the declared collection, "{max_local = 40, n = 400}",
// with n the training size when the spec leaves it out.
func (p *Pipeline) CollectionText(n int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p.Declared)) {
		b, err := json.Marshal(p.Declared[k])
		v := string(b)
		if err != nil {
			v = fmt.Sprint(p.Declared[k])
		}
		parts = append(parts, k+" = "+v)
	}
	if _, ok := p.Declared["n"]; !ok {
		parts = append(parts, fmt.Sprintf("n = %d (the training size)", n))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Sensitivity returns the pipeline's (Δ∞, Δ₂) over the declared collection
// for a training set of n rows (the collection's n when declared).
func (p *Pipeline) Sensitivity(n int) (preprocess.Sensitivity, error) {
	return p.Mechanism("", nil, false).Sensitivity(n)
}

// Charge is how a run is charged behind the pipeline (the wrapper's
// mechanisms.PipelineCharge): the sensitivities over the declared collection
// at the training size, or, when the data violate the collection and the
// block falls back, group privacy over all rows.
type Charge = mechanisms.PipelineCharge

// Event returns the event charged for one run of mechanism m (registry name
// name) whose own event is e, behind the pipeline: accounting.Preprocessed
// with m's smooth-RDP curve of e when m has one (mechanisms.SmoothRDPer),
// and group privacy alone otherwise. group says why Theorem 2 is not
// applied ("" when it is considered). It is a pure function of its inputs,
// so a calibration memoised by the charged event stays correct.
func (p *Pipeline) Event(name string, m mechanisms.Mechanism, e accounting.Event, c Charge) (ev accounting.Preprocessed, group string) {
	rel := p.Collection.Relation
	if rel == accounting.RelationReplaceOne {
		rel = ""
	}
	ev = accounting.Preprocessed{Event: p.relate(e), DeltaInf: c.Sens.DeltaInf, Delta2: c.Sens.Delta2, N: c.N,
		Analyses: slices.Clone(p.Analyses), GroupSizeOffset: p.GroupSizeOffset, Relation: rel}
	if ev.GroupSizeOffset == 1 {
		ev.GroupSizeOffset = 0 // the event's default
	}
	if c.Void != nil {
		// Any two training sets of n rows differ in at most n rows, however
		// they were pre-processed: group privacy over n rows needs no
		// collection. Δ₂ is unused by the group analysis; 2 is the unit
		// ball's diameter.
		ev.DeltaInf, ev.Delta2, ev.Analyses = c.N, 2, []string{accounting.AnalysisGroup}
		return ev, fmt.Sprintf("the data violate the declared collection (%s)", ViolationText(c.Void))
	}
	if sr, ok := m.(mechanisms.SmoothRDPer); ok {
		s, err := sr.SmoothRDP(e)
		if err == nil && s != nil {
			ev.SRDP = s
			return ev, ""
		}
		if err != nil {
			group = fmt.Sprintf("no smooth-RDP result for %s: %v", name, err)
		}
	}
	if group == "" {
		group = "no smooth-RDP result for " + name
	}
	ev.Analyses = []string{accounting.AnalysisGroup}
	return ev, group
}

// relate returns a mechanism's ledger e for the pipeline's neighbouring
// relation: an add/remove ledger behind replace-one steps is read for
// replace-one neighbours (accounting.ReplaceByRemoveAdd, [Mir17] Prop. 11:
// a replacement is a removal and an addition); any other ledger as it is
// (CheckRelation refuses the mismatches no conversion covers).
func (p *Pipeline) relate(e accounting.Event) accounting.Event {
	if p.Relation() != accounting.RelationReplaceOne {
		return e
	}
	if rel, err := accounting.LedgerRelation(e); err == nil && rel == accounting.RelationAddRemove {
		return accounting.ReplaceByRemoveAdd{Event: e}
	}
	return e
}

// ViolationText lists the violated parameters of a collection violation
// (a *preprocess.ViolationError): "max_local = 5 declared, 101 observed".
func ViolationText(err error) string {
	var v *preprocess.ViolationError
	if !errors.As(err, &v) {
		return err.Error()
	}
	parts := make([]string, len(v.Violations))
	for i, x := range v.Violations {
		parts[i] = fmt.Sprintf("%s = %s declared, %s observed", x.Param, x.Declared, x.Observed)
	}
	return strings.Join(parts, "; ")
}

// Wrap returns the Budget.Wrap of the pipeline for mechanism m: e ↦
// Event(name, m, e, c).
func (p *Pipeline) Wrap(name string, m mechanisms.Mechanism, c Charge) func(accounting.Event) accounting.Event {
	return func(e accounting.Event) accounting.Event {
		ev, _ := p.Event(name, m, e, c)
		return ev
	}
}

// TransformIsIdentity reports whether the fitted steps leave held-out rows
// as they are (deduplication and quantization clean the training rows
// only): then nothing but the training rows' own pre-processing depends on
// the data.
func (p *Pipeline) TransformIsIdentity() bool {
	for _, s := range p.Steps {
		if n := s.Name(); n != "dedup" && n != "quantize" {
			return false
		}
	}
	return true
}

// representativeN is the training size validation computes sensitivities
// at when the collection does not declare n (the data are not loaded yet;
// the trials recompute them at their own n): the wrapper's, at which its
// declared shapes are charged.
const representativeN = mechanisms.ShapeRows

var typeOfCollection = reflect.TypeFor[preprocess.Collection]()

// collectionKeys are the toml keys of preprocess.Collection.
func collectionKeys() []string {
	return strictoml.Keys(typeOfCollection)
}

// validatePipeline checks mechanism block i's preprocess and pipeline keys
// and builds its Pipeline.
func (s *checker) validatePipeline(i int) error {
	m := &s.Mechanisms[i]
	s.pipes[i] = nil
	if len(m.Preprocess) == 0 {
		if m.Pipeline != nil {
			return s.ErrIn("mechanism", i, "pipeline", "a pipeline table needs preprocess = [...] (the steps it describes)")
		}
		return nil
	}
	p := &Pipeline{Mode: preprocess.Safe, GroupSizeOffset: 1, OnViolation: ViolationFail}
	for j, st := range m.Preprocess {
		key := fmt.Sprintf("preprocess[%d]", j)
		if st.Name == "" {
			return s.ErrIn("mechanism", i, key+".name", "a step needs a name (%s)", strings.Join(preprocess.Names(), ", "))
		}
		if k := unusedParam(st); k != "" {
			return s.ErrIn("mechanism", i, key+"."+k, "%s does not read %s (it takes %s)", st.Name, k, stepParams[st.Name])
		}
		pp, err := preprocess.Build(st.Name, stepParamsOf(st))
		if err != nil {
			k := "name"
			if slices.Contains(preprocess.Names(), st.Name) {
				k = blameKey("", err, []string{"eta", "k", "trim"})
			}
			return s.ErrIn("mechanism", i, paramPath(key, k), "%v", err)
		}
		p.Steps = append(p.Steps, pp)
	}
	p.Pre = p.Steps[0]
	if len(p.Steps) > 1 {
		ch, err := preprocess.NewChain(p.Steps...)
		if err != nil {
			return s.ErrIn("mechanism", i, "preprocess", "%v", err)
		}
		p.Pre = ch
	}
	if ps := m.Pipeline; ps != nil {
		switch ps.Mode {
		case "", string(preprocess.Safe):
		case string(preprocess.Paper):
			p.Mode = preprocess.Paper
		default:
			return s.ErrIn("mechanism", i, "pipeline.mode", "mode %q: want safe (the errata applied, default) or paper ([HSS24]'s bounds as printed, for reproduction)", ps.Mode)
		}
		if !finiteAll(ps.Collection) {
			return s.ErrIn("mechanism", i, "pipeline.collection", "collection values must be finite numbers (a declared bound of ±inf or nan states nothing)")
		}
		if key, err := spec.DecodeStrict(ps.Collection, &p.Collection); err != nil {
			return s.ErrIn("mechanism", i, paramPath("pipeline.collection", key), "%v", err) // an unknown key's error lists the valid keys
		}
		p.Declared = ps.Collection
		if p.Collection.N < 0 {
			return s.ErrIn("mechanism", i, "pipeline.collection.n", "n = %d: declare the training size (≥ 2), or leave it out for the actual training size", p.Collection.N)
		}
		known := accounting.AllAnalyses()
		for j, a := range ps.Analyses {
			if !slices.Contains(known, a) {
				return s.ErrIn("mechanism", i, "pipeline.analyses", "analyses[%d] = %q: want some of %s", j, a, strings.Join(known, ", "))
			}
			if slices.Index(ps.Analyses, a) != j {
				return s.ErrIn("mechanism", i, "pipeline.analyses", "analysis %q is listed twice", a)
			}
		}
		if ps.Analyses != nil && len(ps.Analyses) == 0 {
			return s.ErrIn("mechanism", i, "pipeline.analyses", "an empty list leaves no analysis; leave the key out for the default (%s)", strings.Join(accounting.DefaultAnalyses(), ", "))
		}
		p.Analyses = slices.Clone(ps.Analyses)
		if o := ps.GroupSizeOffset; o != nil {
			if *o < 1 || *o > 1_000_000 {
				return s.ErrIn("mechanism", i, "pipeline.group_size_offset", "group_size_offset = %d: must be in 1..10⁶ (g = Δ∞ + offset counts the swapped record itself; the paper's g = Δ∞ is not a guarantee with Def. 4's Δ∞)", *o)
			}
			p.GroupSizeOffset = *o
		}
		switch ps.OnViolation {
		case "", ViolationFail:
		case ViolationGroup:
			p.OnViolation = ViolationGroup
		default:
			return s.ErrIn("mechanism", i, "pipeline.on_violation", "on_violation %q: want fail (default: the trial fails naming the parameter) or group (group privacy over all n rows, labelled)", ps.OnViolation)
		}
	}
	if _, err := p.Sensitivity(representativeN); err != nil {
		key := blameKey("", err, collectionKeys())
		return s.ErrIn("mechanism", i, paramPath("pipeline.collection", key), "%v", err)
	}
	if m.Tuning.Mode == spec.TunePrivate && !p.TransformIsIdentity() {
		return s.ErrIn("mechanism", i, "tuning.mode", "private tuning scores every run on rows mapped by the fitted pre-processing (%s), a non-private function of the training data that the repeat-and-select analysis does not cover: tune without these steps, or use tuning mode \"oracle\" (labelled non-private)", p.StepsText())
	}
	s.pipes[i] = p
	return nil
}

// checkPipelineShapes checks that the pipeline can charge mechanism block
// i's declared shapes: the mechanism's neighbouring relation is the
// collection's, and without a smooth-RDP result the declared analyses
// keep group privacy.
func (s *checker) checkPipelineShapes(i int, m mechanisms.Mechanism, shapes []accounting.Event) error {
	ms := s.Mechanisms[i]
	p := s.pipes[i]
	sens, _ := p.Sensitivity(representativeN)
	for _, sh := range shapes {
		approx := false
		accounting.Leaves(sh, func(l accounting.Event, _ float64) {
			_, ok := l.(accounting.ApproxDP)
			approx = approx || ok
		})
		if approx {
			return s.ErrIn("mechanism", i, "preprocess", "%q charges an (ε, δ) part (approx_dp) in its ledger, which has no RDP curve: neither [HSS24] Theorem 2 nor group privacy can account for the pre-processing %s in front of it", ms.Name, p.StepsText())
		}
		if err := p.CheckRelation(ms.Name, sh); err != nil {
			return s.ErrIn("mechanism", i, "preprocess", "%v", err)
		}
		ev, group := p.Event(ms.Name, m, sh, Charge{Sens: sens, N: representativeN})
		if group != "" && p.Analyses != nil && !slices.Contains(p.Analyses, accounting.AnalysisGroup) {
			return s.ErrIn("mechanism", i, "pipeline.analyses", "%s: only group privacy applies behind the pre-processing %s (Theorem 2 needs the mechanism's smooth-RDP curve), and analyses = [%s] leaves it out", group, p.StepsText(), strings.Join(p.Analyses, ", "))
		}
		if err := ev.Validate(); err != nil {
			key := "preprocess"
			if p.Analyses != nil && strings.Contains(err.Error(), "analyses[") {
				key = "pipeline.analyses"
			}
			return s.ErrIn("mechanism", i, key, "%q behind the pre-processing %s: %v", ms.Name, p.StepsText(), err)
		}
	}
	return nil
}

// CheckRelation checks that mechanism name's ledger e can be charged for
// the pipeline's neighbouring relation: the same relation, or an add/remove
// ledger behind replace-one steps (relate converts it). A ledger whose
// leaves fix no relation counts as add/remove (accounting.LedgerRelation),
// as it does when it is accounted alone: its sensitivities are add/remove
// ones, so it is converted, never relabelled.
func (p *Pipeline) CheckRelation(name string, e accounting.Event) error {
	rel, err := accounting.LedgerRelation(e)
	if err != nil {
		return err
	}
	if rel == p.Relation() || (rel == accounting.RelationAddRemove && p.Relation() == accounting.RelationReplaceOne) {
		return nil // equal, or converted by relate
	}
	return fmt.Errorf("%q charges a ledger for %s neighbours, but the pre-processing %s is analysed for %s neighbours (pipeline.collection.relation): [HSS24] Theorem 2 and group privacy compare neighbours of one kind, and no conversion from %s to %s guarantees is implemented; use a mechanism accounted for %s neighbours, or steps whose sensitivities are stated for %s neighbours",
		name, accounting.RelationText(rel), p.StepsText(), accounting.RelationText(p.Relation()), accounting.RelationText(rel), accounting.RelationText(p.Relation()), accounting.RelationText(p.Relation()), accounting.RelationText(rel))
}

// pipelineKey is the part of a mechanism block's pre-processing that
// changes results, for the cell key: nil when it has none (so the cell
// keys of blocks without pre-processing are unchanged).
func pipelineKey(m spec.MechanismSpec) json.RawMessage {
	if len(m.Preprocess) == 0 {
		return nil
	}
	k := struct {
		Steps           []spec.PreprocessStep `json:"steps"`
		Mode            string                `json:"mode"`
		Collection      spec.RawTable         `json:"collection,omitempty"`
		Analyses        []string              `json:"analyses,omitempty"`
		GroupSizeOffset int                   `json:"group_size_offset"`
		OnViolation     string                `json:"on_violation"`
	}{Steps: m.Preprocess, Mode: string(preprocess.Safe), GroupSizeOffset: 1, OnViolation: ViolationFail}
	if p := m.Pipeline; p != nil {
		if p.Mode != "" {
			k.Mode = p.Mode
		}
		k.Collection, k.Analyses = p.Collection, p.Analyses
		if p.GroupSizeOffset != nil {
			k.GroupSizeOffset = *p.GroupSizeOffset
		}
		if p.OnViolation != "" {
			k.OnViolation = p.OnViolation
		}
	}
	b, err := json.Marshal(k)
	if err != nil {
		// RawTable values come from the TOML parser: always encodable
		// (a float NaN or ±Inf is refused by the collection's checks
		// before a key is needed); keep the cell distinct anyway.
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(k)))
	}
	return b
}

// finiteAll reports whether every number in a raw collection table is
// finite (JSON cannot encode ±Inf or NaN).
func finiteAll(t spec.RawTable) bool {
	for _, v := range t {
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		case []any:
			for _, y := range x {
				if f, ok := y.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					return false
				}
			}
		}
	}
	return true
}
