package spec

import (
	"testing"

	"github.com/dplab/dplab/internal/fileutil"
)

// TestNameMaxIsFileutils: the spec's NameMax, by which a name is refused at
// load, is the one the writers check (fileutil.NameMax).
func TestNameMaxIsFileutils(t *testing.T) {
	if NameMax != fileutil.NameMax {
		t.Fatalf("spec.NameMax = %d, fileutil.NameMax = %d", NameMax, fileutil.NameMax)
	}
}
