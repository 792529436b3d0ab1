package plan

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/harness/curves"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// resolve returns the resolved spec of s: a copy with the defaults of the
// blocks s leaves out (defaultsOf), validated (checker.validate), with the
// warnings its validation found. s is unchanged.
func resolve(s *spec.Spec) (*spec.Spec, error) {
	d, indexErrs := defaultsOf(s)
	recordedExternals(s, d)
	c := newChecker(s.Resolved(d))
	c.indexErrs = indexErrs
	if err := c.validate(); err != nil {
		return nil, err
	}
	d.Warnings = c.warnings
	return s.Resolved(d), nil
}

// defaultsOf returns the documented defaults of what s leaves out: labels
// (a dataset's and a mechanism's registry title, a dataset's name when it
// has none, an audit target's name, a curve's title), ci "auto", a
// dataset's test fraction 0.2, its scaling (x "max-row-norm", y "max-abs"
// for regression, else "none"), the absolute path and hash of its split
// indices file (indexErrs: dataset i's file could not be read, for
// validation to report in its place), the train metrics of a spec that
// trains on every row and lists none, and an audit grid's one trial per
// cell and confidence 0.95, and each mechanism's tuning defaults
// (tuningDefaults). A block whose name is unknown keeps its keys:
// validation refuses it.
func defaultsOf(s *spec.Spec) (d spec.Defaults, indexErrs map[int]error) {
	n := len(s.Datasets)
	d = spec.Defaults{CI: s.CI, DatasetLabels: make([]string, n), Splits: make([]spec.SplitSpec, n), Scales: make([]spec.ScaleSpec, n),
		MechanismLabels: make([]string, len(s.Mechanisms)), CurveLabels: make([]string, len(s.Curves)), Tunings: make([]spec.TuningSpec, len(s.Mechanisms)),
		Externals: make([]*spec.ExternalSpec, len(s.Mechanisms))}
	for i, ds := range s.Datasets {
		d.Splits[i], d.Scales[i] = ds.Split, ds.Scale
	}
	for i, m := range s.Mechanisms {
		d.Tunings[i] = m.Tuning
		if m.External != nil && !m.External.Resolved {
			d.Externals[i] = resolveExternal(*m.External, s.File)
		}
	}
	if s.Audit != nil {
		if s.Trials <= 1 {
			d.Trials = 1
		}
		if s.Audit.Confidence == 0 {
			d.AuditConfidence = DefaultAuditConfidence
		}
		for i, m := range s.Mechanisms {
			if m.Label == "" {
				d.MechanismLabels[i] = m.Name
			}
		}
		return d, nil
	}
	if s.CI == "" && newChecker(s).trialsSpec() {
		d.CI = string(results.CIAuto)
	}
	var tasks []datasets.Task
	for i, ds := range s.Datasets {
		e, err := datasets.Lookup(ds.Name)
		if err != nil {
			continue
		}
		tasks = append(tasks, e.Info.Task)
		if ds.Label == "" {
			d.DatasetLabels[i] = cmp.Or(e.Info.Title, ds.Name)
		}
		sp, sc := ds.Split, ds.Scale
		switch {
		case sp.Indices != "":
			path := filepath.FromSlash(sp.Indices)
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(s.File), path)
			}
			si, err := datasets.ReadSplitIndices(path)
			if err != nil {
				if indexErrs == nil {
					indexErrs = map[int]error{}
				}
				indexErrs[i] = err
				continue
			}
			sp.Indices, sp.IndicesSHA256 = path, si.SHA256
		case !sp.All && sp.Test == 0:
			sp.Test = 0.2
		}
		if sc.X == "" {
			sc.X = "max-row-norm"
		}
		if sc.Y == "" {
			sc.Y = "none"
			if e.Info.Task == datasets.Regression {
				sc.Y = "max-abs"
			}
		}
		d.Splits[i], d.Scales[i] = sp, sc
	}
	for i, m := range s.Mechanisms {
		if e, err := EntryOf(m); err == nil && m.Label == "" {
			d.MechanismLabels[i] = e.Info.Title
		}
		d.Tunings[i] = tuningDefaults(m.Tuning)
	}
	for i, c := range s.Curves {
		if info, ok := curves.Lookup(c.Name); ok && c.Label == "" {
			d.CurveLabels[i] = info.Title
		}
	}
	if s.Metrics == nil && slices.ContainsFunc(s.Datasets, func(b spec.DatasetSpec) bool { return b.Split.All }) {
		d.Metrics = []string{}
		for _, t := range tasks {
			for _, name := range DefaultMetrics(t) {
				if m, _ := LookupMetric(name); m.On == "train" && !slices.Contains(d.Metrics, name) {
					d.Metrics = append(d.Metrics, name)
				}
			}
		}
	}
	return d, indexErrs
}

// tuningDefaults returns tuning t with its defaults: mode "none"; for
// oracle tuning select_on "test", for private tuning "validation", sample
// "grid" for both, and distribution "poisson" for private tuning. A mode
// that is none of these keeps t as given (validation refuses it).
func tuningDefaults(t spec.TuningSpec) spec.TuningSpec {
	if t.Mode == "" {
		t.Mode = spec.TuneNone
	}
	if t.Mode != spec.TuneOracle && t.Mode != spec.TunePrivate {
		return t
	}
	if t.SelectOn == "" {
		t.SelectOn = "validation"
		if t.Mode == spec.TuneOracle {
			t.SelectOn = "test"
		}
	}
	if t.Sample == "" {
		t.Sample = "grid"
	}
	if t.Mode == spec.TunePrivate && t.Distribution == "" {
		t.Distribution = "poisson"
	}
	return t
}
