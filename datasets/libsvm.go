package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ReadLibSVM reads LibSVM (SVMlight) sparse text from r: one example per
// line, "label index:value index:value ...", indices 1-based and strictly
// increasing, "#" starting a comment. It returns the dense features as a
// Table (no names; absent entries are 0) and the labels. d is the number of
// features: 0 means the largest index seen; an index above a positive d is an
// error. name is used in errors (*FileError with the line).
func ReadLibSVM(r io.Reader, name string, d int) (*Table, []float64, error) {
	rec := newRecords(r, name, ' ')
	var (
		labels   []float64
		rowStart []int
		idx      []int
		val      []float64
		maxIdx   int
	)
	for {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if fields[0][0] == '#' {
			continue
		}
		y, err := parseNumber(fields[0])
		if err != nil {
			return nil, nil, rec.errorf("", "label: %v", err)
		}
		labels = append(labels, y)
		rowStart = append(rowStart, len(idx))
		prev := 0
		for k, tok := range fields[1:] {
			if tok[0] == '#' {
				break
			}
			j, v, err := libsvmFeature(rec, k+2, tok, prev, d)
			if err != nil {
				return nil, nil, err
			}
			prev = j
			idx = append(idx, j)
			val = append(val, v)
		}
		maxIdx = max(maxIdx, prev)
	}
	if len(labels) == 0 {
		return nil, nil, &FileError{Path: name, Err: errors.New("no examples")}
	}
	if d == 0 {
		d = maxIdx
	}
	if d == 0 {
		return nil, nil, &FileError{Path: name, Err: errors.New("no features in any example")}
	}
	if float64(len(labels))*float64(d) > maxCells {
		return nil, nil, &FileError{Path: name, Err: fmt.Errorf("%d examples × %d features: too large to densify", len(labels), d)}
	}
	t := &Table{Path: name, Rows: len(labels), Cols: d, Data: make([]float64, len(labels)*d)}
	rowStart = append(rowStart, len(idx))
	for i := range labels {
		row := t.Data[i*d : (i+1)*d]
		for k := rowStart[i]; k < rowStart[i+1]; k++ {
			row[idx[k]-1] = val[k]
		}
	}
	return t, labels, nil
}

// libsvmFeature parses tok, the pos-th (1-based) token of the current LibSVM
// line of rec, as "index:value"; the index must exceed prev, the line's
// previous index, and, when d > 0, be at most d. Errors are *FileErrors at
// the line.
func libsvmFeature(rec *records, pos int, tok []byte, prev, d int) (int, float64, error) {
	colon := bytes.IndexByte(tok, ':')
	if colon < 0 {
		return 0, 0, rec.errorf("", "token %d %q: want index:value", pos, tok)
	}
	j, ok := parseIndex(tok[:colon])
	switch {
	case !ok:
		return 0, 0, rec.errorf("", "token %d %q: bad feature index %q (want a positive integer)", pos, tok, tok[:colon])
	case j <= prev:
		return 0, 0, rec.errorf("", "token %d %q: feature index %d after %d (indices must increase)", pos, tok, j, prev)
	case d > 0 && j > d:
		return 0, 0, rec.errorf("", "token %d %q: feature index %d above the %d features", pos, tok, j, d)
	}
	v, err := parseNumber(tok[colon+1:])
	if err != nil {
		return 0, 0, rec.errorf("", "token %d: feature %d: %v", pos, j, err)
	}
	return j, v, nil
}

// parseIndex parses a positive decimal integer below 2^31.
func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0 && n < 1<<31
}

// readLibSVM reads the registered LibSVM file rel of dataset from dir.
func readLibSVM(dataset, dir, rel string, d int) (*Table, []float64, error) {
	f, err := openData(dataset, dir, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, y, err := ReadLibSVM(f, f.Path, d)
	if err != nil {
		return nil, nil, fmt.Errorf("dataset %s: %w", dataset, err)
	}
	return t, y, nil
}
