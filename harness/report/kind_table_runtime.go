package report

func init() {
	registerSelectionTable("runtime",
		"per dataset, one row per (mechanism, ε) with the mean wall time, runs and per-example gradient evaluations of a trial.",
		`datasets = ["Lin"]`, (*view).runtimeTables)
}
