package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// CSVOptions says how ReadCSV splits and reads a delimited text file.
type CSVOptions struct {
	// Sep is the field separator; 0 means ','. ' ' means runs of blanks
	// (spaces and tabs), with leading and trailing blanks ignored.
	Sep byte
	// Header: the first non-blank line (after SkipLines) holds column names.
	Header bool
	// SkipLines leading physical lines are ignored (junk lines).
	SkipLines int
	// Missing cell values (for example "?") are read as NaN; any other cell
	// that is not a finite number is an error.
	Missing []string
}

// Table is a dense numeric table read from delimited text.
type Table struct {
	Path  string    // the file read, for errors
	Names []string  // column names: the header, or nil for a headerless file
	Rows  int       // data rows
	Cols  int       // columns
	Data  []float64 // row-major, Rows × Cols; NaN marks a Missing cell
	// jumps are the data rows whose line does not follow the previous data
	// row's (the first row, and rows after blank lines), with their lines:
	// enough to give every row's line (Line) without a slice per row.
	jumps []rowLine
}

// rowLine is a data row (0-based) and its 1-based line in the file.
type rowLine struct{ row, line int }

// Line returns the 1-based line of the file that holds data row i (0-based),
// for errors about a row's values found after reading; 0 if i is out of
// range.
func (t *Table) Line(i int) int {
	if i < 0 || i >= t.Rows || len(t.jumps) == 0 {
		return 0
	}
	k := sort.Search(len(t.jumps), func(k int) bool { return t.jumps[k].row > i }) - 1
	return t.jumps[k].line + i - t.jumps[k].row
}

// errorf returns the *FileError of a problem with the table's content,
// wrapped with the dataset name.
func (t *Table) errorf(dataset, format string, args ...any) error {
	return fmt.Errorf("dataset %s: %w", dataset, &FileError{Path: t.Path, Err: fmt.Errorf(format, args...)})
}

// Column returns the index of the column called name.
func (t *Table) Column(name string) (int, bool) {
	for j, n := range t.Names {
		if n == name {
			return j, true
		}
	}
	return 0, false
}

// columnLabel is how errors name column j (0-based) of a file with the given
// header: its name, or "#j+1" without a header.
func columnLabel(names []string, j int) string {
	if j < len(names) {
		return names[j]
	}
	return "#" + strconv.Itoa(j+1)
}

// ReadCSV reads a numeric delimited text file from r. name is used in errors
// (*FileError with the line and the column). Every data row must have as many
// fields as the header (or the first data row); blank lines are skipped.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Table, error) {
	rec := newRecords(r, name, opt.Sep)
	for rec.line < opt.SkipLines {
		if _, err := rec.readLine(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	t := &Table{Path: name}
	if opt.Header {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			return nil, &FileError{Path: name, Err: errors.New("no header line")}
		}
		if err != nil {
			return nil, err
		}
		t.Names = make([]string, len(fields))
		for j, f := range fields {
			t.Names[j] = string(f)
		}
		t.Cols = len(fields)
	}
	missing := make([][]byte, len(opt.Missing))
	for i, m := range opt.Missing {
		missing[i] = []byte(m)
	}
	for {
		fields, err := rec.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if t.Cols == 0 {
			t.Cols = len(fields)
		}
		if len(fields) != t.Cols {
			return nil, rec.errorf("", "%d fields, want %d", len(fields), t.Cols)
		}
		for j, f := range fields {
			v, err := parseNumber(f)
			if err != nil {
				if !isMissing(f, missing) {
					return nil, rec.errorf(columnLabel(t.Names, j), "%v", err)
				}
				v = math.NaN()
			}
			t.Data = append(t.Data, v)
		}
		if n := len(t.jumps); n == 0 || t.jumps[n-1].line+t.Rows-t.jumps[n-1].row != rec.line {
			t.jumps = append(t.jumps, rowLine{t.Rows, rec.line})
		}
		t.Rows++
	}
	if t.Rows == 0 {
		return nil, &FileError{Path: name, Err: errors.New("no data rows")}
	}
	return t, nil
}

func isMissing(cell []byte, missing [][]byte) bool {
	for _, m := range missing {
		if bytes.Equal(cell, m) {
			return true
		}
	}
	return false
}

// ReadCSVFile reads the numeric delimited file at path, decompressing it when
// its name ends in .gz or .bz2.
func ReadCSVFile(path string, opt CSVOptions) (*Table, error) {
	f, err := openStored(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(f, path, opt)
}

// readTable reads the registered numeric file rel of dataset from dir.
func readTable(dataset, dir, rel string, opt CSVOptions) (*Table, error) {
	f, err := openData(dataset, dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ReadCSV(f, f.Path, opt)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dataset, err)
	}
	return t, nil
}
