package plan

import (
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/suggest"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

var specNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// validate checks the spec's semantics: values in range, names known to the
// registries, params decodable for every sweep point, labels unique and
// references between blocks resolved. It checks a spec with its defaults
// (resolve gives it one: defaultsOf) and writes to no spec; what a run
// survives it collects in s.warnings.
func (s *checker) validate() error {
	k := s
	s.warnings = nil
	if !specNameRE.MatchString(s.Name) {
		return s.ErrAt("name", k.Line("name"), "name %q must match [a-z0-9][a-z0-9_-]* (it names the result directory)", s.Name)
	}
	if err := spec.NameFits(s.Name, len(spec.QuickSuffix), "with "+spec.QuickSuffix+" (a --quick run's result directory)"); err != nil {
		return s.ErrAt("name", k.Line("name"), "%v", err)
	}
	if s.Seed < 0 {
		return s.ErrAt("seed", k.Line("seed"), "seed must be ≥ 0, got %d", s.Seed)
	}
	if s.Audit != nil {
		return s.validateAudit()
	}
	if s.trialsSpec() {
		if err := s.validateTrialsHeader(); err != nil {
			return err
		}
	}
	curveLabels := map[string]bool{}
	for i := range s.Curves {
		if err := s.validateCurve(i, curveLabels); err != nil {
			return err
		}
	}
	labels := map[string]bool{}
	for i := range s.Datasets {
		if err := s.validateDataset(i, labels); err != nil {
			return err
		}
		// A user's file is sized in the default data directory here; the
		// run checks again in its own.
		if _, err := s.checkData(i, datasets.DataDir("")); err != nil {
			return err
		}
	}
	// Count the grid before anything builds it (a sweep's points are
	// checked one by one below).
	if err := s.checkSize(); err != nil {
		return err
	}
	labels = map[string]bool{}
	for i := range s.Mechanisms {
		if err := s.validateMechanism(i, labels); err != nil {
			return err
		}
	}
	if err := s.checkDuplicateCells(); err != nil {
		return err
	}
	if err := s.checkTargets(); err != nil {
		return err
	}
	for _, m := range s.Metrics {
		if _, ok := LookupMetric(m); !ok {
			return s.ErrAt("metrics", k.Line("metrics"), "%s", unknownMetric(m))
		}
	}
	if err := s.checkMetricsApply(k.Line("metrics")); err != nil {
		return err
	}
	if err := s.checkTrainOnly(); err != nil {
		return err
	}
	if err := s.checkOutputs(); err != nil {
		return err
	}
	return s.validateQuick()
}

// checkOutputs checks the [[figure]] and [[table]] blocks' names
// (checkOutput).
func (s *checker) checkOutputs() error {
	names := map[string]int{}
	for i := range s.Figures {
		if err := s.checkOutput("figure", i, s.Figures[i].Name, names); err != nil {
			return err
		}
	}
	names = map[string]int{}
	for i := range s.Tables {
		if err := s.checkOutput("table", i, s.Tables[i].Name, names); err != nil {
			return err
		}
	}
	return nil
}

// trialsSpec reports whether the spec runs trials: it has datasets or
// mechanisms, or nothing computed without trials (curves, or figures and
// tables of kinds that compute their own values, such as "probes").
func (s *checker) trialsSpec() bool {
	return len(s.Datasets) > 0 || len(s.Mechanisms) > 0 || len(s.Curves) == 0 && len(s.Tables) == 0 && len(s.Figures) == 0
}

// validateTrialsHeader checks the top-level keys a spec with trials needs.
func (s *checker) validateTrialsHeader() error {
	k := s
	if s.Trials < 1 {
		return s.ErrAt("trials", k.Line("trials"), "trials must be ≥ 1, got %d", s.Trials)
	}
	if err := s.checkEpsilons("epsilon", s.Epsilon); err != nil {
		return err
	}
	if !s.Delta.Set() {
		return s.ErrAt("delta", 0, "δ is required (a number in (0, 1) or a rule such as \"1/n^2\")")
	}
	if err := s.Delta.Check(); err != nil {
		return s.ErrAt("delta", k.Line("delta"), "%v", err)
	}
	if err := results.CIMethod(s.CI).Validate(); err != nil {
		return s.ErrAt("ci", k.Line("ci"), "%v", err)
	}
	if err := AccountingConfig(s.Spec).Validate(); err != nil {
		return s.ErrAt("accountant", k.Line("accountant"), "%v", err)
	}
	if len(s.Datasets) == 0 {
		return s.ErrAt("dataset", 0, "at least one [[dataset]] is required")
	}
	if len(s.Mechanisms) == 0 {
		return s.ErrAt("mechanism", 0, "at least one [[mechanism]] is required")
	}
	return nil
}

func metricNames() string {
	var names []string
	for _, m := range Metrics {
		names = append(names, m.Name)
	}
	return fmt.Sprint(names)
}

// unknownMetric is the error text for an unknown metric name: the closest
// known name, and all of them.
func unknownMetric(name string) string {
	var names []string
	for _, m := range Metrics {
		names = append(names, m.Name)
	}
	return fmt.Sprintf("unknown metric %q%s (known: %s)", name, suggest.DidYouMean(name, names), metricNames())
}

func (s *checker) checkEpsilons(key string, v spec.Values) error {
	eps, err := v.Floats()
	if err != nil {
		return s.ErrAt(key, s.Line(key), "ε values must be numbers: %v", err)
	}
	if len(eps) == 0 && s.anyPrivate() {
		return s.ErrAt(key, s.Line(key), "an ε grid is required for private mechanisms")
	}
	for _, e := range eps {
		if !(e > 0) || math.IsInf(e, 0) {
			return s.ErrAt(key, s.Line(key), "ε = %v: every ε must be finite and > 0", e)
		}
	}
	if dup, ok := duplicateValue(v.List); ok {
		return s.ErrAt(key, s.Line(key), "ε = %v appears twice: each ε is a cell, and a repeated one would run and store its trials twice", spec.FormatValue(dup))
	}
	return nil
}

func (s *checker) anyPrivate() bool {
	for _, m := range s.Mechanisms {
		if e, err := EntryOf(m); err == nil && e.Info.Private {
			return true
		}
	}
	return len(s.Mechanisms) == 0
}

// AccountingConfig returns the accountant configuration the spec declares.
func AccountingConfig(s *spec.Spec) accounting.Config {
	a := s.Accountant
	return accounting.Config{Kind: a.Kind, Orders: a.Orders, Interval: a.Interval, MaxOrder: a.MaxOrder, ExtraOrders: a.ExtraOrders}
}

func (s *checker) validateDataset(i int, labels map[string]bool) error {
	d := s.Datasets[i]
	e, err := datasets.Lookup(d.Name)
	if err != nil {
		return s.ErrIn("dataset", i, "name", "%v", err)
	}
	if labels[d.Label] {
		return s.ErrIn("dataset", i, "label", "duplicate dataset label %q; give each [[dataset]] its own label", d.Label)
	}
	labels[d.Label] = true
	if key, err := checkDatasetParams(e, d.Params); err != nil {
		return s.ErrIn("dataset", i, paramPath("params", blameKey(key, err, slices.Sorted(maps.Keys(d.Params)))), "%v", err)
	}
	sp := d.Split
	if sp.Indices != "" {
		if sp.Test != 0 || sp.Validation != 0 || sp.Resample || sp.Ordered || sp.All {
			return s.ErrIn("dataset", i, "split.indices", "indices assigns every row from a file: it excludes test, validation, resample, ordered and all")
		}
		if err := s.indexErrs[i]; err != nil {
			return s.ErrIn("dataset", i, "split.indices", "%v", err)
		}
		return s.validateScale(i, e)
	}
	if sp.All {
		if sp.Test != 0 || sp.Validation != 0 || sp.Resample || sp.Ordered {
			return s.ErrIn("dataset", i, "split.all", "all = true trains on every row in stored order: it excludes test, validation, resample and ordered")
		}
		return s.validateScale(i, e)
	}
	if !(d.Split.Test > 0 && d.Split.Test < 1) || sp.Validation < 0 || d.Split.Test+sp.Validation >= 1 {
		return s.ErrIn("dataset", i, "split", "test = %v and validation = %v must be fractions with test > 0 and test + validation < 1", d.Split.Test, sp.Validation)
	}
	if sp.Ordered && sp.Resample {
		return s.ErrIn("dataset", i, "split", "ordered and resample exclude each other (an ordered split is the same in every trial)")
	}
	return s.validateScale(i, e)
}

// validateScale checks dataset i's scaling (with its defaults).
func (s *checker) validateScale(i int, e datasets.Entry) error {
	d := &s.Datasets[i]
	if e.Info.Task == datasets.Binary && d.Scale.Y != "none" {
		return s.ErrIn("dataset", i, "scale.y", "a binary dataset's labels cannot be scaled (y = %q)", d.Scale.Y)
	}
	if err := Scaling(d).Validate(); err != nil {
		return s.ErrIn("dataset", i, "scale", "%v", err)
	}
	return nil
}

// checkDatasetParams decodes params into the dataset's params struct to
// check keys and types (without loading anything).
func checkDatasetParams(e datasets.Entry, params spec.RawTable) (string, error) {
	var key string
	err := e.CheckParams(func(v any) error {
		var derr error
		key, derr = spec.DecodeStrict(params, v)
		return derr
	})
	return key, err
}

// Scaling returns the dataset's scaling (x and y modes, bound).
func Scaling(d *spec.DatasetSpec) datasets.Scaling {
	return datasets.Scaling{X: datasets.ScaleMode(d.Scale.X), Y: datasets.ScaleMode(d.Scale.Y), Bound: d.Scale.Bound}
}

func (s *checker) validateMechanism(i int, labels map[string]bool) error {
	m := &s.Mechanisms[i]
	if err := s.validateExternal(i); err != nil {
		return err
	}
	e, err := EntryOf(*m)
	if err != nil {
		return s.ErrIn("mechanism", i, "name", "%v", err)
	}
	if labels[m.Label] {
		return s.ErrIn("mechanism", i, "label", "duplicate mechanism label %q; give each [[mechanism]] its own label", m.Label)
	}
	labels[m.Label] = true
	if m.Runs != 0 {
		return s.ErrIn("mechanism", i, "runs", "runs is an audit grid's key (a spec with an [audit] table)")
	}
	if err := s.validatePipeline(i); err != nil {
		return err
	}
	for _, ds := range slices.Sorted(maps.Keys(m.Exclude)) {
		why := m.Exclude[ds]
		if s.DatasetIndex(ds) < 0 && !s.QuickDropped[ds] {
			known := s.DatasetLabels()
			return s.ErrIn("mechanism", i, "exclude", "%s (datasets: %s)", UnknownName("dataset labelled", ds, known), strings.Join(known, ", "))
		}
		if strings.TrimSpace(why) == "" {
			return s.ErrIn("mechanism", i, "exclude", "dataset %q: give the reason it is left out (the figures and tables print it)", ds)
		}
	}
	for j, ds := range s.Datasets {
		if _, out := s.Excluded(j, i); out {
			continue
		}
		de, _ := datasets.Lookup(ds.Name)
		if !e.Info.Supports(de.Info.Task) {
			return s.ErrIn("mechanism", i, "name", "mechanism %q does not fit %s data, but dataset[%d] %q is %s", m.Name, de.Info.Task, j, ds.Label, de.Info.Task)
		}
	}
	for _, k := range m.Params.Keys {
		if dup, ok := duplicateValue(m.Params.Values[k].List); ok {
			return s.ErrIn("mechanism", i, "params."+k, "%s = %s appears twice in the sweep: each value is a cell, and a repeated one would run and store its trials twice", k, spec.FormatValue(dup))
		}
	}
	untuned := m.Tuning.Mode == "" || m.Tuning.Mode == spec.TuneNone
	var err2 error
	m.Params.EachPoint(func(p map[string]any) bool {
		if err2 = s.canceled(); err2 != nil {
			return false
		}
		mech, key, err := buildMechanism(e, p)
		if err != nil {
			err2 = s.ErrIn("mechanism", i, paramPath("params", key), "%v", err)
			return false
		}
		if untuned {
			err2 = s.checkLedger(i, mech)
		}
		return err2 == nil
	})
	if err2 != nil {
		return err2
	}
	return s.validateTuning(i, e)
}

// buildMechanism builds the mechanism from one sweep point. On an error it
// returns the params key at fault: the one the decoder names, or else the
// one the validation message names (see blameKey), or "".
func buildMechanism(e mechanisms.Entry, point map[string]any) (mechanisms.Mechanism, string, error) {
	var key string
	m, _, err := e.Build(func(v any) error {
		var derr error
		key, derr = spec.DecodeStrict(point, v)
		return derr
	})
	if err != nil {
		return nil, blameKey(key, err, slices.Sorted(maps.Keys(point))), err
	}
	return m, "", nil
}

// outputNameRE is what a figure or table name (a file stem under figures/
// or tables/) must match: an identifier that cannot leave the directory.
var outputNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// checkOutput checks a figure or table block's name (its file stem: an
// identifier, unique among the blocks of its kind) and formats, defaulting
// the formats to every allowed one. names maps the names seen so far to
// their block index.
func (s *checker) checkOutput(block string, i int, name string, names map[string]int) error {
	if name == "" {
		return s.ErrIn(block, i, "name", "a %s needs a name (its file stem)", block)
	}
	if !outputNameRE.MatchString(name) || strings.Contains(name, "..") {
		return s.ErrIn(block, i, "name", "%s name %q must be an identifier: letters, digits, '_', '-' and '.', starting with a letter or digit, without \"..\" (it is the file stem under %ss/)", block, name, block)
	}
	if j, ok := names[name]; ok {
		return s.ErrIn(block, i, "name", "%s name %q is already %s[%d]'s: each %s needs its own file name", block, name, block, j, block)
	}
	names[name] = i
	return nil
}

// CheckMetric checks that the metric exists and that some dataset of the
// spec has its task (an error at key "metric" of the block).
func CheckMetric(s *spec.Spec, block string, i int, name string) error {
	return newChecker(s).checkMetric(block, i, name)
}

// CheckLabels checks the dataset and mechanism labels a block names. Labels
// a --quick run dropped are accepted; Kept filters them out.
func CheckLabels(s *spec.Spec, block string, i int, ds, ms []string) error {
	return newChecker(s).checkLabels(block, i, ds, ms)
}

// checkMetricsApply checks that every dataset gets at least one of the
// listed metrics: a metric is computed only on data of its task, and a
// dataset none of them fits would run its trials and record nothing to
// compare.
func (s *checker) checkMetricsApply(line int) error {
	if len(s.Metrics) == 0 {
		return nil
	}
	for _, d := range s.Datasets {
		e, _ := datasets.Lookup(d.Name)
		if len(s.metricsFor(e.Info.Task)) > 0 {
			continue
		}
		var fit []string
		for _, m := range Metrics {
			if m.Task == e.Info.Task {
				fit = append(fit, m.Name)
			}
		}
		return s.ErrAt("metrics", line, "no metric listed applies to dataset %q (%s data): add one of %s", d.Label, e.Info.Task, strings.Join(fit, ", "))
	}
	return nil
}

// allRows returns the index of the first dataset with split.all, or -1.
func (s *checker) allRows() int {
	return slices.IndexFunc(s.Datasets, func(d spec.DatasetSpec) bool { return d.Split.All })
}

// checkTrainOnly checks, when a dataset trains on every row (split.all),
// that the metrics are all computed on the training part (the default
// metrics are then the train metrics of the datasets' tasks: defaultsOf):
// such a dataset has no test or validation part to score.
func (s *checker) checkTrainOnly() error {
	j := s.allRows()
	if j < 0 {
		return nil
	}
	for _, name := range s.Metrics {
		if m, _ := LookupMetric(name); m.On != "train" {
			return s.ErrAt("metrics", s.Line("metrics"), "metric %q is computed on the %s part, but dataset %q has split.all = true (every row trains; no %s part): list only train metrics (e.g. train_mse, train_accuracy)", name, m.On, s.Datasets[j].Label, m.On)
		}
	}
	return nil
}

func (s *checker) checkMetric(block string, i int, name string) error {
	m, ok := LookupMetric(name)
	if !ok {
		return s.ErrIn(block, i, "metric", "%s", unknownMetric(name))
	}
	if j := s.allRows(); j >= 0 && m.On != "train" {
		return s.ErrIn(block, i, "metric", "metric %q is computed on the %s part, but dataset %q has split.all = true (no %s part): use a train metric", name, m.On, s.Datasets[j].Label, m.On)
	}
	for _, d := range s.Datasets {
		e, _ := datasets.Lookup(d.Name)
		if e.Info.Task == m.Task {
			return nil
		}
	}
	return s.ErrIn(block, i, "metric", "metric %q is for %s data, and no dataset of the spec is", name, m.Task)
}

func (s *checker) checkLabels(block string, i int, ds, ms []string) error {
	for _, l := range ds {
		if s.DatasetIndex(l) < 0 && !s.QuickDropped[l] {
			return s.ErrIn(block, i, "datasets", "%s", UnknownName("dataset labelled", l, s.DatasetLabels()))
		}
	}
	for _, l := range ms {
		if s.MechanismIndex(l) < 0 && !s.QuickDropped[l] {
			return s.ErrIn(block, i, "mechanisms", "%s", UnknownName("mechanism labelled", l, s.MechanismLabels()))
		}
	}
	return nil
}

// UnknownName words the error for a name that names nothing of the spec,
// with the closest of known: `no mechanism labelled "AdaSP" (did you mean
// "AdaSSP"?)` (what = "mechanism labelled"). Every block that names
// datasets, mechanisms or curves by label (figures, tables, claims,
// [quick], a mechanism's exclude) says it so.
func UnknownName(what, name string, known []string) string {
	return fmt.Sprintf("no %s %q%s", what, name, suggest.DidYouMean(name, known))
}

func (s *checker) validateQuick() error {
	q := s.Quick
	if q == nil {
		return nil
	}
	k := s
	if q.Trials < 0 {
		return s.ErrAt("quick.trials", k.Line("quick.trials"), "trials must be ≥ 1")
	}
	if q.Runs != 0 && s.Audit == nil {
		return s.ErrAt("quick.runs", k.Line("quick.runs"), "runs is an audit grid's key (a spec with an [audit] table)")
	}
	if len(q.Epsilon.List) > 0 {
		if err := s.checkEpsilons("quick.epsilon", q.Epsilon); err != nil {
			return err
		}
	}
	for _, l := range q.Datasets {
		if s.DatasetIndex(l) < 0 {
			return s.ErrAt("quick.datasets", k.Line("quick.datasets"), "%s", UnknownName("dataset labelled", l, s.DatasetLabels()))
		}
	}
	for _, l := range q.Mechanisms {
		if s.MechanismIndex(l) < 0 {
			return s.ErrAt("quick.mechanisms", k.Line("quick.mechanisms"), "%s", UnknownName("mechanism labelled", l, s.MechanismLabels()))
		}
	}
	for l := range q.Params {
		if s.MechanismIndex(l) < 0 {
			return s.ErrAt("quick.params."+l, k.Line("quick.params."+l), "%s", UnknownName("mechanism labelled", l, s.MechanismLabels()))
		}
	}
	for l := range q.DatasetParams {
		if s.DatasetIndex(l) < 0 {
			return s.ErrAt("quick.dataset_params."+l, k.Line("quick.dataset_params."+l), "%s", UnknownName("dataset labelled", l, s.DatasetLabels()))
		}
	}
	return nil
}
