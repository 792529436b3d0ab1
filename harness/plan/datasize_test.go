package plan

import (
	"errors"
	"fmt"
	"github.com/dplab/dplab/harness/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataSizeLimit (issue 34, item 5): a dataset whose values would take
// more than Limits.MaxDataBytes is refused when the spec is validated,
// before anything is loaded, with an error at its params naming it, its
// n × d, its bytes and the limit: a generator's n × d, a registered file
// loaded whole (higgs with max_rows = 0), a user's file by its size. A
// raised limit accepts them. The four generated datasets of
// n·d = 10⁸ each pass (808 MB each: the run loads them one at a time when
// memory is short).
func TestDataSizeLimit(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(5 << 30); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	f.Close()
	head := "name = \"big\"\nseed = 1\ntrials = 1\nepsilon = [1]\ndelta = 1e-6\n"
	mech := "[[mechanism]]\nname = \"ridge\"\n"
	for _, tc := range []struct{ name, params, label, shape, mech string }{
		{"synthetic-linear", "{ n = 3_000_000, d = 100 }", "wide", "n × d = 3000000 × 100: 2424000000 bytes", mech},
		{"higgs", "{ max_rows = 0 }", "all of HIGGS", "n × d = 11000000 × 28: 2552000000 bytes", mech},
		{"features-csv", fmt.Sprintf("{ path = %q }", big), "user", "at most 2684354561 values: 21474836488 bytes", "[[mechanism]]\nname = \"logreg\"\n"},
	} {
		src := head + fmt.Sprintf("[[dataset]]\nname = %q\nlabel = %q\nparams = %s\n", tc.name, tc.label, tc.params) + tc.mech
		_, err := Parse("big.toml", []byte(src))
		var se *spec.SpecError
		if !errors.As(err, &se) || se.Line != 9 || se.Key != "dataset[0].params" ||
			!strings.Contains(err.Error(), fmt.Sprintf("dataset %q holds %s", tc.label, tc.shape)) ||
			!strings.Contains(err.Error(), "above the limit of 2147483648 bytes (2.15 GB) per dataset") || !strings.Contains(err.Error(), "--max-data-bytes") {
			t.Errorf("%s: %v, want the size error at big.toml:9 (dataset[0].params)", tc.name, err)
		}
		if _, err := ParseWith("big.toml", []byte(src), spec.LoadOptions{Limits: spec.Limits{MaxDataBytes: 32 << 30}}); err != nil {
			t.Errorf("%s with the limit raised: %v", tc.name, err)
		}
	}
	var four strings.Builder
	four.WriteString(head)
	for i := range 4 {
		fmt.Fprintf(&four, "[[dataset]]\nname = \"synthetic-linear\"\nlabel = \"d%d\"\nparams = { n = 1_000_000, d = 100, seed = %d }\n", i, i)
	}
	four.WriteString(mech)
	if _, err := Parse("four.toml", []byte(four.String())); err != nil {
		t.Errorf("four datasets of 10⁸ values: %v", err)
	}
}
