package main

import (
	"os/exec"
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
	"internal/fileutil":     {},
	"internal/buildtest":    {},
	"internal/benchcpu":     {},
	"internal/fielddoc":     {},
	"internal/datatest":     {"datasets"},
	"mechanisms/accounting": {"internal/oncemap"},
	"datasets":              {"internal/suggest", "internal/rngs", "internal/registry", "internal/oncemap"},
	"datasets/preprocess":   {"internal/rngs", "mechanisms/accounting", "datasets"},
	"solvers":               {"internal/rngs"},
	"mechanisms":            {"mechanisms/accounting", "datasets", "datasets/preprocess", "solvers", "internal/rngs", "internal/registry", "internal/oncemap", "internal/fielddoc"},
	"results":               {"internal/fileutil"},
	"plotting":              {"internal/fileutil"},
	// harness/spec ← harness/run ← harness/report: one way.
	"harness/curves":            {"mechanisms/accounting", "datasets/preprocess"},
	"harness/spec":              {"internal/suggest", "internal/fileutil", "harness/curves", "mechanisms/accounting", "datasets", "datasets/preprocess", "mechanisms", "results"},
	"harness/run":               {"harness/spec", "mechanisms/accounting", "datasets", "datasets/preprocess", "solvers", "mechanisms", "results", "internal/rngs", "internal/oncemap", "internal/fileutil"},
	"harness/report":            {"internal/suggest", "internal/fielddoc", "harness/spec", "harness/run", "harness/curves", "mechanisms/accounting", "datasets", "datasets/preprocess", "results", "plotting", "internal/fileutil"},
	"harness/htmlreport":        {"harness/report", "harness/spec", "mechanisms/accounting", "results", "audit"},
	"harness/docgen":            {"harness/report", "harness/spec", "results", "plotting", "internal/fileutil", "internal/suggest"},
	"harness/internal/spectest": {"harness/spec"},
	"audit":                     {"harness/spec", "datasets/preprocess", "plotting", "internal/fileutil", "mechanisms", "mechanisms/accounting", "datasets", "solvers", "internal/rngs"},
	".":                         {"harness/spec", "harness/run", "harness/report", "harness/report/kinds", "harness/htmlreport", "harness/docgen", "plotting", "results", "mechanisms/accounting", "datasets", "mechanisms", "internal/rngs", "internal/fileutil", "audit", "internal/suggest"},
	// Figure and table kinds of their own (harness/report/kinds/<kind>,
	// one entry for them all) are written against report's exported View:
	// they import report, never the reverse, nor run or one another; only
	// the assembly package imports them, and only the CLI imports that.
	kindPackages:           {"harness/report", "harness/spec", "harness/curves", "results", "plotting", "datasets", "datasets/preprocess", "mechanisms/accounting", "internal/suggest"},
	"harness/report/kinds": {kindPackages},
}

// kindPackages stands for every package under harness/report/kinds/ in
// the layering table.
const kindPackages = "harness/report/kinds/*"

// TestLayering fails when a package imports a dplab package that the
// architecture table does not allow (test files excluded).
func TestLayering(t *testing.T) {
	const module = "github.com/dplab/dplab"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
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
		for _, imp := range fields[1:] {
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
