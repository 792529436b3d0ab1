package report

import "github.com/dplab/dplab/plotting"

// runtimeTable is per dataset, one row per (mechanism, ε) with the mean wall time, runs and
// per-example gradient evaluations of a trial.
type runtimeTable struct {
	Title      string   `toml:"title"`
	Datasets   []string `toml:"datasets"`   // labels; default all
	Mechanisms []string `toml:"mechanisms"` // labels; default all
	Formats    []string `toml:"formats"`    // default ["md", "tex", "csv"]
	Note       string   `toml:"note"`

	spec tableSpec
}

func init() {
	RegisterTable("runtime", func(b *Block) (Table, error) {
		var t runtimeTable
		if err := b.Decode(&t); err != nil {
			return nil, err
		}
		var err error
		if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
			return nil, err
		}
		ds, ms, err := b.Labels(t.Datasets, t.Mechanisms)
		if err != nil {
			return nil, err
		}
		t.spec = tableSpec{Name: b.Out.Name, Kind: "runtime", Title: t.Title, Datasets: ds, Mechanisms: ms, Formats: t.Formats, Note: t.Note}
		return &t, nil
	})
}

func (t *runtimeTable) build(v *view) []*plotting.Table { return v.runtimeTables(&t.spec) }
func (t *runtimeTable) formats() []string               { return t.Formats }
