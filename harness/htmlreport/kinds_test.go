package htmlreport

// The figure and table kinds of their own packages (the default figure
// kind "epsilon" among them) register when a program imports their
// assembly package, as the CLI does; the pages these tests build render
// specs that use them.
import _ "github.com/dplab/dplab/harness/report/kinds"
