package spec

// Defaults are the values harness/plan resolves for a decoded spec: what its
// blocks leave out, from the registries (plan.Validate), and what its
// validation found. Resolved applies them to a copy; a decoded spec is
// never written to.
type Defaults struct {
	// DatasetLabels, MechanismLabels and CurveLabels hold each block's
	// label, "" for a block whose label stays as decoded.
	DatasetLabels, MechanismLabels, CurveLabels []string
	// Splits and Scales hold each [[dataset]] block's split (the default
	// test fraction, the indices file's absolute path and hash) and
	// scaling (the default x and y modes).
	Splits []SplitSpec
	Scales []ScaleSpec
	// Tunings holds each [[mechanism]] block's tuning with its defaults
	// (mode, select_on, sample, distribution).
	Tunings []TuningSpec
	CI      string // the confidence interval method
	// Metrics replaces the spec's metrics when not nil (the train metrics
	// of a spec that trains on every row and lists none).
	Metrics []string
	// Trials and AuditConfidence replace the spec's trials and its
	// [audit] confidence when not 0.
	Trials          int
	AuditConfidence float64
	// Warnings are what validation found that a run survives (Spec.Warnings).
	Warnings []string
	// Externals holds each [[mechanism]] block's resolved external table
	// (nil for a block without one).
	Externals []*ExternalSpec
}

// Resolved returns a copy of s (Clone) with the values of d: the resolved
// spec, which every step after validation reads. s is unchanged.
func (s *Spec) Resolved(d Defaults) *Spec {
	c := s.Clone()
	setLabels(c.Datasets, d.DatasetLabels, func(b *DatasetSpec) *string { return &b.Label })
	setLabels(c.Mechanisms, d.MechanismLabels, func(b *MechanismSpec) *string { return &b.Label })
	setLabels(c.Curves, d.CurveLabels, func(b *CurveSpec) *string { return &b.Label })
	for i := range min(len(c.Datasets), len(d.Splits)) {
		c.Datasets[i].Split = d.Splits[i]
	}
	for i := range min(len(c.Datasets), len(d.Scales)) {
		c.Datasets[i].Scale = d.Scales[i]
	}
	for i := range min(len(c.Mechanisms), len(d.Tunings)) {
		c.Mechanisms[i].Tuning = d.Tunings[i]
	}
	for i := range min(len(c.Mechanisms), len(d.Externals)) {
		if d.Externals[i] != nil {
			c.Mechanisms[i].External = d.Externals[i]
		}
	}
	c.CI = d.CI
	if d.Metrics != nil {
		c.Metrics = d.Metrics
	}
	if d.Trials != 0 {
		c.Trials = d.Trials
	}
	if d.AuditConfidence != 0 && c.Audit != nil {
		c.Audit.Confidence = d.AuditConfidence
	}
	c.Warnings = d.Warnings
	return c
}

// setLabels sets the label of each block of blocks whose entry in labels
// is not "".
func setLabels[B any](blocks []B, labels []string, label func(*B) *string) {
	for i := range min(len(blocks), len(labels)) {
		if labels[i] != "" {
			*label(&blocks[i]) = labels[i]
		}
	}
}
