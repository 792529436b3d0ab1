package plotting

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/rngs"
)

// TestEncodePNGPixels: what encodePNG writes decodes (with image/png, an
// independent decoder) to exactly the pixels encoded — opaque RGBA images
// of sizes around the stripe height (one row, one column, a partial last
// stripe, several stripes), with noise, with flat areas, all white, and
// with plot-like long horizontal lines (filtered runs far beyond 258 bytes,
// across row and stripe boundaries), a sub-image not at the origin; and
// translucent images (through image/png): all translucent, or opaque but
// for one pixel deep in a later stripe, under an opaque one, or for a
// column translucent all the way down (found in the top row), and a
// non-RGBA image.
func TestEncodePNGPixels(t *testing.T) {
	r := rngs.Derive("test", "encode-png").Rand()
	sizes := [][2]int{{1, 1}, {1, 300}, {300, 1}, {17, pngStripeRows}, {33, pngStripeRows + 1},
		{257, 2*pngStripeRows + 3}, {462, 391}, {924, 782}}
	kinds := []string{"noise", "flat", "white", "lines", "sub-image", "translucent", "one translucent", "translucent column"}
	for _, sz := range sizes {
		for _, kind := range kinds {
			w, h := sz[0], sz[1]
			if kind == "sub-image" {
				w, h = w+5, h+3
			}
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			for i := range img.Pix {
				x, y := (i/4)%w, (i/4)/w
				switch kind {
				case "flat": // white with a few strokes
					img.Pix[i] = 255
					if (i/4)%97 == 0 {
						img.Pix[i] = byte(i % 4 * 60)
					}
				case "white":
					img.Pix[i] = 255
				case "lines", "sub-image", "one translucent", "translucent column":
					// White with horizontal lines of colours changing
					// every 100 pixels, every 7th row, and a few specks.
					img.Pix[i] = 255
					if y%7 == 3 {
						img.Pix[i] = byte(40 * (i%4 + x/100))
					}
					if r.IntN(1000) == 0 {
						img.Pix[i] = byte(r.IntN(256))
					}
				default:
					img.Pix[i] = byte(r.IntN(256))
				}
				if i%4 == 3 && kind != "translucent" {
					img.Pix[i] = 255
				}
			}
			switch kind {
			case "sub-image":
				img = img.SubImage(image.Rect(3, 2, 3+sz[0], 2+sz[1])).(*image.RGBA)
			case "one translucent":
				// Below an opaque pixel of the same colour: only the alpha
				// byte differs from the pixel above.
				x, y := sz[0]-1, sz[1]-1
				if y > 0 {
					img.SetRGBA(x, y-1, color.RGBA{100, 100, 100, 255})
				}
				img.SetRGBA(x, y, color.RGBA{100, 100, 100, 254})
			case "translucent column":
				for y := range sz[1] {
					img.SetRGBA(sz[0]/2, y, color.RGBA{0, 0, 0, 128})
				}
			case "translucent": // premultiplied: colour ≤ alpha
				for i := 0; i < len(img.Pix); i += 4 {
					for c := range 3 {
						img.Pix[i+c] = min(img.Pix[i+c], img.Pix[i+3])
					}
				}
			}
			var buf bytes.Buffer
			if err := encodePNG(&buf, img); err != nil {
				t.Fatalf("%v %s: %v", sz, kind, err)
			}
			got, err := png.Decode(&buf)
			if err != nil {
				t.Fatalf("%v %s: decode: %v", sz, kind, err)
			}
			want := image.Image(img)
			opaque := img.Opaque()
			if !opaque {
				// PNG stores straight alpha: the premultiplied pixels are
				// those image/png's own round trip gives.
				var std bytes.Buffer
				if err := png.Encode(&std, img); err != nil {
					t.Fatal(err)
				}
				if want, err = png.Decode(&std); err != nil {
					t.Fatal(err)
				}
			}
			if got.Bounds().Size() != img.Bounds().Size() {
				t.Fatalf("%v %s: bounds %v", sz, kind, got.Bounds())
			}
			// want's pixels are at img's coordinates (or, after image/png's
			// round trip, from the origin).
			o := want.Bounds().Min
			for y := 0; y < sz[1]; y++ {
				for x := 0; x < sz[0]; x++ {
					a, w := color.RGBA64Model.Convert(got.At(x, y)), color.RGBA64Model.Convert(want.At(o.X+x, o.Y+y))
					if a != w {
						t.Fatalf("%v %s: pixel (%d, %d) decodes to %v, encoded %v", sz, kind, x, y, a, w)
					}
				}
			}
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 5, 5))
	gray.Pix[7] = 200
	var buf bytes.Buffer
	if err := encodePNG(&buf, gray); err != nil {
		t.Fatal(err)
	}
	if got, err := png.Decode(&buf); err != nil || got.At(2, 1) != (color.Gray{200}) {
		t.Errorf("gray image: %v, pixel %v", err, got.At(2, 1))
	}
}

// TestAdler32Combine checks the combination against hash/adler32 of the
// concatenation, including lengths past the modulus and empty parts.
func TestAdler32Combine(t *testing.T) {
	r := rngs.Derive("test", "adler32-combine").Rand()
	for _, n := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1000, 70000}, {65521, 65521}, {200000, 131042}} {
		u, v := make([]byte, n[0]), make([]byte, n[1])
		for i := range u {
			u[i] = byte(r.IntN(256))
		}
		for i := range v {
			v[i] = 255 // the largest bytes: the largest sums
		}
		want := adler32.Checksum(append(append([]byte(nil), u...), v...))
		if got := adler32Combine(adler32.Checksum(u), adler32.Checksum(v), len(v)); got != want {
			t.Errorf("lengths %v: combined %08x, want %08x", n, got, want)
		}
	}
}

// BenchmarkEncodeFigures encodes real figures, decoded to the *image.RGBA
// a PNG canvas draws, one after another: ns/op is the time for all of
// them, bytes the total written. The figures are every PNG under docs/
// (the reproduction docs' 23, rendered at 110 dpi) or, with
// DPLAB_BENCH_FIGURES=<dir>, every PNG under dir (a run's figures, at
// DefaultDPI: e.g. the --quick runs of experiments/*.toml).
// Each encoder is a sub-benchmark: encodePNG, and image/png at BestSpeed
// and at its default level.
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
		{"enc=private", encodePNG},
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
