package results

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestScanRecordsMatchesLineByLine reads a store of three chunks
// (scanChunk each) whose lines straddle the chunks' ends, with blank lines,
// a line longer than a chunk and a torn last line, and compares it with a
// decode of each line on its own: the same records in order, the same
// well-formed prefix, the torn line's number in the warning. A store read
// chunk by chunk must be the store read whole.
func TestScanRecordsMatchesLineByLine(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var data bytes.Buffer
	var want []Record
	for data.Len() < 3*scanChunk {
		rc := realisticRecord(len(want))
		rc.Error = strings.Repeat("x", r.IntN(3000))
		if len(want) == 2000 {
			rc.Error = strings.Repeat("y", scanChunk+1000) // longer than a chunk
		}
		b, err := AppendRecord(nil, &rc)
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		want = append(want, back)
		data.Write(b)
		data.WriteByte('\n')
		if r.IntN(50) == 0 {
			data.WriteString("  \n") // blank lines are skipped
		}
	}
	good := int64(data.Len())
	lines := bytes.Count(data.Bytes(), []byte("\n"))
	data.WriteString(`{"schema":3,"experiment":"torn`)
	var got []Record
	var warnings []string
	n, err := scanRecords(bytes.NewReader(data.Bytes()), "t.jsonl", func(w string) { warnings = append(warnings, w) },
		func(r *Record) { got = append(got, *r) })
	if err != nil {
		t.Fatal(err)
	}
	if n != good {
		t.Errorf("well-formed prefix %d bytes, want %d", n, good)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d differs from its line's own decode", i)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], fmt.Sprintf("t.jsonl:%d: dropping a torn last line", lines+1)) {
		t.Errorf("warnings %q, want one naming line %d", warnings, lines+1)
	}
}

// TestKeySet compares a KeySet with a map of keys under random additions:
// small trial indices, far ones (beyond the dense bitset) and negative
// ones, in several cells.
func TestKeySet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s KeySet
	want := map[Key]bool{}
	for range 20000 {
		k := Key{Cell: fmt.Sprint("c", r.IntN(3)), Trial: r.IntN(5000)}
		switch r.IntN(10) {
		case 0:
			k.Trial = -1 - r.IntN(10)
		case 1:
			k.Trial = 1<<40 + r.IntN(10)
		}
		if added := s.Add(k); added == want[k] {
			t.Fatalf("Add(%v) = %v with the key %v in the set", k, added, want[k])
		}
		want[k] = true
		probe := Key{Cell: k.Cell, Trial: r.IntN(6000)}
		if s.Has(probe) != want[probe] {
			t.Fatalf("Has(%v) = %v, want %v", probe, s.Has(probe), want[probe])
		}
	}
	if s.Len() != len(want) {
		t.Errorf("Len = %d, want %d", s.Len(), len(want))
	}
	perCell := map[string]int{}
	for k := range want {
		if k.Trial >= 0 && k.Trial < 100 {
			perCell[k.Cell]++
		}
	}
	for c, n := range perCell {
		if got := s.Count(c, func(t int) bool { return t >= 0 && t < 100 }); got != n {
			t.Errorf("Count(%s, [0, 100)) = %d, want %d", c, got, n)
		}
	}
	every := map[Key]bool{}
	s.each(func(k Key) { every[k] = true })
	if !reflect.DeepEqual(every, want) {
		t.Error("each does not visit exactly the keys added")
	}
}

// TestFarTrialsCoveredLater: a trial index far beyond the others is kept
// aside (KeySet's far, trialSlots' far) until the dense table grows past
// it; it must then still be found, and not be added twice. (KeySet lost
// it: after Add of 70000, 65000 and 130000, Has(70000) was false, a second
// Add of it returned true and Len was 4, so a stored trial would run again.)
func TestFarTrialsCoveredLater(t *testing.T) {
	order := []int{70000, 65000, 130000, 3, 1 << 40, -5}
	var s KeySet
	var slots trialSlots
	for i, trial := range order {
		if !s.Add(Key{"c", trial}) {
			t.Fatalf("Add(%d) found it in the set", trial)
		}
		slots.put(trial, mergeTrial{first: mergeLine{sum: lineSum{byte(i + 1)}}})
		for j, earlier := range order[:i+1] {
			if !s.Has(Key{"c", earlier}) || s.Add(Key{"c", earlier}) {
				t.Errorf("after adding %v: trial %d lost from the KeySet", order[:i+1], earlier)
			}
			if m, ok := slots.get(earlier); !ok || m.first.sum[0] != byte(j+1) {
				t.Errorf("after adding %v: trial %d lost from the trialSlots", order[:i+1], earlier)
			}
		}
	}
	if s.Len() != len(order) || s.Count("c", func(int) bool { return true }) != len(order) {
		t.Errorf("Len %d, Count %d; want %d", s.Len(), s.Count("c", func(int) bool { return true }), len(order))
	}
	n := 0
	slots.each(func(int, *mergeTrial) { n++ })
	if n != len(order) {
		t.Errorf("trialSlots.each visits %d trials, want %d", n, len(order))
	}
}
