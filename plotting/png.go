package plotting

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/plot/vg"
)

// writeCanvas writes a rendered canvas: a PNG canvas through encodePNG,
// any other (SVG) by its own WriteTo.
func writeCanvas(w io.Writer, c vg.CanvasSizer) error {
	switch c := c.(type) {
	case *pngCanvas:
		return encodePNG(w, c.Image())
	case vg.CanvasWriterTo:
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("plotting: cannot write a %T canvas", c)
}

// pngStripeRows is the number of rows a stripe of encodePNG filters and
// deflates on its own. It is fixed, not derived from the CPU count, so the
// bytes written do not depend on the machine.
const pngStripeRows = 128

// encodePNG writes img as a PNG file. An opaque *image.RGBA (what a PNG
// canvas draws) is written as 8-bit truecolour, its rows cut into
// horizontal stripes of pngStripeRows rows that are filtered and deflated
// concurrently (at most GOMAXPROCS at a time) by pngDeflater, a deflate
// encoder made for such scanlines (whether the image is opaque is found
// while filtering, filterUp); any other image goes through image/png at
// its fastest compression level. The pixels are exactly img's
// (TestEncodePNGPixels decodes them with image/png).
//
// The layout follows the PNG specification (W3C, 2nd ed., 2003): the
// signature, IHDR (§11.2.2: width, height, bit depth 8, colour type 2,
// compression 0, filter method 0, no interlace), one IDAT holding the zlib
// stream (RFC 1950) of the filtered scanlines, IEND; each chunk is its
// length, type, data and the CRC-32 of type and data (§5.3). Every
// scanline uses filter type 2, Up (§9.2: each byte minus the byte above
// it, 0 above the first row): a plot's background and vertical strokes
// repeat from row to row. The stripes' deflate streams are joined as
// parallel gzip tools do: every stripe but the last ends with a sync flush
// (an empty stored block, byte-aligned, RFC 1951 §3.2.4) and no back
// reference crosses a stripe (pngDeflater's stay within its input), so
// their concatenation is one valid deflate stream; the zlib trailer is the
// Adler-32 of all the filtered bytes, combined from the stripes'
// (adler32Combine).
func encodePNG(w io.Writer, img image.Image) error {
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Rect.Empty() {
		return encodePNGStd(w, img)
	}
	width, height := rgba.Rect.Dx(), rgba.Rect.Dy()
	stripes := (height + pngStripeRows - 1) / pngStripeRows
	type stripe struct {
		enc     *stripeEncoder
		adler   uint32
		n       int  // filtered bytes
		opaque  bool // as far as filterUp saw
		changed int  // pixels unlike the one above: the deflate's cost, roughly
	}
	parts := make([]stripe, stripes)
	// Two passes, each spread over at most GOMAXPROCS goroutines: the
	// stripes are filtered, then deflated, the most changed pixels first.
	// Deflating a stripe of anti-aliased text (a footnote) takes several
	// times as long as one of lines on white, and started last it would
	// finish long after the others (the Longest Processing Time first
	// rule of scheduling). The order does not change the bytes written.
	forEach := func(order []int, do func(p *stripe, s int)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(order)) {
			wg.Go(func() {
				for {
					k := int(next.Add(1) - 1)
					if k >= len(order) {
						return
					}
					do(&parts[order[k]], order[k])
				}
			})
		}
		wg.Wait()
	}
	order := make([]int, stripes)
	for s := range order {
		order[s] = s
	}
	forEach(order, func(p *stripe, s int) {
		y0, y1 := s*pngStripeRows, min(height, (s+1)*pngStripeRows)
		p.enc, _ = stripeEncoders.Get().(*stripeEncoder)
		if p.enc == nil {
			p.enc = new(stripeEncoder)
		}
		p.enc.filtered, p.opaque, p.changed = filterUp(p.enc.filtered, rgba, y0, y1)
	})
	slices.SortStableFunc(order, func(a, b int) int { return parts[b].changed - parts[a].changed })
	forEach(order, func(p *stripe, s int) {
		if p.opaque {
			p.enc.z.out = p.enc.z.out[:0]
			p.adler = p.enc.z.deflate(p.enc.filtered, s == stripes-1)
			p.n = len(p.enc.filtered)
		}
	})
	defer func() {
		for i := range parts {
			stripeEncoders.Put(parts[i].enc)
		}
	}()
	for i := range parts {
		if !parts[i].opaque {
			return encodePNGStd(w, img)
		}
	}
	var idat bytes.Buffer
	// zlib header (RFC 1950 §2.2): CM = 8 (deflate), CINFO = 7 (32 KiB
	// window), FLEVEL = 0, FCHECK making 0x78_01 a multiple of 31.
	idat.Write([]byte{0x78, 0x01})
	adler := uint32(1) // the Adler-32 of no bytes
	for i := range parts {
		idat.Write(parts[i].enc.z.out)
		adler = adler32Combine(adler, parts[i].adler, parts[i].n)
	}
	idat.Write(binary.BigEndian.AppendUint32(nil, adler))

	var out bytes.Buffer
	out.Grow(idat.Len() + 64)
	out.WriteString("\x89PNG\r\n\x1a\n") // §5.2
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // bit depth 8, truecolour; compression, filter, interlace 0
	writeChunk(&out, "IHDR", ihdr)
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	_, err := w.Write(out.Bytes())
	return err
}

// encodePNGStd writes img through image/png at its fastest level.
func encodePNGStd(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

// stripeEncoder is the reusable state of one stripe's encoding: its
// filtered scanlines and the deflater writing them.
type stripeEncoder struct {
	filtered []byte
	z        pngDeflater
}

// stripeEncoders holds stripeEncoders for reuse.
var stripeEncoders sync.Pool

// filterUp returns buf, resized, holding rows [y0, y1) of img (relative
// to its top row) as RGB scanlines with filter type 2, Up: each a
// filter-type byte and 3·width bytes, each byte minus the byte above it
// (PNG §9.2, modulo 256; the top row's bytes as they are). Pixels equal to
// the ones above, most of a figure's, are found eight at a time and left
// as the zeros buf is cleared to. It also reports whether every pixel it
// compared is opaque: the top row's and those that differ from the pixel
// above. When every stripe reports so, the whole image is opaque, row by
// row from the top (a pixel equal to the one above has its alpha), without
// a pass of its own over the alpha bytes. changed counts the pixels
// written: the top row's and those unlike the pixel above.
func filterUp(buf []byte, img *image.RGBA, y0, y1 int) (_ []byte, opaque bool, changed int) {
	width := img.Rect.Dx()
	lineLen := 1 + 3*width
	buf = slices.Grow(buf[:0], (y1-y0)*lineLen)[:(y1-y0)*lineLen]
	clear(buf)
	le := binary.LittleEndian
	alpha := byte(0xff) // AND of the alpha bytes looked at
	for y := y0; y < y1; y++ {
		line := buf[(y-y0)*lineLen : (y-y0+1)*lineLen]
		line[0] = 2 // Up
		out := line[1:]
		i := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y)
		cur := img.Pix[i : i+4*width]
		if y == 0 {
			for x := range width {
				copy(out[3*x:3*x+3], cur[4*x:4*x+3])
				alpha &= cur[4*x+3]
			}
			changed += width
			continue
		}
		prev := img.Pix[i-img.Stride : i-img.Stride+4*width]
		for x := 0; x < width; {
			if x+8 <= width {
				c, p := cur[4*x:][:32], prev[4*x:][:32]
				// (^ and | bind alike in Go: the parentheses are needed.)
				if (le.Uint64(c)^le.Uint64(p))|(le.Uint64(c[8:])^le.Uint64(p[8:]))|
					(le.Uint64(c[16:])^le.Uint64(p[16:]))|(le.Uint64(c[24:])^le.Uint64(p[24:])) == 0 {
					x += 8
					continue
				}
			}
			for end := min(x+8, width); x < end; x++ {
				c, p := cur[4*x:][:4], prev[4*x:][:4]
				if le.Uint32(c) != le.Uint32(p) {
					changed++
					o := out[3*x:][:3]
					o[0], o[1], o[2] = c[0]-p[0], c[1]-p[1], c[2]-p[2]
					alpha &= c[3]
				}
			}
		}
	}
	return buf, alpha == 0xff, changed
}

// adlerMod is the modulus of Adler-32 (RFC 1950 §8.2), the largest prime
// below 2¹⁶.
const adlerMod = 65521

// adler32Combine returns the Adler-32 of the concatenation u‖v from
// Adler-32 values of u and of v and v's length n. From the definition:
// A(u‖v) = A(u) + A(v) − 1, and each of v's n partial sums of A grows by
// A(u) − 1, so B(u‖v) = B(u) + B(v) + n·(A(u) − 1), all mod 65521.
func adler32Combine(au, av uint32, n int) uint32 {
	a1, b1 := uint64(au&0xffff), uint64(au>>16)
	a2, b2 := uint64(av&0xffff), uint64(av>>16)
	m := uint64(n % adlerMod)
	a := (a1 + a2 + adlerMod - 1) % adlerMod
	b := (b1 + b2 + m*((a1+adlerMod-1)%adlerMod)) % adlerMod
	return uint32(b<<16 | a)
}

// writeChunk appends a PNG chunk (§5.3): data's length, the type, data and
// the CRC-32 (ISO 3309, hash/crc32's IEEE table) of type and data.
func writeChunk(out *bytes.Buffer, typ string, data []byte) {
	out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	out.WriteString(typ)
	out.Write(data)
	out.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
}
