package report

import (
	"container/heap"

	"fmt"
	"gonum.org/v1/plot"
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
		note += fmt.Sprintf(" (time %s); later jobs are not shown (report --gantt-from, --gantt-to and --gantt-jobs choose the window).", spanText(from, to))
		sel = sel[:o.MaxJobs]
	} else if windowed {
		note = fmt.Sprintf(" Window: time %s, %d of %d jobs.", spanText(from, to), len(sel), len(jobs))
	}
	if len(sel) == 0 {
		from, to = 0, 1
	}
	return sel, from, to, note
}

// GanttFigure draws jobs as rectangles: nodes (vertical) × time, over the
// window opt chooses.
func GanttFigure(name, title string, jobs []GanttJob, nodes int, opt GanttOptions) (Figure, error) {
	jobs, nodes, slots := Slotted(jobs, nodes)
	return ganttFigure(name, title, jobs, nodes, slots, opt)
}

// ganttFigure is GanttFigure on jobs already on rows (slots: the
// caption's sentence about the rows, "" for nodes).
func ganttFigure(name, title string, jobs []GanttJob, nodes int, slots string, opt GanttOptions) (Figure, error) {
	opt = opt.withDefaults()
	sel, t0, t1, note := ganttWindow(jobs, opt)
	caption := "Each rectangle is a job on its nodes over [start, end)." + note + slots
	if nodes > opt.MaxNodes {
		caption += fmt.Sprintf(" Nodes 0–%d of %d shown.", opt.MaxNodes-1, nodes)
		nodes = opt.MaxNodes
	}
	div, unit := timeScale(t1 - t0)
	p, fr := schedulePlot(title, unit, slots)
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
			poly.Color = translucent(i, 200)
			poly.LineStyle.Width = 0 // neighbours differ in colour; an outline would double the figure's size
			p.Add(poly)
		}
	}
	return figure(name, title, caption, fr), nil
}

// schedulePlot is the plot of a schedule: time across, nodes (or, for
// transient resources, the rows they share) up, a double column wide.
func schedulePlot(title, unit, slots string) (*plot.Plot, *frame) {
	ylabel := "node (index)"
	if slots != "" {
		ylabel = "row (resources reused)"
	}
	p := newPlot("time ("+unit+")", ylabel)
	fr := newFrame(title, p)
	fr.width = WideWidth
	return p, fr
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
// Each cell is fx × fy pixels (nearest neighbour), so that the figure's
// raster is drawn at about its printed size without smoothing.
func (o occupancy) image(fx, fy int) *image.NRGBA {
	fx, fy = max(fx, 1), max(fy, 1)
	img := image.NewNRGBA(image.Rect(0, 0, o.cols*fx, o.rows*fy))
	for r := 0; r < o.rows; r++ {
		for c := 0; c < o.cols; c++ {
			h := heat(o.busy[r][c])
			for y := 0; y < fy; y++ {
				for x := 0; x < fx; x++ {
					img.SetNRGBA(c*fx+x, (o.rows-1-r)*fy+y, h)
				}
			}
		}
	}
	return img
}

// heat maps a busy share to a colour, white (idle) to the palette's dark
// blue (full), in eight steps above idle: (0, 12.5 %], …, (87.5 %, 100 %].
func heat(v float64) color.NRGBA {
	v = math.Ceil(8*min(1, max(0, v))-1e-9) / 8
	mix := func(a uint8) uint8 { return uint8(math.Round(255 - v*(255-float64(a)))) }
	return color.NRGBA{mix(0x00), mix(0x40), mix(0x80), 0xFF}
}

// OverviewFigure draws the whole run at once: the share of busy nodes per
// node band and time bin, as a colour scale from idle (white) to full
// (dark blue). It is bounded in size whatever the number of jobs.
func OverviewFigure(name, title string, jobs []GanttJob, nodes int) (Figure, error) {
	jobs, nodes, slots := Slotted(jobs, nodes)
	return overviewFigure(name, title, jobs, nodes, slots)
}

func overviewFigure(name, title string, jobs []GanttJob, nodes int, slots string) (Figure, error) {
	o := occupancyOf(jobs, nodes, 64, 500)
	div, unit := timeScale(o.t1 - o.t0)
	p, fr := schedulePlot(title, unit, slots)
	p.Add(plotter.NewImage(o.image(4, 640/o.rows), o.t0/div, 0, o.t1/div, float64(o.nodes)))
	p.X.Min, p.X.Max = o.t0/div, o.t1/div
	p.Y.Min, p.Y.Max = 0, float64(o.nodes)
	// the colour scale as a legend: four swatches
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fr.add(fmt.Sprintf("%d%% busy", int(100*v)), swatch(heat(v)))
	}
	caption := fmt.Sprintf("All %d jobs: the share of busy nodes in each of %d node bands × %d time bins, in steps of 12.5%% (white: idle).", len(jobs), o.rows, o.cols) + slots
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

// Slotted is a run's schedule on transient resources (an elastic cloud's
// VMs, each leased for a while and released: 204,935 VMs over a run whose
// pool never holds more than 64) drawn on reused rows: each resource
// takes the lowest row free when its first job starts, and keeps it until
// its last job ends. It returns the jobs on rows, the number of rows, and
// the caption's sentence; resources that live as long as the run (a fixed
// cluster) are returned as they are.
func Slotted(jobs []GanttJob, nodes int) ([]GanttJob, int, string) {
	maxNode := -1
	for _, j := range jobs {
		for _, r := range j.Nodes {
			maxNode = max(maxNode, r[1])
		}
	}
	first := make([]float64, maxNode+1)
	last := make([]float64, maxNode+1)
	used := make([]bool, maxNode+1)
	for _, j := range jobs {
		for _, r := range j.Nodes {
			for n := max(r[0], 0); n <= r[1]; n++ {
				if !used[n] || j.Start < first[n] {
					first[n] = j.Start
				}
				if !used[n] || j.End > last[n] {
					last[n] = j.End
				}
				used[n] = true
			}
		}
	}
	var ids []int
	for n, u := range used {
		if u {
			ids = append(ids, n)
		}
	}
	sort.Slice(ids, func(a, b int) bool {
		if first[ids[a]] != first[ids[b]] {
			return first[ids[a]] < first[ids[b]]
		}
		return ids[a] < ids[b]
	})
	// greedy interval colouring: optimal, so rows = the most resources
	// alive at once
	slot := make([]int, maxNode+1)
	var busy endHeap // rows in use, by the end of their resource
	var free []int   // rows free, kept sorted
	rows := 0
	for _, n := range ids {
		for busy.Len() > 0 && busy[0].end <= first[n] {
			e := heap.Pop(&busy).(rowEnd)
			i := sort.SearchInts(free, e.row)
			free = append(free, 0)
			copy(free[i+1:], free[i:])
			free[i] = e.row
		}
		row := rows
		if len(free) > 0 {
			row, free = free[0], free[1:]
		} else {
			rows++
		}
		slot[n] = row
		heap.Push(&busy, rowEnd{last[n], row})
	}
	if len(ids) <= 2*rows {
		return jobs, nodes, ""
	}
	out := make([]GanttJob, len(jobs))
	for i, j := range jobs {
		var rs []int
		for _, r := range j.Nodes {
			for n := max(r[0], 0); n <= r[1]; n++ {
				rs = append(rs, slot[n])
			}
		}
		sort.Ints(rs)
		g := GanttJob{ID: j.ID, Start: j.Start, End: j.End}
		for k := 0; k < len(rs); k++ {
			if k > 0 && rs[k] == rs[k-1]+1 {
				g.Nodes[len(g.Nodes)-1][1] = rs[k]
				continue
			}
			g.Nodes = append(g.Nodes, [2]int{rs[k], rs[k]})
		}
		out[i] = g
	}
	note := fmt.Sprintf(" Resources used one after another share a row: %d resources in %d rows (each takes the lowest row free when its first job starts).", len(ids), rows)
	return out, rows, note
}

type rowEnd struct {
	end float64
	row int
}

type endHeap []rowEnd

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	return h[i].end < h[j].end || h[i].end == h[j].end && h[i].row < h[j].row
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(rowEnd)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
