package htmlreport

import (
	"errors"
	"html"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CaptionSuffix ends the name of the caption file beside a figure or a table
// (figures/NAME.caption.md, tables/NAME.caption.md): what does not fit in
// the image or under the table. The page shows it under its figure or table.
const CaptionSuffix = ".caption.md"

// readCaption returns the caption file of the figure or table name in dir,
// rendered; "" when there is none.
func readCaption(dir, name string) (template.HTML, error) {
	b, err := os.ReadFile(filepath.Join(dir, name+CaptionSuffix))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return markdownHTML(string(b)), nil
}

// markdownHTML renders the little Markdown a caption file uses: paragraphs
// (separated by blank lines), "#" headings (a bold line), bullet lists ("- "
// or "* "), **bold**, *italic* and `code`. Every character of the text is escaped first; the
// only markup in the result is that of those forms.
func markdownHTML(md string) template.HTML {
	var b strings.Builder
	var para, items []string // the open paragraph's lines, the open list's items
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inlineHTML(strings.Join(para, " ")) + "</p>\n")
		}
		if len(items) > 0 {
			b.WriteString("<ul>\n")
			for _, it := range items {
				b.WriteString("<li>" + inlineHTML(it) + "</li>\n")
			}
			b.WriteString("</ul>\n")
		}
		para, items = nil, nil
	}
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			if len(para) > 0 {
				flush()
			}
			items = append(items, strings.TrimSpace(t[2:]))
		case len(items) > 0 && line != t: // an indented line continues the item
			items[len(items)-1] += " " + t
		case strings.HasPrefix(t, "#"): // a heading: a bold line of its own
			flush()
			b.WriteString("<p><strong>" + inlineHTML(strings.TrimSpace(strings.TrimLeft(t, "#"))) + "</strong></p>\n")
		default:
			if len(items) > 0 {
				flush()
			}
			para = append(para, t)
		}
	}
	flush()
	// #nosec: every piece of text was escaped by inlineHTML.
	return template.HTML(b.String())
}

var (
	boldRE   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	italicRE = regexp.MustCompile(`(^|[\s(])\*([^\s*][^*]*)\*`)
)

// inlineHTML escapes s and sets its `code` spans, **bold** and *italic*.
func inlineHTML(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unclosed backtick is a plain one
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	var b strings.Builder
	for i, p := range parts {
		p = html.EscapeString(p)
		if i%2 == 1 {
			b.WriteString("<code>" + p + "</code>")
			continue
		}
		p = boldRE.ReplaceAllString(p, "<strong>$1</strong>")
		b.WriteString(italicRE.ReplaceAllString(p, "$1<em>$2</em>"))
	}
	return b.String()
}
