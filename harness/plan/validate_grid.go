package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"sort"
	"strings"

	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// canceled returns the error of the load context (LoadOptions.Context) once
// it is done: long validation loops check it.
func (s *checker) canceled() error {
	if c := s.Options().Context; c != nil {
		if err := c.Err(); err != nil {
			return fmt.Errorf("%s: validation interrupted: %w", s.File, err)
		}
	}
	return nil
}

// valueKey is how a cell key encodes a sweep value (JSON: 1 and 1.0 are the
// same value).
func valueKey(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T:%v", v, v)
	}
	return string(b)
}

// duplicateValue returns the first value of vals that repeats an earlier
// one, as cell keys compare them.
func duplicateValue(vals []any) (any, bool) {
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		k := valueKey(v)
		if seen[k] {
			return v, true
		}
		seen[k] = true
	}
	return nil, false
}

// paramPath joins a block's params path and a key ("" leaves the path).
func paramPath(prefix, key string) string {
	if key == "" {
		return prefix
	}
	return prefix + "." + key
}

// blameKey returns the params key that an error from decoding and
// validating params is about: key when the decoder named it; otherwise the
// key of keys that the message names first as a whole word (the params'
// Validate messages name their key: "rho must be in (0, 1)", "k = -1 must
// be ≥ 1"); otherwise "" (the error is about the table as a whole).
func blameKey(key string, err error, keys []string) string {
	if key != "" || err == nil {
		return key
	}
	msg := err.Error()
	best, at := "", len(msg)+1
	for _, k := range keys {
		if i := wordIndex(msg, k); i >= 0 && (i < at || i == at && len(k) > len(best)) {
			best, at = k, i
		}
	}
	return best
}

// wordIndex returns the index of the first occurrence of w in s that is not
// part of a longer identifier, or -1.
func wordIndex(s, w string) int {
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for from := 0; from <= len(s)-len(w); {
		i := strings.Index(s[from:], w)
		if i < 0 || w == "" {
			return -1
		}
		i += from
		end := i + len(w)
		if (i == 0 || !isIdent(s[i-1])) && (end == len(s) || !isIdent(s[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// checkLedger checks that the spec's accountant can evaluate every ledger
// mechanism block i's mechanism m may charge: the shapes m declares
// (Mechanism.EventShapes), wrapped as private tuning wraps them. A
// mismatch (e.g. the exact accountant and DP-SGD, the PLD accountant and
// private tuning or linear mixing) would fail every trial of the run; it is
// refused here, naming the block, the accountant and the accountants that
// would do.
func (s *checker) checkLedger(i int, m mechanisms.Mechanism) error {
	ms := s.Mechanisms[i]
	cfg := AccountingConfig(s.Spec)
	b := mechanisms.Budget{Epsilon: 1, Delta: 1e-6, Accounting: cfg}
	how := ""
	if ms.Tuning.Mode == spec.TunePrivate {
		b.Wrap = PrivateWrap(ms.Tuning)
		how = " with private tuning"
	}
	pipe := s.pipes[i]
	if e, err := EntryOf(ms); err != nil || !e.Info.Private {
		pipe = nil // a non-private fit's ledger is not wrapped (ε = +Inf)
	}
	if pipe != nil {
		sens, _ := pipe.Sensitivity(representativeN)
		b.Wrap = ComposeWraps(b.Wrap, pipe.Wrap(ms.Name, m, Charge{Sens: sens, N: representativeN}))
		how += " behind the pre-processing " + pipe.StepsText()
	}
	shapes, err := m.EventShapes(b)
	if err != nil {
		key := ""
		switch {
		case ms.Tuning.Mode == spec.TunePrivate:
			key = "tuning.mode"
		case pipe != nil:
			key = "preprocess"
			err = fmt.Errorf("the mechanism refuses a wrapped ledger (its noise is not calibrated through Budget.Wrap, so no pre-processing cost can be charged): %w", err)
		}
		return s.ErrIn("mechanism", i, key, "%q%s: %v", ms.Name, how, err)
	}
	if pipe != nil {
		if err := s.checkPipelineShapes(i, m, shapes); err != nil {
			return err
		}
	}
	err = checkShapes(cfg, b, shapes)
	if err == nil {
		return nil
	}
	var ok2 []string
	for _, kind := range []string{"rdp", "pld", "exact"} {
		alt := cfg
		alt.Kind = kind
		if kind != cfg.Kind && !(kind == "rdp" && cfg.Kind == "") && checkShapes(alt, b, shapes) == nil {
			ok2 = append(ok2, fmt.Sprintf("%q", kind))
		}
	}
	detail := err.Error()
	var u *accounting.UnsupportedError
	if errors.As(err, &u) && u.Sub != nil {
		detail = "event " + u.Sub.Kind() + ": " + u.Reason
	}
	fix := "no accountant can: change the mechanism's params or tuning"
	if len(ok2) > 0 {
		fix = "use accountant = { kind = " + strings.Join(ok2, " } or { kind = ") + " }"
	}
	kind := cfg.Kind
	if kind == "" {
		kind = "rdp"
	}
	return s.ErrIn("mechanism", i, "", "%q%s: accountant %q cannot account its ledger (%s); %s", ms.Name, how, kind, detail, fix)
}

// checkShapes checks the charged form of each shape with a fresh accountant
// of cfg.
func checkShapes(cfg accounting.Config, b mechanisms.Budget, shapes []accounting.Event) error {
	for _, sh := range shapes {
		acc, err := cfg.New()
		if err != nil {
			return err
		}
		if err := acc.Check(b.Charged(sh)); err != nil {
			return err
		}
	}
	return nil
}

// checkDuplicateCells refuses blocks that repeat each other's cells (the
// same cell key twice would run and store its trials twice): two datasets
// with the same data, or two mechanism blocks of the same name sharing a
// params point and tuning. Repeats inside one block are refused earlier (a
// value repeated in a sweep).
func (s *checker) checkDuplicateCells() error {
	data := map[string]int{}
	for i, d := range s.Datasets {
		k := DatasetKey(d)
		if j, ok := data[k]; ok {
			return s.ErrIn("dataset", i, "", "dataset[%d] %q has the same name, params, split and scale as dataset[%d] %q: its cells would repeat that dataset's (labels do not change the data); drop one", i, d.Label, j, s.Datasets[j].Label)
		}
		data[k] = i
	}
	byName := map[string][]int{}
	for i, m := range s.Mechanisms {
		byName[m.Name] = append(byName[m.Name], i)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		blocks := byName[n]
		if len(blocks) < 2 {
			continue
		}
		seen := map[string]int{}
		for _, i := range blocks {
			m := s.Mechanisms[i]
			tuning, _ := json.Marshal(tuningKey(m.Tuning))
			tuning = append(tuning, pipelineKey(m)...)
			var err error
			m.Params.EachPoint(func(p map[string]any) bool {
				if err = s.canceled(); err != nil {
					return false
				}
				pk, _ := json.Marshal(p)
				k := string(pk) + "|" + string(tuning)
				if j, ok := seen[k]; ok && j != i {
					err = s.ErrIn("mechanism", i, "", "mechanism[%d] %q repeats mechanism[%d] %q at params %s with the same tuning: the same cells would run and store their trials twice; drop the repeated values", i, m.Label, j, s.Mechanisms[j].Label, pk)
					return false
				}
				seen[k] = i
				return true
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
