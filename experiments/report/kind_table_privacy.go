package report

import "github.com/dplab/dplab/plotting"

// privacyTable is the calibration table: per dataset, one row per (mechanism, ε) with ε target,
// ε spent, δ, α*, the noise parameters and the ε of each ledger component.
type privacyTable struct {
	Title      string   `toml:"title"`
	Datasets   []string `toml:"datasets"`   // labels; default all
	Mechanisms []string `toml:"mechanisms"` // labels; default all
	Formats    []string `toml:"formats"`    // default ["md", "tex", "csv"]
	Note       string   `toml:"note"`

	spec tableSpec
}

func init() {
	RegisterTable("privacy", func(b *Block) (Table, error) {
		var t privacyTable
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
		t.spec = tableSpec{Name: b.Out.Name, Kind: "privacy", Title: t.Title, Datasets: ds, Mechanisms: ms, Formats: t.Formats, Note: t.Note}
		return &t, nil
	})
}

func (t *privacyTable) build(v *view) []*plotting.Table { return v.privacyTables(&t.spec) }
func (t *privacyTable) formats() []string               { return t.Formats }
