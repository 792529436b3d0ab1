package mechanisms

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

// referenceList is docs/references.md's list of mechanisms, generated from
// the registry: each mechanism's name, title and citation key (Info.Ref).
func referenceList() string {
	var b strings.Builder
	for _, info := range List() {
		kind := ""
		if !info.Private {
			kind = " (non-private)"
		}
		fmt.Fprintf(&b, "- `%s`: %s%s [%s]\n", info.Name, info.Title, kind, info.Ref)
	}
	return b.String()
}

// TestReferencesDocGenerated fails when docs/references.md's list of
// mechanisms is not what the registry declares; go generate ./mechanisms
// rewrites it.
func TestReferencesDocGenerated(t *testing.T) {
	if err := fielddoc.CheckSection("../docs/references.md", "mechanism-references", []byte(referenceList()), "go generate ./mechanisms"); err != nil {
		t.Error(err)
	}
}
