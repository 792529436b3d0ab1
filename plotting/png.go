package plotting

import (
	"fmt"
	"image/png"
	"io"

	"gonum.org/v1/plot/vg"
)

// pngLevel is the compression level of PNG figures: image/png's fastest.
// The default level takes 1.3 to 1.5 times as long for files 3 to 5%
// smaller (BenchmarkEncodeFigures on the docs' figures and on the --quick
// runs', benchstat medians).
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
