package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/internal/strictoml"
)

// Spec is an audit grid: every mechanism audited at every ε of the grid, run
// like an experiment (`dplab audit SPEC.toml`: results stored and resumed,
// a figure of claimed against audited ε, a table).
type Spec struct {
	Name       string          `toml:"name"`
	Title      string          `toml:"title"`
	Seed       int64           `toml:"seed"`
	Delta      float64         `toml:"delta"`
	Confidence float64         `toml:"confidence"` // 0 means 0.95
	Trials     int             `toml:"trials"`     // runs per side, per (mechanism, ε)
	Epsilon    []float64       `toml:"epsilon"`
	Mechanisms []SpecMechanism `toml:"mechanism"`
	// Quick overrides the runs for a smoke run (--quick).
	Quick *struct {
		Trials int `toml:"trials"`
	} `toml:"quick"`
	File string `toml:"-"`
}

// SpecMechanism is one [[mechanism]] block of an audit spec.
type SpecMechanism struct {
	Name   string        `toml:"name"`
	Label  string        `toml:"label"`
	Trials int           `toml:"trials"` // 0: the spec's
	Params spec.RawTable `toml:"params"` // overrides of the audit's default params
}

// LoadSpec reads and strictly decodes an audit spec; errors name the file,
// the line and the key (a *spec.SpecError, as a run spec's do).
func LoadSpec(path string) (*Spec, error) {
	src, err := spec.ReadSource(path)
	if err == nil {
		err = spec.CheckSource(path, src) // size and nesting, before the TOML library
	}
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Spec{File: path}
	key, err := strictoml.DecodeTable(raw, s)
	if err == nil {
		key, err = s.validate()
	}
	if err != nil {
		if _, run := raw["dataset"]; run && key == "dataset" {
			err = fmt.Errorf("%w (a [[dataset]] block makes this an experiment spec: run it with dplab run)", err)
		}
		return nil, &spec.SpecError{File: path, Line: spec.KeyLine(src, key), Key: key, Err: err}
	}
	return s, nil
}

// validate returns the key path of the first problem ("" for the whole
// spec) with its error.
func (s *Spec) validate() (string, error) {
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, `/\ `):
		return "name", fmt.Errorf("%q: want a non-empty file-name-safe name", s.Name)
	case !(s.Delta > 0 && s.Delta < 1):
		return "delta", fmt.Errorf("must be in (0, 1), got %v", s.Delta)
	case s.Confidence != 0 && !(s.Confidence > 0 && s.Confidence < 1):
		return "confidence", fmt.Errorf("must be in (0, 1), got %v", s.Confidence)
	case len(s.Epsilon) == 0:
		return "epsilon", errors.New("the grid is empty")
	case len(s.Mechanisms) == 0:
		return "", errors.New("no [[mechanism]] block")
	}
	if err := spec.NameFits(s.Name, len(spec.QuickSuffix), "with "+spec.QuickSuffix+" (a --quick audit's result directory)"); err != nil {
		return "name", err
	}
	if err := checkTrialsValue(s.Trials); err != nil {
		return "trials", err
	}
	if s.Quick != nil && s.Quick.Trials != 0 {
		if err := checkTrialsValue(s.Quick.Trials); err != nil {
			return "quick.trials", err
		}
	}
	for i, e := range s.Epsilon {
		if !(e > 0) || math.IsInf(e, 0) {
			return "epsilon", fmt.Errorf("epsilon[%d] = %v: must be positive and finite", i, e)
		}
	}
	labels := map[string]bool{}
	for i, m := range s.Mechanisms {
		if m.Trials != 0 {
			if err := checkTrialsValue(m.Trials); err != nil {
				return fmt.Sprintf("mechanism[%d].trials", i), err
			}
		}
		if _, err := NewTarget(context.Background(), m.Name, m.params(), s.Epsilon[0], s.Delta); err != nil {
			return fmt.Sprintf("mechanism[%d]", i), err
		}
		if labels[m.label()] {
			return fmt.Sprintf("mechanism[%d].label", i), fmt.Errorf("%q used twice", m.label())
		}
		labels[m.label()] = true
	}
	return "", nil
}

func (m SpecMechanism) label() string {
	if m.Label != "" {
		return m.Label
	}
	return m.Name
}

// params returns the block's params as k=v, sorted by key.
func (m SpecMechanism) params() []string {
	var kv []string
	for k, v := range m.Params {
		kv = append(kv, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(kv)
	return kv
}

// Result is one stored audit of one (mechanism, ε) cell of a spec.
type Result struct {
	Key            string   `json:"key"`
	Mechanism      string   `json:"mechanism"`
	Label          string   `json:"label"`
	Params         []string `json:"params"`
	Relation       string   `json:"relation"`
	Pair           string   `json:"pair"`
	TargetEpsilon  float64  `json:"target_epsilon"`
	ClaimedEpsilon float64  `json:"claimed_epsilon"`
	Delta          float64  `json:"delta"`
	LowerBound     float64  `json:"lower_bound"`
	Confidence     float64  `json:"confidence"`
	Trials         int      `json:"trials"`
	Seed           int64    `json:"seed"`
	Test           *Outcome `json:"test"`
}

// RunOptions configure RunSpec.
type RunOptions struct {
	Dir      string // the result directory (created)
	Quick    bool   // use the spec's [quick] runs
	Jobs     int
	Progress io.Writer
}

// ResultsFile is the store of an audit spec's result directory.
const ResultsFile = "audits.jsonl"

// LockFile is the lock of an audit spec's result directory: the caller of
// RunSpec holds it (results.LockDir in the CLI), so that one audit at a
// time appends to the store and may cut a torn last line. It is not a
// run's lock file (a run's directory is not an audit's).
const LockFile = ".audit-lock"

// RunSpec audits every (mechanism, ε) cell of s whose result is not yet in
// o.Dir/audits.jsonl, appending each result as it finishes, and returns the
// results of s's cells in spec order (mechanisms, then ε). The caller holds
// the directory's LockFile: no other process may write the store meanwhile.
func RunSpec(ctx context.Context, s *Spec, o RunOptions) ([]Result, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	store := filepath.Join(o.Dir, ResultsFile)
	stored, tornAt, err := ReadResults(store)
	if err != nil {
		return nil, err
	}
	if tornAt >= 0 {
		// Appending after the torn bytes would glue the next result to
		// them and corrupt a complete line: cut them first.
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "warning: %s: dropping a torn last line left by an interrupted audit (its cell runs again)\n", store)
		}
		if err := truncateIn(o.Dir, ResultsFile, tornAt); err != nil {
			return nil, fmt.Errorf("truncate the torn last line of %s: %w", store, err)
		}
	}
	conf := s.Confidence
	if conf == 0 {
		conf = 0.95
	}
	var out []Result
	for _, m := range s.Mechanisms {
		trials := s.Trials
		if m.Trials != 0 {
			trials = m.Trials
		}
		if o.Quick && s.Quick != nil && s.Quick.Trials != 0 {
			trials = min(trials, s.Quick.Trials)
		}
		for _, eps := range s.Epsilon {
			key := cellKey(m.Name, m.params(), eps, s.Delta, conf, trials, s.Seed)
			if r, ok := stored[key]; ok {
				r.Label = m.label()
				out = append(out, r)
				continue
			}
			t, err := NewTarget(ctx, m.Name, m.params(), eps, s.Delta)
			if err != nil {
				return out, fmt.Errorf("mechanism %s at ε = %g: %w", m.Name, eps, err)
			}
			res, err := Run(ctx, t.Sample, Options{Trials: trials, Confidence: conf, Delta: s.Delta,
				Seed: fmt.Sprintf("%d|%s", s.Seed, key), Jobs: o.Jobs, Progress: o.Progress, Label: fmt.Sprintf("%s ε=%g", m.label(), eps)})
			if err != nil {
				return out, fmt.Errorf("mechanism %s at ε = %g: %w", m.Name, eps, err)
			}
			r := Result{Key: key, Mechanism: m.Name, Label: m.label(), Params: t.Params, Relation: t.Relation, Pair: t.Pair,
				TargetEpsilon: eps, ClaimedEpsilon: t.Claimed, Delta: s.Delta, LowerBound: res.LowerBound,
				Confidence: conf, Trials: trials, Seed: s.Seed, Test: res}
			if err := appendResult(o.Dir, r); err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// cellKey identifies an audit cell by everything its result depends on.
func cellKey(name string, params []string, eps, delta, conf float64, trials int, seed int64) string {
	b, _ := json.Marshal([]any{"audit-cell-v1", name, params, eps, delta, conf, trials, seed})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// ReadResults reads a result store (absent: none) keyed by cell key. Each
// result is appended with its newline in one write, so only the last line
// can be unfinished: a last line without its newline is torn (an audit
// killed while appending it, or the NUL bytes a crash may leave); it is
// left out, and tornAt is its byte offset, for a writer to truncate it
// (−1: none). A malformed complete line is an error naming the file and
// line: dropping it could lose a finished audit.
func ReadResults(path string) (results map[string]Result, tornAt int64, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Result{}, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	out := map[string]Result{}
	var offset int64
	for line := 1; len(data) > 0; line++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return out, offset, nil
		}
		if text := data[:nl]; len(bytes.TrimSpace(text)) > 0 {
			var r Result
			if err := json.Unmarshal(text, &r); err != nil || r.Key == "" || r.Test == nil {
				return nil, -1, fmt.Errorf("%s:%d: not an audit result: %v", path, line, err)
			}
			out[r.Key] = r
		}
		data = data[nl+1:]
		offset += int64(nl + 1)
	}
	return out, -1, nil
}

// truncateIn truncates the file name in the result directory dir to size
// bytes, never through a symbolic link (fileutil.OpenFileIn).
func truncateIn(dir, name string, size int64) error {
	f, err := fileutil.OpenFileIn(dir, name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendResult appends r to the store of the result directory dir and
// syncs it.
func appendResult(dir string, r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := fileutil.OpenFileIn(dir, ResultsFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSpecCopy stores the spec's source in the result directory.
func writeSpecCopy(s *Spec, dir string) error {
	src, err := os.ReadFile(s.File)
	if err != nil {
		return err
	}
	return fileutil.WriteFileAtomicIn(dir, "spec.toml", src)
}
