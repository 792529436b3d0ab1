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
package plotting
