package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSpecWritesOutsideSpec (issue 36: nothing mutates the spec) fails
// when a non-test file outside harness/spec assigns to a field of a
// harness/spec type (s.CI = …, d.Label = … through a pointer into a block
// list, s.QuickDropped[l] = …) other than a local copy's own field: the decoded
// spec is only read, and the resolved one is built in harness/spec
// (Spec.Resolved from plan's spec.Defaults, Spec.WithQuick). Each package
// is type-checked from its source against the export data of its imports
// (go list -export), so an assignment is judged by its types, not by its
// names.
func TestNoSpecWritesOutsideSpec(t *testing.T) {
	t.Parallel()
	const mod, specPkg = "github.com/dplab/dplab", "github.com/dplab/dplab/harness/spec"
	all, err := goList()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	type pkg struct{ path, dir string }
	var pkgs []pkg
	files := map[string][]string{}
	for _, p := range all {
		exports[p.ImportPath] = p.Export
		if (p.ImportPath == mod || strings.HasPrefix(p.ImportPath, mod+"/")) && p.ImportPath != specPkg {
			pkgs = append(pkgs, pkg{p.ImportPath, p.Dir})
			files[p.ImportPath] = p.GoFiles
		}
	}
	// specData reports whether t (or what it points to) is one of the
	// spec's data types: a type of harness/spec but its options, limits,
	// errors and the Defaults plan resolves.
	specData := func(t types.Type) bool {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != specPkg {
			return false
		}
		switch n.Obj().Name() {
		case "Defaults", "Limits", "LoadOptions", "SpecError":
			return false
		}
		return true
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	checked := 0
	for _, p := range pkgs {
		var syntax []*ast.File
		for _, name := range files[p.path] {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			syntax = append(syntax, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp.(types.ImporterFrom)}
		if _, err := conf.Check(p.path, fset, syntax, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.path, err)
		}
		checked++
		// writesSpec reports whether assigning to e writes into a spec:
		// whether e selects a field of a spec data type (specData) and does
		// not just set a local variable holding a value of one (which is
		// the variable's own copy, reached without an index or a pointer).
		writesSpec := func(e ast.Expr) bool {
			field, indirect := false, false
			for {
				switch x := e.(type) {
				case *ast.ParenExpr:
					e = x.X
					continue
				case *ast.StarExpr:
					indirect = true
					e = x.X
					continue
				case *ast.IndexExpr:
					indirect = true
					e = x.X
					continue
				case *ast.SelectorExpr:
					if s := info.Selections[x]; s != nil && s.Kind() == types.FieldVal {
						field = field || specData(fieldOwner(s))
						indirect = indirect || s.Indirect()
						e = x.X
						continue
					}
				case *ast.Ident:
					v, ok := info.Uses[x].(*types.Var)
					if !ok || !field {
						return field
					}
					_, ptr := v.Type().Underlying().(*types.Pointer)
					local := v.Parent() != nil && v.Parent() != v.Pkg().Scope()
					return indirect || ptr || !local
				}
				return field
			}
		}
		for _, f := range syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch s := n.(type) {
				case *ast.AssignStmt:
					if s.Tok != token.DEFINE {
						lhs = s.Lhs
					}
				case *ast.IncDecStmt:
					lhs = []ast.Expr{s.X}
				}
				for _, e := range lhs {
					if writesSpec(e) {
						t.Errorf("%s: writes to a spec (%s): a decoded spec is only read; resolved values are built in harness/spec (Spec.Resolved, Spec.WithQuick)", fset.Position(e.Pos()), types.ExprString(e))
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Errorf("type-checked %d packages, want the module's (≥ 20)", checked)
	}
}

// fieldOwner returns the struct type that declares the field a selection
// selects, through embedded fields: a checker embedding *spec.Spec
// selects Spec's fields.
func fieldOwner(s *types.Selection) types.Type {
	t, path := s.Recv(), s.Index()
	for _, i := range path[:len(path)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		t = t.Underlying().(*types.Struct).Field(i).Type()
	}
	return t
}
