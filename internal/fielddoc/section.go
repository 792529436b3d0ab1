package fielddoc

import (
	"bytes"
	"fmt"
	"os"
)

// SectionMarkers returns the lines that open and close the generated
// section name of a Markdown document; by is the command that regenerates
// it, named in the opening line.
func SectionMarkers(name, by string) (begin, end string) {
	return fmt.Sprintf("<!-- generated %s: edit the registry, then run %s -->", name, by),
		fmt.Sprintf("<!-- end generated %s -->", name)
}

// CheckSection compares the generated section name of the Markdown file
// path (the lines between its SectionMarkers) with content; with UpdateEnv
// set (go generate) it rewrites the section instead. A missing marker or a
// stale section is an error naming the file and the command.
func CheckSection(path, name string, content []byte, by string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin, end := SectionMarkers(name, by)
	i := bytes.Index(doc, []byte(begin+"\n"))
	j := bytes.Index(doc, []byte("\n"+end+"\n"))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no generated section %s: want the line %q, the section, then the line %q", path, name, begin, end)
	}
	start := i + len(begin) + 1
	if !bytes.HasSuffix(content, []byte("\n")) {
		content = append(content, '\n')
	}
	got := doc[start : j+1]
	if bytes.Equal(got, content) {
		return nil
	}
	if os.Getenv(UpdateEnv) != "" {
		out := append(append(append([]byte{}, doc[:start]...), content...), doc[j+1:]...)
		return os.WriteFile(path, out, 0o644)
	}
	return fmt.Errorf("%s: the generated section %s differs from the registry; run %s (line %d: %s)", path, name, by, bytes.Count(doc[:start], []byte("\n"))+1, firstDiff(got, content))
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for k := 0; k < max(len(g), len(w)); k++ {
		var a, b []byte
		if k < len(g) {
			a = g[k]
		}
		if k < len(w) {
			b = w[k]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("section line %d is %q, want %q", k+1, a, b)
		}
	}
	return "same lines"
}
