package accounting

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageState holds the package doc's invariant on state (doc.go):
// no exported variable, which a caller could change under the package
// (ExtendedOrders and RGMRules were such tables), and the state the doc
// names is declared where it says: the event kind table and the two caches.
func TestPackageState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{} // variable → file
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, name := range s.(*ast.ValueSpec).Names {
					declared[name.Name] = path
					if name.IsExported() {
						t.Errorf("%s: exported variable %s (make it a function returning a new value, or unexport it)", path, name.Name)
					}
				}
			}
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"eventKinds": "event_kinds.go", "planCache": "fft.go", "spectrumBuffers": "pld_compose.go"} {
		if declared[name] != file {
			t.Errorf("doc.go names %s's %s; it is declared in %q", file, name, declared[name])
		}
		if !strings.Contains(string(doc), file+"'s "+name) {
			t.Errorf("doc.go does not name %s (%s)", name, file)
		}
	}
}
