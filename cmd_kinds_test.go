package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/report"
)

// TestKindsListsEveryKind: "dplab kinds" has a row per registered figure
// and table kind and per [[claim]] check kind, and "dplab kinds KIND" every
// key of its block with its type and doc, and the example.
func TestKindsListsEveryKind(t *testing.T) {
	code, out, errOut := runCLI(t, "kinds")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	kinds := report.Kinds()
	if len(kinds) < 10 {
		t.Fatalf("%d kinds registered, want the 3 figure and 7 table kinds at least", len(kinds))
	}
	for _, k := range kinds {
		if !regexp.MustCompile(`(?m)^` + k.Block + ` +` + regexp.QuoteMeta(k.Kind) + ` +\S`).MatchString(out) {
			t.Errorf("no row for %s kind %s in:\n%s", k.Block, k.Kind, out)
		}
		code, desc, errOut := runCLI(t, "kinds", k.Kind)
		if code != 0 {
			t.Fatalf("kinds %s: exit %d: %s", k.Kind, code, errOut)
		}
		flat := strings.Join(strings.Fields(desc), " ")
		if !strings.Contains(desc, "[["+k.Block+"]] "+k.Key+" = \""+k.Kind+"\"\n") {
			t.Errorf("kinds %s: no heading for the %s kind:\n%s", k.Kind, k.Block, desc)
		}
		for _, p := range k.Params {
			if !strings.Contains(desc, "\n  "+p.Key+"  "+p.Type+"\n") || !strings.Contains(flat, p.Doc) {
				t.Errorf("kinds %s: key %s (%s) or its doc %q missing:\n%s", k.Kind, p.Key, p.Type, p.Doc, desc)
			}
		}
		for _, line := range strings.Split(k.Example, "\n") {
			if !strings.Contains(desc, "\n  "+line+"\n") {
				t.Errorf("kinds %s: example line %q missing", k.Kind, line)
			}
		}
	}
	// Known values: the epsilon figure's band key and its default.
	_, out, _ = runCLI(t, "kinds", "epsilon")
	for _, w := range []string{"[[figure]] kind = \"epsilon\"", "[[table]] kind = \"epsilon\"", "\n  band  string\n", `"ci" (default)`, "\n  metric  string\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("dplab kinds epsilon lacks %q:\n%s", w, out)
		}
	}
	// The claim checks (experiments/README.md, "Paper claims"): each with
	// the keys of its kind only, the example's check first.
	for _, tc := range []struct {
		check      string
		has, lacks []string
	}{
		{"better", []string{"a", "b", "better", "quote"}, []string{"min", "paper_value", "over", "check"}},
		{"ratio", []string{"b", "min", "max", "paper_value", "tolerance", "factor"}, []string{"better", "over", "at", "direction"}},
		{"value", []string{"a", "paper_value", "paper_is", "min"}, []string{"b", "better", "over"}},
		{"crossover", []string{"b", "better", "over", "at", "paper_value"}, []string{"direction", "min", "tolerance"}},
		{"monotone", []string{"over", "direction", "any_of", "b"}, []string{"at", "paper_value", "min"}},
	} {
		code, out, errOut := runCLI(t, "kinds", tc.check)
		if code != 0 || !strings.HasPrefix(out, "[[claim]] check = \""+tc.check+"\"\n") || !strings.Contains(out, "\n  [[claim]]\n  check = \""+tc.check+"\"\n  id = ") {
			t.Errorf("dplab kinds %s: exit %d, %s\n%s", tc.check, code, errOut, out)
		}
		for _, k := range tc.has {
			if !regexp.MustCompile(`\n  ` + k + `  \S`).MatchString(out) {
				t.Errorf("dplab kinds %s lacks the key %s:\n%s", tc.check, k, out)
			}
		}
		for _, k := range tc.lacks {
			if regexp.MustCompile(`\n  ` + k + `  \S`).MatchString(out) {
				t.Errorf("dplab kinds %s lists %s, which a %s check does not take", tc.check, k, tc.check)
			}
		}
	}
}

func TestKindsUnknownName(t *testing.T) {
	code, _, errOut := runCLI(t, "kinds", "epsillon")
	if code != 2 || !strings.Contains(errOut, `unknown figure or table kind or claim check "epsillon" (did you mean "epsilon"?); known kinds: audit, better, crossover, curves,`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"draws x. Then y.":             "draws x.",
		"a trace (e.g. loss). More.":   "a trace (e.g. loss).",
		"one sentence":                 "one sentence",
		"i.e. this, e.g. that. Next. ": "i.e. this, e.g. that.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
