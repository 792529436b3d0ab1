package external

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/datatest"
	"github.com/dplab/dplab/internal/rngs"
)

// TestMain makes the test binary a trivial worker when
// DPLAB_EXTERNAL_ECHO_WORKER is set: it answers hello and every fit with a
// zero model and a fixed Gaussian event, reading no data, so
// BenchmarkRoundTrip/go measures the protocol's own cost.
func TestMain(m *testing.M) {
	if os.Getenv("DPLAB_EXTERNAL_ECHO_WORKER") == "1" {
		echoWorker()
		return
	}
	os.Exit(m.Run())
}

func echoWorker() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<26)
	w := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		var req request
		json.Unmarshal(sc.Bytes(), &req)
		if req.Type == "hello" {
			fmt.Fprintln(w, `{"type":"hello","protocol":1}`)
		} else {
			fmt.Fprintf(w, `{"type":"result","id":%d,"model":{"theta":[%s],"intercept":0},"event":{"kind":"gaussian","sigma":50,"sensitivity":1}}`+"\n",
				req.ID, strings.TrimSuffix(strings.Repeat("0,", req.Train.Cols), ","))
		}
		w.Flush()
	}
}

// BenchmarkRoundTrip times one fit through a warm worker: the request
// (the training files already written), the worker's reply and its checks.
// "go" is a trivial worker in Go (this test binary), "python" the trivial
// testdata/behave.py, which does no work either: what a fit costs beyond
// the mechanism's own computation.
func BenchmarkRoundTrip(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	os.Setenv("DPLAB_EXTERNAL_ECHO_WORKER", "1") // inherited by the worker only: TestMain has run
	defer os.Unsetenv("DPLAB_EXTERNAL_ECHO_WORKER")
	data := datatest.Tiny(b, datasets.Regression, 1000, 10)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"go", Config{Command: []string{exe}, Mode: ModeDeclare}},
		{"python", behaveConfig(b, ModeDeclare)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := build(b, tc.cfg, map[string]any{"behave": "ok"})
			defer closePool(tc.cfg)
			rs := rngs.New(rngs.Derive("bench"))
			if _, err := m.Fit(context.Background(), data, budget(), rs); err != nil { // start the worker
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := m.Fit(context.Background(), data, budget(), rs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
