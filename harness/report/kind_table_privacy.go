package report

import "github.com/dplab/dplab/plotting"

// privacyKind is the calibration table's kind.
const privacyKind = "privacy"

func init() {
	RegisterSelectionTable(privacyKind,
		"the calibration table: per dataset, one row per (mechanism, ε) with ε target, ε spent, δ, α*, the noise parameters and the ε of each ledger component.",
		`mechanisms = ["AdaSSP"]`, func(v *View, t *Selection) []*plotting.Table { return v.privacyTables(t) })
}
