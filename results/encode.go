package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// AppendRecord appends r's JSON encoding to dst and returns the extended
// buffer. The bytes are exactly those of json.Marshal(r) — the field order
// of Record's tags, omitempty as encoding/json applies it, map keys sorted,
// strings with encoding/json's escapes (<, > and & included), Float as its
// MarshalJSON writes it, Privacy.Event compacted — so stores written before
// and after it are alike; TestAppendRecordMatchesMarshal holds it to that.
// It writes r's fields by hand rather than through reflection: the store
// encodes one record per trial, and for small panels encoding/json's
// reflection used to cost more than the trials. Values of the params maps of
// types other than JSON's own (nil, bool, string, numbers, []any,
// map[string]any) are encoded by encoding/json. On error dst is returned
// unchanged with the error, as json.Marshal would report it.
func AppendRecord(dst []byte, r *Record) ([]byte, error) {
	return appendRecordCached(dst, r, nil)
}

// appendRecordCached is AppendRecord, taking the encodings of r's cell
// fields and of its privacy block from cache where they are r's own, and
// leaving there those it encodes (cache may be nil).
func appendRecordCached(dst []byte, r *Record, cache *encodeCache) ([]byte, error) {
	orig := len(dst)
	dst, err := appendRecord(dst, r, cache)
	if err != nil {
		return dst[:orig], err
	}
	return dst, nil
}

// encodeCache keeps, per cell, the encoding of the fields that all the
// trials of a cell usually share — the cell's own (schema, experiment, …,
// ε) and the privacy block (the ledger calibrated once per cell) — so that
// a store writing thousands of small trials encodes them once rather than
// once per trial: together they are most of a record's bytes and of its
// encoding time. Entries are checked field by field against the record
// being encoded (sameCell, samePrivacy), so a stale entry is never used; a
// record that differs is encoded in full and replaces the entry. Safe for
// concurrent use.
type encodeCache struct {
	cells sync.Map // cell key → *cellEncoding
}

// cellEncoding is one cell's entry in an encodeCache. It is not changed
// once stored; its maps and slices are the cache's own copies.
type cellEncoding struct {
	cell        Record // only the fields appendCellFields encodes
	cellJSON    []byte
	privacy     Privacy
	privacyJSON []byte // nil: no privacy block cached (one with a Pipeline is not)
}

// appendCellFields appends the fields of r that define its cell, from the
// record's opening brace to ε.
func appendCellFields(b []byte, r *Record) []byte {
	b = append(b, `{"schema":`...)
	b = strconv.AppendInt(b, int64(r.Schema), 10)
	b = appendKeyString(b, `,"experiment":`, r.Experiment)
	b = appendKeyString(b, `,"cell_key":`, r.CellKey)
	b = appendKeyString(b, `,"dataset":`, r.Dataset)
	b = appendKeyString(b, `,"mechanism":`, r.Mechanism)
	b = appendKeyString(b, `,"label":`, r.Label)
	b = append(b, `,"epsilon":`...)
	return appendFloat(b, r.Epsilon)
}

// sameCell reports whether a and b agree on every field appendCellFields
// encodes (floats bit for bit).
func sameCell(a, b *Record) bool {
	return a.Schema == b.Schema && a.Experiment == b.Experiment && a.CellKey == b.CellKey &&
		a.Dataset == b.Dataset && a.Mechanism == b.Mechanism && a.Label == b.Label &&
		sameFloat(a.Epsilon, b.Epsilon)
}

// samePrivacy reports whether a and b encode alike: every field equal,
// floats bit for bit, maps and slices element by element. Neither may have
// a Pipeline (such blocks are not cached). TestCacheComparesEveryEncodedField
// fails when a field is added to Privacy and not compared here.
func samePrivacy(a, b *Privacy) bool {
	return sameFloat(a.EpsTarget, b.EpsTarget) && a.TargetScope == b.TargetScope &&
		sameFloat(a.EpsSpent, b.EpsSpent) && sameFloat(a.Delta, b.Delta) &&
		a.Accountant == b.Accountant && a.Relation == b.Relation && sameFloat(a.AlphaStar, b.AlphaStar) &&
		sameFloats(a.Noise, b.Noise) && a.Tuning == b.Tuning && a.TuningNote == b.TuningNote &&
		a.Selection == b.Selection && sameFloat(a.EpsPerRun, b.EpsPerRun) &&
		slices.Equal(a.Assumptions, b.Assumptions) && a.Pipeline == nil && b.Pipeline == nil &&
		bytes.Equal(a.Event, b.Event)
}

func sameFloat(a, b Float) bool {
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

func sameFloats(a, b map[string]Float) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if y, ok := b[k]; !ok || !sameFloat(x, y) {
			return false
		}
	}
	return true
}

func appendRecord(b []byte, r *Record, cache *encodeCache) ([]byte, error) {
	var err error
	var cached *cellEncoding
	if cache != nil {
		if v, ok := cache.cells.Load(r.CellKey); ok {
			cached = v.(*cellEncoding)
		}
	}
	var fresh cellEncoding // what this record adds to the cache
	if cached != nil && sameCell(&cached.cell, r) {
		b = append(b, cached.cellJSON...)
	} else {
		start := len(b)
		b = appendCellFields(b, r)
		fresh.cell = Record{Schema: r.Schema, Experiment: r.Experiment, CellKey: r.CellKey, Dataset: r.Dataset,
			Mechanism: r.Mechanism, Label: r.Label, Epsilon: r.Epsilon}
		fresh.cellJSON = slices.Clone(b[start:])
	}
	b = append(b, `,"trial":`...)
	b = strconv.AppendInt(b, int64(r.Trial), 10)
	b = appendKeyString(b, `,"seed":`, r.Seed)
	b = appendKeyString(b, `,"status":`, r.Status)
	if r.Error != "" {
		b = appendKeyString(b, `,"error":`, r.Error)
	}
	if len(r.MechParams) > 0 {
		b = append(b, `,"p_mech":`...)
		if b, err = appendAnyMap(b, r.MechParams); err != nil {
			return b, err
		}
	}
	if len(r.DataParams) > 0 {
		b = append(b, `,"p_data":`...)
		if b, err = appendAnyMap(b, r.DataParams); err != nil {
			return b, err
		}
	}
	if len(r.Metrics) > 0 {
		b = append(b, `,"metrics":`...)
		b = appendMap(b, r.Metrics, appendFloat)
	}
	if len(r.Traces) > 0 {
		b = append(b, `,"traces":`...)
		b = appendMap(b, r.Traces, appendSeries)
	}
	b = append(b, `,"privacy":`...)
	if cached != nil && cached.privacyJSON != nil && r.Privacy.Pipeline == nil && samePrivacy(&cached.privacy, &r.Privacy) {
		b = append(b, cached.privacyJSON...)
	} else {
		start := len(b)
		if b, err = appendPrivacy(b, &r.Privacy); err != nil {
			return b, err
		}
		if r.Privacy.Pipeline == nil {
			fresh.privacy = r.Privacy
			fresh.privacy.Noise = maps.Clone(r.Privacy.Noise)
			fresh.privacy.Assumptions = slices.Clone(r.Privacy.Assumptions)
			fresh.privacy.Event = bytes.Clone(r.Privacy.Event)
			fresh.privacyJSON = slices.Clone(b[start:])
		}
	}
	if len(r.Diagnostics) > 0 {
		b = append(b, `,"diagnostics_nonprivate":`...)
		b = appendMap(b, r.Diagnostics, appendFloat)
	}
	b = append(b, `,"wall_s":`...)
	if b, err = appendFloat64(b, r.WallSeconds); err != nil {
		return b, err
	}
	b = appendKeyString(b, `,"code_version":`, r.CodeVersion)
	if cache != nil && (fresh.cellJSON != nil || fresh.privacyJSON != nil) {
		// Keep what was encoded here, and the other part from the old
		// entry where it still holds.
		if fresh.cellJSON == nil {
			fresh.cell, fresh.cellJSON = cached.cell, cached.cellJSON
		}
		if fresh.privacyJSON == nil && cached != nil && cached.privacyJSON != nil && r.Privacy.Pipeline == nil {
			fresh.privacy, fresh.privacyJSON = cached.privacy, cached.privacyJSON
		}
		entry := fresh // on the heap only here: a hit allocates nothing
		cache.cells.Store(r.CellKey, &entry)
	}
	return append(b, '}'), nil
}

func appendPrivacy(b []byte, p *Privacy) ([]byte, error) {
	b = append(b, `{"eps_target":`...)
	b = appendFloat(b, p.EpsTarget)
	if p.TargetScope != "" {
		b = appendKeyString(b, `,"target_scope":`, p.TargetScope)
	}
	b = append(b, `,"eps_spent":`...)
	b = appendFloat(b, p.EpsSpent)
	b = append(b, `,"delta":`...)
	b = appendFloat(b, p.Delta)
	b = appendKeyString(b, `,"accountant":`, p.Accountant)
	b = appendKeyString(b, `,"relation":`, p.Relation)
	if p.AlphaStar != 0 { // omitempty: +0 and −0 are empty
		b = append(b, `,"alpha_star":`...)
		b = appendFloat(b, p.AlphaStar)
	}
	if len(p.Noise) > 0 {
		b = append(b, `,"noise":`...)
		b = appendMap(b, p.Noise, appendFloat)
	}
	b = appendKeyString(b, `,"tuning":`, p.Tuning)
	if p.TuningNote != "" {
		b = appendKeyString(b, `,"tuning_note":`, p.TuningNote)
	}
	if p.Selection != "" {
		b = appendKeyString(b, `,"selection":`, p.Selection)
	}
	if p.EpsPerRun != 0 {
		b = append(b, `,"eps_per_run":`...)
		b = appendFloat(b, p.EpsPerRun)
	}
	if len(p.Assumptions) > 0 {
		b = append(b, `,"assumptions":[`...)
		for i, a := range p.Assumptions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a)
		}
		b = append(b, ']')
	}
	if p.Pipeline != nil {
		// Rare (pre-processed trials only) and small: encoding/json itself.
		raw, err := json.Marshal(p.Pipeline)
		if err != nil {
			return b, err
		}
		b = append(append(b, `,"pipeline":`...), raw...)
	}
	if len(p.Event) > 0 {
		b = append(b, `,"event":`...)
		var err error
		if b, err = appendRaw(b, p.Event); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendKeyString appends key (already encoded, with its comma and colon)
// and s as a JSON string.
func appendKeyString(b []byte, key, s string) []byte {
	return appendString(append(b, key...), s)
}

// appendFloat appends f as Float.MarshalJSON writes it.
func appendFloat(b []byte, f Float) []byte {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// sortedKeys appends the keys of m to keys (a buffer the caller may keep on
// its stack) and sorts them.
func sortedKeys[V any](m map[string]V, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendMap appends m with its keys sorted, as encoding/json writes a
// map[string]V, each value by appendValue.
func appendMap[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	var buf [16]string
	b = append(b, '{')
	for i, k := range sortedKeys(m, buf[:0]) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

// appendSeries appends xs as encoding/json writes a []Float: nil is null,
// an empty series [].
func appendSeries(b []byte, xs []Float) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for j, x := range xs {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, x)
	}
	return append(b, ']')
}

// appendFloat64 appends x as encoding/json writes a float64 (as ECMAScript
// formats numbers): NaN and ±Inf are an error.
func appendFloat64(b []byte, x float64) ([]byte, error) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(x, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendAnyMap appends m with its keys sorted, as encoding/json writes a
// map[string]any.
func appendAnyMap(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var buf [16]string
	b = append(b, '{')
	var err error
	for i, k := range sortedKeys(m, buf[:0]) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		if b, err = appendAny(b, m[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendAny appends v as encoding/json writes it: JSON's own types by hand,
// anything else (other maps and slices, TOML dates, Marshalers) by
// json.Marshal, whose output for a value is the same alone as nested.
func appendAny(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return appendString(b, v), nil
	case float64:
		return appendFloat64(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case map[string]any:
		return appendAnyMap(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendAny(b, x); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// appendRaw appends a json.RawMessage as encoding/json writes it: checked,
// compacted, with <, >, &, U+2028 and U+2029 escaped. A message already in
// that form (as json.Marshal writes events) is copied as it is.
func appendRaw(b []byte, raw []byte) ([]byte, error) {
	if plainRaw.has(raw) {
		return append(b, raw...), nil
	}
	if !json.Valid(raw) {
		err := json.Compact(new(bytes.Buffer), raw)
		if err == nil {
			err = errors.New("not one JSON value")
		}
		return b, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: %w", err)
	}
	if !needsCompacting(raw) {
		plainRaw.add(raw)
		return append(b, raw...), nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return b, err
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, compact.Bytes())
	return append(b, escaped.Bytes()...), nil
}

// needsCompacting reports whether encoding/json's compacting with HTML
// escaping may change the valid JSON text raw: it holds white space, <, >,
// &, or the first byte of U+2028 or U+2029 (0xE2).
func needsCompacting(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2:
			return true
		}
	}
	return false
}

// plainRaw remembers raw messages found valid and already compact: the
// trials of a cell usually carry the same event, which then is checked once.
var plainRaw = rawSet{m: map[string]struct{}{}}

// rawSet is a bounded set of byte strings, safe for concurrent use.
type rawSet struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

// A rawSet keeps messages of at most rawSetLen bytes, and is emptied when
// it holds rawSetMax of them (at most 1 MiB in all).
const (
	rawSetLen = 2048
	rawSetMax = 512
)

func (s *rawSet) has(b []byte) bool {
	s.mu.RLock()
	_, ok := s.m[string(b)]
	s.mu.RUnlock()
	return ok
}

func (s *rawSet) add(b []byte) {
	if len(b) > rawSetLen {
		return
	}
	s.mu.Lock()
	if len(s.m) >= rawSetMax {
		clear(s.m)
	}
	s.m[string(b)] = struct{}{}
	s.mu.Unlock()
}

// htmlSafe[c] is true for the ASCII bytes encoding/json writes unescaped in
// a string when it escapes HTML (json.Marshal always does): every printable
// byte and DEL except ", \, <, > and &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		switch c {
		case '"', '\\', '<', '>', '&':
		default:
			t[c] = true
		}
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as json.Marshal writes it:
// \" \\ \b \f \n \r \t, other control bytes and <, >, & as \u00XX, invalid
// UTF-8 bytes as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
