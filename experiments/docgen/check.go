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

// maxDiffLines is how many lines of each side a diff excerpt shows.
const maxDiffLines = 6

// diffExcerpt shows the lines between the common first and last lines of
// a and b: at most maxDiffLines of each, "-" for a's, "+" for b's, with the
// line number in a of the first.
func diffExcerpt(a, b string) string {
	if a == "" && b != "" {
		return "(missing: make docs writes it)\n"
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "@@ line %d of the section (or file) @@\n", pre+1)
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == maxDiffLines {
				fmt.Fprintf(&sb, "%s … (%d more lines)\n", mark, len(lines)-i)
				break
			}
			sb.WriteString(mark + " " + l + "\n")
		}
	}
	side("-", al[pre:len(al)-suf])
	side("+", bl[pre:len(bl)-suf])
	return sb.String()
}
