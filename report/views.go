package report

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"image/png"
	"math"
	"sort"
	"strconv"
	"strings"
)

// View is an interactive view of a single run on the HTML page: its time
// series or its schedule, which a reader zooms (mouse wheel, +/−) and pans
// (drag, ←/→) over the whole run. The page draws it with a small script
// embedded in the page (viewJS: no library, no network).
type View struct {
	ID, Title, Caption string
	Kind               string      // "series" or "gantt"
	Data               template.JS // JSON, from our own numbers
}

//go:embed view.js
var viewJS string

// ViewScript is the script that draws the views.
func ViewScript() template.JS { return template.JS(viewJS) }

// View sizes: a time series of more samples than ViewExact is embedded
// as ViewBuckets buckets (minimum, maximum, time-weighted mean); the
// schedule view embeds at most ViewJobs jobs (the window's) over an
// occupancy image of the whole run.
const (
	ViewExact   = 4000
	ViewBuckets = 2000
	ViewJobs    = 20000
)

// num writes numbers with 5 significant digits (null for NaN).
type nums []float64

func (n nums) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
			continue
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 6, 64))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

type viewLine struct {
	Name string `json:"name"`
	// exact: the step function's samples
	T nums `json:"t,omitempty"`
	Y nums `json:"y,omitempty"`
	// bucketed
	B0   float64 `json:"b0,omitempty"`
	DT   float64 `json:"dt,omitempty"`
	Lo   nums    `json:"lo,omitempty"`
	Hi   nums    `json:"hi,omitempty"`
	Mean nums    `json:"mean,omitempty"`
}

type viewFigure struct {
	Title  string     `json:"title"`
	YLabel string     `json:"ylabel"`
	Lines  []viewLine `json:"lines"`
}

type seriesData struct {
	T0      float64      `json:"t0"`
	T1      float64      `json:"t1"`
	Div     float64      `json:"div"`
	Unit    string       `json:"unit"`
	Colors  []string     `json:"colors"`
	Figures []viewFigure `json:"figures"`
}

type ganttData struct {
	T0     float64  `json:"t0"`
	T1     float64  `json:"t1"`
	Div    float64  `json:"div"`
	Unit   string   `json:"unit"`
	Nodes  int      `json:"nodes"`
	Image  string   `json:"image"` // occupancy, a PNG data URL
	Rows   int      `json:"rows"`
	Cols   int      `json:"cols"`
	Jobs   []nums   `json:"jobs"` // [start, end, first, last, first, last, …] (seconds, node indices)
	From   float64  `json:"from"` // the jobs' window
	To     float64  `json:"to"`
	Total  int      `json:"total"`
	Colors []string `json:"colors"`
}

func paletteHex() []string {
	var out []string
	for _, c := range palette {
		out = append(out, fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B))
	}
	return out
}

func viewLineOf(name string, ts, ys []float64, t0, t1 float64) viewLine {
	if len(ts) <= ViewExact {
		return viewLine{Name: name, T: ts, Y: ys}
	}
	b := bucketize(ts, ys, t0, t1, ViewBuckets)
	return viewLine{Name: name, B0: b.t0, DT: b.dt, Lo: b.lo, Hi: b.hi, Mean: b.mean}
}

// runViews builds the interactive views of one run: every time series
// of the run (one figure at a time, chosen from a list) and the schedule.
func runViews(r *Run, sched schedule, g GanttOptions) ([]View, error) {
	var views []View
	t0, t1 := math.Inf(1), math.Inf(-1)
	span := func(ts []float64) {
		if len(ts) > 0 {
			t0, t1 = min(t0, ts[0]), max(t1, ts[len(ts)-1])
		}
	}
	span(r.T)
	for _, sf := range r.Extra {
		span(sf.T)
	}
	if t1 > t0 {
		d := seriesData{T0: t0, T1: t1, Colors: paletteHex()}
		d.Div, d.Unit = timeScale(t1 - t0)
		if len(r.T) > 1 {
			d.Figures = append(d.Figures,
				viewFigure{Title: "utilization", YLabel: "utilization (fraction of processors)", Lines: []viewLine{viewLineOf("utilization", r.T, r.Util, t0, t1)}},
				viewFigure{Title: "queued and running jobs", YLabel: "jobs (count)", Lines: []viewLine{viewLineOf("queued", r.T, r.Queued, t0, t1), viewLineOf("running", r.T, r.Running, t0, t1)}})
		}
		for _, sf := range r.Extra {
			if len(sf.T) < 2 {
				continue
			}
			for _, fig := range sf.Figures {
				vf := viewFigure{Title: fig.Title + " (" + sf.Name + ")", YLabel: fig.YLabel}
				for _, c := range fig.Columns {
					if ys, ok := sf.Columns[c]; ok {
						vf.Lines = append(vf.Lines, viewLineOf(c, sf.T, ys, t0, t1))
					}
				}
				if len(vf.Lines) > 0 {
					d.Figures = append(d.Figures, vf)
				}
			}
		}
		if len(d.Figures) > 0 {
			b, err := json.Marshal(d)
			if err != nil {
				return nil, err
			}
			views = append(views, View{ID: "view-series", Kind: "series", Title: r.Name + ": time series (zoom and pan)", Data: template.JS(b),
				Caption: fmt.Sprintf("Every time series of the run over its whole span. Wheel or +/− zooms around the pointer, dragging or ←/→ pans, double-click or “whole run” resets. Series of more than %d samples are embedded as %d buckets: the line is each bucket's time-weighted mean, the band its minimum to maximum.", ViewExact, ViewBuckets)})
		}
	}
	if len(r.Gantt) > 0 {
		v, err := ganttView(r, sched.jobs, sched.nodes, sched.note, g)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}

func ganttView(r *Run, jobs []GanttJob, nodes int, slots string, g GanttOptions) (View, error) {
	o := occupancyOf(jobs, nodes, 256, 2000)
	var img bytes.Buffer
	if err := png.Encode(&img, o.image(1, 1)); err != nil {
		return View{}, err
	}
	d := ganttData{T0: o.t0, T1: o.t1, Nodes: o.nodes, Rows: o.rows, Cols: o.cols, Total: len(r.Gantt), Colors: paletteHex(),
		Image: "data:image/png;base64," + base64.StdEncoding.EncodeToString(img.Bytes())}
	d.Div, d.Unit = timeScale(o.t1 - o.t0)
	g = g.withDefaults()
	g.MaxJobs = g.ViewJobs
	sel, from, to, _ := ganttWindow(jobs, g)
	sort.SliceStable(sel, func(a, b int) bool { return sel[a].Start < sel[b].Start })
	d.From, d.To = from, to
	for _, j := range sel {
		row := nums{(j.Start - o.t0) / d.Div, (j.End - o.t0) / d.Div}
		for _, nr := range j.Nodes {
			row = append(row, float64(nr[0]), float64(nr[1]))
		}
		d.Jobs = append(d.Jobs, row)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return View{}, err
	}
	caption := "The schedule over the whole run: colour is the share of busy nodes (white idle, dark blue full); zoomed in, each job is a rectangle on its nodes." + slots
	if len(sel) < len(r.Gantt) {
		caption += fmt.Sprintf(" Jobs are drawn for the %d of %d that run in time %s (report --view-jobs, --gantt-from and --gantt-to choose them); elsewhere the occupancy is shown.", len(sel), len(r.Gantt), spanText(from, to))
	}
	caption += " Wheel or +/− zooms, dragging or ←/→ pans, double-click or “whole run” resets."
	return View{ID: "view-gantt", Kind: "gantt", Title: r.Name + ": schedule (zoom and pan)", Data: template.JS(b), Caption: caption}, nil
}

// viewIDs makes the views' ids unique on a page.
func viewIDs(secs []Section) {
	n := 0
	for i := range secs {
		for k := range secs[i].Views {
			n++
			secs[i].Views[k].ID = fmt.Sprintf("%s-%d", strings.TrimPrefix(secs[i].Views[k].ID, "#"), n)
		}
	}
}
