package report

import (
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

// TestKindDocsGenerated fails when params_doc.go is not what the doc
// comments of the kinds' structs give; go generate
// (DPLAB_UPDATE_PARAMDOCS=1) rewrites it.
func TestKindDocsGenerated(t *testing.T) {
	if err := fielddoc.CheckGenerated(".", "report", "kindDocs", "params_doc.go", "go generate ./harness/report"); err != nil {
		t.Error(err)
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
