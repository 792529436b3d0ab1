// Package kinds assembles the figure and table kinds that live in packages
// of their own (harness/report/kinds/<kind>): importing it, for its side
// effect, registers them all with harness/report. The CLI imports it once;
// harness/report itself never does (TestLayering).
//
// A kind package is written against report's exported API only: it
// registers in init (report.RegisterFigure, RegisterTable or
// RegisterSelectionTable) a decoded block type whose Draw or Build reads a
// *report.View.
package kinds

import (
	_ "github.com/dplab/dplab/harness/report/kinds/auditgrid"     // kind = "audit" figures and tables
	_ "github.com/dplab/dplab/harness/report/kinds/curvesfigure"  // kind = "curves" figures
	_ "github.com/dplab/dplab/harness/report/kinds/curvestable"   // kind = "curves" tables
	_ "github.com/dplab/dplab/harness/report/kinds/epsilonfigure" // kind = "epsilon" figures (the default)
	_ "github.com/dplab/dplab/harness/report/kinds/probestable"   // kind = "probes" tables
	_ "github.com/dplab/dplab/harness/report/kinds/runtimetable"  // kind = "runtime" tables
)
