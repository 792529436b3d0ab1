package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/plotting"
	"gonum.org/v1/plot/vg"
)

// Layout holds the keys every figure kind shares for how it is laid
// out: the legend's place and the figure's size. A block's zero values
// fall back to the spec's figure_defaults table (the same keys), then to
// plotting's defaults. A figure kind embeds it in its block's struct,
// calls Check when it decodes the block and Apply when it draws.
type Layout struct {
	// Legend places the figure's one legend: "auto" (the default: in an
	// empty slot of the panel grid or an empty panel, else inside a
	// panel's axes where it covers no data point, else outside them), a
	// corner of the first panel ("top-right", "top-left", "bottom-right",
	// "bottom-left", kept even where it covers data) or "outside" (below
	// the panels, or right of a single one).
	Legend string    `toml:"legend"`
	Width  float64   `toml:"width"`   // the whole figure's width in inches; 0: 4.2 in per column
	Height float64   `toml:"height"`  // the whole figure's height in inches; 0: 3.2 in per row plus the title, legend and caption line
	DPI    float64   `toml:"dpi"`     // PNG pixels per inch; 0: plotting.DefaultDPI (220)
	XMin   *float64  `toml:"x_min"`   // the x axis's lower limit; default the data's, with headroom
	XMax   *float64  `toml:"x_max"`   // the x axis's upper limit; default the data's, with headroom
	YMin   *float64  `toml:"y_min"`   // the y axis's lower limit; default the data's, with headroom
	YMax   *float64  `toml:"y_max"`   // the y axis's upper limit; default the data's, with headroom
	XTicks []float64 `toml:"x_ticks"` // the labelled x ticks; default chosen for the range (every decade on a log axis)
	YTicks []float64 `toml:"y_ticks"` // the labelled y ticks; default chosen for the range (every decade on a log axis)
	// HLine draws horizontal reference lines across every panel (thin,
	// grey, not in the legend): a number or a list, e.g. hline = 1 on a
	// ratio whose point is where it crosses 1.
	HLine numbers `toml:"hline"`
}

// numbers is a key's value that is a number or a list of numbers.
type numbers []float64

// UnmarshalTOML implements toml.Unmarshaler.
func (n *numbers) UnmarshalTOML(raw any) error {
	one := func(v any) (float64, error) {
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return 0, fmt.Errorf("%v (%T): want a number or a list of numbers", v, v)
	}
	list, ok := raw.([]any)
	if !ok {
		list = []any{raw}
	}
	*n = nil
	for _, v := range list {
		x, err := one(v)
		if err != nil {
			return err
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%v: want finite numbers", x)
		}
		*n = append(*n, x)
	}
	return nil
}

// Check decodes nothing: it fills the block's unset keys from the spec's
// figure_defaults and checks the result, naming the block's key (or the
// figure_defaults key a bad value came from); logX and logY say which
// axes of the figure are logarithmic (their limits and ticks must be
// positive).
func (l *Layout) Check(b *Block, logX, logY bool) error {
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
	for _, k := range []struct{ v, d **float64 }{{&l.XMin, &defaults.XMin}, {&l.XMax, &defaults.XMax}, {&l.YMin, &defaults.YMin}, {&l.YMax, &defaults.YMax}} {
		if *k.v == nil {
			*k.v = *k.d
		}
	}
	if l.XTicks == nil {
		l.XTicks = defaults.XTicks
	}
	if l.YTicks == nil {
		l.YTicks = defaults.YTicks
	}
	if l.HLine == nil {
		l.HLine = defaults.HLine
	}
	if err := l.checkAt(b.Errorf); err != nil { // the pixel limit of a block's width at the spec's dpi
		return err
	}
	for _, a := range []struct {
		key  string
		axis plotting.Axis
		log  bool
	}{{"x", plotting.Axis{Min: l.XMin, Max: l.XMax, Ticks: l.XTicks}, logX}, {"y", plotting.Axis{Min: l.YMin, Max: l.YMax, Ticks: l.YTicks}, logY}} {
		if err := plotting.CheckAxis(a.key, a.axis, a.log); err != nil {
			key, _, _ := strings.Cut(err.Error(), " ")
			return b.Errorf(strings.TrimSuffix(key, ":"), "%v", err)
		}
	}
	for _, y := range l.HLine {
		if logY && !(y > 0) {
			return b.Errorf("hline", "hline = %v: want values > 0 on a log y axis", y)
		}
	}
	return nil
}

// checkAt checks the keys, reporting a problem through errorf(key, …).
func (l *Layout) checkAt(errorf func(key, format string, args ...any) error) error {
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
func figureDefaults(s *spec.Spec) (Layout, error) {
	var l Layout
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

// Apply sets the figure's legend place, size, axes and reference lines.
func (l *Layout) Apply(fig *plotting.Figure) {
	fig.Legend = l.Legend
	fig.Width, fig.Height = vg.Length(l.Width)*vg.Inch, vg.Length(l.Height)*vg.Inch
	fig.DPI = l.DPI
	fig.X = plotting.Axis{Min: l.XMin, Max: l.XMax, Ticks: l.XTicks}
	fig.Y = plotting.Axis{Min: l.YMin, Max: l.YMax, Ticks: l.YTicks}
	fig.HLines = l.HLine
}
