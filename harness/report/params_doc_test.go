package report

import (
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

// TestKindDocsGenerated fails when params_doc.go, or that of a kind
// package under kinds/ (one with a params_doc.go: its package is named
// as its folder), is not what the doc comments of the kinds' structs
// give; go generate (DPLAB_UPDATE_PARAMDOCS=1) rewrites them.
func TestKindDocsGenerated(t *testing.T) {
	const by = "go generate ./harness/report"
	if err := fielddoc.CheckGenerated(".", "report", "kindDocs", "params_doc.go", by); err != nil {
		t.Error(err)
	}
	generated, err := filepath.Glob(filepath.Join("kinds", "*", "params_doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range generated {
		dir := filepath.Dir(f)
		if err := fielddoc.CheckGenerated(dir, filepath.Base(dir), "kindDocs", "params_doc.go", by); err != nil {
			t.Error(err)
		}
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
