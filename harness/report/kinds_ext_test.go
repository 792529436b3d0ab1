package report_test

// The kinds that live in packages of their own register with this
// package when the test binary imports them, as the CLI does: every test
// of the package (TestEveryKindRenders, the goldens of the shipped specs)
// sees every kind.
import _ "github.com/dplab/dplab/harness/report/kinds"
