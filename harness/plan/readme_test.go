package plan

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dplab/dplab/results"
)

// TestReadmeExample parses the annotated example of experiments/README.md, so
// the spec reference cannot drift from the decoder.
func TestReadmeExample(t *testing.T) {
	b, err := os.ReadFile("../../experiments/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "```toml\n")
	end := strings.Index(text[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("README.md has no toml example")
	}
	s, err := Parse("README.md example", []byte(text[start+8:start+8+end]))
	if err != nil {
		t.Fatal(err)
	}
	if len(cellsOf(t, s)) != 6 {
		t.Errorf("the example expands to %d cells, want 6 (5 ε for AdaSSP + ridge)", len(cellsOf(t, s)))
	}
	if _, err := ApplyQuick(s); err != nil {
		t.Fatalf("the example's [quick]: %v", err)
	}
}

// TestReadmeStatesWhatEpsilonCovers (issue 9 item 15): the README no longer
// claims that every reported ε is what the whole procedure spent; it names
// each record field that qualifies eps_spent (the keys are taken from the
// record's JSON encoding, so renaming one fails this test) and each case they
// cover.
func TestReadmeStatesWhatEpsilonCovers(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	if strings.Contains(readme, "every reported ε is the privacy the whole procedure spent") {
		t.Error("README still claims every reported ε is the privacy the whole procedure spent")
	}
	r := results.Record{Diagnostics: map[string]results.Float{"x": 1},
		Privacy: results.Privacy{EpsPerRun: 1, Selection: "x", Assumptions: []string{"x"}}}
	enc, _ := json.Marshal(&r)
	var top struct {
		Privacy map[string]json.RawMessage `json:"privacy"`
		Diag    json.RawMessage            `json:"diagnostics_nonprivate"`
	}
	if err := json.Unmarshal(enc, &top); err != nil || top.Diag == nil {
		t.Fatalf("record encoding %s: %v", enc, err)
	}
	fields := []string{"diagnostics_nonprivate"}
	for _, k := range []string{"eps_spent", "eps_per_run", "selection", "assumptions"} {
		if _, ok := top.Privacy[k]; !ok {
			t.Fatalf("the record's privacy has no %q: %s", k, enc)
		}
		fields = append(fields, k)
	}
	for _, f := range fields {
		if !strings.Contains(readme, "`"+f+"`") && !strings.Contains(readme, "`privacy."+f+"`") {
			t.Errorf("README does not name the record field %s", f)
		}
	}
	for _, c := range []string{"Oracle tuning", "selection not private", "Public n", "max |y|", "Adult's column maxima", "Crime's z-scores"} {
		if !strings.Contains(readme, c) {
			t.Errorf("README does not say what ε does not cover: %q missing", c)
		}
	}
}

// TestValidationSpecWording (issue 9 item 12): objpert_validation.toml no
// longer calls selection on a validation split "the honest protocol"; it
// says the selection is not private.
func TestValidationSpecWording(t *testing.T) {
	b, err := os.ReadFile("../../experiments/objpert_validation.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	if strings.Contains(text, "honest protocol") || !strings.Contains(text, "Neither selection is private") {
		t.Error("objpert_validation.toml presents validation selection as an honest (private) protocol")
	}
}

// TestReadmePreprocessExample parses the pre-processing example of
// experiments/README.md, as written and with its commented pipeline keys
// set, and checks what it builds: PCA rank reduction in front of DP-GD
// with a declared eigengap.
func TestReadmePreprocessExample(t *testing.T) {
	b, err := os.ReadFile("../../experiments/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	sec := strings.Index(text, "## Pre-processing in front of a mechanism")
	if sec < 0 {
		t.Fatal("README.md has no pre-processing section")
	}
	start := strings.Index(text[sec:], "```toml\n")
	end := strings.Index(text[sec+start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("the pre-processing section has no toml example")
	}
	src := text[sec+start+8 : sec+start+8+end]
	uncommented := src
	for _, k := range []string{"analyses", "group_size_offset", "on_violation"} {
		uncommented = strings.Replace(uncommented, "# "+k+" =", k+" =", 1)
	}
	if uncommented == src {
		t.Fatal("no commented pipeline keys found")
	}
	for _, in := range []string{src, uncommented} {
		s, err := Parse("README.md pre-processing example", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(cellsOf(t, s)); n != 6 {
			t.Errorf("the example expands to %d cells, want 6", n)
		}
		p := preprocessingOf(t, s, 0)
		if p == nil || p.StepsText() != "pca-rank[k=5]" || p.Collection.GapK != 0.05 || preprocessingOf(t, s, 1) != nil {
			t.Errorf("pipeline %+v", p)
		}
	}
}
