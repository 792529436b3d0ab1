package report

// The "privacy" table kind is the calibration table: per dataset, one row
// per (mechanism, ε) with ε target, ε spent, δ, α*, the noise parameters and
// the ε of each ledger component (render_privacy.go).
func init() { registerSelectionTable("privacy", `mechanisms = ["AdaSSP"]`, (*view).privacyTables) }
