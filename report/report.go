// Package report draws results: sweep figures (a metric against a
// parameter, one line per series, 95% confidence intervals as error
// bars), single-run figures (utilization and queue length over time, a
// Gantt chart, workload distributions), each as SVG and PNG for papers,
// and a self-contained HTML page (inline SVG, no network needed).
// gonum/plot's output is byte-stable, so figures are deterministic.
package report

import (
	"github.com/gridsched/gridsched/internal/atomicfile"

	"github.com/gridsched/gridsched/system"

	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one drawn figure.
type Figure struct {
	Name    string // file name without extension
	Title   string
	Caption string
	SVG     template.HTML // inline SVG for the HTML page
	// What was drawn, for tests and the page: axis labels, the most x
	// values of a line, the paper's reference markers.
	XLabel, YLabel string
	XValues        int
	Refs           int
}

// Table is a table for the HTML page.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// Section is one part of a report (one experiment or one run).
type Section struct {
	Title       string
	Description string
	Notes       []string
	Lead        []Table // tables shown before the figures (summary, claims)
	Figures     []Figure
	Tables      []Table
}

// Page is a whole report.
type Page struct {
	Title    string
	Links    []Link // other reports (the index of reproduce)
	Sections []Section
}

// Link is a link to another report.
type Link struct{ Href, Text string }

const width, height = 16 * vg.Centimeter, 10 * vg.Centimeter

// newPlot is a plot with the house style: wrapped title, grid, human tick
// labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = Wrap(title, 60)
	p.Title.Padding = vg.Points(4)
	p.Title.TextStyle.Font.Size = vg.Points(11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Label.Font.Size = vg.Points(9)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = humanTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = humanTicks{plot.DefaultTicks{}}
	p.Add(plotter.NewGrid())
	return p
}

// legend is a legend drawn outside the data area, on the right.
type legend struct {
	plot.Legend
	n int
}

func newLegend() *legend {
	l := &legend{Legend: plot.NewLegend()}
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(9)
	return l
}

func (l *legend) add(name string, th ...plot.Thumbnailer) {
	l.Add(name, th...)
	l.n++
}

// render draws p (and leg, to its right) in format.
func render(p *plot.Plot, leg *legend, format string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if leg != nil && leg.n > 0 {
		r := leg.Rectangle(dc)
		w := r.Max.X - r.Min.X + vg.Points(10)
		if w > width/2 {
			w = width / 2
		}
		p.Draw(draw.Crop(dc, 0, -w, 0, 0))
		top := vg.Points(0)
		if p.Title.Text != "" {
			top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		leg.Draw(draw.Crop(dc, width-w+vg.Points(6), 0, 0, -top-vg.Points(4)))
	} else {
		p.Draw(dc)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// save writes p as dir/name.svg and dir/name.png (atomically) and returns
// the figure with its SVG inline; with dir "" it writes no file and
// renders only the SVG.
func save(p *plot.Plot, leg *legend, dir, name, title, caption string) (Figure, error) {
	formats := []string{"svg", "png"}
	if dir == "" {
		// No folder: the figure is wanted inline only (its SVG), no files.
		formats = formats[:1]
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return Figure{}, err
	}
	var svg []byte
	for _, format := range formats {
		b, err := render(p, leg, format)
		if err != nil {
			return Figure{}, err
		}
		if dir == "" {
			svg = b
			break
		}
		if err := writeAtomic(filepath.Join(dir, name+"."+format), b); err != nil {
			return Figure{}, err
		}
		if format == "svg" {
			svg = b
		}
	}
	return Figure{Name: name, Title: title, Caption: caption, SVG: inlineSVG(svg), XLabel: p.X.Label.Text, YLabel: p.Y.Label.Text}, nil
}

// writeAtomic writes b to path through a temporary file and a rename.
func writeAtomic(path string, b []byte) error { return atomicfile.WriteFile(path, b, 0o644) }

var svgPrologue = regexp.MustCompile(`(?s)^.*?(<svg)`)

// inlineSVG strips the XML prologue so the SVG can sit inside HTML, and
// makes it scale with the page.
func inlineSVG(b []byte) template.HTML {
	s := svgPrologue.ReplaceAllString(string(b), "$1")
	s = strings.Replace(s, "<svg ", `<svg style="width:100%;height:auto" `, 1)
	return template.HTML(s) // generated by gonum/plot from our own data
}

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
	Metric        Metric // the y axis (its label, unit and physical bounds)
	Series        []Series
	Categories    []string // nominal x axis: X values index it
	Refs          []RefPoint
	Caption       string // what a point is (default: "Means over replications")
}

// SweepFigure draws series of (x, mean ± CI) points, with the paper's
// numbers as hollow markers on the same axes. CI bars are clipped to the
// metric's physical range, and the axis never goes below its minimum.
func SweepFigure(dir, name string, sw Sweep) (Figure, error) {
	p := newPlot(sw.Title, sw.XLabel, sw.Metric.Label())
	leg := newLegend()
	logY := wideRange(sw.Series)
	lo, hi := sw.Metric.Min, sw.Metric.Max
	colour := map[string]int{}
	xvals := 0
	ours := ""
	if len(sw.Refs) > 0 {
		ours = "ours: "
	}
	for i, s := range sw.Series {
		colour[s.Name] = i
		xys := make(plotter.XYs, len(s.X))
		errs := make(plotter.YErrors, len(s.X))
		hasErr := false
		seen := map[float64]bool{}
		for k := range s.X {
			seen[s.X[k]] = true
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
			e := s.Err[k]
			if math.IsNaN(e) {
				e = 0
			} else {
				hasErr = true
			}
			low, high := e, e
			if !math.IsNaN(lo) {
				low = max(0, min(low, s.Y[k]-lo))
			}
			if !math.IsNaN(hi) {
				high = max(0, min(high, hi-s.Y[k]))
			}
			if logY {
				// A log axis has no room below 0: clip the lower bar.
				low = min(low, 0.9*s.Y[k])
			}
			errs[k].Low, errs[k].High = low, high
		}
		xvals = max(xvals, len(seen))
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return Figure{}, err
		}
		c := Color(i)
		line.Color = c
		line.Width = vg.Points(1.5)
		points.Color = c
		points.Shape = Shape(i)
		points.Radius = vg.Points(3)
		p.Add(line, points)
		if hasErr {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err != nil {
				return Figure{}, err
			}
			eb.Color = c
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		leg.add(ours+s.Name, line, points)
	}
	refs := 0
	if len(sw.Refs) > 0 {
		byColour := map[int]plotter.XYs{}
		var order []int
		for _, r := range sw.Refs {
			i, ok := colour[r.Series]
			if !ok && len(sw.Series) == 1 {
				i, ok = 0, true
			}
			if !ok {
				i = 6 // black
			}
			if _, ok := byColour[i]; !ok {
				order = append(order, i)
			}
			byColour[i] = append(byColour[i], plotter.XY{X: r.X, Y: r.Y})
			refs++
		}
		var thumb *plotter.Scatter
		for _, i := range order {
			sc, err := plotter.NewScatter(byColour[i])
			if err != nil {
				return Figure{}, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: Color(i), Radius: vg.Points(5.5), Shape: draw.PyramidGlyph{}}
			p.Add(sc)
			if thumb == nil {
				thumb = sc
			}
			inner, _ := plotter.NewScatter(byColour[i])
			inner.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(2.5), Shape: draw.PyramidGlyph{}}
			p.Add(inner)
		}
		t := *thumb
		t.GlyphStyle.Color = color.Black
		leg.add("paper (▲)", &t)
	}
	if sw.Categories != nil {
		p.NominalX(sw.Categories...)
	}
	caption := "Means over replications"
	if sw.Caption != "" {
		caption = sw.Caption
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = humanTicks{plot.LogTicks{Prec: -1}}
		caption += " (logarithmic y axis)"
	} else {
		if !math.IsNaN(lo) && p.Y.Min < lo {
			p.Y.Min = lo
		}
		if !math.IsNaN(hi) && p.Y.Max > hi {
			p.Y.Max = hi
		}
	}
	if anyErr(sw.Series) {
		caption += "; error bars are 95% confidence intervals (Student's t)"
		if !math.IsNaN(lo) || !math.IsNaN(hi) {
			caption += ", clipped to the metric's range"
		}
	}
	if refs > 0 {
		caption += fmt.Sprintf("; %d triangles are the paper's numbers", refs)
	}
	if sw.Metric.LowerIsBetter {
		caption += "; lower is better"
	} else if _, known := system.MetricInfo(sw.Metric.Key); known && !math.IsNaN(sw.Metric.Min) {
		caption += "; higher is better"
	}
	f, err := save(p, leg, dir, name, sw.Title, caption+".")
	f.XValues, f.Refs = xvals, refs
	return f, err
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

// StepLine is one step function of time for StepFigure.
type StepLine struct {
	Name string
	Y    []float64
}

// StepFigure draws step functions of time (utilization, queue length)
// sampled at xs (seconds); with window > 0 each line is drawn as its
// time-weighted moving average over the window (seconds) instead, which
// keeps a long run readable.
func StepFigure(dir, name, title, ylabel string, xs []float64, lines []StepLine, window float64) (Figure, error) {
	span := 0.0
	if len(xs) > 0 {
		span = xs[len(xs)-1] - xs[0]
	}
	div, unit := timeScale(span)
	p := newPlot(title, "time ("+unit+")", ylabel)
	leg := newLegend()
	for i, l := range lines {
		var pts plotter.XYs
		if window > 0 {
			for k, y := range movingAverage(xs, l.Y, window) {
				pts = append(pts, plotter.XY{X: xs[k] / div, Y: y})
			}
		} else {
			for k := range xs {
				if k > 0 {
					pts = append(pts, plotter.XY{X: xs[k] / div, Y: l.Y[k-1]})
				}
				pts = append(pts, plotter.XY{X: xs[k] / div, Y: l.Y[k]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		ln.Color = Color(i)
		ln.Width = vg.Points(1.2)
		p.Add(ln)
		if l.Name != "" {
			leg.add(l.Name, ln)
		}
	}
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	caption := ""
	if window > 0 {
		caption = fmt.Sprintf("Time-weighted moving average over a window of %s.", durationText(window))
	}
	return save(p, leg, dir, name, title, caption)
}

// movingAverage is, at each sample time, the time-weighted mean of the
// step function (xs, ys) over the preceding window.
func movingAverage(xs, ys []float64, window float64) []float64 {
	out := make([]float64, len(xs))
	// cum[k]: integral of the step function from xs[0] to xs[k]
	cum := make([]float64, len(xs))
	for k := 1; k < len(xs); k++ {
		cum[k] = cum[k-1] + ys[k-1]*(xs[k]-xs[k-1])
	}
	integral := func(t float64) float64 { // from xs[0] to t
		k := sort.SearchFloat64s(xs, t)
		if k < len(xs) && xs[k] == t {
			return cum[k]
		}
		if k == 0 {
			return 0
		}
		return cum[k-1] + ys[k-1]*(t-xs[k-1])
	}
	for k, t := range xs {
		from := max(xs[0], t-window)
		if t <= from {
			out[k] = ys[k]
			continue
		}
		out[k] = (integral(t) - integral(from)) / (t - from)
	}
	return out
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

// CDFFigure draws the empirical CDF of each sample on one pair of axes
// (log x axis when logX; values ≤ 0 are then counted but not drawn, so
// the curve starts at their fraction).
func CDFFigure(dir, name, title, xlabel string, samples [][]float64, names []string, logX bool) (Figure, error) {
	p := newPlot(title, xlabel, "fraction of jobs ≤ x")
	leg := newLegend()
	lo, hi := math.Inf(1), math.Inf(-1) // range of the values a log axis can draw
	for _, x := range samples {
		for _, v := range x {
			if v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo > hi {
		logX = false // nothing above 0 (every wait 0): a log axis would have no range
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = humanTicks{plot.LogTicks{Prec: -1}}
	}
	for i, x := range samples {
		x = append([]float64(nil), x...)
		sort.Float64s(x)
		var pts plotter.XYs
		for k, v := range x {
			if logX && v <= 0 {
				continue
			}
			if k+1 < len(x) && x[k+1] == v {
				continue
			}
			pts = append(pts, plotter.XY{X: v, Y: float64(k+1) / float64(len(x))})
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.5)
		l.Dashes = dashes(i)
		p.Add(l)
		if len(names) > i {
			leg.add(names[i], l)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1
	if logX && lo == hi {
		p.X.Min, p.X.Max = lo/2, hi*2 // one value: gonum would widen it by ±1, below 0
	}
	caption := ""
	if logX {
		caption = "Logarithmic x axis; zero values are counted in the fractions but cannot be drawn."
	}
	return save(p, leg, dir, name, title, caption)
}

// dashes tells lines apart without colour.
func dashes(i int) []vg.Length {
	switch i % 4 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	case 3:
		return []vg.Length{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}
	}
	return nil
}

// BoxFigure draws one box plot per sample on shared axes (log y when
// logY; values ≤ 0 are then left out).
func BoxFigure(dir, name, title, ylabel string, samples [][]float64, names []string, logY bool) (Figure, error) {
	p := newPlot(title, "", ylabel)
	n := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range samples {
		var v plotter.Values
		for _, x := range s {
			if !math.IsNaN(x) && (!logY || x > 0) {
				v = append(v, x)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		if len(v) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(30), float64(i), v)
		if err != nil {
			return Figure{}, err
		}
		b.FillColor = translucent(i, 90)
		b.BoxStyle.Color = Color(i)
		p.Add(b)
		n++
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(samples))-0.4
	if logY && n > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = humanTicks{plot.LogTicks{Prec: -1}}
		if lo == hi {
			p.Y.Min, p.Y.Max = lo/2, hi*2 // one value: gonum would widen it by ±1, below 0
		}
	}
	caption := "Boxes: quartiles and median; whiskers: 1.5 × the interquartile range; circles: outliers."
	if logY {
		caption += " Logarithmic axis: zero values are left out."
	}
	return save(p, nil, dir, name, title, caption)
}

// HistogramFigure draws a histogram with power-of-two bins (job sizes).
func HistogramFigure(dir, name, title, xlabel string, values []float64) (Figure, error) {
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
		if b == 0 {
			labels[b] = "1"
		} else {
			labels[b] = fmt.Sprintf("≤%d", 1<<b)
		}
	}
	p := newPlot(title, xlabel, "jobs (count)")
	bc, err := plotter.NewBarChart(bars, vg.Points(12))
	if err != nil {
		return Figure{}, err
	}
	bc.Color = Color(0)
	p.Add(bc)
	p.NominalX(labels...)
	return save(p, nil, dir, name, title, "")
}

// GanttJob is one job of a Gantt chart.
type GanttJob struct {
	ID         int64
	Start, End float64
	Nodes      [][2]int // node ranges [first, last]
}

// Gantt limits: a chart shows at most this many jobs and nodes; a larger
// run is drawn over a time window (the first GanttMaxJobs jobs to start)
// and its first GanttMaxNodes nodes, and the caption says so.
const (
	GanttMaxJobs  = 500
	GanttMaxNodes = 1024
)

// GanttFigure draws jobs as rectangles: nodes (vertical) × time.
func GanttFigure(dir, name, title string, jobs []GanttJob, nodes int) (Figure, error) {
	jobs = append([]GanttJob(nil), jobs...)
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Start < jobs[b].Start })
	caption := "Each rectangle is a job on its nodes over [start, end)."
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, j := range jobs {
		t0, t1 = min(t0, j.Start), max(t1, j.End)
	}
	if len(jobs) > GanttMaxJobs {
		t1 = jobs[GanttMaxJobs].Start
		caption += fmt.Sprintf(" Window: the first %d of %d jobs to start (time %s to %s); later jobs are not shown.", GanttMaxJobs, len(jobs), durationText(t0), durationText(t1))
		jobs = jobs[:GanttMaxJobs]
	}
	if nodes > GanttMaxNodes {
		caption += fmt.Sprintf(" Nodes 0–%d of %d shown.", GanttMaxNodes-1, nodes)
		nodes = GanttMaxNodes
	}
	if len(jobs) == 0 {
		t0, t1 = 0, 1
	}
	div, unit := timeScale(t1 - t0)
	p := newPlot(title, "time ("+unit+")", "node (index)")
	p.Y.Min, p.Y.Max = 0, float64(nodes)
	for i, j := range jobs {
		end := min(j.End, t1)
		for _, r := range j.Nodes {
			if r[0] >= nodes {
				continue
			}
			top := min(r[1]+1, nodes)
			poly, err := plotter.NewPolygon(plotter.XYs{
				{X: j.Start / div, Y: float64(r[0])}, {X: end / div, Y: float64(r[0])},
				{X: end / div, Y: float64(top)}, {X: j.Start / div, Y: float64(top)},
			})
			if err != nil {
				return Figure{}, err
			}
			poly.Color = translucent(i, 170)
			poly.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.2)}
			p.Add(poly)
		}
	}
	return save(p, nil, dir, name, title, caption)
}

// ParseFloat reads a number, or NaN.
func ParseFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
