package run

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
	"github.com/dplab/dplab/results"
)

// cellMemo holds what the trials of one cell would otherwise each compute
// again for their records: the JSON of the ledger (the trials of a cell
// usually charge bit-identical events), the assumptions stated for it, and
// the cell's params as the store reads them back. Every entry is checked
// against its inputs before it is reused, so a trial whose event or params
// differ gets its own.
type cellMemo struct {
	mu sync.Mutex

	charged, perRun encodedEvent

	assumeEvent []byte // the ledger JSON, relation and finiteness the assumptions are for
	assumeRel   string
	assumeInf   bool
	assumptions []string

	mechSrc, dataSrc map[string]any // the params converted below
	mech, data       map[string]any
	paramsSet        bool

	mechanism mechanisms.Mechanism // built from the cell's own params (no tuning candidate)

	noiseSrc map[string]float64 // a release's noise parameters, copied
	noise    map[string]results.Float

	seed    rngs.Seed // the cell's seed (Budget.CellSeed), once seedSet
	seedSet bool
}

// cellSeed returns the seed of the draws every trial of c shares
// (mechanisms.Budget.CellSeed): rngs.Derive of the spec's seed and the
// cell's key, hashed once per cell rather than every trial.
func (r *runner) cellSeed(c *plan.Cell) rngs.Seed {
	memo := r.cellMemo(c.Key)
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if !memo.seedSet {
		memo.seed, memo.seedSet = rngs.Derive("cell", strconv.FormatUint(uint64(r.spec.Seed), 10), c.Key), true
	}
	return memo.seed
}

// cellMechanism returns the mechanism of c's own params (r.mechanism, behind
// the block's pipeline if it declares one: behindPipeline),
// looked up once per cell rather than by its params' JSON every trial.
func (r *runner) cellMechanism(c *plan.Cell) (mechanisms.Mechanism, error) {
	memo := r.cellMemo(c.Key)
	memo.mu.Lock()
	m := memo.mechanism
	memo.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := r.mechanism(c.Entry, c.Params)
	if err != nil {
		return nil, err
	}
	m = r.behindPipeline(c, m)
	memo.mu.Lock()
	memo.mechanism = m
	memo.mu.Unlock()
	return m, nil
}

// encodedEvent is an event and its JSON.
type encodedEvent struct {
	event accounting.Event
	json  []byte
}

// cellMemo returns the memo of the cell with key k.
func (r *runner) cellMemo(k string) *cellMemo {
	if m, ok := r.memo.Load(k); ok {
		return m.(*cellMemo)
	}
	m, _ := r.memo.LoadOrStore(k, &cellMemo{})
	return m.(*cellMemo)
}

// encodeEvent returns json.Marshal(e): the JSON of the cell's last charged
// (or, with perRun, one-run) event when e is bit-identical to it.
func (r *runner) encodeEvent(cell string, perRun bool, e accounting.Event) ([]byte, error) {
	m := r.cellMemo(cell)
	slot := &m.charged
	if perRun {
		slot = &m.perRun
	}
	m.mu.Lock()
	if slot.event != nil && sameBits(reflect.ValueOf(slot.event), reflect.ValueOf(e), 0) {
		b := slot.json
		m.mu.Unlock()
		return b, nil
	}
	m.mu.Unlock()
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	*slot = encodedEvent{event: e, json: b}
	m.mu.Unlock()
	return b, nil
}

// assumptions returns s.assumptions(c, rec), reusing the cell's last answer
// when rec's ledger JSON, relation and finiteness of ε are those it was
// computed for (nothing else of rec that it reads varies within a cell).
func (r *runner) assumptions(c *plan.Cell, rec *results.Record) []string {
	m := r.cellMemo(c.Key)
	ev, rel, inf := rec.Privacy.Event, rec.Privacy.Relation, math.IsInf(float64(rec.Privacy.EpsSpent), 1)
	m.mu.Lock()
	if m.assumeEvent != nil && m.assumeRel == rel && m.assumeInf == inf && bytes.Equal(m.assumeEvent, ev) {
		a := m.assumptions
		m.mu.Unlock()
		return a
	}
	m.mu.Unlock()
	a := Assumptions(r.spec, c, rec)
	m.mu.Lock()
	m.assumeEvent, m.assumeRel, m.assumeInf, m.assumptions = append([]byte{}, ev...), rel, inf, a
	m.mu.Unlock()
	return a
}

// storedParams returns rec's params as the store reads them back
// (viaJSON), converted once per cell while the record carries the same
// maps as the last one.
func (r *runner) storedParams(rec *results.Record) (mech, data map[string]any) {
	m := r.cellMemo(rec.CellKey)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.paramsSet || !sameMap(m.mechSrc, rec.MechParams) || !sameMap(m.dataSrc, rec.DataParams) {
		m.mechSrc, m.dataSrc = rec.MechParams, rec.DataParams
		m.mech, m.data = viaJSON(rec.MechParams), viaJSON(rec.DataParams)
		m.paramsSet = true
	}
	return m.mech, m.data
}

// sameMap reports whether a and b are the same map object (or both nil).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// sameBits reports whether a and b are equal down to the bits of every
// float (so 0 and −0 differ, as their JSON does, and a NaN equals itself),
// nil-ness of slices and the dynamic types of interfaces: values for which
// it is true encode to the same JSON. Maps, functions and channels, and
// values nested deeper than 32 levels, are never the same (the caller then
// encodes afresh).
func sameBits(a, b reflect.Value, depth int) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() || depth > 32 {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return math.Float64bits(real(x)) == math.Float64bits(real(y)) && math.Float64bits(imag(x)) == math.Float64bits(imag(y))
	case reflect.String:
		return a.String() == b.String()
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameBits(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameBits(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameBits(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// noiseMap returns floatMap(src) for a trial of cell: the cell's last
// conversion when src holds the same entries, bit for bit, as the map it
// was made from. The records of a cell then share one noise map, which
// nothing changes once made.
func (r *runner) noiseMap(cell string, src map[string]float64) map[string]results.Float {
	if len(src) == 0 {
		return nil
	}
	m := r.cellMemo(cell)
	m.mu.Lock()
	if m.noise != nil && sameFloatMap(m.noiseSrc, src) {
		out := m.noise
		m.mu.Unlock()
		return out
	}
	m.mu.Unlock()
	out := floatMap(src)
	m.mu.Lock()
	m.noiseSrc, m.noise = maps.Clone(src), out
	m.mu.Unlock()
	return out
}

// sameFloatMap reports whether a and b hold the same keys with the same
// values bit for bit.
func sameFloatMap(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		if y, ok := b[k]; !ok || math.Float64bits(x) != math.Float64bits(y) {
			return false
		}
	}
	return true
}
