package report

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GanttJob is one job of a Gantt chart.
type GanttJob struct {
	ID         int64
	Start, End float64
	Nodes      [][2]int // node ranges [first, last]
}

// Gantt limits (defaults; GanttOptions changes them): a chart shows at
// most this many jobs and nodes.
const (
	GanttMaxJobs  = 500
	GanttMaxNodes = 1024
)

// GanttOptions choose what a Gantt chart shows: the jobs that run in the
// time window [From, To] (seconds; To ≤ 0: to the end of the run), at
// most MaxJobs of them (the first to start; 0: GanttMaxJobs), on the
// first MaxNodes nodes (0: GanttMaxNodes).
type GanttOptions struct {
	From, To float64
	MaxJobs  int
	MaxNodes int
	// ViewJobs caps the jobs the interactive schedule draws one by one
	// (0: ViewJobs).
	ViewJobs int
}

func (o GanttOptions) withDefaults() GanttOptions {
	if o.MaxJobs <= 0 {
		o.MaxJobs = GanttMaxJobs
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = GanttMaxNodes
	}
	if o.ViewJobs <= 0 {
		o.ViewJobs = ViewJobs
	}
	return o
}

// ganttWindow selects the jobs of the window: those running at some time
// in [From, To], sorted by start, at most MaxJobs; it returns them, the
// window actually drawn and what the caption says about the selection.
func ganttWindow(jobs []GanttJob, o GanttOptions) ([]GanttJob, float64, float64, string) {
	o = o.withDefaults()
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, j := range jobs {
		t0, t1 = min(t0, j.Start), max(t1, j.End)
	}
	from, to := max(o.From, t0), t1
	if o.To > 0 {
		to = min(o.To, t1)
	}
	var sel []GanttJob
	for _, j := range jobs {
		if j.End >= from && j.Start <= to {
			sel = append(sel, j)
		}
	}
	sort.SliceStable(sel, func(a, b int) bool { return sel[a].Start < sel[b].Start })
	note := ""
	windowed := o.From > 0 || o.To > 0
	if len(sel) > o.MaxJobs {
		to = sel[o.MaxJobs].Start
		note = fmt.Sprintf(" Window: the first %d of %d jobs to start", o.MaxJobs, len(sel))
		if windowed {
			note += " in the chosen window"
		}
		note += fmt.Sprintf(" (time %s to %s); later jobs are not shown (report --gantt-from, --gantt-to and --gantt-jobs choose the window).", durationText(from), durationText(to))
		sel = sel[:o.MaxJobs]
	} else if windowed {
		note = fmt.Sprintf(" Window: time %s to %s, %d of %d jobs.", durationText(from), durationText(to), len(sel), len(jobs))
	}
	if len(sel) == 0 {
		from, to = 0, 1
	}
	return sel, from, to, note
}

// GanttFigure draws jobs as rectangles: nodes (vertical) × time, over the
// window opt chooses.
func GanttFigure(name, title string, jobs []GanttJob, nodes int, opt GanttOptions) (Figure, error) {
	opt = opt.withDefaults()
	sel, t0, t1, note := ganttWindow(jobs, opt)
	caption := "Each rectangle is a job on its nodes over [start, end)." + note
	if nodes > opt.MaxNodes {
		caption += fmt.Sprintf(" Nodes 0–%d of %d shown.", opt.MaxNodes-1, nodes)
		nodes = opt.MaxNodes
	}
	div, unit := timeScale(t1 - t0)
	p := newPlot("time ("+unit+")", "node (index)")
	fr := newFrame(title, p)
	fr.width = WideWidth
	p.Y.Min, p.Y.Max = 0, float64(max(nodes, 1))
	p.X.Min, p.X.Max = t0/div, t1/div
	for i, j := range sel {
		start, end := max(j.Start, t0), min(j.End, t1)
		for _, r := range j.Nodes {
			if r[0] >= nodes {
				continue
			}
			top := min(r[1]+1, nodes)
			poly, err := plotter.NewPolygon(plotter.XYs{
				{X: start / div, Y: float64(r[0])}, {X: end / div, Y: float64(r[0])},
				{X: end / div, Y: float64(top)}, {X: start / div, Y: float64(top)},
			})
			if err != nil {
				return Figure{}, err
			}
			poly.Color = translucent(i, 170)
			poly.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.15)}
			p.Add(poly)
		}
	}
	return figure(name, title, caption, fr), nil
}

// occupancy is the share of each node bin's nodes busy in each time bin:
// rows node bins (bottom first), columns time bins.
type occupancy struct {
	t0, t1     float64
	nodes      int
	rows, cols int
	busy       [][]float64
}

// occupancyOf bins the jobs' busy node-seconds into rows × cols cells,
// in time linear in the jobs' node ranges (difference arrays for the
// whole time bins a job covers).
func occupancyOf(jobs []GanttJob, nodes, rows, cols int) occupancy {
	o := occupancy{nodes: max(nodes, 1), t0: math.Inf(1), t1: math.Inf(-1)}
	for _, j := range jobs {
		o.t0, o.t1 = min(o.t0, j.Start), max(o.t1, j.End)
	}
	if !(o.t1 > o.t0) {
		o.t0, o.t1 = 0, 1
	}
	o.rows, o.cols = max(1, min(rows, o.nodes)), max(1, cols)
	dt := (o.t1 - o.t0) / float64(o.cols)
	per := float64(o.nodes) / float64(o.rows) // nodes per row
	o.busy = make([][]float64, o.rows)
	diff := make([][]float64, o.rows)
	for r := range o.busy {
		o.busy[r] = make([]float64, o.cols+1)
		diff[r] = make([]float64, o.cols+2)
	}
	col := func(t float64) int { return min(o.cols-1, max(0, int((t-o.t0)/dt))) }
	add := func(r int, w, s, e float64) {
		if e <= s || w <= 0 {
			return
		}
		cs, ce := col(s), col(e)
		if cs == ce {
			o.busy[r][cs] += w * (e - s)
			return
		}
		o.busy[r][cs] += w * (o.t0 + float64(cs+1)*dt - s)
		o.busy[r][ce] += w * (e - (o.t0 + float64(ce)*dt))
		diff[r][cs+1] += w * dt
		diff[r][ce] -= w * dt
	}
	for _, j := range jobs {
		for _, nr := range j.Nodes {
			lo, hi := float64(nr[0]), float64(min(nr[1], o.nodes-1)+1)
			for r := int(lo / per); r < o.rows && float64(r)*per < hi; r++ {
				// nodes of [lo, hi) in row r
				w := min(hi, float64(r+1)*per) - max(lo, float64(r)*per)
				add(r, w, j.Start, j.End)
			}
		}
	}
	for r := range o.busy {
		run := 0.0
		for c := 0; c < o.cols; c++ {
			run += diff[r][c]
			o.busy[r][c] = (o.busy[r][c] + run) / (per * dt)
		}
		o.busy[r] = o.busy[r][:o.cols]
	}
	return o
}

// image draws the occupancy as an image, white (idle) to dark blue
// (every node busy), top row = highest nodes.
func (o occupancy) image() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, o.cols, o.rows))
	for r := 0; r < o.rows; r++ {
		for c := 0; c < o.cols; c++ {
			img.SetNRGBA(c, o.rows-1-r, heat(o.busy[r][c]))
		}
	}
	return img
}

// heat maps a busy share to a colour: white to the palette's blue.
func heat(v float64) color.NRGBA {
	v = min(1, max(0, v))
	mix := func(a uint8) uint8 { return uint8(math.Round(255 - v*(255-float64(a)))) }
	return color.NRGBA{mix(0x00), mix(0x40), mix(0x80), 0xFF}
}

// OverviewFigure draws the whole run at once: the share of busy nodes per
// node band and time bin, as a colour scale from idle (white) to full
// (dark blue). It is bounded in size whatever the number of jobs.
func OverviewFigure(name, title string, jobs []GanttJob, nodes int) (Figure, error) {
	o := occupancyOf(jobs, nodes, 128, 700)
	div, unit := timeScale(o.t1 - o.t0)
	p := newPlot("time ("+unit+")", "node (index)")
	fr := newFrame(title, p)
	fr.width = WideWidth
	p.Add(plotter.NewImage(o.image(), o.t0/div, 0, o.t1/div, float64(o.nodes)))
	p.X.Min, p.X.Max = o.t0/div, o.t1/div
	p.Y.Min, p.Y.Max = 0, float64(o.nodes)
	// the colour scale as a legend: four swatches
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fr.add(fmt.Sprintf("%d%% busy", int(100*v)), swatch(heat(v)))
	}
	caption := fmt.Sprintf("All %d jobs: the share of busy nodes in each of %d node bands × %d time bins.", len(jobs), o.rows, o.cols)
	return figure(name, title, caption, fr), nil
}

// swatch is a legend thumbnail: a filled square outlined in grey.
type swatch color.NRGBA

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := r.Max.Y - r.Min.Y
	sq := vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: r.Min.Y + h*0.15}, Max: vg.Point{X: r.Min.X + h*0.7*1.4, Y: r.Max.Y - h*0.15}}
	c.SetColor(color.NRGBA(s))
	c.Fill(sq.Path())
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.3)})
	c.Stroke(sq.Path())
}
