package experiments

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeExample parses the annotated example of experiments/README.md, so
// the spec reference cannot drift from the decoder.
func TestReadmeExample(t *testing.T) {
	b, err := os.ReadFile("README.md")
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
	if len(s.Expand()) != 6 {
		t.Errorf("the example expands to %d cells, want 6 (5 ε for AdaSSP + ridge)", len(s.Expand()))
	}
	if err := s.ApplyQuick(); err != nil {
		t.Fatalf("the example's [quick]: %v", err)
	}
}

// TestShippedSpecsValidate checks every spec in experiments/ and its quick
// variant.
func TestShippedSpecsValidate(t *testing.T) {
	entries, _ := os.ReadDir(".")
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		n++
		s, err := Load(e.Name())
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := s.ApplyQuick(); err != nil {
			t.Errorf("%s [quick]: %v", e.Name(), err)
		}
	}
	if n == 0 {
		t.Fatal("no specs found")
	}
}
