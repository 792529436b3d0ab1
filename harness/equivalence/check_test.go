package equivalence

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/internal/spectest"
	_ "github.com/dplab/dplab/harness/report/kinds" // the figure and table kinds the spec names
	"github.com/dplab/dplab/harness/run"
)

// TestCheckRekeyedCommittedEvidence: when every cell's key changed (as a
// mechanism's new code version changes them), Check pairs the committed
// cells with the new ones by identity and evaluates the committed
// evidence's claims with its cells under the new keys, whatever the
// committed file's JSON layout: here indented ("key": "…"), which a
// rewrite of the file's bytes for the compact layout left stale, so the
// claims went uncompared and the check failed.
func TestCheckRekeyedCommittedEvidence(t *testing.T) {
	tmp := t.TempDir()
	specs, fresh, committed, out := filepath.Join(tmp, "specs"), filepath.Join(tmp, "fresh"), filepath.Join(tmp, "committed"), filepath.Join(tmp, "run")
	src := spectest.Valid + `
[[claim]]
id = "ridge-beats-adassp"
quote = "the non-private fit is better"
where = "test"
check = "better"
quantity = "metric:test_mse"
a = { mechanism = "Ridge" }
b = { mechanism = "AdaSSP" }
`
	if err := os.MkdirAll(filepath.Join(committed, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(specs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(specs, "t.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Run(context.Background(), spectest.MustParse(t, src), run.Options{Jobs: 1, OutDir: out, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	newGen := docgen.New(docgen.Config{Specs: specs, Evidence: fresh})
	if err := newGen.Refresh("t", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(newGen.EvidencePath("t"))
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`"key":"([0-9a-f]+)"`)
	n := len(keys.FindAll(b, -1)) // AdaSSP at 2 ε, the non-private ridge once
	if n != 3 {
		t.Fatalf("%d cell keys in the evidence, want 3", n)
	}
	var old bytes.Buffer
	if err := json.Indent(&old, keys.ReplaceAll(b, []byte(`"key":"old$1"`)), "", "  "); err != nil {
		t.Fatal(err)
	}
	oldGen := docgen.New(docgen.Config{Specs: specs, Evidence: committed})
	if err := os.WriteFile(oldGen.EvidencePath("t"), old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	r, err := Check(oldGen, newGen, "t")
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Pass || len(r.Rekeyed) != n || r.ClaimsError != "" || len(r.Claims) != 1 || r.Claims[0].Changed {
		t.Fatalf("verdict %s, re-keyed %q, claims error %q, claims %+v, failures %q", r.Verdict, r.Rekeyed, r.ClaimsError, r.Claims, r.Failures)
	}
}
