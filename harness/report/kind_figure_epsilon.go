package report

import "github.com/dplab/dplab/plotting"

// epsilonFigure is the default figure kind: a metric versus ε, one panel
// per dataset, one line per mechanism, with a band (CI, IQR or min–max).
type epsilonFigure struct {
	Title      string   `toml:"title"`      // figure title; default none
	Metric     string   `toml:"metric"`     // required: the metric on the y axis (test_mse, test_accuracy, …)
	Datasets   []string `toml:"datasets"`   // labels; default all
	Mechanisms []string `toml:"mechanisms"` // labels; default all
	Band       string   `toml:"band"`       // "ci" (default), "iqr", "minmax", "none"
	Center     string   `toml:"center"`     // "mean" (default) or "median"
	LogX       *bool    `toml:"log_x"`      // default true
	LogY       bool     `toml:"log_y"`      // log-scale y axis; default false
	XLabel     string   `toml:"x_label"`    // x axis label; default "ε"
	YLabel     string   `toml:"y_label"`    // y axis label; default the metric's title
	Columns    int      `toml:"columns"`    // panels per row; 0 means up to 2
	Formats    []string `toml:"formats"`    // default ["png", "svg"]
	Note       string   `toml:"note"`       // added to the caption file
	// TimeRatio names two mechanism labels [A, B]: each panel's note gives
	// A's mean wall time per fit over B's at the largest ε (the GaussMix
	// paper's "Faster by" of Figures 3 and 5).
	TimeRatio []string `toml:"time_ratio"`
	// BandMinTrials is the fewest trials a point's band is drawn from
	// (default 3: with 2 trials a Student-t CI has t = 12.7 and buries the
	// curves); set it to 1 or 2 to draw bands from fewer.
	BandMinTrials int `toml:"band_min_trials"`
	Layout            // legend, size, axes, reference lines

	spec figureSpec
}

func init() {
	RegisterFigure("epsilon", Kind[Figure]{Params: epsilonFigure{}, Example: `metric = "test_mse"`, Decode: func(b *Block) (Figure, error) {
		var f epsilonFigure
		if err := b.Decode(&f); err != nil {
			return nil, err
		}
		if err := b.Spec.CheckMetric(b.Kind, b.Index, f.Metric); err != nil {
			return nil, err
		}
		var err error
		if f.Band, err = b.OneOf("band", f.Band, "ci", "ci", "iqr", "minmax", "none"); err != nil {
			return nil, err
		}
		if f.Center, err = b.OneOf("center", f.Center, "mean", "mean", "median"); err != nil {
			return nil, err
		}
		if err := f.Layout.Check(b, f.LogX == nil || *f.LogX, f.LogY); err != nil {
			return nil, err
		}
		if f.Formats, err = b.Formats(f.Formats, plotting.Formats); err != nil {
			return nil, err
		}
		if f.BandMinTrials < 0 {
			return nil, b.Errorf("band_min_trials", "band_min_trials = %d: want ≥ 1 (or 0 for the default %d)", f.BandMinTrials, defaultBandMinTrials)
		}
		if len(f.TimeRatio) > 0 {
			if len(f.TimeRatio) != 2 || f.TimeRatio[0] == f.TimeRatio[1] {
				return nil, b.Errorf("time_ratio", "time_ratio names two different mechanism labels [numerator, denominator]")
			}
			if _, _, err := b.Labels(nil, f.TimeRatio); err != nil {
				return nil, b.Errorf("time_ratio", "%v", err)
			}
		}
		ds, ms, err := b.Labels(f.Datasets, f.Mechanisms)
		if err != nil {
			return nil, err
		}
		ratio := b.Spec.Kept(f.TimeRatio)
		if len(ratio) < 2 {
			ratio = nil // a --quick run dropped one of the two
		}
		f.spec = figureSpec{Name: b.Out.Name, LogX: f.LogX, Title: f.Title, Metric: f.Metric,
			Datasets: ds, Mechanisms: ms, Band: f.Band, Center: f.Center, LogY: f.LogY, XLabel: f.XLabel,
			YLabel: f.YLabel, Columns: f.Columns, Formats: f.Formats, Note: f.Note, TimeRatio: ratio, BandMinTrials: f.BandMinTrials,
			Layout: f.Layout}
		return &f, nil
	}})
}

func (f *epsilonFigure) Draw(v *View) *plotting.Figure { return v.figure(&f.spec) }
func (f *epsilonFigure) FileFormats() []string         { return f.Formats }
