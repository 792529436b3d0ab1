package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// SplitIndices is a user-supplied train/test assignment of a dataset's rows
// (a spec's split = { indices = "FILE" }), so that a result can be compared
// with external code on its exact split without touching the data files.
// The file is text, one row per line:
//
//	# comment (blank lines are ignored too)
//	train 17
//	train 3
//	test 0
//
// a part name (train or test) and a 0-based row index into the dataset's
// rows in stored order (for a source with its own train/test files, its
// training rows then its test rows, as split.all orders them). Every row
// must be listed exactly once. The parts keep the file's order, so the
// training rows are in the order the external code used.
type SplitIndices struct {
	// Path is the file as named in the spec (after resolving a relative
	// path); SHA256 is the hex SHA-256 of its bytes.
	Path, SHA256 string
	// Train and Test are the row indices of each part in file order;
	// trainLine and testLine are their 1-based file lines.
	Train, Test         []int
	trainLine, testLine []int
}

// ReadSplitIndices reads and parses a split file. A missing or unreadable
// file, or a malformed line, is a *FileError naming the file (and the
// line). Range, duplicates and count are checked against the dataset by
// Apply, when its size is known.
func ReadSplitIndices(path string) (*SplitIndices, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &FileError{Path: path, Err: errors.New("split file not found")}
	}
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	sum := sha256.Sum256(b)
	s := &SplitIndices{Path: path, SHA256: hex.EncodeToString(sum[:])}
	// A UTF-8 byte-order mark (an editor's on Windows) is not part of
	// line 1, as for the CSV loaders (records.go).
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("%q: want a part and a row index, e.g. \"train 17\"", text)}
		}
		i, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("row index %q is not an integer", f[1])}
		}
		if i < 0 {
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("row index %d is negative (indices are 0-based)", i)}
		}
		switch f[0] {
		case "train":
			s.Train, s.trainLine = append(s.Train, i), append(s.trainLine, line)
		case "test":
			s.Test, s.testLine = append(s.Test, i), append(s.testLine, line)
		default:
			return nil, &FileError{Path: path, Line: line, Err: fmt.Errorf("part %q: want train or test", f[0])}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	switch {
	case len(s.Train) == 0:
		return nil, &FileError{Path: path, Err: errors.New("no train row")}
	case len(s.Test) == 0:
		return nil, &FileError{Path: path, Err: errors.New("no test row")}
	}
	return s, nil
}

// Check reports whether the file assigns each of n rows exactly once: an
// index ≥ n or listed twice is a *FileError naming its line, and a file
// listing fewer or more than n rows one naming the counts.
func (s *SplitIndices) Check(n int) error {
	seen := make([]int, n) // line of the row's first listing, 0 if none
	for part, idx := range [][]int{s.Train, s.Test} {
		lines := [][]int{s.trainLine, s.testLine}[part]
		for k, i := range idx {
			line := lines[k]
			if i >= n {
				return &FileError{Path: s.Path, Line: line, Err: fmt.Errorf("row index %d is out of range: the dataset has %d rows (0 … %d)", i, n, n-1)}
			}
			if seen[i] != 0 {
				return &FileError{Path: s.Path, Line: line, Err: fmt.Errorf("row index %d is listed twice (first on line %d)", i, seen[i])}
			}
			seen[i] = line
		}
	}
	if got := len(s.Train) + len(s.Test); got != n {
		return &FileError{Path: s.Path, Err: fmt.Errorf("lists %d rows (%d train, %d test), but the dataset has %d: every row must be assigned once", got, len(s.Train), len(s.Test), n)}
	}
	return nil
}

// Apply returns copies of d's rows listed as train and as test, in file
// order, after Check(d.Rows()).
func (s *SplitIndices) Apply(d *Dataset) (train, test *Dataset, err error) {
	if err := s.Check(d.Rows()); err != nil {
		return nil, nil, err
	}
	return d.Subset(s.Train), d.Subset(s.Test), nil
}
