// Command longtests lists the tests whose behaviour depends on -short: the
// Test functions of each package directory given that call testing.Short(),
// directly or through any function, method or function-valued variable of
// their package (test files and non-test files alike). .ci/run runs make
// test (-short, every test) and then, without -short, only these: every
// other test does the same thing in both runs, so running it again would
// check nothing new.
//
// It prints one line per such test, "<dir> <TestName>", or "<dir> *" when
// every test of dir must run again (a TestMain, an init function or a
// package-level initializer reaches testing.Short()). The analysis is by
// name within a package and over-includes: a test that mentions any
// identifier or method name that reaches testing.Short() is listed.
// Packages whose behaviour under -short comes from another package's
// non-test code are not seen here: .ci/run then runs every test again.
//
// Usage: go run ./.ci/longtests DIR...
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: longtests DIR...")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "longtests:", err)
		os.Exit(1)
	}
}

// run writes the lines of the package directories dirs to w.
func run(w io.Writer, dirs []string) error {
	for _, dir := range dirs {
		tests, err := ShortTests(dir)
		if err != nil {
			return err
		}
		for _, name := range tests {
			if _, err := fmt.Fprintln(w, dir, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// ShortTests returns the sorted names of dir's Test functions that reach
// testing.Short(), or ["*"] when a TestMain, an init function or a
// package-level variable's initializer does.
func ShortTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	g := graph{refs: map[string]map[string]bool{}, reads: map[string]bool{}}
	var tests []string
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		testing := importName(f, "testing")
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				switch {
				case name == "init" || name == "TestMain":
					name = "*" // reaching Short here changes every test
				case d.Recv == nil && strings.HasSuffix(path, "_test.go") && isTest(d):
					tests = append(tests, name)
				}
				g.add(name, d, testing)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if v, ok := s.(*ast.ValueSpec); ok {
						for i, n := range v.Names {
							// A function-valued variable is a node of its
							// own; any other initializer runs before the tests.
							node := "*"
							if i < len(v.Values) {
								if _, ok := v.Values[i].(*ast.FuncLit); ok {
									node = n.Name
								}
							}
							g.add(node, v, testing)
						}
					}
				}
			}
		}
	}
	if g.reaches("*") {
		return []string{"*"}, nil
	}
	var out []string
	for _, name := range tests {
		if g.reaches(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// isTest reports whether d is a top-level func TestXxx(t *testing.T).
func isTest(d *ast.FuncDecl) bool {
	name := d.Name.Name
	if !strings.HasPrefix(name, "Test") || d.Type.Params == nil || len(d.Type.Params.List) != 1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(name[len("Test"):])
	return !unicode.IsLower(r) // Testify is not a test; Test, Test_x and Test2 are
}

// importName is the name file f gives the package path, or "" when f does
// not import it.
func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return filepath.Base(path)
		}
	}
	return ""
}

// graph is a package's declarations by name: whom each mentions, and which
// call testing.Short() themselves.
type graph struct {
	refs  map[string]map[string]bool
	reads map[string]bool
}

// add records the identifiers node mentions in n (a method's by its name
// alone, the selector's identifier) and whether n reads testing.Short, testing being the file's name
// for the testing package.
func (g graph) add(node string, n ast.Node, testing string) {
	if g.refs[node] == nil {
		g.refs[node] = map[string]bool{}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && testing != "" && x.Name == testing && n.Sel.Name == "Short" {
				g.reads[node] = true
			}
		case *ast.Ident:
			g.refs[node][n.Name] = true
		}
		return true
	})
}

// reaches reports whether node reads testing.Short or mentions, at any
// depth, a declaration that does.
func (g graph) reaches(node string) bool {
	seen := map[string]bool{node: true}
	stack := []string{node}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if g.reads[n] {
			return true
		}
		for m := range g.refs[n] {
			if !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return false
}
