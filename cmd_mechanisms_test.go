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
	for key, want := range map[string]string{
		"HMB23":  `H. Hendrikx, P. Mangold, A. Bellet. The Relative Gaussian Mechanism and its Application to Private Gradient Descent. AISTATS 2024, arXiv:2308.15250v2 (v2 corrects Theorem 1). v1: the 2023 first version, cited as "v1".`,
		"HSS24":  `Y. Hu, A. Sanyal, B. Schölkopf. Provable Privacy with Non-Private Pre-Processing. ICML 2024 (PMLR 235), arXiv:2403.13041v1.`,
		"LSS+25": `O. Lev, V. Srinivasan, M. Shenfeld, K. Ligett, A. Sekhari, A. C. Wilson. The Gaussian Mixing Mechanism: Rényi Differential Privacy via Gaussian Sketches. NeurIPS 2025, arXiv:2505.24603 (the stored text prints no version; numbering as there). Code omrilev1/GaussMix.`,
		"RKW23":  `R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and Practicality of Objective Perturbation for Differentially Private Linear Learners. NeurIPS 2023, arXiv:2401.00583v1 (dated 31 Dec 2023).`,
	} {
		if got := paperCitation(key); got != want {
			t.Errorf("[%s]\n got %s\nwant %s", key, got, want)
		}
	}
}
