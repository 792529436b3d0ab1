package report

func init() {
	registerSelectionTable("privacy",
		"the calibration table: per dataset, one row per (mechanism, ε) with ε target, ε spent, δ, α*, the noise parameters and the ε of each ledger component.",
		`mechanisms = ["AdaSSP"]`, (*view).privacyTables)
}
