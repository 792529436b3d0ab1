package plotting

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkEncodeFigures encodes real figures, decoded to the *image.RGBA
// a PNG canvas draws, one after another: ns/op is the time for all of
// them, bytes the total written. The figures are every PNG under docs/
// (the reproduction docs' 23, rendered at 110 dpi) or, with
// DPLAB_BENCH_FIGURES=<dir>, every PNG under dir (a run's figures, at
// DefaultDPI: e.g. the --quick runs of experiments/*.toml).
// Each level of image/png is a sub-benchmark: BestSpeed (pngLevel, what
// writeCanvas writes) and the default. At 502de7a it also measured the
// private encoder this replaced (enc=private).
func BenchmarkEncodeFigures(b *testing.B) {
	var paths []string
	if dir := os.Getenv("DPLAB_BENCH_FIGURES"); dir != "" {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".png") {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	} else {
		for _, pattern := range []string{"../docs/img/*.png", "../docs/reproduction/img/*.png"} {
			m, err := filepath.Glob(pattern)
			if err != nil {
				b.Fatal(err)
			}
			paths = append(paths, m...)
		}
	}
	if len(paths) == 0 {
		b.Fatal("no figures")
	}
	var imgs []*image.RGBA
	pixels := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		src, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			b.Fatalf("%s: %v", p, err)
		}
		img := image.NewRGBA(src.Bounds())
		draw.Draw(img, img.Rect, src, src.Bounds().Min, draw.Src)
		imgs = append(imgs, img)
		pixels += img.Rect.Dx() * img.Rect.Dy()
	}
	for _, c := range []struct {
		name string
		enc  func(io.Writer, image.Image) error
	}{
		{"enc=BestSpeed", (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode},
		{"enc=Default", (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				for _, img := range imgs {
					if err := c.enc(&buf, img); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
			b.ReportMetric(float64(len(imgs)), "figures")
			b.ReportMetric(float64(pixels), "pixels")
		})
	}
}
