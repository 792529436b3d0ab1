package spec

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// SpecError is a problem with a spec file: it names the file, the line
// (0 when unknown) and the key path.
type SpecError struct {
	File string
	Line int
	Key  string // e.g. "mechanism[1].params.rho"; "" for the whole file
	Err  error
}

func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %s", e.Key)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *SpecError) Unwrap() error { return e.Err }

// keyIndex maps dotted key paths (without array indices, as TOML metadata
// reports them) to the first line that defines them. It understands table
// headers, array-of-tables headers, dotted keys and one level of inline
// tables, which covers the specs dplab documents.
type keyIndex struct {
	lines map[string]int
	// nth[path][i] is the line of the i-th [[path]] header.
	nth map[string][]int
}

func indexKeys(src []byte) keyIndex {
	idx := keyIndex{lines: map[string]int{}, nth: map[string][]int{}}
	table := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := stripComment(strings.TrimSpace(sc.Text()))
		switch {
		case line == "":
		case strings.HasPrefix(line, "[["):
			table = cleanKey(strings.Trim(line, "[] "))
			idx.nth[table] = append(idx.nth[table], n)
			idx.add(table, n)
		case strings.HasPrefix(line, "["):
			table = cleanKey(strings.Trim(line, "[] "))
			idx.add(table, n)
		default:
			eq := strings.IndexByte(line, '=')
			if eq < 0 {
				continue
			}
			key := join(table, cleanKey(line[:eq]))
			idx.add(key, n)
			val := strings.TrimSpace(line[eq+1:])
			if strings.HasPrefix(val, "{") {
				for _, kv := range splitInline(strings.Trim(val, "{} ")) {
					if e := strings.IndexByte(kv, '='); e > 0 {
						idx.add(join(key, cleanKey(kv[:e])), n)
					}
				}
			}
		}
	}
	return idx
}

func (k keyIndex) add(path string, line int) {
	if _, ok := k.lines[path]; !ok {
		k.lines[path] = line
	}
}

// line returns the line of path, or of its closest defined parent.
func (k keyIndex) line(path string) int {
	for p := path; p != ""; {
		if n, ok := k.lines[p]; ok {
			return n
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

// lineIn returns the line of key inside the i-th [[table]] block: the first
// definition of table.key at or after that block's header.
func (k keyIndex) lineIn(src []byte, table string, i int, key string) int {
	headers := k.nth[table]
	if i >= len(headers) {
		return k.line(join(table, key))
	}
	start, end := headers[i], 1<<31
	if i+1 < len(headers) {
		end = headers[i+1]
	}
	sub := indexKeysFrom(src, start, end, table)
	// The index knows no array elements inside a block ("preprocess[1].k"
	// is looked up as preprocess.k, then preprocess).
	key = stripIndices(key)
	if n, ok := sub[join(table, key)]; ok {
		return n
	}
	for p := key; ; {
		j := strings.LastIndexByte(p, '.')
		if j < 0 {
			return start
		}
		p = p[:j]
		if n, ok := sub[join(table, p)]; ok {
			return n
		}
	}
}

// linePath returns the line of a decoder key path, whose first element may
// carry an [[array]] index ("dataset[1].split.test"); 0 when unknown.
func (k keyIndex) linePath(src []byte, path string) int {
	head, rest, _ := strings.Cut(path, ".")
	if table, idx, ok := strings.Cut(head, "["); ok {
		var i int
		if _, err := fmt.Sscanf(idx, "%d]", &i); err == nil {
			return k.lineIn(src, table, i, rest)
		}
	}
	return k.line(path)
}

// indexKeysFrom indexes lines [start, end) as if the file started there in
// table.
func indexKeysFrom(src []byte, start, end int, table string) map[string]int {
	lines := strings.Split(string(src), "\n")
	var b strings.Builder
	for n := start; n < end && n <= len(lines); n++ {
		b.WriteString(lines[n-1])
		b.WriteByte('\n')
	}
	sub := indexKeys([]byte(b.String()))
	out := make(map[string]int, len(sub.lines))
	for p, n := range sub.lines {
		out[p] = n + start - 1
	}
	return out
}

// stripIndices drops the [i] array indices from a key path.
func stripIndices(key string) string {
	if !strings.Contains(key, "[") {
		return key
	}
	var b strings.Builder
	depth := 0
	for _, c := range key {
		switch {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// cleanKey normalises a TOML key: trims spaces around dots and drops quotes.
func cleanKey(s string) string {
	parts := strings.Split(strings.TrimSpace(s), ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// stripComment removes a trailing # comment outside strings.
func stripComment(s string) string {
	inStr := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0 && c == inStr:
			inStr = 0
		case inStr == 0 && (c == '"' || c == '\''):
			inStr = c
		case inStr == 0 && c == '#':
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// splitInline splits the body of an inline table at top-level commas.
func splitInline(s string) []string {
	var out []string
	depth, start := 0, 0
	inStr := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0:
			if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// InputError is a problem with the run's input data (a missing or malformed
// data file): bad input, not a failed run.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }
