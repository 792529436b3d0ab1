package plotting

import (
	"fmt"
	"image/png"
	"io"

	"gonum.org/v1/plot/vg"
)

// pngLevel is the compression level of PNG figures: image/png's fastest.
// On the repository's 23 figures (BenchmarkEncodeFigures) its files are
// 3% larger than at the default level, which takes 1.8 times as long.
const pngLevel = png.BestSpeed

// writeCanvas writes a rendered canvas: a PNG canvas through image/png at
// pngLevel (a fixed level: the same image gives the same bytes), any
// other (SVG) by its own WriteTo.
func writeCanvas(w io.Writer, c vg.CanvasSizer) error {
	switch c := c.(type) {
	case *pngCanvas:
		enc := png.Encoder{CompressionLevel: pngLevel}
		return enc.Encode(w, c.Image())
	case vg.CanvasWriterTo:
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("plotting: cannot write a %T canvas", c)
}
