// Package plotting renders an experiment's figures (PNG and SVG, with
// gonum/plot) and tables (Markdown, LaTeX booktabs, CSV).
//
// It knows nothing about mechanisms, specs or records: callers hand it Figures
// made of Panels made of Series (x, y and an optional band), and Tables whose
// cells are Entries (a mean and an interval half-width).
//
// # Invariants
//
//   - Output is a pure function of the input: the same Figure gives
//     byte-identical PNG and SVG files (gonum/plot embeds no timestamps; PDF,
//     which does, is not offered).
//   - A Series keeps the same colour and marker in every panel of a figure
//     (its Style index), so a method is recognisable across panels.
//   - Bad input (a non-positive value on a log axis, mismatched lengths, an
//     unknown format) is an error, never a panic.
package plotting
