// Package docgen regenerates the marked sections of Markdown documents
// (the reproduction docs) from the evidence of full-size runs committed
// beside them: a spec's tables, and the verdicts of its paper claims, as
// the current code renders them from report.Evidence with the current
// spec. dplab docs runs it; a test fails when a document differs from what
// it generates (docs/ARCHITECTURE.md, "Generated docs").
//
// A section is delimited by two HTML comments, each on a line of its own:
//
//	<!-- dplab:begin table spec=rgm_fig1 name=fig1-final-split-random -->
//	(generated: never edit by hand)
//	<!-- dplab:end -->
//
// Kinds: "table" (spec, name: a table file stem the spec's render writes,
// tables/<name>.md; optionally rows: only the rows whose label contains
// that text, such as rows=Relative[split=random]; caption=yes: with its
// caption), "figure" (spec, name: a [[figure]] block of the spec, drawn
// from the evidence into img/<spec>-<name>.svg beside the document, with
// its caption) and "claims" (specs: a comma-separated list of spec names;
// their claims' verdicts in one table).
package docgen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Markers of a section.
const (
	beginMarker = "<!-- dplab:begin "
	endMarker   = "<!-- dplab:end -->"
)

// Section is a marked section of a document.
type Section struct {
	Kind string            // "table", "figure" or "claims"
	Args map[string]string // key=value pairs after the kind
	Line int               // line of the begin marker (1-based)
	// start and end delimit the section's content in the document: from
	// the line after the begin marker to the end marker's line.
	start, end int
}

// String names the section as errors and the check do: the begin
// marker's words.
func (s *Section) String() string {
	keys := slices.Sorted(maps.Keys(s.Args))
	parts := []string{s.Kind}
	for _, k := range keys {
		parts = append(parts, k+"="+s.Args[k])
	}
	return strings.Join(parts, " ")
}

// sectionArgs are the keys each kind requires, and optionalArgs those it
// may take.
var (
	sectionArgs = map[string][]string{
		"table":  {"spec", "name"},
		"figure": {"spec", "name"},
		"claims": {"specs"},
	}
	optionalArgs = map[string][]string{
		"table": {"rows", "caption"},
	}
)

// Parse returns the marked sections of doc, in order; name names the
// document in errors. A begin marker without its end, an end without a
// begin, a nested begin, an unknown kind or key, or a missing key is an
// error naming the line.
func Parse(name string, doc []byte) ([]Section, error) {
	var out []Section
	var open *Section
	pos := 0
	for n := 1; pos < len(doc); n++ {
		eol := bytes.IndexByte(doc[pos:], '\n')
		next := len(doc)
		if eol >= 0 {
			next = pos + eol + 1
		}
		line := strings.TrimSpace(string(doc[pos:next]))
		switch {
		case strings.HasPrefix(line, beginMarker):
			if open != nil {
				return nil, fmt.Errorf("%s:%d: a section begins inside the section begun at line %d (end it with %s first)", name, n, open.Line, endMarker)
			}
			s, err := parseBegin(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			s.Line, s.start = n, next
			open = s
		case line == endMarker:
			if open == nil {
				return nil, fmt.Errorf("%s:%d: %s without a section begun before it", name, n, endMarker)
			}
			open.end = pos
			out = append(out, *open)
			open = nil
		case strings.Contains(line, "<!-- dplab:"):
			return nil, fmt.Errorf("%s:%d: a section marker must be a line of its own: %q or %q", name, n, beginMarker+"KIND key=value ... -->", endMarker)
		}
		pos = next
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: section %q is not ended (%s)", name, open.Line, open.String(), endMarker)
	}
	return out, nil
}

// parseBegin parses a begin marker's line.
func parseBegin(line string) (*Section, error) {
	body, ok := strings.CutSuffix(strings.TrimPrefix(line, beginMarker), "-->")
	words := strings.Fields(body)
	if !ok || len(words) == 0 {
		return nil, fmt.Errorf("want %sKIND key=value ... -->", beginMarker)
	}
	s := &Section{Kind: words[0], Args: map[string]string{}}
	keys, ok := sectionArgs[s.Kind]
	if !ok {
		return nil, fmt.Errorf("section kind %q: want %s", s.Kind, strings.Join(slices.Sorted(maps.Keys(sectionArgs)), ", "))
	}
	allowed := append(slices.Clone(keys), optionalArgs[s.Kind]...)
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || v == "" || !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("%s section: %q: want key=value with a key of %s", s.Kind, w, strings.Join(allowed, ", "))
		}
		if _, dup := s.Args[k]; dup {
			return nil, fmt.Errorf("%s section: %s given twice", s.Kind, k)
		}
		s.Args[k] = v
	}
	for _, k := range keys {
		if _, ok := s.Args[k]; !ok {
			return nil, fmt.Errorf("%s section: %s= missing", s.Kind, k)
		}
	}
	if c, ok := s.Args["caption"]; ok && c != "yes" {
		return nil, fmt.Errorf("%s section: caption=%s: want caption=yes (or no caption key)", s.Kind, c)
	}
	return s, nil
}

// Replace returns doc with each section's content replaced by content(s)
// (which must end in a newline).
func Replace(doc []byte, sections []Section, content func(*Section) ([]byte, error)) ([]byte, error) {
	var b bytes.Buffer
	last := 0
	for i := range sections {
		s := &sections[i]
		c, err := content(s)
		if err != nil {
			return nil, err
		}
		b.Write(doc[last:s.start])
		b.Write(c)
		last = s.end
	}
	b.Write(doc[last:])
	return b.Bytes(), nil
}
