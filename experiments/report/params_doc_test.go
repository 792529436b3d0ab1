package report

import (
	"bytes"
	"os"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

// kindDocsFile is the generated file of the kinds' doc comments.
const kindDocsFile = "params_doc.go"

// TestKindDocsGenerated fails when params_doc.go is not what the kinds'
// structs' doc comments give; DPLAB_UPDATE_PARAMDOCS=1 (go generate)
// rewrites it.
func TestKindDocsGenerated(t *testing.T) {
	want, err := fielddoc.Generate(".", "report", "kindDocs", kindDocsFile, "go generate ./experiments/report (TestKindDocsGenerated)")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("DPLAB_UPDATE_PARAMDOCS") != "" {
		if err := os.WriteFile(kindDocsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(kindDocsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: a figure or table kind's doc comment changed; run go generate ./experiments/report", kindDocsFile)
	}
}

// TestEveryKindKeyDocumented: every registered kind says what it draws and
// documents every key of its block.
func TestEveryKindKeyDocumented(t *testing.T) {
	for _, k := range Kinds() {
		if k.Doc == "" {
			t.Errorf("%s kind %s: no doc (Kind.Doc or the Params struct's doc comment)", k.Block, k.Kind)
		}
		if len(k.Params) == 0 {
			t.Errorf("%s kind %s: no keys", k.Block, k.Kind)
		}
		for _, p := range k.Params {
			if p.Doc == "" {
				t.Errorf("%s kind %s: key %s (%s) has no doc comment", k.Block, k.Kind, p.Key, p.GoName)
			}
		}
	}
}
