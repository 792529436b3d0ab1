package results

import (
	"bytes"
	"testing"
)

// FuzzReadRecords: any bytes as a store are read or refused with an error,
// never a panic.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"schema":3,"experiment":"e","cell_key":"k","dataset":"d","mechanism":"m","label":"l","epsilon":1,"trial":0,"seed":"00","status":"ok","metrics":{"test_mse":0.5},"privacy":{"eps_target":1,"eps_spent":0.9,"delta":1e-6,"accountant":"rdp","tuning":"none","event":{"kind":"gaussian","sigma":2,"sensitivity":1}},"wall_s":0.01}` + "\n"))
	f.Add([]byte("{\"schema\":3}\n{\"trial\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scanRecords(bytes.NewReader(data), "f.jsonl", func(string) {}, func(*Record) {})
	})
}
