package results

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Values the encoder must write exactly as encoding/json does.
var (
	trickyStrings = []string{
		"", "plain", "Sheffet '17 (ours)", `quote " and \ backslash`, "<b>&amp;</b>",
		"tab\tnew\nline\rret\bback\fform", "\x00\x01\x1f\x7f", "ε = 0.1, δ ≤ 1e-6 · σ²",
		"line\u2028para\u2029sep", "bad utf8 \xff\xfe end", "\xe2\x80", "emoji 🦀 and 日本",
		"public n: the training size n, which sets δ = min(1e-6, 0.01/n), is treated as public (add/remove neighbours)",
	}
	trickyFloats = []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1e-4, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.7e308,
		math.SmallestNonzeroFloat64, -2.5e-300, 123456789.125, 3.0000000000000004, 1.0 / 3, 10, 1e300,
		math.NaN(), math.Inf(1), math.Inf(-1),
	}
	trickyEvents = []string{
		``, `{"kind":"noop"}`, `{"kind":"gaussian","sigma":1.5,"sensitivity":1}`,
		`{"kind":"composed","events":[{"kind":"gaussian","sigma":2,"sensitivity":1},{"kind":"laplace","scale":0.5,"sensitivity":2}]}`,
		` { "kind" : "spaced",` + "\n\t" + `"x" : [1, 2] } `, `{"note":"<&>"}`, "{\"s\":\"a\u2028b\"}", `"just a string"`, `null`, `123`,
	}
)

// randomRecord returns a record whose every field is drawn from the tricky
// values above, maps nil, empty or filled, params nested.
func randomRecord(rng *rand.Rand) Record {
	str := func() string { return trickyStrings[rng.IntN(len(trickyStrings))] }
	flt := func() float64 { return trickyFloats[rng.IntN(len(trickyFloats))] }
	finite := func() float64 {
		for {
			if x := flt(); !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x
			}
		}
	}
	floatMap := func() map[string]Float {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]Float{}
		}
		m := map[string]Float{}
		for i := rng.IntN(20); i >= 0; i-- {
			m[str()] = Float(flt())
		}
		return m
	}
	var anyValue func(depth int) any
	anyMap := func(depth int) map[string]any {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]any{}
		}
		m := map[string]any{}
		for i := rng.IntN(6); i >= 0; i-- {
			m[str()] = anyValue(depth + 1)
		}
		return m
	}
	anyValue = func(depth int) any {
		k := rng.IntN(16)
		if depth > 2 && k >= 12 {
			k = 0
		}
		switch k {
		case 0:
			return nil
		case 1:
			return rng.IntN(2) == 0
		case 2:
			return str()
		case 3:
			return finite()
		case 4:
			return int64(rng.IntN(2000) - 1000)
		case 5:
			return rng.IntN(1 << 20)
		case 6:
			if x := finite(); math.Abs(x) < math.MaxFloat32 {
				return float32(x)
			}
			return float32(0.1)
		case 7:
			return []float64{finite(), finite()}
		case 8:
			return time.Date(2024, 2, 29, 12, 30, 0, 0, time.UTC)
		case 9:
			return uint8(rng.IntN(256))
		case 10:
			return Float(flt())
		case 11:
			return []byte(str())
		case 12, 13:
			return anyMap(depth)
		default:
			var xs []any
			if rng.IntN(3) > 0 {
				xs = []any{}
				for i := rng.IntN(4); i > 0; i-- {
					xs = append(xs, anyValue(depth+1))
				}
			}
			return xs
		}
	}
	var assumptions []string
	switch rng.IntN(3) {
	case 1:
		assumptions = []string{}
	case 2:
		for i := rng.IntN(4); i >= 0; i-- {
			assumptions = append(assumptions, str())
		}
	}
	traces := func() map[string][]Float {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string][]Float{}
		}
		m := map[string][]Float{}
		for i := rng.IntN(4); i >= 0; i-- {
			var xs []Float // nil, empty or filled
			if rng.IntN(4) > 0 {
				xs = []Float{}
				for j := rng.IntN(8); j > 0; j-- {
					xs = append(xs, Float(flt()))
				}
			}
			m[str()] = xs
		}
		return m
	}
	var pipeline *Pipeline
	if rng.IntN(3) == 0 {
		pipeline = &Pipeline{Steps: str(), Mode: str(), Analysis: str(), DeltaInf: rng.IntN(1000), Delta2: Float(flt()), Group: str(), PerAnalysis: floatMap()}
	}
	var event json.RawMessage
	if e := trickyEvents[rng.IntN(len(trickyEvents))]; e != "" || rng.IntN(2) == 0 {
		event = json.RawMessage(e)
	}
	return Record{
		Schema: rng.IntN(3), Experiment: str(), CellKey: str(), Dataset: str(), Mechanism: str(), Label: str(),
		Epsilon: Float(flt()), Trial: rng.IntN(1000) - 10, Seed: str(), Status: str(), Error: str(),
		MechParams: anyMap(0), DataParams: anyMap(0), Metrics: floatMap(), Traces: traces(),
		Privacy: Privacy{
			EpsTarget: Float(flt()), TargetScope: str(), EpsSpent: Float(flt()), Delta: Float(flt()), Accountant: str(), Relation: str(),
			AlphaStar: Float(flt()), Noise: floatMap(), Tuning: str(), TuningNote: str(), Selection: str(),
			EpsPerRun: Float(flt()), Assumptions: assumptions, Pipeline: pipeline, Event: event,
		},
		Diagnostics: floatMap(), WallSeconds: finite(), CodeVersion: str(),
	}
}

// TestAppendRecordMatchesMarshal: AppendRecord writes the bytes of
// json.Marshal, byte for byte, over 20 000 random records built from tricky
// values (NaN and ±Inf Floats, −0, exponent cut-offs, HTML characters,
// control bytes, invalid UTF-8, U+2028, nil and empty maps and slices,
// nested params of JSON's and other types, events to compact, traces with
// nil, empty and filled series), and fails
// where json.Marshal fails (a NaN or infinite wall time, an invalid event).
// Tolerance: none, the bytes must be equal.
func TestAppendRecordMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	prefix := []byte("prefix ")
	for i := 0; i < 20000; i++ {
		r := randomRecord(rng)
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatalf("record %d: json.Marshal: %v", i, err)
		}
		got, err := AppendRecord(append([]byte(nil), prefix...), &r)
		if err != nil {
			t.Fatalf("record %d: AppendRecord: %v", i, err)
		}
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got[len(prefix):], want)
		}
	}
	bad := []struct {
		name string
		edit func(*Record)
	}{
		{"NaN wall time", func(r *Record) { r.WallSeconds = math.NaN() }},
		{"infinite wall time", func(r *Record) { r.WallSeconds = math.Inf(1) }},
		{"invalid event", func(r *Record) { r.Privacy.Event = json.RawMessage(`{"kind":`) }},
		{"two values as event", func(r *Record) { r.Privacy.Event = json.RawMessage(`1 2`) }},
		{"NaN param", func(r *Record) { r.MechParams = map[string]any{"x": []any{math.NaN()}} }},
		{"unencodable param", func(r *Record) { r.DataParams = map[string]any{"f": func() {}} }},
	}
	for _, tc := range bad {
		r := randomRecord(rng)
		r.Privacy.Event = nil
		tc.edit(&r)
		if _, err := json.Marshal(&r); err == nil {
			t.Fatalf("%s: json.Marshal accepts it; the test expects an error", tc.name)
		}
		got, err := AppendRecord(prefix, &r)
		if err == nil || !bytes.Equal(got, prefix) {
			t.Errorf("%s: AppendRecord returned %q, %v; want the buffer unchanged and an error", tc.name, got, err)
		}
	}
}

// BenchmarkAppendRecord encodes a realistic record (see realisticRecord)
// with AppendRecord and, for comparison, json.Marshal.
func BenchmarkAppendRecord(b *testing.B) {
	r := realisticRecord(0)
	b.Run("AppendRecord", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = AppendRecord(buf[:0], &r)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(&r)
		}
	})
}

// TestRealisticRecordRoundTrip: the benchmark record encodes to its line.
func TestRealisticRecordRoundTrip(t *testing.T) {
	r := realisticRecord(1)
	r.Metrics = map[string]Float{"test_mse": 0.22310450559985262, "train_mse": 0.2255971966877973}
	r.WallSeconds = 0.000117735
	b, err := AppendRecord(nil, &r)
	if err != nil || string(b) != realisticLine {
		t.Fatalf("got %s, %v\nwant %s", b, err, realisticLine)
	}
}

// mutateField sets field f of the struct v points to to a value it does not
// hold, for every kind of field Record and Privacy have. A new kind of
// field fails the test until a mutation is written for it.
func mutateField(t *testing.T, v reflect.Value, f int) {
	t.Helper()
	fv := v.Elem().Field(f)
	switch x := fv.Addr().Interface().(type) {
	case *Float:
		if *x == 7.25 {
			*x = 8.5
		} else {
			*x = 7.25
		}
	case *float64:
		*x += 1
	case *int:
		*x++
	case *string:
		*x += "x"
	case *[]string:
		*x = append(slices.Clone(*x), "x")
	case *json.RawMessage:
		*x = json.RawMessage(`{"kind":"mutated","n":` + strconv.Itoa(len(*x)) + `}`)
	case *map[string]Float:
		m := maps.Clone(*x)
		if m == nil {
			m = map[string]Float{}
		}
		m["mutated"] = 1
		*x = m
	case *map[string]any:
		m := maps.Clone(*x)
		if m == nil {
			m = map[string]any{}
		}
		m["mutated"] = 1.0
		*x = m
	case *map[string][]Float:
		m := maps.Clone(*x)
		if m == nil {
			m = map[string][]Float{}
		}
		m["mutated"] = []Float{1}
		*x = m
	case *Privacy:
		x.EpsTarget += 1
	case **Pipeline:
		if *x == nil {
			*x = &Pipeline{Steps: "dedup"}
		} else {
			*x = nil
		}
	default:
		t.Fatalf("no mutation for field %s of type %s: add one", v.Elem().Type().Field(f).Name, fv.Type())
	}
}

// TestCacheComparesEveryEncodedField: for every field of Record and of
// Privacy, a record that differs from another in that field alone and
// encodes differently in the part the store's encodeCache keeps per cell
// (appendCellFields, appendPrivacy) is not taken for the same by sameCell
// or samePrivacy, so the cache never hands out another record's bytes. A
// field added to either struct, and encoded, fails here until it is
// compared. Two records that differ in no field are the same.
func TestCacheComparesEveryEncodedField(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 2))
	for i := 0; i < 200; i++ {
		base := randomRecord(rng)
		base.Privacy.Pipeline = nil
		twin := base
		if !sameCell(&base, &twin) || !samePrivacy(&base.Privacy, &twin.Privacy) {
			t.Fatalf("record %d is not the same as its copy", i)
		}
		for f := 0; f < reflect.TypeFor[Record]().NumField(); f++ {
			r := base
			mutateField(t, reflect.ValueOf(&r), f)
			if !bytes.Equal(appendCellFields(nil, &r), appendCellFields(nil, &base)) && sameCell(&r, &base) {
				t.Fatalf("Record.%s: the cell fields encode differently, and sameCell says they are the same", reflect.TypeFor[Record]().Field(f).Name)
			}
		}
		for f := 0; f < reflect.TypeFor[Privacy]().NumField(); f++ {
			r := base
			mutateField(t, reflect.ValueOf(&r.Privacy), f)
			a, errA := appendPrivacy(nil, &r.Privacy)
			b, errB := appendPrivacy(nil, &base.Privacy)
			if (errA != nil || errB != nil || !bytes.Equal(a, b)) && r.Privacy.Pipeline == nil && samePrivacy(&r.Privacy, &base.Privacy) {
				t.Fatalf("Privacy.%s: the blocks encode differently, and samePrivacy says they are the same", reflect.TypeFor[Privacy]().Field(f).Name)
			}
		}
	}
}

// TestCachedEncodingMatchesMarshal: records encoded through one
// encodeCache, as a store encodes its trials, are the bytes of
// json.Marshal, over 20 000 records drawn from a few cells whose trials
// mostly share their cell fields and privacy block but sometimes differ
// from the cached ones in one field (−0 for +0, NaN payloads, a longer
// note, a changed noise entry, a pipeline, an invalid event, …): a cached
// part is used only where it is the record's own. Tolerance: none.
func TestCachedEncodingMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 3))
	var cells []Record
	for range 6 {
		r := randomRecord(rng)
		r.CellKey = "cell" + strconv.Itoa(len(cells))
		r.Privacy.Event = json.RawMessage(`{"kind":"gaussian","sigma":1.5}`)
		cells = append(cells, r)
	}
	var cache encodeCache
	for i := 0; i < 20000; i++ {
		r := cells[rng.IntN(len(cells))]
		r.Trial = i
		switch rng.IntN(8) {
		case 0:
			mutateField(t, reflect.ValueOf(&r), rng.IntN(reflect.TypeFor[Record]().NumField()))
		case 1:
			mutateField(t, reflect.ValueOf(&r.Privacy), rng.IntN(reflect.TypeFor[Privacy]().NumField()))
		case 2:
			r.Privacy = randomRecord(rng).Privacy
		case 3:
			r.Epsilon = Float(math.Copysign(0, -float64(r.Epsilon)))
			r.Privacy.EpsSpent = Float(math.Float64frombits(0x7ff8000000000000 | uint64(rng.IntN(1000))))
		case 4:
			r.Privacy.Event = json.RawMessage(`{"kind":`)
		}
		want, wantErr := json.Marshal(&r)
		got, err := appendRecordCached([]byte("x"), &r, &cache)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("record %d: error %v, json.Marshal's %v", i, err, wantErr)
		}
		if err != nil {
			if string(got) != "x" {
				t.Fatalf("record %d: the buffer was changed on error: %q", i, got)
			}
			continue
		}
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got[1:], want)
		}
	}
}
