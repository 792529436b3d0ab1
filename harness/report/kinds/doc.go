// Package kinds assembles the figure and table kinds that live in packages
// of their own (harness/report/kinds/<kind>): importing it, for its side
// effect, registers them all with harness/report. The CLI imports it once;
// harness/report itself never does (TestLayering).
//
// A kind package is written against report's exported API only: it
// registers in init (report.RegisterFigure, RegisterTable or
// RegisterSelectionTable) a decoded block type whose Draw or Build reads a
// *report.View. Its params_doc.go and its import in kinds.go are generated:
// go generate ./harness/report writes them for every folder here that holds
// Go source (TestKindDocsGenerated).
package kinds
