package spec

import (
	"fmt"
	"github.com/dplab/dplab/internal/strictoml"
)

// PreprocessStep is one element of a mechanism block's preprocess list: a
// table { name, eta, k, trim } (preprocess.Params) or a bare name.
type PreprocessStep struct {
	Name string  `toml:"name"` // preprocess.Names()
	Eta  float64 `toml:"eta"`  // dedup, quantize
	K    int     `toml:"k"`    // pca-rank, pca-dim
	Trim int     `toml:"trim"` // impute-trimmed
}

// PipelineSpec is a mechanism block's [mechanism.pipeline] table.
type PipelineSpec struct {
	// Mode selects the sensitivities: "safe" (default; the errata applied)
	// or "paper" (as [HSS24] prints them: reproduction only, labelled).
	Mode string `toml:"mode"`
	// Collection is the declared collection 𝓛 (preprocess.Collection's
	// keys); n defaults to the training size. Never read from the data.
	Collection RawTable `toml:"collection"`
	// Analyses are the accounting.Preprocessed analyses to consider;
	// empty means accounting.DefaultAnalyses().
	Analyses []string `toml:"analyses"`
	// GroupSizeOffset is added to Δ∞ for group privacy (≥ 1; default 1).
	GroupSizeOffset *int `toml:"group_size_offset"`
	// OnViolation is what a trial whose data violate the declared
	// collection does: "fail" (default) or "group" (group privacy over all
	// n rows, labelled).
	OnViolation string `toml:"on_violation"`
}

// UnmarshalTOML implements toml.Unmarshaler: a string is a step without
// params; a table is decoded strictly (problems at their keys).
func (p *PreprocessStep) UnmarshalTOML(raw any) error {
	if name, ok := raw.(string); ok {
		*p = PreprocessStep{Name: name}
		return nil
	}
	if _, ok := raw.(map[string]any); !ok {
		return fmt.Errorf("a pre-processing step is a name or a table { name = …, eta = …, k = …, trim = … }, got %s", strictoml.TypeName(raw))
	}
	type plain PreprocessStep
	var v plain
	if errs := strictoml.Decode(raw, &v); len(errs) > 0 {
		return errs
	}
	*p = PreprocessStep(v)
	return nil
}
