package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// readIDX reads an unsigned-byte IDX file (the MNIST format: 0, 0, type 0x08,
// number of dimensions, then each dimension as a big-endian uint32, then the
// bytes row-major) from r. name is used in errors.
func readIDX(r io.Reader, name string) (dims []int, data []byte, err error) {
	fail := func(format string, args ...any) error {
		return &FileError{Path: name, Err: fmt.Errorf(format, args...)}
	}
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, nil, fail("IDX header: %v", readErr(err))
	}
	if head[0] != 0 || head[1] != 0 || head[2] != 0x08 || head[3] == 0 || head[3] > 4 {
		return nil, nil, fail("not an unsigned-byte IDX file (magic % x)", head)
	}
	size := 1
	dims = make([]int, head[3])
	for k := range dims {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return nil, nil, fail("IDX dimension %d: %v", k+1, readErr(err))
		}
		dims[k] = int(n)
		size *= int(n)
		if n == 0 || size > maxCells {
			return nil, nil, fail("IDX dimensions %v: empty or too large", dims[:k+1])
		}
	}
	data = make([]byte, size)
	if n, err := io.ReadFull(r, data); err != nil {
		return nil, nil, fail("IDX data: %d of %d bytes: %v", n, size, readErr(err))
	}
	// Reading to the end also makes a gzip reader check its CRC.
	switch n, err := io.ReadFull(r, make([]byte, 1)); {
	case n > 0:
		return nil, nil, fail("IDX data: trailing bytes after %d values", size)
	case !errors.Is(err, io.EOF):
		return nil, nil, fail("after the IDX data: %v", readErr(err))
	}
	return dims, data, nil
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
