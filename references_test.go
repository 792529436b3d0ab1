package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/mechanisms"
)

// referencesFile is the one list of citation keys (docs/references.md).
const referencesFile = "docs/references.md"

// bracketKeyRe matches a citation key in brackets: an optional lower-case
// name particle ("v" of [vEH14]), authors' initials or a name starting with a
// capital, "+" for more authors, a two-digit year and an optional letter
// ("[RKW23]", "[LSS+25, App. F]", "[BW18 Thm 8]"). Requiring the capital and
// the two digits right after the letters keeps Go index expressions
// ("x[i]", "m[K]", "buf[n64]"), type parameters ("[P Params]") and link text
// ("[Figure 1]") out; goNumericTypeRe and the "(" check below handle the rest.
var bracketKeyRe = regexp.MustCompile(`\[((?:[a-z]{1,3})?[A-Z][A-Za-z]{0,7}\+?[0-9]{2}[a-z]?)[\] ,;]`)

// bareKeyRe matches a key without brackets, as registries and tables write
// them ("LSS+25 Fig. 4(c)", "RKW23 Thm 3.1"): it needs two capitals before
// the year, so Go names such as Float64 and Sheffet17 do not match.
var bareKeyRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\[+/-])([A-Z][a-z]*[A-Z][A-Za-z]*\+?[0-9]{2}[a-z]?)\b`)

// goNumericTypeRe names Go's sized numeric types, which a doc link may put in
// brackets ("[Float64]").
var goNumericTypeRe = regexp.MustCompile(`^(?:[Uu]?[Ii]nt(?:8|16|32|64)|[Ff]loat(?:32|64)|[Cc]omplex64)$`)

// keyShapeRe is the whole-string form of a key, for registry fields.
var keyShapeRe = regexp.MustCompile(`^(?:[a-z]{1,3})?[A-Z][A-Za-z]{0,7}\+?[0-9]{2}[a-z]?$`)

// citation is one use of a key.
type citation struct {
	key  string
	file string // slash-separated, relative to the module root
	line int
}

func (c citation) String() string { return fmt.Sprintf("%s:%d: [%s]", c.file, c.line, c.key) }

// keysInText returns the citation keys in text, each with its line; lineOf
// maps a byte offset of text to a line of the file text comes from.
func keysInText(text string, lineOf func(off int) int) []citation {
	var out []citation
	for _, m := range bracketKeyRe.FindAllStringSubmatchIndex(text, -1) {
		key := text[m[2]:m[3]]
		if goNumericTypeRe.MatchString(key) {
			continue
		}
		// "[KEY](url)" or "[KEY][ref]" is Markdown link text, not a citation.
		if end := m[1]; text[end-1] == ']' && end < len(text) && (text[end] == '(' || text[end] == '[') {
			continue
		}
		out = append(out, citation{key: key, line: lineOf(m[2])})
	}
	for _, m := range bareKeyRe.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, citation{key: text[m[2]:m[3]], line: lineOf(m[2])})
	}
	return out
}

// lineCounter maps byte offsets of src to 1-based line numbers.
func lineCounter(src string) func(off int) int {
	var starts []int
	starts = append(starts, 0)
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int { return sort.SearchInts(starts, off+1) }
}

// keysInGo returns the keys cited in a Go file's comments and string
// literals (never in code, where brackets index).
func keysInGo(name string, src []byte) []citation {
	lineOf := lineCounter(string(src))
	fset := token.NewFileSet()
	f := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, func(token.Position, string) {}, scanner.ScanComments)
	var out []citation
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT && tok != token.STRING {
			continue
		}
		base := f.Offset(pos)
		for _, c := range keysInText(lit, func(off int) int { return lineOf(base + off) }) {
			c.file = name
			out = append(out, c)
		}
	}
	return out
}

// keysInMarkdown returns the keys cited in a Markdown file.
func keysInMarkdown(name string, src []byte) []citation {
	out := keysInText(string(src), lineCounter(string(src)))
	for i := range out {
		out[i].file = name
	}
	return out
}

// referencesSection returns the line range [from, to) of a file's references
// section: in a Go file the "# References" heading of a doc comment and the
// comment lines after it, in Markdown the "## References" heading up to the
// next heading of the same or a higher level. ok is false when there is none.
func referencesSection(name string, src []byte) (from, to int, ok bool) {
	lines := strings.Split(string(src), "\n")
	isGo := strings.HasSuffix(name, ".go")
	for i, l := range lines {
		if (isGo && strings.TrimSpace(l) == "// # References") || (!isGo && strings.TrimSpace(l) == "## References") {
			j := i + 1
			for ; j < len(lines); j++ {
				if isGo && !strings.HasPrefix(lines[j], "//") {
					break
				}
				if !isGo && (strings.HasPrefix(lines[j], "# ") || strings.HasPrefix(lines[j], "## ")) {
					break
				}
			}
			return i + 1, j + 1, true
		}
	}
	return 0, 0, false
}

// repoFile is a scanned file: its citations, split into those of its
// references section (listed) and the rest (cited).
type repoFile struct {
	name              string // slash-separated, relative to the root
	dir               string
	isGo, isTest      bool
	section           bool // has a references section (a Go file: only doc.go)
	sectionLine       int  // the section's heading line
	listed, cited     []citation
	pointsToReference bool // the section names references.md
}

// scanRepo reads every .go and .md file under root, skipping testdata,
// vendor, hidden and underscore directories and run outputs (run.DefaultRoot).
func scanRepo(t *testing.T, root string) []repoFile {
	t.Helper()
	var files []repoFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (base == "testdata" || base == "vendor" || base == "bench" ||
				strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") ||
				rel == run.DefaultRoot) {
				return filepath.SkipDir
			}
			return nil
		}
		isGo := strings.HasSuffix(rel, ".go")
		if !isGo && !strings.HasSuffix(rel, ".md") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rf := repoFile{name: rel, dir: filepath.ToSlash(filepath.Dir(rel)), isGo: isGo, isTest: strings.HasSuffix(rel, "_test.go")}
		var all []citation
		if isGo {
			all = keysInGo(rel, src)
		} else {
			all = keysInMarkdown(rel, src)
		}
		from, to, ok := referencesSection(rel, src)
		if ok && !(isGo && filepath.Base(rel) != "doc.go") {
			rf.section, rf.sectionLine = true, from
			lines := strings.Split(string(src), "\n")
			rf.pointsToReference = strings.Contains(strings.Join(lines[from-1:to-1], "\n"), "references.md")
		}
		for _, c := range all {
			if rf.section && c.line >= from && c.line < to {
				rf.listed = append(rf.listed, c)
			} else {
				rf.cited = append(rf.cited, c)
			}
		}
		files = append(files, rf)
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", root, err)
	}
	return files
}

// referenceEntry is one entry of docs/references.md.
type referenceEntry struct {
	key  string
	line int
	text string
}

var (
	entryRe = regexp.MustCompile(`^- \[([^\]]+)\] (.+)$`)
	arxivRe = regexp.MustCompile(`arXiv:([0-9]{4}\.[0-9]{4,5})`)
	doiRe   = regexp.MustCompile(`(?i)(?:doi:\s*|doi\.org/)(10\.[0-9]{4,}/[^\s,;)]+)`)
)

// readReferences parses the entries ("- [KEY] text", one line each).
func readReferences(t *testing.T, path string) []referenceEntry {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the reference list: %v", err)
	}
	var out []referenceEntry
	for i, l := range strings.Split(string(src), "\n") {
		if m := entryRe.FindStringSubmatch(l); m != nil {
			out = append(out, referenceEntry{key: m[1], line: i + 1, text: m[2]})
		}
	}
	return out
}

// checkCitations returns the problems of the repository rooted at root.
func checkCitations(t *testing.T, root string) []string {
	t.Helper()
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	entries := readReferences(t, filepath.Join(root, referencesFile))
	if len(entries) == 0 {
		bad("%s: no entries (\"- [KEY] authors. Title. Venue year, arXiv:…\")", referencesFile)
	}
	listed := map[string]referenceEntry{}
	ids := map[string]referenceEntry{}
	for i, e := range entries {
		if !keyShapeRe.MatchString(e.key) {
			bad("%s:%d: key [%s] does not have the key shape (initials or name, optional +, two-digit year)", referencesFile, e.line, e.key)
		}
		if prev, dup := listed[e.key]; dup {
			bad("%s:%d: [%s] is listed twice (also line %d)", referencesFile, e.line, e.key, prev.line)
		}
		listed[e.key] = e
		if i > 0 && strings.ToLower(entries[i-1].key) >= strings.ToLower(e.key) {
			bad("%s:%d: [%s] is out of order: entries are sorted by key, ignoring case (after [%s])", referencesFile, e.line, e.key, entries[i-1].key)
		}
		var own []string
		for _, m := range arxivRe.FindAllStringSubmatch(e.text, -1) {
			own = append(own, "arXiv:"+m[1])
		}
		for _, m := range doiRe.FindAllStringSubmatch(e.text, -1) {
			own = append(own, "doi:"+strings.ToLower(m[1]))
		}
		for _, id := range own {
			if prev, dup := ids[id]; dup && prev.key != e.key {
				bad("%s:%d: [%s] and [%s] (line %d) name the same paper (%s): keep one key", referencesFile, e.line, e.key, prev.key, prev.line, id)
			}
			ids[id] = e
		}
	}

	files := scanRepo(t, root)
	used := map[string]bool{}
	for _, f := range files {
		for _, c := range append(append([]citation(nil), f.cited...), f.listed...) {
			if _, ok := listed[c.key]; !ok {
				bad("%v is not in %s", c, referencesFile)
			}
			if f.name != referencesFile {
				used[c.key] = true
			}
		}
	}
	// Registry fields that hold a key on their own (not caught as bare text
	// when the key has a single capital, as "Wang18").
	for _, info := range mechanisms.List() {
		if info.Ref == "" {
			continue
		}
		if !keyShapeRe.MatchString(info.Ref) {
			bad("mechanism %q: Ref %q is not a citation key", info.Name, info.Ref)
			continue
		}
		used[info.Ref] = true
		if _, ok := listed[info.Ref]; !ok {
			bad("mechanism %q: Ref [%s] is not in %s", info.Name, info.Ref, referencesFile)
		}
	}
	for _, e := range entries {
		if !used[e.key] {
			bad("%s:%d: [%s] is cited nowhere in the repository: remove the entry", referencesFile, e.line, e.key)
		}
	}

	// A package (a Go doc.go: the package's non-test files) or a Markdown
	// file that cites keys has a References section pointing to
	// docs/references.md; the keys themselves are listed only there (adding a
	// paper is one entry in one file).
	byDir := map[string][]repoFile{}
	for _, f := range files {
		if f.isGo && !f.isTest {
			byDir[f.dir] = append(byDir[f.dir], f)
		}
	}
	compare := func(where string, section *repoFile, cited []citation) {
		if len(cited) == 0 {
			return
		}
		if section == nil {
			bad("%s cites [%s] (first at %v) but has no References section pointing to %s", where, cited[0].key, cited[0], referencesFile)
			return
		}
		if !section.pointsToReference {
			bad("%s:%d: the References section does not point to %s", section.name, section.sectionLine, referencesFile)
		}
		for _, c := range section.listed {
			bad("%s:%d: the References section lists [%s]: keys are listed only in %s", section.name, c.line, c.key, referencesFile)
		}
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		var section *repoFile
		var cited []citation
		for i, f := range byDir[d] {
			if f.section {
				section = &byDir[d][i]
			}
			cited = append(cited, f.cited...)
		}
		compare("package "+d, section, cited)
	}
	for i, f := range files {
		if !f.isGo && f.section {
			compare(f.name, &files[i], f.cited)
		}
	}
	return problems
}

// TestCitationKeys enforces one key per paper, listed once: every key cited in
// a .go or .md file is an entry of docs/references.md, every entry is cited,
// no two entries share an arXiv id or DOI, and a package or file that cites
// keys has a References section pointing there (see docs/references.md).
func TestCitationKeys(t *testing.T) {
	t.Parallel()
	for _, p := range checkCitations(t, ".") {
		t.Error(p)
	}
}

// TestCitationKeyPatterns pins what counts as a citation, so that Go index
// expressions, type parameters and Markdown links are not read as keys.
func TestCitationKeyPatterns(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Ref: [RKW23] Thm 3.2.", []string{"RKW23"}},
		{"[LSS+25, App. F] and [BW18 Thm 8]; [Mir17]/[MTZ19]", []string{"LSS+25", "BW18", "Mir17", "MTZ19"}},
		{"non-decreasing ([vEH14] Thm 3)", []string{"vEH14"}},
		{"[HMB23]: RGM", []string{"HMB23"}},
		{`Papers: []string{"LSS+25 Fig. 4(c)", "IYE19"}`, []string{"LSS+25", "IYE19"}},
		{"| boston | … | LSS+25 Fig. 4(c) |", []string{"LSS+25"}},
		{"x[i] + m[K] + buf[n64] + s[a10]", nil},
		{"func Register[P Params]; oncemap.Map[K, V]; [Entry]", nil},
		{"see [Figure 1](figures/fig1.png) and [RKW23](https://arxiv.org/abs/2401.00583)", nil},
		{"a doc link: [Float64], [math.Float64], [Int64]", nil},
		{"float64 Sheffet17 sheffet19 blas64 SHA256 MT19937 arXiv:2401.00583v1 kin40k t10k", nil},
	}
	for _, tc := range cases {
		var got []string
		for _, c := range keysInText(tc.text, func(int) int { return 1 }) {
			got = append(got, c.key)
		}
		sort.Strings(got)
		want := append([]string(nil), tc.want...)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("keys in %q = %v, want %v", tc.text, got, want)
		}
	}
}

// TestDocsCitePapersNotPaths: the user-facing docs cite a paper by its
// title, authors and arXiv id (through docs/references.md), never by a path
// into the development checkout's ../shared folder, which a reader of the
// repository does not have.
func TestDocsCitePapersNotPaths(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "shared/papers") {
				t.Errorf("%s:%d cites a paper by a local path; cite it by key ([RKW23]) or title, authors and arXiv id: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
