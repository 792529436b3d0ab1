package kinds

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryKindPackageAssembled fails when a folder under
// harness/report/kinds holds a Go package that this package does not
// import: its kinds would register nowhere, and "dplab run" would refuse
// every spec that uses them. (The layering table, TestLayering, keeps
// harness/report itself from importing any of them.)
func TestEveryKindPackageAssembled(t *testing.T) {
	const self = "github.com/dplab/dplab/harness/report/kinds"
	src, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, name := range src {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			imported = append(imported, path)
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var kinds int
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if src, _ := filepath.Glob(filepath.Join(e.Name(), "*.go")); len(src) == 0 {
			continue
		}
		kinds++
		if !slices.Contains(imported, self+"/"+e.Name()) {
			t.Errorf("kind package %s/%s is not imported by harness/report/kinds (kinds.go): its kinds register nowhere; run go generate ./harness/report", self, e.Name())
		}
	}
	if kinds == 0 {
		t.Error("no kind package found under harness/report/kinds")
	}
}
