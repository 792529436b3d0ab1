package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// records reads delimited text one line at a time and splits each line into
// fields without allocating per line: the returned fields alias an internal
// buffer and are valid until the next call to next.
type records struct {
	br     *bufio.Reader
	name   string // file name for errors
	sep    byte   // ',' (or another byte), or ' ' for runs of blanks
	line   int    // 1-based number of the line last returned
	long   []byte // a line longer than br's buffer
	fields [][]byte
	quoted []byte // unescaped contents of quoted fields of the current line
}

// recordsBuffer is the read buffer of records: 64 KiB holds a line of every
// shared file (synthetic_h's are 40 kB; longer lines go through records.long).
// A 1 MiB buffer cost more to allocate and zero than a small file to parse.
const recordsBuffer = 1 << 16

func newRecords(r io.Reader, name string, sep byte) *records {
	if sep == 0 {
		sep = ','
	}
	return &records{br: bufio.NewReaderSize(r, recordsBuffer), name: name, sep: sep}
}

// next returns the fields of the next line that is not blank, or io.EOF.
// Trailing '\r' is dropped, and in comma mode fields are trimmed of blanks.
func (r *records) next() ([][]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if r.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 byte-order mark
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := r.split(line); err != nil {
			return nil, r.errorf("", "%v", err)
		}
		return r.fields, nil
	}
}

// readLine returns the next physical line without its line terminator.
func (r *records) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			r.line++
			if len(r.long) > 0 {
				r.long = append(r.long, chunk...)
				chunk = r.long
			}
			return trimEOL(chunk), nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = append(r.long, chunk...)
		case errors.Is(err, io.EOF):
			if len(chunk)+len(r.long) == 0 {
				return nil, io.EOF
			}
			r.line++
			if len(r.long) > 0 {
				r.long = append(r.long, chunk...)
				chunk = r.long
			}
			return trimEOL(chunk), nil
		default:
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("unexpected end of data (truncated or corrupt file): %w", err)
			} else {
				err = fmt.Errorf("read error: %w", err)
			}
			return nil, &FileError{Path: r.name, Line: r.line + 1, Err: err}
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// split fills r.fields from line.
func (r *records) split(line []byte) error {
	r.fields = r.fields[:0]
	if r.sep == ' ' {
		for i := 0; i < len(line); {
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			j := i
			for j < len(line) && !isBlank(line[j]) {
				j++
			}
			if j > i {
				r.fields = append(r.fields, line[i:j])
			}
			i = j
		}
		return nil
	}
	if bytes.IndexByte(line, '"') >= 0 {
		return r.splitQuoted(line)
	}
	for {
		i := bytes.IndexByte(line, r.sep)
		if i < 0 {
			r.fields = append(r.fields, trimBlanks(line))
			return nil
		}
		r.fields = append(r.fields, trimBlanks(line[:i]))
		line = line[i+1:]
	}
}

// splitQuoted splits a line with double-quoted fields ("" is an escaped quote).
// A quoted field cannot span lines.
func (r *records) splitQuoted(line []byte) error {
	r.quoted = r.quoted[:0]
	// Quoted contents are appended to r.quoted; remember where each field's
	// contents start and slice once the line is done, as appends may move it.
	type span struct{ quoted, start, end int }
	var spans [64]span
	sp := spans[:0]
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i < len(line) && line[i] == '"' {
			start := len(r.quoted)
			i++
			for {
				if i >= len(line) {
					return errors.New("unterminated quoted field")
				}
				c := line[i]
				i++
				if c == '"' {
					if i < len(line) && line[i] == '"' {
						r.quoted = append(r.quoted, '"')
						i++
						continue
					}
					break
				}
				r.quoted = append(r.quoted, c)
			}
			sp = append(sp, span{1, start, len(r.quoted)})
			for i < len(line) && isBlank(line[i]) {
				i++
			}
			if i < len(line) && line[i] != r.sep {
				return fmt.Errorf("unexpected %q after a quoted field", line[i])
			}
		} else {
			j := i
			for j < len(line) && line[j] != r.sep {
				if line[j] == '"' {
					return errors.New("quote inside an unquoted field")
				}
				j++
			}
			sp = append(sp, span{0, i, j})
			i = j
		}
		if i >= len(line) {
			break
		}
		i++ // the separator
	}
	for _, s := range sp {
		if s.quoted == 1 {
			r.fields = append(r.fields, r.quoted[s.start:s.end])
		} else {
			r.fields = append(r.fields, trimBlanks(line[s.start:s.end]))
		}
	}
	return nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isBlank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// errorf returns a *FileError at the current line.
func (r *records) errorf(column, format string, args ...any) error {
	return &FileError{Path: r.name, Line: r.line, Column: column, Err: fmt.Errorf(format, args...)}
}

// parseNumber parses a finite float64 from b.
func parseNumber(b []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is out of the float64 range", b)
		}
		return 0, cellError(b)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", b)
	}
	return v, nil
}
