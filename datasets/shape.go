package datasets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Shape bounds, before loading, the data a dataset's loader returns: Rows
// rows (every part together) of Cols features, each row with a label. Cols
// = 0 says the columns are not known before the file is read (a user's
// CSV): Rows then bounds the values, labels included. The zero Shape is
// unknown.
type Shape struct{ Rows, Cols int64 }

// Values returns the float64 values the data hold: features and labels,
// saturating at math.MaxInt64.
func (s Shape) Values() int64 {
	if s.Cols == 0 {
		return s.Rows
	}
	if s.Rows > math.MaxInt64/(s.Cols+1) {
		return math.MaxInt64
	}
	return s.Rows * (s.Cols + 1)
}

// Bytes returns the memory the values take (8 bytes each), saturating at
// math.MaxInt64.
func (s Shape) Bytes() int64 {
	if v := s.Values(); v <= math.MaxInt64/8 {
		return 8 * v
	}
	return math.MaxInt64
}

func (s Shape) String() string {
	if s.Cols == 0 {
		return fmt.Sprintf("at most %d values", s.Rows)
	}
	return fmt.Sprintf("n × d = %d × %d", s.Rows, s.Cols)
}

// shaper is implemented by the params of a dataset whose data's shape is
// not its registry entry's Rows × Cols: a generator (n, d), a row cap, a
// user's file. dir is the data directory, info the registry entry.
type shaper interface {
	shape(dir string, info Info) (Shape, error)
}

// Shape returns an upper bound on the shape of the data Load would return
// from dir with the params decode fills, without loading anything (params
// errors are Load's): a generator's n × d, a file's registered rows and
// columns (capped by a row-count param), a user's file's values bounded by
// its size. The runner and spec validation check it against the memory
// limits before any data is loaded.
func (e Entry) Shape(dir string, decode func(v any) error) (Shape, error) {
	return e.shape(dir, decode)
}

// shapeOf is Entry.Shape for registered params p.
func shapeOf[P Params](info Info, dir string, p P) (Shape, error) {
	if s, ok := any(p).(shaper); ok {
		return s.shape(dir, info)
	}
	return Shape{Rows: int64(info.Rows), Cols: int64(info.Cols)}, nil
}

// fileValues bounds the values in the user's CSV file at path (absolute,
// or relative to dir): at most one per two bytes of its decompressed text
// (a value and its separator). A plain file's size is asked of the file
// system; a compressed one is decompressed and counted. An absent file
// bounds nothing (0): loading it reports it.
func fileValues(dir, path string) (int64, error) {
	if path == "" {
		return 0, nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, filepath.FromSlash(path))
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, &FileError{Path: path, Err: err}
	}
	size := st.Size()
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".bz2") { // as openStored decompresses
		f, err := openStored(path)
		if err != nil {
			return 0, &FileError{Path: path, Err: err}
		}
		defer f.Close()
		if size, err = io.Copy(io.Discard, f); err != nil {
			return 0, &FileError{Path: path, Err: err}
		}
	}
	return size/2 + 1, nil
}
