package report

func init() {
	registerSelectionTable("runtime",
		"per dataset, one row per (mechanism, ε) with the mean wall time, runs and per-example gradient evaluations of a trial (render_runtime.go).",
		`datasets = ["Lin"]`, (*view).runtimeTables)
}
