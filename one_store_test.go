package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOneStore: the results package is the one store of trials: no other
// package names a JSONL store of its own or a lock file, takes a result
// directory's lock (results.LockDir) or appends to a file (os.O_APPEND).
// Before issue 36 the audit kept a second store (audit/spec.go:
// audits.jsonl, .audit-lock, its own appends and torn-line repair; the CLI
// locked it with results.LockDir); an audit grid's cells are now trials
// stored by harness/run through results.Open.
func TestOneStore(t *testing.T) {
	jsonl := regexp.MustCompile(`\.jsonl$`)
	lock := regexp.MustCompile(`(^|[.\-_])lock$`)
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || path == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					return true
				}
				if jsonl.MatchString(s) && filepath.Base(s) != "trials.jsonl" || lock.MatchString(s) {
					t.Errorf("%s: %q: a store or lock file outside package results", fset.Position(x.Pos()), s)
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && (id.Name == "results" && x.Sel.Name == "LockDir" || id.Name == "os" && x.Sel.Name == "O_APPEND") {
					t.Errorf("%s: %s.%s outside package results: only the results store takes a result directory's lock and appends", fset.Position(x.Pos()), id.Name, x.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
