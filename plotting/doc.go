// Package plotting renders an experiment's figures (PNG and SVG, with
// gonum/plot) and tables (Markdown, LaTeX booktabs, CSV).
//
// It knows nothing about mechanisms, specs or records: callers hand it Figures
// made of Panels made of Series (x, y and an optional band), and Tables whose
// cells are Entries (a mean and an interval half-width), each with a Caption:
// one line shown with it and the notes of its caption files
// (<name>.caption.md, <name>.caption.tex), written beside it.
//
// # Invariants
//
//   - Output is a pure function of the input: the same Figure gives
//     byte-identical PNG and SVG files (gonum/plot embeds no timestamps; PDF,
//     which does, is not offered). A PNG's pixels are fixed; its bytes are
//     image/png's at a fixed level, which a Go release may compress
//     differently (the golden test hashes a PNG's decoded pixels).
//   - A Series keeps the same colour, marker and line style in every panel
//     of a figure and in its one legend (its Style index, and the style a
//     label gets when it coincides with another), so a method is
//     recognisable across panels.
//   - Inside the image: the title, axes, one legend, curves, bands and at
//     most one caption line at default sizes (it wraps rather than loses a
//     word); everything else goes to the caption files.
//   - Bad input (a non-positive value on a log axis, mismatched lengths, an
//     unknown format) is an error, never a panic.
//
// # Caption files
//
// Write and WriteTable write, beside <name>.png|svg or <name>.md|tex|csv:
//
//   - <name>.caption.md: UTF-8 Markdown. First line: the title in bold and
//     the caption line, "**<Title>.** <line>."; then, after a blank line, one
//     item "- <note>." per note. A figure's notes end with which curves are
//     drawn on top of one another and their line styles; a table's with how
//     its bold and † entries read. Math markup is written as Unicode
//     (PlainText: "θ_t" → "θₜ").
//   - <name>.caption.tex: ASCII LaTeX: a % comment naming the file it
//     captions, \caption{<Title>. <line>. <note>. …} and \label{fig:<name>}
//     (tab: for a table), for \input inside the figure or table environment.
//
// # Inside the image
//
// One legend per figure (legend.go: every label of all panels once, in an
// empty grid slot or a skipped panel, else inside a panel's axes covering no
// data point, else below the panels); headroom of 4% of each axis; ticks
// (ticks.go: a log axis every decade, minor ticks up to 10 decades; a linear
// axis 4 to 8 labels at 1, 2, 2.5 or 5 × 10ᵏ); axis limits, ticks and
// horizontal lines set per figure (Figure.X, Figure.Y, Figure.HLines); math
// markup (mathtext.go); markers at every point of a series of at most 12
// points; curves within 1% of the axis of one another get distinct line
// styles (coincide.go).
package plotting
