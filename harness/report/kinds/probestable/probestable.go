// Package probestable is the "probes" table kind: the sensitivity probes
// of datasets/preprocess against the pre-processors' claimed bounds. It
// reads no records; it is written against report's exported API only and
// registers itself in init (imported for its side effect by
// harness/report/kinds).
package probestable

import (
	"fmt"
	"strings"

	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/harness/report"
	"github.com/dplab/dplab/plotting"
)

// probesTable runs the sensitivity probes of datasets/preprocess
// (preprocessing.md §4.6: random and adversarial neighbouring datasets per
// pre-processor) and tabulates, for every pre-processor, quantity (Δ_∞,
// Δ_2) and mode (paper, safe), the bound, the largest observed value
// against it, the verdict — confirmed, or refuted with its witness — and
// the number of swaps. Seeded: the same table every time. It reads no
// records (a spec of this table alone runs no trials).
type probesTable struct {
	N          int      `toml:"n"`           // rows of S₁ (0: 60 for clusters and imputation, 401 for PCA)
	D          int      `toml:"d"`           // features (0: 4, 5, 6)
	Random     int      `toml:"random"`      // random swaps per family (0: 1400)
	PerTarget  int      `toml:"per_target"`  // swaps per adversarial target (0: 200)
	Eta        float64  `toml:"eta"`         // η of deduplication and quantization (0: 0.1)
	MaxCluster int      `toml:"max_cluster"` // largest good cluster of the cluster swaps (0: 6)
	K          int      `toml:"k"`           // PCA components (0: 3)
	Seed       uint64   `toml:"seed"`        // seed of the probes' random draws; 0 is a seed like any other
	Title      string   `toml:"title"`       // table title; default none
	Formats    []string `toml:"formats"`     // default ["md", "tex", "csv"]
	Note       string   `toml:"note"`        // added to the caption file

	name string
}

func init() {
	report.RegisterTable("probes", report.Kind[report.Table]{
		Params:  probesTable{},
		Docs:    kindDocs,
		Example: "random = 30\nper_target = 5\nseed = 1",
		Decode: func(b *report.Block) (report.Table, error) {
			t := probesTable{name: b.Out.Name}
			if err := b.Decode(&t); err != nil {
				return nil, err
			}
			for _, c := range []struct {
				key string
				v   int
			}{{"n", t.N}, {"d", t.D}, {"random", t.Random}, {"per_target", t.PerTarget}, {"max_cluster", t.MaxCluster}, {"k", t.K}} {
				if c.v < 0 {
					return nil, b.Errorf(c.key, "%s = %d: want ≥ 0 (0: the default)", c.key, c.v)
				}
			}
			if !(t.Eta >= 0 && t.Eta < 1) {
				return nil, b.Errorf("eta", "eta = %v: want a value in [0, 1) (0: 0.1)", t.Eta)
			}
			var err error
			if t.Formats, err = b.Formats(t.Formats, plotting.TableFormats); err != nil {
				return nil, err
			}
			return &t, nil
		},
	})
}

// FileFormats implements report.Table.
func (t *probesTable) FileFormats() []string { return t.Formats }

// Build implements report.Table: the probes run here, seeded; the view is
// not read.
func (t *probesTable) Build(*report.View) []*plotting.Table {
	tab := &plotting.Table{Name: t.name, Title: t.Title, RowHeader: "pre-processor, quantity, mode", Better: plotting.NoBest,
		Columns: []string{"bound", "observed", "verdict", "swaps", "witness"}}
	if tab.Title == "" {
		tab.Title = "Sensitivity probes: claimed bounds against the worst neighbouring datasets found"
	}
	reports, err := preprocess.RunStandardProbes(preprocess.ProbeConfig{N: t.N, D: t.D, Random: t.Random, PerTarget: t.PerTarget,
		Eta: t.Eta, MaxCluster: t.MaxCluster, K: t.K, Seed: t.Seed})
	if err != nil {
		tab.Caption = plotting.Caption{Line: "the probes failed: " + err.Error()}
		return []*plotting.Table{tab}
	}
	text := func(s string) plotting.Entry { return plotting.Entry{Present: true, Text: s} }
	for _, r := range reports {
		for _, v := range r.Verdicts {
			tab.Rows = append(tab.Rows, fmt.Sprintf("%s, %s, %s", r.Preprocessor, v.Quantity, v.Mode))
			verdict := "confirmed"
			if v.Refuted {
				verdict = fmt.Sprintf("REFUTED (%.4g×)", v.MaxRatio)
			}
			witness := "—"
			if v.Witness != nil {
				witness = v.Witness.String()
			}
			row := []plotting.Entry{
				{Present: v.Witness != nil, Mean: v.Bound()},
				{Present: v.Witness != nil, Mean: v.Observed()},
				text(verdict),
				text(fmt.Sprintf("%d (%d without a bound)", v.Checked, v.Unbounded)),
				text(strings.ReplaceAll(witness, "\n", " ")),
			}
			tab.Cells = append(tab.Cells, row)
		}
	}
	tab.Caption = plotting.Caption{Line: "a refuted bound is not a guarantee", Notes: []string{
		"observed: the largest value over the swaps of the pair with the largest observed/bound ratio, each pair's bound computed on the collection the two neighbours realise", t.Note}}
	return []*plotting.Table{tab}
}
