package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dplab/dplab/mechanisms"
)

// TestMechanismsListShowsEveryMechanism: "dplab mechanisms" has one row per
// registered mechanism with its relation, events and citation key.
func TestMechanismsListShowsEveryMechanism(t *testing.T) {
	code, out, errOut := runCLI(t, "mechanisms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, in := range mechanisms.List() {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in.Name) + ` .*$`).FindString(out)
		if row == "" {
			t.Errorf("no row for %s in:\n%s", in.Name, out)
			continue
		}
		want := []string{in.Title, in.Ref, strings.Join(in.Events, ", ")}
		if in.Private {
			want = append(want, in.Relation)
		}
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row of %s lacks %q: %s", in.Name, w, row)
			}
		}
	}
}

// TestMechanismsDescribeEveryParam: "dplab mechanisms NAME" prints every
// key of the mechanism's params with its type, default and range, and the
// full citation of its paper.
func TestMechanismsDescribeEveryParam(t *testing.T) {
	for _, in := range mechanisms.List() {
		code, out, errOut := runCLI(t, "mechanisms", in.Name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", in.Name, code, errOut)
		}
		e, _ := mechanisms.Lookup(in.Name)
		for _, p := range e.Params() {
			line := "\n  " + p.Key + "  " + p.Type + ", default " + p.Default + ", range " + p.Range + "\n"
			if !strings.Contains(out, line) {
				t.Errorf("%s: no line %q in:\n%s", in.Name, line, out)
			}
		}
		if c := paperCitation(in.Ref); c == "" || !strings.Contains(strings.Join(strings.Fields(out), " "), c) {
			t.Errorf("%s: the citation of [%s] (%q) is not printed:\n%s", in.Name, in.Ref, c, out)
		}
	}
	// Known values, independent of the registry code: AdaSSP's ρ defaults to
	// 1e-4 and its paper is arXiv:1803.02596; dgd (no noise) does not list
	// the private-only keys of the params struct it shares.
	_, out, _ := runCLI(t, "mechanisms", "adassp")
	for _, w := range []string{"\n  rho  float, default 1e-4, range (0, 1)\n", "failure probability ρ", "[Wang18] Y.-X. Wang. Revisiting", "arXiv:1803.02596", "relation add_remove"} {
		if !strings.Contains(out, w) {
			t.Errorf("dplab mechanisms adassp lacks %q:\n%s", w, out)
		}
	}
	_, out, _ = runCLI(t, "mechanisms", "dgd")
	if strings.Contains(out, "\n  alpha  ") || !strings.Contains(out, "\n  nodes  ") {
		t.Errorf("dplab mechanisms dgd: want nodes and no alpha:\n%s", out)
	}
}

func TestMechanismsUnknownName(t *testing.T) {
	code, _, errOut := runCLI(t, "mechanisms", "adasp")
	if code != 2 || !strings.Contains(errOut, `unknown mechanism "adasp"`) || !strings.Contains(errOut, "adassp") {
		t.Errorf("exit %d, stderr %q: want 2 and the known names", code, errOut)
	}
}

// TestPaperCitationsForOutsideReaders: the citations dplab mechanisms
// prints keep authors, title and arXiv id but no pointer into ../shared,
// which a reader of the output does not have, and no punctuation left
// dangling by its removal.
func TestPaperCitationsForOutsideReaders(t *testing.T) {
	keys := regexp.MustCompile(`(?m)^- \[([^\]]+)\] `).FindAllStringSubmatch(referencesMD, -1)
	if len(keys) < 30 {
		t.Fatalf("%d entries parsed from docs/references.md", len(keys))
	}
	for _, k := range keys {
		c := paperCitation(k[1])
		for _, bad := range []string{"../shared", "()", " .", " ,", "(;", ";)", "in ."} {
			if strings.Contains(c, bad) {
				t.Errorf("[%s] %q contains %q", k[1], c, bad)
			}
		}
	}
	for in, want := range map[string]string{
		"A. B. Title. 2024, arXiv:1 (v2). Code o/r; formulas in `../shared/research/x.md`.":   "A. B. Title. 2024, arXiv:1 (v2). Code o/r.",
		"A. B. Title. 2023 (dated 31 Dec). Formulas and errata in `../shared/research/y.md`.": "A. B. Title. 2023 (dated 31 Dec).",
		"A. B. Title. 2023, the first version (`../shared/papers/002_*.txt`), cited as v1.":   "A. B. Title. 2023, the first version, cited as v1.",
		"A. B. Title. Code `common/datasets.py`: recipes.":                                    "A. B. Title. Code `common/datasets.py`: recipes.",
	} {
		if got := withoutSharedPaths(in); got != want {
			t.Errorf("withoutSharedPaths(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
