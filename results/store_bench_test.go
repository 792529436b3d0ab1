package results

import (
	"bytes"
	"encoding/json"
	"testing"
)

// realisticLine is a record of the Boston panel of gaussmix_fig4.toml as
// the store holds it (an AdaSSP trial: params, metrics, noise, assumptions
// and a composed event).
const realisticLine = `{"schema":2,"experiment":"gaussmix_fig4","cell_key":"25be42be0a30911ab392582b","dataset":"Boston housing","mechanism":"adassp","label":"AdaSSP [Wang '18]","epsilon":0.1,"trial":1,"seed":"621878cafa73edfcb3bd3895652703ea79a9d31d856b8eeb8103d82e523ce550","status":"ok","p_mech":{"rho":0.0001},"metrics":{"test_mse":0.22310450559985262,"train_mse":0.2255971966877973},"privacy":{"eps_target":0.1,"eps_spent":0.055642576366077945,"delta":1e-06,"accountant":"rdp","relation":"add_remove","alpha_star":277.90701255301406,"noise":{"lambda":1656.856176957449,"lambda_min_tilde":0,"noise_multiplier":118.51811264306016},"tuning":"none","assumptions":["x divided by the maximum row norm of the training rows","y divided by max |y| of the training rows","public n: the training size n, which sets δ = min(1e-6, 0.01/n), is treated as public (add/remove neighbours)"],"event":{"kind":"self_composed","event":{"kind":"gaussian","sigma":118.51811264306016,"sensitivity":1},"count":3}},"wall_s":0.000117735,"code_version":"0.1.0-dev+unknown"}`

// realisticRecord returns realisticLine decoded, as trial t with a metric
// and a wall time of its own.
func realisticRecord(t int) Record {
	var r Record
	if err := json.Unmarshal([]byte(realisticLine), &r); err != nil {
		panic(err)
	}
	r.Trial = t
	r.Metrics = map[string]Float{"test_mse": Float(0.2231 + float64(t)*1e-7), "train_mse": 0.2255971966877973}
	r.WallSeconds = 0.000117735 + float64(t)*1e-9
	return r
}

// BenchmarkStoreAppend measures the store's append path in records per
// second: realistic records (about 1 KB each, see realisticLine) appended to
// a fresh store and synced, from one goroutine ("serial") and from
// GOMAXPROCS goroutines at once ("parallel", as a run with -j does).
func BenchmarkStoreAppend(b *testing.B) {
	recs := make([]Record, 1024)
	for i := range recs {
		recs[i] = realisticRecord(i)
	}
	open := func(b *testing.B) *Store {
		s, _, err := openAll(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	finish := func(b *testing.B, s *Store) {
		if err := s.Sync(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		s := open(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			r := recs[i%len(recs)]
			r.Trial = i
			if err := s.Append(r); err != nil {
				b.Fatal(err)
			}
		}
		finish(b, s)
	})
	b.Run("parallel", func(b *testing.B) {
		s := open(b)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				r := recs[i%len(recs)]
				r.Trial = i
				i++
				if err := s.Append(r); err != nil {
					b.Error(err)
					return
				}
			}
		})
		finish(b, s)
	})
}

// BenchmarkReadRecords measures reading a store of 10,000 realistic records
// (about 10 MB, see realisticLine), as a report or a resumed run does, in
// MB/s of trials file.
func BenchmarkReadRecords(b *testing.B) {
	var data []byte
	for i := range 10000 {
		r := realisticRecord(i)
		var err error
		if data, err = AppendRecord(data, &r); err != nil {
			b.Fatal(err)
		}
		data = append(data, '\n')
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_, err := scanRecords(bytes.NewReader(data), "trials.jsonl", nil, func(*Record) { n++ })
		if err != nil || n != 10000 {
			b.Fatalf("%d records, %v", n, err)
		}
	}
}

// BenchmarkAppendRecord encodes a realistic record (see realisticRecord)
// as the store does.
func BenchmarkAppendRecord(b *testing.B) {
	r := realisticRecord(0)
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf, _ = AppendRecord(buf[:0], &r)
	}
}

// TestRealisticRecordRoundTrip: a line as an earlier dplab stored it (its
// hand-written encoder) decodes and encodes to the same bytes.
func TestRealisticRecordRoundTrip(t *testing.T) {
	r := realisticRecord(1)
	r.Metrics = map[string]Float{"test_mse": 0.22310450559985262, "train_mse": 0.2255971966877973}
	r.WallSeconds = 0.000117735
	r.Schema = 2 // as stored
	b, err := AppendRecord(nil, &r)
	if err != nil || string(b) != realisticLine {
		t.Fatalf("got %s, %v\nwant %s", b, err, realisticLine)
	}
}
