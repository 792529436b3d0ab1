package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// idxReader reads an unsigned-byte IDX file (the MNIST format: 0, 0, type
// 0x08, number of dimensions, then each dimension as a big-endian uint32,
// then the bytes row-major) in pieces, so that a loader can map each record
// as it arrives instead of holding the whole file.
type idxReader struct {
	r    io.Reader
	name string // the file, in errors
	// Dims are the dimensions the header states.
	Dims       []int
	size, read int // data bytes stated and read so far
}

// newIDXReader reads the IDX header from r. name is used in errors.
func newIDXReader(r io.Reader, name string) (*idxReader, error) {
	x := &idxReader{r: r, name: name}
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, x.fail("IDX header: %v", readErr(err))
	}
	if head[0] != 0 || head[1] != 0 || head[2] != 0x08 || head[3] == 0 || head[3] > 4 {
		return nil, x.fail("not an unsigned-byte IDX file (magic % x)", head)
	}
	x.size = 1
	x.Dims = make([]int, head[3])
	for k := range x.Dims {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return nil, x.fail("IDX dimension %d: %v", k+1, readErr(err))
		}
		x.Dims[k] = int(n)
		x.size *= int(n)
		if n == 0 || x.size > maxCells {
			return nil, x.fail("IDX dimensions %v: empty or too large", x.Dims[:k+1])
		}
	}
	return x, nil
}

func (x *idxReader) fail(format string, args ...any) error {
	return &FileError{Path: x.name, Err: fmt.Errorf(format, args...)}
}

// ReadFull fills p with the next len(p) data bytes.
func (x *idxReader) ReadFull(p []byte) error {
	if len(p) > x.size-x.read {
		return x.fail("IDX data: reading %d bytes past the %d stated", len(p)-(x.size-x.read), x.size)
	}
	n, err := io.ReadFull(x.r, p)
	x.read += n
	if err != nil {
		return x.fail("IDX data: %d of %d bytes: %v", x.read, x.size, readErr(err))
	}
	return nil
}

// End checks that every data byte was read and that nothing follows them.
// Reading to the end also makes a gzip reader check its CRC.
func (x *idxReader) End() error {
	if x.read != x.size {
		return x.fail("IDX data: %d of %d bytes read", x.read, x.size)
	}
	switch n, err := io.ReadFull(x.r, make([]byte, 1)); {
	case n > 0:
		return x.fail("IDX data: trailing bytes after %d values", x.size)
	case !errors.Is(err, io.EOF):
		return x.fail("after the IDX data: %v", readErr(err))
	}
	return nil
}

// readIDX reads a whole unsigned-byte IDX file from r. name is used in
// errors.
func readIDX(r io.Reader, name string) (dims []int, data []byte, err error) {
	x, err := newIDXReader(r, name)
	if err != nil {
		return nil, nil, err
	}
	data = make([]byte, x.size)
	if err := x.ReadFull(data); err != nil {
		return nil, nil, err
	}
	if err := x.End(); err != nil {
		return nil, nil, err
	}
	return x.Dims, data, nil
}

// readErr makes a short-read error say what it likely means.
func readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("unexpected end of data (truncated or corrupt file): %w", err)
	}
	return err
}

// readIDXFile reads the registered IDX file rel of dataset from dir.
func readIDXFile(dataset, dir, rel string) ([]int, []byte, error) {
	f, err := openData(dataset, dir, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dims, data, err := readIDX(f, f.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("dataset %s: %w", dataset, err)
	}
	return dims, data, nil
}
