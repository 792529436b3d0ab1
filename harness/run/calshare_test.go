package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestValidationAndRunShareCalibrations: validating a spec (plan.Parse's
// target check) and running it in one process calibrate each (family,
// target) once: the run asks for the families validation calibrated and
// finds them in the shared memo (accounting.SharedCalibrator). The two
// accountant-calibrated sketching mechanisms below charge one family each
// per ε, 2 × 2 = 4 searches (the ε are used by no other test, so nothing
// is memoised before). Before validation and the run shared the memo, the
// run searched again: 8 (fails before).
func TestValidationAndRunShareCalibrations(t *testing.T) {
	const src = `name = "calshare"
seed = 4
trials = 2
epsilon = [0.4137, 2.3171]
delta = 1e-5
[[dataset]]
name = "synthetic-linear"
params = { n = 300, d = 4, seed = 2 }
[[mechanism]]
name = "linear-mixing"
params = { calibration = "accountant" }
[[mechanism]]
name = "sheffet17-renyi"
params = { calibration = "accountant" }
`
	before := accounting.CalibrationSearches()
	s, err := plan.Parse("calshare.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	validated := accounting.CalibrationSearches() - before
	if _, err := Run(context.Background(), s, Options{OutDir: filepath.Join(t.TempDir(), "out"), Jobs: 2, Cache: &DataCache{}}); err != nil {
		t.Fatal(err)
	}
	total := accounting.CalibrationSearches() - before
	t.Logf("validation %d searches, validation and run %d", validated, total)
	if validated != 4 || total != 4 {
		t.Errorf("validation ran %d calibration searches, validation and run %d: want 4 and 4 (one per family and ε)", validated, total)
	}
}
