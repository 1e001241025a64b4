// Package report draws results: sweep figures (a metric against a
// parameter, one line per series, 95% confidence intervals as error
// bars), single-run figures (utilization and queue length over time, a
// Gantt chart, workload distributions), each as SVG, PNG (300 dpi) and PDF
// for papers, and a self-contained HTML page (inline SVG, no network
// needed). gonum/plot's output is byte-stable, so figures are
// deterministic.
package report

import (
	"github.com/gridsched/gridsched/internal/atomicfile"

	"github.com/gridsched/gridsched/system"

	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one figure: built by a figure function, drawn by Render.
type Figure struct {
	Name    string // file name without extension
	Title   string
	Caption string
	// Paper names the paper's figure or table this one reproduces
	// ("figure 5"), "" for the others.
	Paper string
	// Text replaces the plot when there is nothing to draw: a metric
	// constant across the figure is one sentence, not a flat line.
	Text string
	SVG  template.HTML // inline SVG for the HTML page (after Render)
	// Files are the formats written (after Render with a folder).
	Files []string
	// Width and Height of the drawn figure in points (after Render).
	Width, Height float64
	// What was drawn, for tests and the page: axis labels, the most x
	// values of a line, the paper's reference markers, the legend's
	// entries, the statistics of box plots, and the time span each
	// line of a time series covers (seconds).
	XLabel, YLabel string
	XValues        int
	Refs           int
	Legend         []string
	Boxes          []BoxStats
	Spans          map[string][2]float64

	fr *frame
}

// BoxStats are the statistics a box plot draws.
type BoxStats struct {
	Name                       string
	N                          int
	Q1, Median, Q3             float64
	ZeroShare                  float64 // fraction of values ≤ 0
	AdjLow, AdjHigh            float64
	MinValue, MaxValue, Points int // Points: outliers drawn
}

// Table is a table for the HTML page.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// Fold is a folded part of a section (a <details> element): diagnostic
// figures and tables a reader opens when needed.
type Fold struct {
	Summary string
	Notes   []string
	Figures []Figure
	Tables  []Table
}

// Section is one part of a report (a seed, one experiment or one run).
type Section struct {
	Title string
	// Seed is the paper the section belongs to ("000"…), "" for none.
	Seed        string
	Description string
	Notes       []string
	// Summary is the verdict summary shown first (one table per seed).
	Summary []Table
	Lead    []Table // tables shown before the figures (summary, claims)
	Figures []Figure
	// Views are the interactive (zoom and pan) views of a run.
	Views  []View
	Tables []Table
	Folds  []Fold
}

// Page is a whole report.
type Page struct {
	Title    string
	Links    []Link // other reports (the index of reproduce)
	Sections []Section
}

// Link is a link to another report.
type Link struct{ Href, Text string }

// newPlot is a plot with the house style: the figures' font and sizes,
// a grid, human tick labels. The title is drawn by the frame.
func newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	for i, a := range []*plot.Axis{&p.X, &p.Y} {
		axis := []string{"x", "y"}[i]
		a.Label.TextStyle.Font = font.From(sans, vg.Points(labelSize))
		a.Label.TextStyle.Handler = roleHandler{plain(), axis + "-label"}
		a.Tick.Label.Font = font.From(sans, vg.Points(tickSize))
		a.Tick.Label.Handler = roleHandler{plain(), axis + "-tick"}
		a.Padding = vg.Points(3)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = humanTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = humanTicks{plot.DefaultTicks{}}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// figure wraps a frame into an undrawn figure.
func figure(name, title, caption string, fr *frame) Figure {
	f := Figure{Name: name, Title: title, Caption: caption, fr: fr, XLabel: fr.p.X.Label.Text, YLabel: fr.p.Y.Label.Text}
	for _, e := range fr.legend {
		f.Legend = append(f.Legend, e.name)
	}
	return f
}

// writeAtomic writes b to path through a temporary file and a rename.
func writeAtomic(path string, b []byte) error { return atomicfile.WriteFile(path, b, 0o644) }

// Series is one line of a sweep figure.
type Series struct {
	Name string
	X    []float64
	Y    []float64
	Err  []float64 // 95% CI half-widths (NaN: none)
}

// RefPoint is a number the paper gives, drawn as a marker on the axes of
// our lines (in the colour of the series it belongs to).
type RefPoint struct {
	Series string // the series it belongs to ("" or unknown: black)
	X, Y   float64
}

// Sweep describes a sweep figure.
type Sweep struct {
	Title, XLabel string
	// SeriesLabel says what tells the series apart ("policy"): the axis
	// of a figure whose lines have one x value each.
	SeriesLabel string
	Metric      Metric // the y axis (its label, unit and physical bounds)
	Series      []Series
	Categories  []string // nominal x axis: X values index it
	Refs        []RefPoint
	Caption     string // what a point is (default: "Means over replications")
	Paper       string // the paper's figure this reproduces
	// Apart are values of a numeric x axis that are no point on it: a
	// sentinel such as MTBF 0 for "never fails". They are drawn past the
	// largest value, each at a tick of its own name, not joined to the
	// lines.
	Apart []ApartX
	// Palette colours the series by name across a report's figures (nil:
	// by their order in this figure).
	Palette *Palette
}

// ApartX is an x value drawn apart from a numeric axis, with its name.
type ApartX struct {
	X    float64
	Name string
}

// SweepFigure draws series of (x, mean ± CI) points, with the paper's
// numbers as hollow markers on the same axes. CI bars are clipped to the
// metric's physical range, and the axis never goes below its minimum.
// Series identical at every point are drawn once and named together;
// on a nominal axis the series are set slightly apart so that none hides
// another. A metric that is the same everywhere becomes a sentence; a
// sweep with one x value becomes a point chart of its series.
func SweepFigure(name string, sw Sweep) (Figure, error) {
	caption := "Means over replications"
	if sw.Caption != "" {
		caption = sw.Caption
	}
	xs := map[float64]bool{}
	for _, s := range sw.Series {
		for _, x := range s.X {
			xs[x] = true
		}
	}
	if v, n, ok := constant(sw.Series); ok && len(sw.Refs) == 0 {
		f := Figure{Name: name, Title: sw.Title, Paper: sw.Paper, XLabel: sw.XLabel, YLabel: sw.Metric.Label(), XValues: len(xs)}
		f.Text = fmt.Sprintf("%s is %s %s at every one of the %d points of this figure (%s).", sw.Metric.Name, HumanNum(v), unitWord(sw.Metric.Unit), n, seriesNames(sw.Series))
		return f, nil
	}
	if len(xs) == 1 && len(sw.Series) > 1 {
		return pointChart(name, sw, caption)
	}
	var apart apartAxis
	if sw.Categories == nil && len(sw.Apart) > 0 {
		apart, sw = placeApart(sw)
		for x := range xs {
			if _, ok := apart.at[x]; ok || slices.ContainsFunc(sw.Apart, func(a ApartX) bool { return a.X == x }) {
				delete(xs, x)
			}
		}
	}
	groups := identical(sw.Series)
	var notes []string
	p := newPlot(sw.XLabel, sw.Metric.Label())
	fr := newFrame(sw.Title, p)
	logY := wideRange(sw.Series)
	lo, hi := sw.Metric.Min, sw.Metric.Max
	colour := map[string]int{}
	xvals := 0
	var open []openCI
	ours := ""
	if len(sw.Refs) > 0 {
		ours = "ours: "
	}
	nominal := sw.Categories != nil
	slots := sw.Palette.slots(groupNames(sw.Series, groups))
	for gi, g := range groups {
		s := sw.Series[g[0]]
		ci := slots[gi]
		for _, k := range g {
			colour[sw.Series[k].Name] = ci
		}
		off := 0.0
		if nominal {
			off = dodge(gi, len(groups))
		}
		xys, errs, hasErr, op := points(s, off, lo, hi, logY)
		for k := range op {
			op[k].colour = Color(ci)
		}
		open = append(open, op...)
		xvals = max(xvals, distinct(s.X))
		// the line joins the points on the axis, not those drawn apart
		var joined plotter.XYs
		for _, xy := range xys {
			if !apart.has(xy.X) {
				joined = append(joined, xy)
			}
		}
		if len(joined) == 0 {
			joined = xys[:1]
		}
		line, err := plotter.NewLine(joined)
		if err != nil {
			return Figure{}, err
		}
		pts, err := plotter.NewScatter(xys)
		if err != nil {
			return Figure{}, err
		}
		c := Color(ci)
		line.Color = c
		line.Width = vg.Points(1.2)
		line.Dashes = dashes(ci)
		pts.Color = c
		pts.Shape = Shape(ci)
		pts.Radius = vg.Points(2.5)
		p.Add(line, pts)
		if hasErr {
			if err := addErrorBars(p, xys, errs, c); err != nil {
				return Figure{}, err
			}
		}
		names := make([]string, len(g))
		for k, i := range g {
			names[k] = sw.Series[i].Name
		}
		if len(g) > 1 {
			notes = append(notes, "Identical at every point (drawn once): "+strings.Join(names, ", "))
		}
		fr.add(ours+strings.Join(names, " = "), line, pts)
	}
	refs, err := addRefs(p, fr, sw.Refs, colour, len(sw.Series) == 1, func(x float64) float64 {
		if nominal {
			return x + dodge(0, 1)
		}
		return x
	})
	if err != nil {
		return Figure{}, err
	}
	if nominal {
		p.NominalX(sw.Categories...)
		wrapCategories(p, len(sw.Categories), fr.width)
	} else {
		p.X.Tick.Marker = valueTicks(xs, p.X.Tick.Marker)
		if len(apart.at) > 0 {
			p.X.Tick.Marker = apart.ticks(p.X.Tick.Marker)
			p.Add(apart)
			notes = append(notes, apart.note)
		}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		caption += " (logarithmic y axis)"
		notes = append(notes, strings.TrimSuffix(strings.TrimSpace(finishOpen(fr, open, func(b openCI) string {
			if nominal && int(b.At) >= 0 && int(b.At) < len(sw.Categories) {
				return sw.Categories[int(b.At)]
			}
			return sw.XLabel + " = " + HumanNum(b.At)
		})), "."))
	} else {
		if !math.IsNaN(lo) && p.Y.Min < lo {
			p.Y.Min = lo
		}
		if !math.IsNaN(hi) && p.Y.Max > hi {
			p.Y.Max = hi
		}
	}
	caption += captionTail(sw, refs)
	for _, n := range notes {
		if n != "" {
			caption += " " + n + "."
		}
	}
	f := figure(name, sw.Title, caption, fr)
	f.XValues, f.Refs, f.Paper = xvals, refs, sw.Paper
	return f, nil
}

// apartAxis is where the values drawn apart sit on a numeric x axis:
// past its largest value, behind a dashed separator.
type apartAxis struct {
	at    map[float64]string // position → name
	sep   float64            // the separator's x
	below float64            // the largest value on the axis
	note  string
}

func (a apartAxis) has(x float64) bool { _, ok := a.at[x]; return ok }

// placeApart moves the points of sw's values apart to their positions
// past the axis (and the paper's numbers there with them).
func placeApart(sw Sweep) (apartAxis, Sweep) {
	isApart := map[float64]string{}
	for _, a := range sw.Apart {
		isApart[a.X] = a.Name
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	present := map[float64]bool{}
	for _, s := range sw.Series {
		for _, x := range s.X {
			if _, ok := isApart[x]; ok {
				present[x] = true
				continue
			}
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	a := apartAxis{at: map[float64]string{}}
	if len(present) == 0 || math.IsInf(lo, 1) {
		return a, sw
	}
	gap := (hi - lo) * 0.15
	if gap == 0 {
		gap = math.Max(1, math.Abs(hi)*0.15)
	}
	pos := map[float64]float64{}
	var names []string
	k := 0
	for _, v := range sw.Apart {
		if !present[v.X] {
			continue
		}
		k++
		pos[v.X] = hi + float64(k)*gap
		a.at[pos[v.X]] = v.Name
		names = append(names, fmt.Sprintf("“%s” (x = %s)", v.Name, HumanNum(v.X)))
	}
	a.sep, a.below = hi+gap/2, hi
	a.note = fmt.Sprintf("%s is no value on the axis: drawn apart at the right, past the dashed line, and not joined to the lines", strings.Join(names, ", "))
	out := sw
	out.Series = make([]Series, len(sw.Series))
	for i, s := range sw.Series {
		t := s
		t.X = make([]float64, len(s.X))
		for k, x := range s.X {
			if p, ok := pos[x]; ok {
				x = p
			}
			t.X[k] = x
		}
		out.Series[i] = t
	}
	out.Refs = make([]RefPoint, len(sw.Refs))
	for i, r := range sw.Refs {
		if p, ok := pos[r.X]; ok {
			r.X = p
		}
		out.Refs[i] = r
	}
	return a, out
}

// Plot draws the dashed separator.
func (a apartAxis) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(a.sep)
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, x, c.Min.Y, x, c.Max.Y)
}

// ticks keeps base's ticks up to the largest value on the axis and adds
// one named tick per value apart.
func (a apartAxis) ticks(base plot.Ticker) plot.Ticker {
	return apartTicks{base: base, a: a}
}

type apartTicks struct {
	base plot.Ticker
	a    apartAxis
}

func (t apartTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if top := math.Min(hi, t.a.below); top > lo {
		for _, tk := range t.base.Ticks(lo, top) {
			if tk.Value <= t.a.below*(1+1e-12) {
				out = append(out, tk)
			}
		}
	} else {
		// one value on the axis
		out = distinctLabels([]plot.Tick{{Value: t.a.below, Label: "x"}})
	}
	var xs []float64
	for x := range t.a.at {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	for _, x := range xs {
		out = append(out, plot.Tick{Value: x, Label: t.a.at[x]})
	}
	return out
}

// Palette gives each series name one colour, marker and dash for every
// figure it is drawn with (a report's figures share one): a policy is
// the same colour in every figure of a seed, whatever the order of the
// series or the other series of each figure. Names take slots in the
// order they are first met; within a figure, a name whose slot's colour
// another series already has takes the next free one. A nil Palette
// colours each figure's series in their order.
type Palette struct {
	mu   sync.Mutex
	slot map[string]int
}

// NewPalette is an empty palette.
func NewPalette() *Palette { return &Palette{slot: map[string]int{}} }

// slots are the colour indices of one figure's series (by their names).
func (p *Palette) slots(names []string) []int {
	out := make([]int, len(names))
	if p == nil {
		for i := range out {
			out[i] = i
		}
		return out
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	used := map[int]bool{}
	for i, n := range names {
		s, ok := p.slot[n]
		if !ok {
			s = len(p.slot)
			p.slot[n] = s
		}
		c := s % len(palette)
		for k := 0; k < len(palette) && used[c]; k++ {
			c = (c + 1) % len(palette)
		}
		used[c] = true
		out[i] = c
	}
	return out
}

// groupNames are the names that stand for groups of identical series:
// each group's first.
func groupNames(series []Series, groups [][]int) []string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = series[g[0]].Name
	}
	return names
}

// captionTail says what the error bars, markers and direction are.
func captionTail(sw Sweep, refs int) string {
	s := ""
	lo, hi := sw.Metric.Min, sw.Metric.Max
	if anyErr(sw.Series) {
		s += "; error bars are 95% confidence intervals (Student's t)"
		if !math.IsNaN(lo) || !math.IsNaN(hi) {
			s += ", clipped to the metric's range"
		}
	}
	if refs > 0 {
		s += fmt.Sprintf("; %d triangles are the paper's numbers", refs)
	}
	if sw.Metric.LowerIsBetter {
		s += "; lower is better"
	} else if _, known := system.MetricInfo(sw.Metric.Key); known && !math.IsNaN(sw.Metric.Min) {
		s += "; higher is better"
	}
	return s + "."
}

// points are a series' points moved by off along x, with their CI bars
// clipped to [lo, hi]. On a log axis, a bar whose lower end is 0 or below,
// or more than two decades under its mean, gets no lower half here: it is
// returned among the open intervals, which openBars draws (to the axis
// bottom with an arrow when the axis does not reach the end).
func points(s Series, off, lo, hi float64, logY bool) (plotter.XYs, plotter.YErrors, bool, []openCI) {
	xys := make(plotter.XYs, len(s.X))
	errs := make(plotter.YErrors, len(s.X))
	hasErr := false
	var open []openCI
	for k := range s.X {
		xys[k] = plotter.XY{X: s.X[k] + off, Y: s.Y[k]}
		e := 0.0
		if k < len(s.Err) && !math.IsNaN(s.Err[k]) {
			e = s.Err[k]
			hasErr = true
		}
		low, high := e, e
		if !math.IsNaN(lo) {
			low = max(0, min(low, s.Y[k]-lo))
		}
		if !math.IsNaN(hi) {
			high = max(0, min(high, hi-s.Y[k]))
		}
		if logY && e > 0 && (s.Y[k]-low <= 0 || s.Y[k]-low < s.Y[k]/100) {
			open = append(open, openCI{Series: s.Name, X: xys[k].X, At: s.X[k], Y: s.Y[k], Low: s.Y[k] - e, High: s.Y[k] + e, End: s.Y[k] - low})
			low = 0
		}
		errs[k].Low, errs[k].High = low, high
	}
	return xys, errs, hasErr, open
}

// openCI is the lower half of a confidence interval on a log axis whose
// end is 0 or below, or far under the mean: the axis cannot show the end,
// or would spend decades on it.
type openCI struct {
	Series string
	X, At  float64 // position on the axis; the x value it stands for
	// Y is the mean, Low and High the interval's ends, End the lower end
	// drawn at most (Low clipped to the metric's range).
	Y, Low, High, End float64
	colour            color.Color
	// arrow: the bar runs to the axis bottom (the end is below it).
	arrow bool
}

// openBars draws the lower halves of open intervals: down to their end
// with a cap when the axis reaches it, else to the axis bottom, ending in
// a downward arrow.
type openBars struct{ bars []openCI }

func (o *openBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, b := range o.bars {
		sty := draw.LineStyle{Color: b.colour, Width: plotter.DefaultLineStyle.Width}
		x, top := trX(b.X), trY(b.Y)
		if !b.arrow {
			end := trY(b.End)
			c.StrokeLine2(sty, x, top, x, end)
			c.StrokeLine2(sty, x-vg.Points(2), end, x+vg.Points(2), end)
			continue
		}
		bottom := c.Min.Y
		c.StrokeLines(sty, []vg.Point{{X: x, Y: top}, {X: x, Y: bottom}})
		head := vg.Path{}
		head.Move(vg.Point{X: x, Y: bottom})
		head.Line(vg.Point{X: x - vg.Points(2.5), Y: bottom + vg.Points(5)})
		head.Line(vg.Point{X: x + vg.Points(2.5), Y: bottom + vg.Points(5)})
		head.Close()
		c.SetColor(b.colour)
		c.Fill(head)
	}
}

// finishOpen settles the open intervals once every other element is on
// the plot (and so the axis range is known): an interval whose end lies on
// the axis is drawn to it; the others run to the axis bottom, lowered to a
// third of their lowest mean so the bar shows, ending in an arrow. It
// returns the caption's sentence naming each interval the axis cannot
// show.
func finishOpen(fr *frame, open []openCI, xText func(openCI) string) string {
	if len(open) == 0 {
		return ""
	}
	p := fr.p
	bottom := p.Y.Min
	for range 2 {
		for i := range open {
			open[i].arrow = !(open[i].End > 0 && open[i].End >= bottom)
		}
		for _, b := range open {
			if b.arrow {
				bottom = min(bottom, b.Y/3)
			}
		}
	}
	p.Y.Min = bottom
	fr.open = &openBars{bars: open}
	p.Add(fr.open)
	var names []string
	for _, b := range open {
		if b.arrow {
			names = append(names, fmt.Sprintf("%s at %s: %s to %s", b.Series, xText(b), HumanNum(b.Low), HumanNum(b.High)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	const most = 6
	more := ""
	if len(names) > most {
		more = fmt.Sprintf(" and %d more", len(names)-most)
		names = names[:most]
	}
	return fmt.Sprintf(" A bar ending in an arrow (▼) at the axis bottom is an interval that reaches below the logarithmic axis (0 or less cannot be drawn on it): %s%s.", strings.Join(names, "; "), more)
}

// addErrorBars draws CI bars in colour c.
func addErrorBars(p *plot.Plot, xys plotter.XYs, errs plotter.YErrors, c color.Color) error {
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return err
	}
	eb.Color = c
	eb.CapWidth = vg.Points(4)
	p.Add(eb)
	return nil
}

// addRefs draws the paper's numbers as hollow triangles in the colour of
// their series (black when the series is unknown) and adds one legend
// entry; it returns how many it drew.
func addRefs(p *plot.Plot, fr *frame, refs []RefPoint, colour map[string]int, single bool, pos func(float64) float64) (int, error) {
	if len(refs) == 0 {
		return 0, nil
	}
	byColour := map[int]plotter.XYs{}
	var order []int
	for _, r := range refs {
		i, ok := colour[r.Series]
		if !ok && single {
			i, ok = 0, true
		}
		if !ok {
			i = 6 // black
		}
		if _, seen := byColour[i]; !seen {
			order = append(order, i)
		}
		byColour[i] = append(byColour[i], plotter.XY{X: pos(r.X), Y: r.Y})
	}
	var thumb *plotter.Scatter
	for _, i := range order {
		sc, err := plotter.NewScatter(byColour[i])
		if err != nil {
			return 0, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Color(i), Radius: vg.Points(4.5), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
		if thumb == nil {
			thumb = sc
		}
		inner, _ := plotter.NewScatter(byColour[i])
		inner.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(2), Shape: draw.PyramidGlyph{}}
		p.Add(inner)
	}
	t := *thumb
	t.GlyphStyle.Color = color.Black
	fr.add("paper (▲)", &t)
	return len(refs), nil
}

// pointChart draws a sweep whose series have one x value each: one
// category per series, its mean and CI as a point (no line joins
// different series).
func pointChart(name string, sw Sweep, caption string) (Figure, error) {
	p := newPlot(sw.SeriesLabel, sw.Metric.Label())
	fr := newFrame(sw.Title, p)
	lo, hi := sw.Metric.Min, sw.Metric.Max
	logY := wideRange(sw.Series)
	var cats []string
	var open []openCI
	colour := map[string]int{}
	x0 := math.NaN()
	var single [][]int
	for i := range sw.Series {
		single = append(single, []int{i})
	}
	slots := sw.Palette.slots(groupNames(sw.Series, single))
	for i, s := range sw.Series {
		ci := slots[i]
		colour[s.Name] = ci
		x0 = s.X[0]
		one := Series{Name: s.Name, X: []float64{float64(i)}, Y: s.Y[:1], Err: s.Err[:1]}
		xys, errs, hasErr, op := points(one, 0, lo, hi, logY)
		for k := range op {
			op[k].colour = Color(ci)
		}
		open = append(open, op...)
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return Figure{}, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Color(ci), Radius: vg.Points(3), Shape: Shape(ci)}
		p.Add(sc)
		if hasErr {
			if err := addErrorBars(p, xys, errs, Color(ci)); err != nil {
				return Figure{}, err
			}
		}
		cats = append(cats, s.Name)
	}
	// a paper number belongs to its series' category
	var refs []RefPoint
	for _, r := range sw.Refs {
		if i, ok := colour[r.Series]; ok {
			refs = append(refs, RefPoint{Series: r.Series, X: float64(i), Y: r.Y})
		}
	}
	n, err := addRefs(p, fr, refs, colour, false, func(x float64) float64 { return x })
	if err != nil {
		return Figure{}, err
	}
	p.NominalX(cats...)
	wrapCategories(p, len(cats), fr.width)
	openNote := ""
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		openNote = finishOpen(fr, open, func(b openCI) string { return b.Series })
	} else {
		if !math.IsNaN(lo) && p.Y.Min < lo {
			p.Y.Min = lo
		}
		if !math.IsNaN(hi) && p.Y.Max > hi {
			p.Y.Max = hi
		}
	}
	at := HumanNum(x0)
	if sw.Categories != nil && int(x0) >= 0 && int(x0) < len(sw.Categories) {
		at = sw.Categories[int(x0)]
	}
	if sw.XLabel != "" {
		caption += fmt.Sprintf(", all at %s = %s (the only value of this figure)", sw.XLabel, at)
	}
	caption += captionTail(sw, n) + openNote
	f := figure(name, sw.Title, caption, fr)
	f.XValues, f.Refs, f.Paper = 1, n, sw.Paper
	return f, nil
}

// constant reports whether every mean of the series is the same number
// with no CI (a metric that does not vary across the figure), its value
// and the number of points.
func constant(series []Series) (float64, int, bool) {
	n := 0
	v := math.NaN()
	for _, s := range series {
		for k, y := range s.Y {
			if math.IsNaN(y) {
				continue
			}
			if k < len(s.Err) && !math.IsNaN(s.Err[k]) && s.Err[k] != 0 {
				return 0, 0, false
			}
			if n == 0 {
				v = y
			} else if math.Abs(y-v) > 1e-12*math.Max(1, math.Abs(v)) {
				return 0, 0, false
			}
			n++
		}
	}
	return v, n, n > 1
}

func seriesNames(series []Series) string {
	var names []string
	for _, s := range series {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// unitWord writes a unit after a number ("s", "jobs/hour"; nothing for
// a pure ratio).
func unitWord(u string) string {
	switch u {
	case "ratio", "value":
		return ""
	}
	return u
}

// identical groups the series whose points are the same (x, mean and CI
// at every point), in the order of their first member.
func identical(series []Series) [][]int {
	var groups [][]int
	for i, s := range series {
		found := false
		for g := range groups {
			if sameSeries(series[groups[g][0]], s) {
				groups[g] = append(groups[g], i)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, []int{i})
		}
	}
	return groups
}

func sameSeries(a, b Series) bool {
	if len(a.X) != len(b.X) || len(a.X) == 0 {
		return false
	}
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for k := range a.X {
		if !eq(a.X[k], b.X[k]) || !eq(a.Y[k], b.Y[k]) || !eq(errAt(a, k), errAt(b, k)) {
			return false
		}
	}
	return true
}

func errAt(s Series, k int) float64 {
	if k < len(s.Err) {
		return s.Err[k]
	}
	return math.NaN()
}

func distinct(x []float64) int {
	seen := map[float64]bool{}
	for _, v := range x {
		seen[v] = true
	}
	return len(seen)
}

// wideRange reports whether the means are positive and span more than a
// factor 30 (then a log axis shows every series).
func wideRange(series []Series) bool {
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for _, y := range s.Y {
			if !(y > 0) {
				return false
			}
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	return hi > 30*lo
}

func anyErr(series []Series) bool {
	for _, s := range series {
		for _, e := range s.Err {
			if !math.IsNaN(e) && e > 0 {
				return true
			}
		}
	}
	return false
}

// wrapCategories wraps the labels of a nominal x axis to the width each
// category has.
func wrapCategories(p *plot.Plot, n int, width vg.Length) {
	// NominalX pads the y axis by half the first label; the categories
	// instead each get a unit of the axis, labels wrapped to it.
	p.Y.Padding = vg.Points(3)
	p.X.Min, p.X.Max = min(p.X.Min, -0.5), max(p.X.Max, float64(n)-0.5)
	avail := (width - vg.Points(50)) / vg.Length(max(n, 1))
	p.X.Tick.Marker = wrappedTicks{base: p.X.Tick.Marker, sty: p.X.Tick.Label, w: avail * 0.95}
}

// wrappedTicks wraps the labels of base to w.
type wrappedTicks struct {
	base plot.Ticker
	sty  text.Style
	w    vg.Length
}

func (t wrappedTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := t.base.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = wrapWidth(t.sty, ts[i].Label, t.w)
		}
	}
	return ts
}

// timeScale picks a unit for a time axis spanning span seconds.
func timeScale(span float64) (float64, string) {
	switch {
	case span >= 3*86400:
		return 86400, "days"
	case span >= 3*3600:
		return 3600, "hours"
	case span >= 180:
		return 60, "minutes"
	}
	return 1, "s"
}

// spanText writes a time span "from to to" in one unit, the unit of a
// time axis over it (not "776.5 s to 8.276 days").
func spanText(from, to float64) string {
	div, unit := timeScale(to - from)
	return HumanNum(from/div) + " to " + HumanNum(to/div) + " " + unit
}

func durationText(s float64) string {
	switch {
	case s >= 86400:
		return HumanNum(s/86400) + " days"
	case s >= 3600:
		return HumanNum(s/3600) + " hours"
	}
	return HumanNum(s) + " s"
}

// CDFFigure draws the empirical CDF of each sample on one pair of axes.
// With logX and a wide range, the x axis is logarithmic, or symmetric-log
// when some values are 0 (so the jump at 0 is drawn).
func CDFFigure(name, title, xlabel string, samples [][]float64, names []string, logX bool) (Figure, error) {
	p := newPlot(xlabel, "fraction of jobs ≤ x")
	fr := newFrame(title, p)
	for i, x := range samples {
		pts := cdfPoints(x, cdfResolution)
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.2)
		l.Dashes = dashes(i)
		p.Add(l)
		if len(names) > i {
			fr.add(names[i], l)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1
	caption := ""
	if logX {
		caption = axisScale(&p.X, samples)
	}
	return figure(name, title, caption, fr), nil
}

// cdfResolution is the steps of a CDF's vertical axis the drawing
// resolves: about a pixel of a figure's plot at 300 dpi.
const cdfResolution = 600

// cdfPoints is the empirical CDF of x drawn as a staircase: flat between
// the values kept, rising straight up at each. A large sample is thinned
// by fraction of jobs, not by count of distinct values: a value is kept
// when the CDF has risen by more than 1/n since the last one kept, so
// every jump larger than 1/n is drawn where it is and the staircase is
// within 1/n of the exact CDF at every x (never a slanted segment across
// a gap in the values: a sample with 0.04 % of its values at 1 s and the
// next at 64 s reads 0.0004 at 10 s, not the 0.07 a straight line from
// (1, 0.0004) to (64, 0.14) gives). The first and last values are always
// kept. At most about 2n + 4 points.
func cdfPoints(x []float64, n int) plotter.XYs {
	var v []float64
	for _, y := range x {
		if !math.IsNaN(y) {
			v = append(v, y)
		}
	}
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	tol := 1 / float64(n)
	total := float64(len(v))
	out := plotter.XYs{{X: v[0], Y: 0}}
	level := 0.0 // the CDF at the last value kept
	for k := range v {
		if k+1 < len(v) && v[k+1] == v[k] {
			continue // not the top of this value's step
		}
		f := float64(k+1) / total
		first, last := level == 0, k+1 == len(v)
		if f-level <= tol && !first && !last {
			continue
		}
		// flat at the last level kept up to this value, then up
		if out[len(out)-1].Y != level || out[len(out)-1].X != v[k] {
			out = append(out, plotter.XY{X: v[k], Y: level})
		}
		out = append(out, plotter.XY{X: v[k], Y: f})
		level = f
	}
	return out
}

// dashes tells lines apart without colour.
func dashes(i int) []vg.Length {
	switch i % 4 {
	case 1:
		return []vg.Length{vg.Points(5), vg.Points(2)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(1.5)}
	case 3:
		return []vg.Length{vg.Points(6), vg.Points(1.5), vg.Points(1.5), vg.Points(1.5)}
	}
	return nil
}

// BoxFigure draws one box plot per sample on shared axes, over every
// value of the sample (zeros included). With logY and a wide range the
// axis is logarithmic, or symmetric-log when values ≤ 0 occur; each
// category's label gives the share of values at 0.
func BoxFigure(name, title, ylabel string, samples [][]float64, names []string, logY bool) (Figure, error) {
	p := newPlot("", ylabel)
	fr := newFrame(title, p)
	var boxes []BoxStats
	cats := make([]string, len(samples))
	zeros := false
	for i, s := range samples {
		var v plotter.Values
		nz := 0
		for _, x := range s {
			if !math.IsNaN(x) {
				v = append(v, x)
				if x <= 0 {
					nz++
				}
			}
		}
		if i < len(names) {
			cats[i] = names[i]
		}
		if len(v) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(24), float64(i), v)
		if err != nil {
			return Figure{}, err
		}
		b.FillColor = translucent(i, 90)
		b.BoxStyle.Color = Color(i)
		b.GlyphStyle.Radius = vg.Points(1.5)
		b.Outside = thinOutliers(b.Outside, v, maxOutliers)
		p.Add(b)
		st := BoxStats{Name: cats[i], N: len(v), Q1: b.Quartile1, Median: b.Median, Q3: b.Quartile3, AdjLow: b.AdjLow, AdjHigh: b.AdjHigh,
			ZeroShare: float64(nz) / float64(len(v)), Points: len(b.Outside)}
		boxes = append(boxes, st)
		if nz > 0 {
			zeros = true
			cats[i] += fmt.Sprintf("\n%s%% at 0", trimG(100*st.ZeroShare))
		}
	}
	p.NominalX(cats...)
	wrapCategories(p, len(cats), fr.width)
	caption := fmt.Sprintf("Boxes: quartiles and median of every value; whiskers: 1.5 × the interquartile range; circles: outliers (at most %d per box, evenly spaced in rank, the extremes included).", maxOutliers)
	if logY {
		if s := axisScale(&p.Y, samples); s != "" {
			caption += " " + s
		}
	}
	if zeros {
		caption += " Labels give each sample's share of values at 0."
	}
	f := figure(name, title, caption, fr)
	f.Boxes = boxes
	return f, nil
}

// maxOutliers caps the outliers a box plot draws: a sample of 10⁵ jobs
// has thousands, which would make the figure megabytes of circles.
const maxOutliers = 100

// thinOutliers keeps at most n of the outliers (indices into v), evenly
// spaced in rank on each side of the box, the extremes included.
func thinOutliers(out []int, v plotter.Values, n int) []int {
	if len(out) <= n {
		return out
	}
	out = append([]int(nil), out...)
	sort.SliceStable(out, func(a, b int) bool { return v[out[a]] < v[out[b]] })
	keep := make([]int, 0, n)
	for k := 0; k < n; k++ {
		keep = append(keep, out[k*(len(out)-1)/(n-1)])
	}
	return keep
}

// HistogramFigure draws a histogram with power-of-two bins (job sizes).
func HistogramFigure(name, title, xlabel string, values []float64) (Figure, error) {
	counts := map[int]float64{}
	maxBin := 0
	for _, v := range values {
		b := 0
		if v > 1 {
			b = int(math.Ceil(math.Log2(v)))
		}
		counts[b]++
		maxBin = max(maxBin, b)
	}
	bars := make(plotter.Values, maxBin+1)
	labels := make([]string, maxBin+1)
	for b := 0; b <= maxBin; b++ {
		bars[b] = counts[b]
		switch {
		case b == 0:
			labels[b] = "1"
		case b%2 == 1 && maxBin > 8:
			labels[b] = "" // every other label when they would crowd
		default:
			labels[b] = fmt.Sprintf("≤%s", HumanNum(float64(int(1)<<b)))
		}
	}
	p := newPlot(xlabel, "jobs (count)")
	fr := newFrame(title, p)
	bc, err := plotter.NewBarChart(bars, vg.Points(min(10, 200/float64(maxBin+1))))
	if err != nil {
		return Figure{}, err
	}
	bc.Color = Color(0)
	bc.LineStyle.Width = 0
	p.Add(bc)
	p.NominalX(labels...)
	return figure(name, title, "", fr), nil
}

// ParseFloat reads a number, or NaN.
func ParseFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
