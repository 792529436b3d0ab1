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
// *SpecError (naming the file), never a panic, and without hanging: the 30 s bound
// catches a runaway input (validation builds every mechanism at every sweep point of a
// shipped spec in well under a second on a quiet machine) and is loose enough not to trip
// on a loaded one, where a 2 s bound did. Speed is measured by benchmarks, not here.
// Seeds: the shipped specs and the test spec.
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
		if d := time.Since(start); d > 30*time.Second {
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
