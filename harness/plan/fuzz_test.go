package plan

import (
	"errors"
	"github.com/dplab/dplab/harness/spec"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParse: any bytes given as a spec are accepted or refused with a
// *SpecError (naming the file), never a panic, within 2 s. Seeds: the shipped specs and
// the test spec.
func FuzzParse(f *testing.F) {
	f.Add([]byte(validSpec))
	paths, _ := filepath.Glob("../../experiments/*.toml")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		start := time.Now()
		s, err := Parse("f.toml", src)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Parse took %v", d)
		}
		if err == nil {
			if s == nil {
				t.Fatal("nil spec without an error")
			}
			return
		}
		var se *spec.SpecError
		if !errors.As(err, &se) || se.File != "f.toml" {
			t.Fatalf("error %v (%T), want a *SpecError naming f.toml", err, err)
		}
	})
}
