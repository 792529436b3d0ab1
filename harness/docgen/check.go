package docgen

import (
	"bytes"
	"fmt"
	"strings"
)

// Stale is a file, or a section of a document, that differs from what the
// evidence generates.
type Stale struct {
	Path    string
	Section string // the section's begin marker words; "" for a whole file
	Line    int    // the section's begin marker line (0 for a whole file)
	Diff    string // an excerpt: the first lines that differ, "-" as held, "+" as generated
}

func (s Stale) String() string {
	where := s.Path
	if s.Section != "" {
		where = fmt.Sprintf("%s:%d: section %s", s.Path, s.Line, s.Section)
	}
	return where + " differs from what make docs generates:\n" + s.Diff
}

// Check returns the files and sections of files that differ from what
// they would be generated as.
func Check(files []*File) []Stale {
	var out []Stale
	for _, f := range files {
		if bytes.Equal(f.Old, f.New) {
			continue
		}
		if f.Sections == nil {
			out = append(out, Stale{Path: f.Path, Diff: diffExcerpt(string(f.Old), string(f.New))})
			continue
		}
		found := false
		for i, s := range f.Sections {
			if old := f.Old[s.start:s.end]; !bytes.Equal(old, f.generated[i]) {
				out = append(out, Stale{Path: f.Path, Section: s.String(), Line: s.Line, Diff: diffExcerpt(string(old), string(f.generated[i]))})
				found = true
			}
		}
		if !found { // cannot happen: only sections are replaced
			out = append(out, Stale{Path: f.Path, Diff: diffExcerpt(string(f.Old), string(f.New))})
		}
	}
	return out
}

// maxDiffLines is how many changed lines a diff excerpt shows.
const maxDiffLines = 12

// diffExcerpt shows the lines that differ between a (as held) and b (as
// generated), by a longest common subsequence of lines: "-" and the line's
// number in a for a's, "+" and its number in b for b's, at most
// maxDiffLines of them.
func diffExcerpt(a, b string) string {
	if a == "" && b != "" {
		return "(missing: make docs writes it)\n"
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of a longest common subsequence of al[i:]
	// and bl[j:].
	lcs := make([][]int, len(al)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	shown, more := 0, 0
	emit := func(mark string, line int, text string) {
		if shown == maxDiffLines {
			more++
			return
		}
		fmt.Fprintf(&sb, "%s %4d | %s\n", mark, line, text)
		shown++
	}
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && j < len(bl) && al[i] == bl[j]:
			i, j = i+1, j+1
		case i < len(al) && (j == len(bl) || lcs[i+1][j] >= lcs[i][j+1]):
			emit("-", i+1, al[i])
			i++
		default:
			emit("+", j+1, bl[j])
			j++
		}
	}
	if more > 0 {
		fmt.Fprintf(&sb, "… and %d more changed lines\n", more)
	}
	return sb.String()
}
