package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	orig := len(dst)
	dst, err := appendRecord(dst, r)
	if err != nil {
		return dst[:orig], err
	}
	return dst, nil
}

func appendRecord(b []byte, r *Record) ([]byte, error) {
	var err error
	b = append(b, `{"schema":`...)
	b = strconv.AppendInt(b, int64(r.Schema), 10)
	b = appendKeyString(b, `,"experiment":`, r.Experiment)
	b = appendKeyString(b, `,"cell_key":`, r.CellKey)
	b = appendKeyString(b, `,"dataset":`, r.Dataset)
	b = appendKeyString(b, `,"mechanism":`, r.Mechanism)
	b = appendKeyString(b, `,"label":`, r.Label)
	b = append(b, `,"epsilon":`...)
	b = appendFloat(b, r.Epsilon)
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
	if b, err = appendPrivacy(b, &r.Privacy); err != nil {
		return b, err
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
