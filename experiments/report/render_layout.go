package report

import (
	"slices"
	"strings"

	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/plotting"
	"gonum.org/v1/plot/vg"
)

// figureLayout holds the keys every figure kind shares for how it is laid
// out: the legend's place and the figure's size. A block's zero values
// fall back to the spec's figure_defaults table (the same keys), then to
// plotting's defaults.
type figureLayout struct {
	// Legend is "auto" (the default: inside the axes where the legend
	// covers no data point, else outside them), a corner ("top-right",
	// "top-left", "bottom-right", "bottom-left", kept even where it covers
	// data) or "outside".
	Legend string  `toml:"legend"`
	Width  float64 `toml:"width"`  // the whole figure's width in inches; 0: 4.2 in per column
	Height float64 `toml:"height"` // the whole figure's height in inches; 0: 3.2 in per row plus the title and footnote
	DPI    float64 `toml:"dpi"`    // PNG pixels per inch; 0: plotting.DefaultDPI (220)
}

// check decodes nothing: it fills the block's unset keys from the spec's
// figure_defaults and checks the result, naming the block's key (or the
// figure_defaults key a bad value came from).
func (l *figureLayout) check(b *Block) error {
	if err := l.checkAt(b.Errorf); err != nil {
		return err
	}
	defaults, err := figureDefaults(b.Spec)
	if err != nil {
		return err
	}
	if l.Legend == "" {
		l.Legend = defaults.Legend
	}
	if l.Width == 0 {
		l.Width = defaults.Width
	}
	if l.Height == 0 {
		l.Height = defaults.Height
	}
	if l.DPI == 0 {
		l.DPI = defaults.DPI
	}
	return l.checkAt(b.Errorf) // the pixel limit of a block's width at the spec's dpi
}

// checkAt checks the keys, reporting a problem through errorf(key, …).
func (l *figureLayout) checkAt(errorf func(key, format string, args ...any) error) error {
	if l.Legend != "" && !slices.Contains(plotting.LegendPlaces, l.Legend) {
		return errorf("legend", "legend %q: want %s", l.Legend, strings.Join(plotting.LegendPlaces, ", "))
	}
	for _, k := range []struct {
		key  string
		w, h float64
		dpi  float64
	}{{"width", l.Width, 0, 0}, {"height", 0, l.Height, 0}, {"dpi", 0, 0, l.DPI}, {"dpi", l.Width, l.Height, l.DPI}} {
		if err := plotting.CheckSize(k.w, k.h, k.dpi); err != nil {
			return errorf(k.key, "%v", err)
		}
	}
	return nil
}

// figureDefaults decodes and checks the spec's figure_defaults table.
func figureDefaults(s *spec.Spec) (figureLayout, error) {
	var l figureLayout
	if len(s.FigureDefaults) == 0 {
		return l, nil
	}
	errorf := func(key, format string, args ...any) error {
		return s.KeyError("figure_defaults."+key, format, args...)
	}
	if key, err := spec.DecodeStrict(s.FigureDefaults, &l); err != nil {
		return l, errorf(key, "%v", err)
	}
	return l, l.checkAt(errorf)
}

// apply sets the figure's legend place and size.
func (l *figureLayout) apply(fig *plotting.Figure) {
	fig.Legend = l.Legend
	fig.Width, fig.Height = vg.Length(l.Width)*vg.Inch, vg.Length(l.Height)*vg.Inch
	fig.DPI = l.DPI
}
