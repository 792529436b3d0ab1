package datasets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dplab/dplab/internal/fielddoc"
)

// datasetIndex is docs/datasets.md's table of every registered dataset,
// generated from the registry: name, title, task, shape with default params,
// where it comes from and the papers that use it.
func datasetIndex() string {
	var b strings.Builder
	b.WriteString("| dataset | title | task | n × d | data | used by |\n|---|---|---|---|---|---|\n")
	for _, in := range List() {
		shape := "varies"
		if in.Rows > 0 && in.Cols > 0 {
			shape = fmt.Sprintf("%d × %d", in.Rows, in.Cols)
		}
		data := fmt.Sprintf("%d registered files", len(in.Files))
		switch {
		case in.Synthetic:
			data = "generated from `seed`"
		case in.UserFile:
			data = "the user's file"
		case len(in.Files) == 1:
			data = "1 registered file"
		}
		papers := strings.Join(in.Papers, "; ")
		if papers == "" {
			papers = "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", in.Name, cell(in.Title), in.Task, shape, data, cell(papers))
	}
	return b.String()
}

// cell escapes s for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestDatasetsDocGenerated fails when docs/datasets.md's table of every
// registered dataset is not what the registry declares, so a new dataset
// needs no hand edit of the docs; go generate ./datasets rewrites it.
func TestDatasetsDocGenerated(t *testing.T) {
	if err := fielddoc.CheckSection("../docs/datasets.md", "dataset-index", []byte(datasetIndex()), "go generate ./datasets"); err != nil {
		t.Error(err)
	}
}
