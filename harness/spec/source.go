package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Bounds on a TOML file, checked before the TOML library reads it. The
// library's time and memory grow faster than the file: with inline tables
// nested 4,000 deep (24 KB) it took 7 s and 1.85 GB, and a 64 KB file nested
// 16,000 deep ran past 60 s and 10 GB; dotted keys of thousands of parts
// grow the same way (2,000 parts, 4 KB: 0.24 s). Within both bounds the
// worst files measured, a 256 KiB file of 32-part dotted keys and one of
// inline tables 15 deep, took dplab validate 0.6 s / 183 MB and 1.2 s /
// 93 MB (peak RSS) before being refused as specs. Real specs are far
// inside: the largest shipped spec, experiments/preprocessing_tables.toml,
// is 25.6 KB, and the deepest nesting of a shipped spec is 8 levels
// ("[mechanism.tuning] candidates = { learning_rate = { logspace = [… ] } }";
// TestShippedSpecsWithinSourceBounds).
const (
	// MaxSourceBytes bounds the size of a spec (or audit spec) file.
	MaxSourceBytes = 256 << 10
	// MaxNesting bounds how deep a value sits: the parts of its table's
	// header and of its dotted keys, plus one per array or inline table
	// around it (in "[t]  a.b = [{c = 1}]" c's value is at level 6).
	MaxNesting = 32
)

// ReadSource reads a TOML file of at most MaxSourceBytes; a larger file is
// a *SpecError, found without reading it whole.
func ReadSource(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &SpecError{File: path, Err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxSourceBytes {
		return nil, tooLarge(path, st.Size())
	}
	// A file that is not regular (a pipe, a device) has no size to ask:
	// read one byte past the bound to find it too long.
	src, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
	if err != nil {
		return nil, &SpecError{File: path, Err: err}
	}
	if len(src) > MaxSourceBytes {
		return nil, tooLarge(path, -1)
	}
	return src, nil
}

// ErrSourceTooLarge is wrapped by the *SpecError of a file larger than
// MaxSourceBytes.
var ErrSourceTooLarge = errors.New("file too large for a spec")

func tooLarge(path string, size int64) *SpecError {
	what := "more than"
	if size >= 0 {
		what = fmt.Sprintf("%d bytes,", size)
	}
	return &SpecError{File: path, Err: fmt.Errorf("%w: %s above the limit of %d bytes (256 KiB)", ErrSourceTooLarge, what, MaxSourceBytes)}
}

// CheckSource checks TOML source src (read from path) against
// MaxSourceBytes and MaxNesting without parsing it; its error is a
// *SpecError naming the line where the nesting first goes too deep. Every
// spec and audit spec passes it before the TOML library sees it.
func CheckSource(path string, src []byte) error {
	if len(src) > MaxSourceBytes {
		return tooLarge(path, int64(len(src)))
	}
	if line, depth := tooDeep(src, MaxNesting); line > 0 {
		return &SpecError{File: path, Line: line, Err: fmt.Errorf("values nested %d levels deep (header and dotted-key parts, arrays and inline tables), above the limit of %d", depth, MaxNesting)}
	}
	return nil
}

// tooDeep scans TOML source for the first value nested deeper than limit
// and returns its line and depth (0, 0 when there is none). It
// follows just enough of TOML to tell keys from values and to skip strings
// and comments; anything malformed is left to the parser.
func tooDeep(src []byte, limit int) (line, depth int) {
	type frame struct {
		inline bool // an inline table (keys inside), else an array
		outer  int  // the level outside it
	}
	var stack []frame
	line = 1
	table := 0     // the parts of the current [table] or [[array]] header
	cur := 0       // the level of the innermost container's contents
	inKey := true  // reading a key: at a line's start, or after { or , in an inline table
	parts := 0     // the parts of the key read so far
	pending := cur // the level of the value about to start (inside an array)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			if len(stack) == 0 {
				inKey, parts, cur = true, 0, table
			}
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			var n int
			i, n = skipString(src, i)
			line += n
			if inKey && parts == 0 {
				parts = 1
			}
		case c == '[' && len(stack) == 0 && inKey && parts == 0:
			// A table header: its parts are the level of its keys.
			var n int
			i, n = skipHeader(src, i)
			table, cur, inKey = n, n, false
			if n > limit {
				return line, n
			}
		case inKey && c == '.':
			parts++
		case inKey && c == '=':
			inKey, pending = false, cur+max(parts, 1)
			if pending > limit {
				return line, pending
			}
		case c == '[' || c == '{':
			stack = append(stack, frame{inline: c == '{', outer: cur})
			cur = pending + 1
			pending = cur
			if cur > limit {
				return line, cur
			}
			inKey, parts = c == '{', 0
		case (c == ']' || c == '}') && len(stack) > 0:
			cur = stack[len(stack)-1].outer
			stack = stack[:len(stack)-1]
			inKey, pending = false, cur
		case c == ',' && len(stack) > 0:
			if stack[len(stack)-1].inline {
				inKey, parts = true, 0
			} else {
				pending = cur
			}
		case inKey && parts == 0 && c != ' ' && c != '\t' && c != '\r':
			parts = 1 // a bare key starts
		}
	}
	return 0, 0
}

// skipString returns the index of the last byte of the string that starts
// at src[i] (a quote) and the newlines inside it. Basic strings (double
// quotes, single or tripled) have backslash escapes, literal ones (single
// quotes) none; a multi-line (tripled) string may end with up to two extra
// quotes.
func skipString(src []byte, i int) (end, newlines int) {
	q := src[i]
	if bytes.HasPrefix(src[i:], []byte{q, q, q}) {
		for j := i + 3; j < len(src); j++ {
			switch {
			case src[j] == '\n':
				newlines++
			case src[j] == '\\' && q == '"':
				if j+1 < len(src) && src[j+1] == '\n' {
					newlines++
				}
				j++
			case bytes.HasPrefix(src[j:], []byte{q, q, q}):
				j += 2
				for k := 0; k < 2 && j+1 < len(src) && src[j+1] == q; k++ {
					j++
				}
				return j, newlines
			}
		}
		return len(src) - 1, newlines
	}
	for j := i + 1; j < len(src); j++ {
		switch {
		case src[j] == '\n':
			return j - 1, newlines // unterminated: the parser reports it
		case src[j] == '\\' && q == '"':
			j++
		case src[j] == q:
			return j, newlines
		}
	}
	return len(src) - 1, newlines
}

// skipHeader returns the index of the last ']' of the table header that
// starts at src[i] and the number of parts of its key.
func skipHeader(src []byte, i int) (end, parts int) {
	parts = 1
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\n':
			return j - 1, parts
		case '"', '\'':
			j, _ = skipString(src, j)
		case '.':
			parts++
		case ']':
			if j+1 < len(src) && src[j+1] == ']' {
				j++
			}
			return j, parts
		}
	}
	return len(src) - 1, parts
}
