package report

import (
	"github.com/gridsched/gridsched/system"

	"image/color"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg/draw"
)

// palette is Okabe and Ito's colour-blind-safe palette (Color Universal
// Design), ordered so that the first colours differ most; yellow, hard to
// see on white, comes last.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// Color is the i-th colour of the palette.
func Color(i int) color.Color { return palette[((i%len(palette))+len(palette))%len(palette)] }

// translucent is colour i with alpha a. color.NRGBA is not premultiplied:
// its RGBA method scales red, green and blue, which SVG writers expect
// (a color.RGBA with a lowered alpha and unscaled channels is invalid and
// gives colours such as #B71249F).
func translucent(i int, a uint8) color.Color {
	c := palette[((i%len(palette))+len(palette))%len(palette)]
	c.A = a
	return c
}

// Shape is the i-th marker shape (ring, square, triangle, plus, cross, …).
func Shape(i int) draw.GlyphDrawer { return plotutil.Shape(i) }

// Metric describes a metric for axes and verdicts (package system's
// registry: the core metrics and every system's).
type Metric = system.Metric

var nan = math.NaN()

// MetricInfo describes a metric; an unknown one gets its key as name and
// "value" as unit, and no bounds.
func MetricInfo(key string) Metric {
	m, _ := system.MetricInfo(key)
	return m
}

// HumanNum formats a number for a tick or a table: 1.25 M, 12.5 k, 0.25,
// 3e-05.
func HumanNum(v float64) string { return humanNum(v, 4) }

// humanNum is HumanNum with the given number of significant digits.
func humanNum(v float64, digits int) string {
	a := math.Abs(v)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', digits, 64) }
	switch {
	case math.IsNaN(v):
		return "–"
	case v == 0:
		return "0"
	case a >= 1e9:
		return g(v/1e9) + " G"
	case a >= 1e6:
		return g(v/1e6) + " M"
	case a >= 1e4:
		return g(v/1e3) + " k"
	case a < 1e-3:
		return strconv.FormatFloat(v, 'e', max(2, digits-2), 64)
	}
	return g(v)
}

func trimG(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// humanTicks labels the ticks of base with HumanNum, distinct ones.
type humanTicks struct{ base plot.Ticker }

func (h humanTicks) Ticks(lo, hi float64) []plot.Tick {
	return distinctLabels(h.base.Ticks(lo, hi))
}

// distinctLabels labels every labelled tick with HumanNum, with as many
// significant digits as it takes for no two labels to be equal (ticks
// at 3,422,500, 3,423,000 and 3,423,500 are not three "3.423 M").
func distinctLabels(ts []plot.Tick) []plot.Tick {
	for digits := 4; digits <= 15; digits++ {
		seen := map[string]bool{}
		dup := false
		for i := range ts {
			if ts[i].Label == "" {
				continue
			}
			l := humanNum(ts[i].Value, digits)
			ts[i].Label = l
			dup = dup || seen[l]
			seen[l] = true
		}
		if !dup {
			break
		}
	}
	return ts
}

// valueTicks puts the ticks of a sweep's numeric x axis at the swept
// values, as a paper's figure does, when there are few enough of them
// and they do not crowd; else it keeps base.
func valueTicks(xs map[float64]bool, base plot.Ticker) plot.Ticker {
	vals := make([]float64, 0, len(xs))
	for x := range xs {
		vals = append(vals, x)
	}
	sort.Float64s(vals)
	if len(vals) < 2 || len(vals) > 12 {
		return base
	}
	span := vals[len(vals)-1] - vals[0]
	for i := 1; i < len(vals); i++ {
		if vals[i]-vals[i-1] < span/25 {
			return base
		}
	}
	return fixedTicks(vals)
}

// fixedTicks are ticks at given values.
type fixedTicks []float64

func (f fixedTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range f {
		ts = append(ts, plot.Tick{Value: v, Label: "x"})
	}
	return distinctLabels(ts)
}

var (
	svgColour = regexp.MustCompile(`(?i)(fill|stroke|stop-color|color)\s*[:=]\s*"?\s*([^;"\s>]+)`)
	hexColour = regexp.MustCompile(`^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$`)
)

// SVGColourErrors lists every colour value in an SVG document that is not
// valid SVG 1.1 colour syntax (#rgb, #rrggbb, none, a few keywords,
// rgb(…)); for example "#B71249F".
func SVGColourErrors(svg string) []string {
	var bad []string
	for _, m := range svgColour.FindAllStringSubmatch(svg, -1) {
		v := m[2]
		switch {
		case hexColour.MatchString(v):
		case v == "none" || v == "black" || v == "white" || v == "currentColor" || v == "transparent":
		case strings.HasPrefix(v, "rgb(") || strings.HasPrefix(v, "url("):
		default:
			bad = append(bad, m[0])
		}
	}
	return bad
}
