package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allowedImports is the import table of docs/ARCHITECTURE.md: which dplab
// packages each dplab package may import. Paths are relative to the module.
var allowedImports = map[string][]string{
	"internal/rngs":         {},
	"internal/registry":     {"internal/suggest"},
	"internal/suggest":      {},
	"internal/oncemap":      {},
	"internal/floatbuf":     {},
	"internal/fileutil":     {},
	"internal/buildtest":    {},
	"internal/benchcpu":     {},
	"internal/fielddoc":     {},
	"internal/strictoml":    {"internal/suggest"},
	"internal/datatest":     {"datasets", "internal/strictoml"},
	"mechanisms/accounting": {"internal/oncemap"},
	"datasets":              {"internal/suggest", "internal/rngs", "internal/registry", "internal/oncemap"},
	"datasets/preprocess":   {"internal/rngs", "mechanisms/accounting", "datasets"},
	"solvers":               {"internal/rngs", "internal/floatbuf"},
	"mechanisms":            {"mechanisms/accounting", "datasets", "datasets/preprocess", "solvers", "internal/rngs", "internal/registry", "internal/oncemap", "internal/fielddoc", "internal/floatbuf"},
	"results":               {"internal/fileutil"},
	"internal/npy":          {},
	// External mechanisms: worker processes behind the Mechanism interface,
	// built by harness/plan from a spec's [mechanism.external] table.
	"mechanisms/external": {"mechanisms", "mechanisms/accounting", "datasets", "internal/rngs", "internal/npy"},
	"plotting":            {"internal/fileutil"},
	// harness/spec ← harness/plan ← harness/run ← harness/report: one way.
	"harness/curves": {"mechanisms/accounting", "datasets/preprocess"},
	// The spec is data and its strict decoding; plan checks it against
	// the registries (issue 36).
	"harness/spec":              {"internal/strictoml"},
	"harness/plan":              {"harness/spec", "internal/strictoml", "internal/suggest", "harness/curves", "mechanisms/accounting", "datasets", "datasets/preprocess", "mechanisms", "mechanisms/external", "results"},
	"harness/run":               {"audit", "harness/plan", "harness/spec", "mechanisms/accounting", "datasets", "datasets/preprocess", "solvers", "mechanisms", "results", "internal/rngs", "internal/oncemap", "internal/fileutil"},
	"harness/report":            {"internal/suggest", "internal/fielddoc", "internal/oncemap", "harness/plan", "harness/spec", "harness/curves", "mechanisms", "mechanisms/accounting", "datasets", "datasets/preprocess", "results", "plotting", "internal/fileutil"},
	"harness/htmlreport":        {"harness/report", "harness/plan", "harness/spec", "mechanisms/accounting", "results"},
	"harness/docgen":            {"harness/report", "harness/spec", "results", "plotting", "internal/fileutil", "internal/suggest"},
	"harness/equivalence":       {"harness/docgen", "harness/report", "results"},
	"harness/internal/spectest": {"harness/plan", "harness/spec"},
	"audit":                     {"internal/strictoml", "harness/plan", "harness/spec", "datasets/preprocess", "plotting", "internal/fileutil", "mechanisms", "mechanisms/accounting", "datasets", "solvers", "internal/rngs"},
	".":                         {"internal/strictoml", "harness/plan", "harness/spec", "harness/run", "harness/report", "harness/report/kinds", "harness/htmlreport", "harness/docgen", "harness/equivalence", "plotting", "results", "mechanisms/accounting", "datasets", "mechanisms", "internal/rngs", "internal/fileutil", "audit", "internal/suggest"},
	// Figure and table kinds of their own (harness/report/kinds/<kind>,
	// one entry for them all) are written against report's exported View:
	// they import report, never the reverse, nor run or one another; only
	// the assembly package imports them, and only the CLI imports that.
	kindPackages:           {"harness/report", "harness/plan", "harness/spec", "harness/curves", "results", "plotting", "datasets", "datasets/preprocess", "mechanisms/accounting", "internal/suggest"},
	"harness/report/kinds": {kindPackages},
}

// kindPackages stands for every package under harness/report/kinds/ in
// the layering table.
const kindPackages = "harness/report/kinds/*"

// TestLayering fails when a package imports a dplab package that the
// architecture table does not allow (test files excluded).
func TestLayering(t *testing.T) {
	t.Parallel()
	const module = "github.com/dplab/dplab"
	for _, p := range modulePackages(t) {
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if pkg == "" {
			pkg = "."
		}
		entry := pkg
		if strings.HasPrefix(pkg, "harness/report/kinds/") {
			entry = kindPackages
		}
		allowed, known := allowedImports[entry]
		if !known {
			t.Errorf("package %s is not in the layering table (docs/ARCHITECTURE.md)", pkg)
			continue
		}
		var bad []string
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if !contains(allowed, dep) && !(strings.HasPrefix(dep, "harness/report/kinds/") && contains(allowed, kindPackages)) {
				bad = append(bad, dep)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("package %s imports %v, which the layering table forbids", pkg, bad)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// eachSource calls f with the path and bytes of every non-test Go file of
// the module outside the folder except (and hidden folders).
func eachSource(t *testing.T, except string, f func(path string, src []byte)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || path == filepath.FromSlash(except)) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err == nil {
			f(path, src)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOneStrictDecoder fails when a non-test file outside internal/strictoml
// maps toml tags to struct fields itself: dplab has one strict decoder
// (the spec, plug-ins' params and key=value params all go through it).
func TestOneStrictDecoder(t *testing.T) {
	eachSource(t, "internal/strictoml", func(path string, src []byte) {
		if bytes.Contains(src, []byte(`Tag.Get("toml")`)) {
			t.Errorf("%s reads toml tags to decode: decode through internal/strictoml instead", path)
		}
	})
}

// TestExpandCalledOnlyByPlan fails when the grid is expanded anywhere but
// in plan.New: the expansion (checker.expand) is unexported in harness/plan,
// so no other package can call it, and within harness/plan only New does;
// every step (run, plan, shards, merge, render, report) reads the plan's
// cells.
func TestExpandCalledOnlyByPlan(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	dir := filepath.Join("harness", "plan")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "expand" || sel.Sel.Name == "Expand") {
						callers = append(callers, fn.Name.Name+" at "+fset.Position(call.Pos()).String())
					}
				}
				return true
			})
		}
	}
	if len(callers) != 1 || !strings.HasPrefix(callers[0], "New at ") {
		t.Errorf("the grid is expanded by %v; want one call, in plan.New", callers)
	}
	eachSource(t, "harness/plan", func(path string, src []byte) {
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Expand" {
					t.Errorf("%s calls Expand: take the cells of a plan (plan.New) instead", fset.Position(call.Pos()))
				}
			}
			return true
		})
	})
}
