package plan

import (
	"testing"

	"github.com/dplab/dplab/mechanisms"
)

// TestAuditedMechanism: an audit cell's key carries the version of the
// mechanism its target audits, also for a pipeline target, so a version
// bump of dpgd re-keys "dpgd+quantize" cells (fails before: the key cut the
// name at '/' only, looked up "dpgd+quantize" and used version 0).
func TestAuditedMechanism(t *testing.T) {
	for target, want := range map[string]string{
		"gaussian":              "gaussian",
		"dpgd":                  "dpgd",
		"ptr-pca-dpgd/gradient": "ptr-pca-dpgd",
		"dpgd+quantize":         "dpgd",
		"dpgd+dedup/clusters":   "dpgd",
	} {
		if got := auditedMechanism(target); got != want {
			t.Errorf("auditedMechanism(%q) = %q, want %q", target, got, want)
		}
	}
	for _, info := range mechanisms.List() {
		if auditedMechanism(info.Name) != info.Name {
			t.Errorf("registered mechanism %q holds '/' or '+'", info.Name)
		}
	}
}
