package plotting

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"runtime"
	"sync"

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
// concurrently (at most GOMAXPROCS at a time); any other image goes through image/png at its fastest
// compression level. The pixels are exactly img's (TestEncodePNGPixels
// decodes them with image/png).
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
// reference crosses a stripe, so their concatenation is one valid deflate
// stream; the zlib trailer is the Adler-32 of all the filtered bytes,
// combined from the stripes' (adler32Combine).
func encodePNG(w io.Writer, img image.Image) error {
	rgba, ok := img.(*image.RGBA)
	if !ok || !rgba.Opaque() || rgba.Rect.Empty() {
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, img)
	}
	width, height := rgba.Rect.Dx(), rgba.Rect.Dy()
	stripes := (height + pngStripeRows - 1) / pngStripeRows
	type stripe struct {
		z     bytes.Buffer
		adler uint32
		n     int // filtered bytes
		err   error
	}
	parts := make([]stripe, stripes)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for s := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			y0, y1 := s*pngStripeRows, min(height, (s+1)*pngStripeRows)
			p := &parts[s]
			p.err = deflateRows(&p.z, rgba, y0, y1, s == stripes-1, &p.adler, &p.n)
		}()
	}
	wg.Wait()
	var idat bytes.Buffer
	// zlib header (RFC 1950 §2.2): CM = 8 (deflate), CINFO = 7 (32 KiB
	// window), FLEVEL = 0, FCHECK making 0x78_01 a multiple of 31.
	idat.Write([]byte{0x78, 0x01})
	adler := uint32(1) // the Adler-32 of no bytes
	for i := range parts {
		if parts[i].err != nil {
			return parts[i].err
		}
		idat.Write(parts[i].z.Bytes())
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

// deflateRows filters rows [y0, y1) of img (opaque) as RGB scanlines, each
// a filter-type byte (2, Up) and 3·width bytes, deflates them at the
// fastest level into z — closed (final block) when last, else ending with a
// sync flush — and stores their Adler-32 and count in adler and n.
func deflateRows(z *bytes.Buffer, img *image.RGBA, y0, y1 int, last bool, adler *uint32, n *int) error {
	width := img.Rect.Dx()
	fw, _ := flateWriters.Get().(*flate.Writer)
	if fw == nil {
		var err error
		if fw, err = flate.NewWriter(z, flate.BestSpeed); err != nil {
			return err
		}
	} else {
		fw.Reset(z)
	}
	defer flateWriters.Put(fw)
	line := make([]byte, 1+3*width)
	line[0] = 2 // Up
	h := adler32.New()
	for y := y0; y < y1; y++ {
		cur := img.Pix[y*img.Stride : y*img.Stride+4*width]
		var prev []byte
		if y > 0 {
			prev = img.Pix[(y-1)*img.Stride : (y-1)*img.Stride+4*width]
		}
		out := line[1:]
		if prev == nil {
			for x := range width {
				copy(out[3*x:3*x+3], cur[4*x:4*x+3])
			}
		} else {
			for x := range width {
				o, c, p := out[3*x:3*x+3], cur[4*x:4*x+3], prev[4*x:4*x+3]
				o[0], o[1], o[2] = c[0]-p[0], c[1]-p[1], c[2]-p[2]
			}
		}
		h.Write(line)
		if _, err := fw.Write(line); err != nil {
			return err
		}
	}
	*adler, *n = h.Sum32(), (y1-y0)*len(line)
	if last {
		return fw.Close()
	}
	return fw.Flush()
}

// flateWriters holds deflate writers at the fastest level for reuse (each
// holds about 1 MB of state).
var flateWriters sync.Pool

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
