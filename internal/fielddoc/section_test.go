package fielddoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSection: a section equal to the content passes; a stale one is
// an error naming the file, the command and the first differing line, and
// with UpdateEnv set is rewritten, leaving the text around it alone; a
// document without the markers is an error.
func TestCheckSection(t *testing.T) {
	begin, end := SectionMarkers("table", "go generate ./x")
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "# Doc\n\n" + begin + "\n| a |\n" + end + "\n\nafter\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckSection(path, "table", []byte("| a |\n"), "go generate ./x"); err != nil {
		t.Errorf("an up-to-date section: %v", err)
	}
	err := CheckSection(path, "table", []byte("| b |"), "go generate ./x")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "go generate ./x") || !strings.Contains(err.Error(), `"| a |", want "| b |"`) {
		t.Errorf("a stale section: %v", err)
	}
	t.Setenv(UpdateEnv, "1")
	if err := CheckSection(path, "table", []byte("| b |\n| c |\n"), "go generate ./x"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "# Doc\n\n" + begin + "\n| b |\n| c |\n" + end + "\n\nafter\n"; string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	if err := CheckSection(path, "other", nil, "go generate ./x"); err == nil || !strings.Contains(err.Error(), "no generated section other") {
		t.Errorf("a missing section: %v", err)
	}
}
