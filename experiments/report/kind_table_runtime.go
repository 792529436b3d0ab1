package report

// The "runtime" table kind is, per dataset, one row per (mechanism, ε) with
// the mean wall time, runs and per-example gradient evaluations of a trial
// (render_runtime.go).
func init() { registerSelectionTable("runtime", `datasets = ["Lin"]`, (*view).runtimeTables) }
