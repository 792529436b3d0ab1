package run

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestFitPathsTakeNoPipeline: pre-processing is one mechanism
// (mechanisms.Preprocessed) whose Fit charges the pipeline, so the fit
// paths of the runner and of tuning fit a cell's mechanism with no
// pipeline threaded through them: no fit function of runner.go or
// tuning.go takes a parameter whose type names a pipeline.
func TestFitPathsTakeNoPipeline(t *testing.T) {
	fset := token.NewFileSet()
	found := 0
	for _, file := range []string{"runner.go", "tuning.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "fit") {
				continue
			}
			found++
			for _, p := range fn.Type.Params.List {
				var b strings.Builder
				ast.Inspect(p.Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						b.WriteString(id.Name + " ")
					}
					return true
				})
				if strings.Contains(strings.ToLower(b.String()), "pipeline") {
					t.Errorf("%s: %s takes a pipeline parameter (%s): fit the cell's mechanism, which charges its pre-processing itself", fset.Position(fn.Pos()), fn.Name.Name, strings.TrimSpace(b.String()))
				}
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d fit functions in runner.go and tuning.go, want fit, fitOracle and fitPrivate", found)
	}
}
