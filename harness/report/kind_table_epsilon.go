package report

import (
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/plotting"
)

// epsilonTable is the default table kind: rows ε (one table per dataset) or
// datasets (at one ε), columns mechanisms, cells mean ± CI half-width, the
// best per row in bold.
type epsilonTable struct {
	Title      string    `toml:"title"`      // table title; default the metric's title
	Metric     string    `toml:"metric"`     // required: the metric tabulated (test_mse, test_accuracy, …)
	Rows       string    `toml:"rows"`       // "epsilon" (default) or "dataset"
	Datasets   []string  `toml:"datasets"`   // labels; default all
	Mechanisms []string  `toml:"mechanisms"` // labels; default all
	Epsilon    []float64 `toml:"epsilon"`    // ε values to show; default all
	Formats    []string  `toml:"formats"`    // default ["md", "tex", "csv"]
	Note       string    `toml:"note"`       // added to the caption file

	spec tableSpec
}

func init() {
	RegisterTable("epsilon", Kind[Table]{Params: epsilonTable{}, Example: `metric = "test_mse"`, Decode: func(b *Block) (Table, error) {
		var t epsilonTable
		if err := b.Decode(&t); err != nil {
			return nil, err
		}
		if err := plan.CheckMetric(b.Spec, b.Kind, b.Index, t.Metric); err != nil {
			return nil, err
		}
		var err error
		if t.Rows, err = b.OneOf("rows", t.Rows, "epsilon", "epsilon", "dataset"); err != nil {
			return nil, err
		}
		if t.Rows == "dataset" && len(t.Epsilon) != 1 {
			return nil, b.Errorf("epsilon", "a table with rows = \"dataset\" shows one ε: set epsilon = [value]")
		}
		if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
			return nil, err
		}
		ds, ms, err := b.Labels(t.Datasets, t.Mechanisms)
		if err != nil {
			return nil, err
		}
		t.spec = tableSpec{Name: b.Out.Name, Title: t.Title, Metric: t.Metric, Rows: t.Rows,
			Datasets: ds, Mechanisms: ms, Epsilon: t.Epsilon, Formats: t.Formats, Note: t.Note}
		return &t, nil
	}})
}

func (t *epsilonTable) Build(v *View) []*plotting.Table { return v.tables(&t.spec) }
func (t *epsilonTable) FileFormats() []string           { return t.Formats }
