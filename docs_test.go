package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/results"
)

// generatedDocs are the documents with generated sections: their files
// (a glob), the folder of the specs they name and the parent of those
// specs' committed evidence folders (dplab docs --specs, --evidence).
var generatedDocs = []struct{ docs, specs, evidence string }{
	{filepath.Join("docs", "reproduction", "*.md"), "experiments", filepath.Join("docs", "reproduction", "evidence")},
	{filepath.Join("docs", "external.md"), filepath.Join("examples", "external"), filepath.Join("examples", "external", "evidence")},
}

// TestReproductionDocsGenerated renders every marked section of
// docs/reproduction/*.md and docs/external.md (tables, figures and
// verdicts), the figures' files, and the summary.csv and claims.md of
// every evidence folder, from the committed evidence of the full-size runs
// with the current specs and code, and fails when a file differs, naming
// the document, the section and a diff excerpt: a change of a spec's CI
// method, a label or a table's format cannot leave a doc stale. make docs
// regenerates them.
func TestReproductionDocsGenerated(t *testing.T) {
	t.Parallel()
	for _, set := range generatedDocs {
		docs, err := filepath.Glob(set.docs)
		if err != nil || len(docs) == 0 {
			t.Fatalf("no documents %s: %v", set.docs, err)
		}
		g := docgen.New(docgen.Config{Specs: set.specs, Evidence: set.evidence})
		names, err := g.Specs(docs)
		if err != nil {
			t.Fatal(err)
		}
		files, err := g.Generate(docs, names)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range docgen.Check(files) {
			t.Errorf("%s(run make docs and review the diff)", s)
		}
	}
}

// checkEvidence makes the evidence of the quick run of spec stored in dir
// and checks that it renders what the run wrote: every table's CSV (its
// numbers at full precision and its best/tied columns) but those stating
// wall times the evidence does not keep, claims.json byte for byte, and
// summary.csv but its wall-time column.
func checkEvidence(t *testing.T, name, path, dir string) {
	t.Helper()
	s := loadQuick(t, path)
	e, err := report.NewEvidence(s, results.FromDir(dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.JSON()
	if err == nil {
		e, err = report.ParseEvidence(path, b)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Outputs(s)
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got, want := dropColumn(t, out.Summary, "wall_s_mean"), dropColumn(t, read(results.SummaryFile), "wall_s_mean"); !bytes.Equal(got, want) {
		t.Errorf("evidence: summary.csv differs from the run's")
	}
	if out.Claims != nil {
		if got, _ := out.Claims.JSON(); !bytes.Equal(got, read(report.ClaimsJSON)) {
			t.Errorf("evidence: claims differ from the run's claims.json")
		}
	}
	checked := 0
	for _, tab := range out.Tables {
		rel := "tables/" + tab.Name + ".csv"
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil || timingOutputs[name+"/"+rel] || timingPrefixed(name+"/"+rel) {
			continue // not written as CSV, or wall times
		}
		var got bytes.Buffer
		if err := tab.WriteCSV(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), read(rel)) {
			t.Errorf("evidence: %s differs from the run's:\n%s\nrun:\n%s", rel, got.String(), strings.TrimSpace(string(read(rel))))
		}
		checked++
	}
	if len(out.Tables) > 0 && checked == 0 && !strings.HasPrefix(name, "compare_") {
		t.Errorf("evidence: none of the %d tables checked", len(out.Tables))
	}
}
