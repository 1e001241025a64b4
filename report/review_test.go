package report

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"bytes"
	"encoding/base64"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"image/png"
	"regexp"
	"testing"
)

var svgImage = regexp.MustCompile(`<image ([^>]*)/?>`)

func svgAttr(el, name string) (string, bool) {
	m := regexp.MustCompile(`(?:^|\s)` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(el)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// TestOverviewImageFillsItsBox (review of issue 29, A2): the whole-run
// overview's raster fills the box the plot gives it in the SVG too: its
// <image> says preserveAspectRatio="none" (else a browser letterboxes a
// raster whose ratio differs from the box's, and every time read off it
// is wrong), and its data is labelled as the PNG it is.
func TestOverviewImageFillsItsBox(t *testing.T) {
	var jobs []GanttJob
	for i := 0; i < 200; i++ {
		jobs = append(jobs, GanttJob{ID: int64(i), Start: 6.5*86400 + float64(i)*3600, End: 6.5*86400 + float64(i+5)*3600, Nodes: [][2]int{{i % 64, i % 64}}})
	}
	f, err := OverviewFigure("o", "whole run", jobs, 64)
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	render(t, "", figs)
	ims := svgImage.FindAllStringSubmatch(string(figs[0].SVG), -1)
	if len(ims) != 1 {
		t.Fatalf("%d <image> elements, want 1", len(ims))
	}
	el := ims[0][1]
	if v, _ := svgAttr(el, "preserveAspectRatio"); v != "none" {
		t.Errorf("the overview's <image> has preserveAspectRatio %q, want \"none\": %.200s", v, el)
	}
	href, _ := svgAttr(el, "xlink:href")
	const prefix = "data:image/png;base64,"
	if len(href) < len(prefix) || href[:len(prefix)] != prefix {
		t.Fatalf("the overview's data is %.30q, want a PNG data URL", href)
	}
	raw, err := base64.StdEncoding.DecodeString(href[len(prefix):])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the data URL is not a PNG: %v", err)
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		t.Errorf("an empty raster %d×%d", cfg.Width, cfg.Height)
	}
}

// openBarsOf finds the open intervals a figure draws.
func openBarsOf(f Figure) []openCI {
	if f.fr.open == nil {
		return nil
	}
	return f.fr.open.bars
}

// TestLogAxisCIReachingZero (review of issue 29, A3): on a logarithmic
// axis, a confidence interval that reaches 0 or below is not drawn down
// to a tenth of its mean as if that were its end (seed 000's DRRM at 100
// nodes: [−4.6, 113.8] was drawn from 5.5). Its bar runs to the axis
// bottom and ends in an arrow, and the caption gives the interval. An
// interval whose end is far below the mean but on the axis is drawn to
// its end.
func TestLogAxisCIReachingZero(t *testing.T) {
	f, err := SweepFigure("tpc", Sweep{Title: "throughput", XLabel: "nodes", Metric: MetricInfo("mean_wait"), Series: []Series{
		{Name: "drrm", X: []float64{25, 50, 100}, Y: []float64{2000, 400, 54.6}, Err: []float64{100, 50, 59.2}},
		{Name: "srrm", X: []float64{25, 50, 100}, Y: []float64{3000, 800, 0.2}, Err: []float64{10, 10, 0.01}},
		{Name: "fcfs", X: []float64{25, 50, 100}, Y: []float64{5000, 1000, 100}, Err: []float64{10, 999.5, 10}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.fr.p.Y.Scale.(plot.LogScale); !ok {
		t.Fatalf("the y axis is %T, want logarithmic", f.fr.p.Y.Scale)
	}
	if want := "drrm at nodes = 100: -4.6 to 113.8"; !strings.Contains(f.Caption, want) || !strings.Contains(f.Caption, "arrow") {
		t.Errorf("the caption does not give the interval that reaches below the axis (%q): %q", want, f.Caption)
	}
	bars := openBarsOf(f)
	found := map[string]openCI{}
	for _, b := range bars {
		found[b.Series] = b
	}
	if b, ok := found["drrm"]; !ok || !b.arrow || b.At != 100 {
		t.Errorf("drrm's interval at 100 is not drawn to the axis bottom with an arrow: %+v", bars)
	}
	// fcfs at 50: [0.5, 1999.5], three decades under its mean, but the
	// axis reaches 0.19 (srrm): drawn to its end, no arrow.
	if b, ok := found["fcfs"]; !ok || b.arrow || b.End != 0.5 {
		t.Errorf("fcfs's interval at 50 ([0.5, 1999.5]) is not drawn to its end: %+v", bars)
	}
	if strings.Contains(f.Caption, "fcfs at") {
		t.Errorf("the caption names an interval the axis shows: %q", f.Caption)
	}
	if bottom := f.fr.p.Y.Min; !(bottom <= 0.19) {
		t.Errorf("axis bottom %g above the data", bottom)
	}
	figs := []Figure{f}
	render(t, "", figs)
}

// drawnAt is the height of a polyline at x, where x is not one of its
// vertices' abscissae (so exactly one segment spans it).
func drawnAt(t *testing.T, pts []plotter.XY, x float64) float64 {
	t.Helper()
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if a.X < x && x < b.X {
			return a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X)
		}
	}
	t.Fatalf("no segment spans x = %g", x)
	return 0
}

// TestCDFIsAStaircase (review of issue 29, A4): an empirical CDF is drawn
// as steps, thinned by fraction of jobs, so that the drawing is within
// the resolution of the exact CDF everywhere. 4 of 10,000 response times
// are 1 s, the next are 64 s and above: at 10 s the CDF is 0.0004, which
// a line joining every k-th distinct value read as 0.07.
func TestCDFIsAStaircase(t *testing.T) {
	var x []float64
	for i := 0; i < 4; i++ {
		x = append(x, 1)
	}
	for i := 0; len(x) < 10000; i++ {
		x = append(x, 64+float64(i%5000)*3.7+float64(i/5000)*0.1) // 9,996 distinct values above 64
	}
	x = append(x, math.NaN())
	exact := func(at float64) float64 {
		n := 0
		for _, v := range x {
			if v <= at {
				n++
			}
		}
		return float64(n) / 10000
	}
	const n = 600
	pts := cdfPoints(x, n)
	if len(pts) > 2*n+4 {
		t.Errorf("%d points for resolution %d", len(pts), n)
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if a.X != b.X && a.Y != b.Y {
			t.Fatalf("segment %d from (%g, %g) to (%g, %g) is slanted: a CDF rises only at a value", i, a.X, a.Y, b.X, b.Y)
		}
		if b.X < a.X || b.Y < a.Y {
			t.Fatalf("segment %d goes back", i)
		}
	}
	if got := drawnAt(t, pts, 10); got != 0.0004 {
		t.Errorf("the CDF drawn at 10 s is %g, want 0.0004", got)
	}
	for _, at := range []float64{0.5 + 64, 100.05, 1000.3, 9000.01, 18000.02} {
		got, want := drawnAt(t, pts, at), exact(at)
		if math.Abs(got-want) > 1.0/n+1e-12 {
			t.Errorf("the CDF drawn at %g is %g, exact %g: off by more than 1/%d", at, got, want, n)
		}
	}
	if first, last := pts[0], pts[len(pts)-1]; first != (plotter.XY{X: 1, Y: 0}) || last.Y != 1 || last.X != slices.Max(x[:10000]) {
		t.Errorf("the staircase runs from %v to %v", first, last)
	}
	// a large jump is drawn where it is: 30 % of the values at 7
	y := []float64{}
	for i := 0; i < 700; i++ {
		y = append(y, float64(100+i))
	}
	for i := 0; i < 300; i++ {
		y = append(y, 7)
	}
	p := cdfPoints(y, 100)
	if p[0] != (plotter.XY{X: 7, Y: 0}) || p[1] != (plotter.XY{X: 7, Y: 0.3}) {
		t.Errorf("the jump at 7 is drawn as %v, want (7, 0) to (7, 0.3)", p[:2])
	}
}

// TestTimeSeriesScalesAndIdentical (review of issue 29, A6): series of a
// time-series figure whose sizes differ by more than a factor 10 get
// axes of their own (starving jobs, at most 2, looked a flat zero under
// cumulative migrations reaching 1,900), and series identical at every
// time are drawn once and named together (lease time = cost hid one
// line under the other).
func TestTimeSeriesScalesAndIdentical(t *testing.T) {
	ts := []float64{0, 10, 20, 30, 40}
	lines := []StepLine{
		{"starving_jobs", ts, []float64{0, 2, 1, 0, 0}},
		{"paused", ts, []float64{0, 0, 1, 1, 0}},
		{"migrations", ts, []float64{0, 300, 900, 1500, 1900}},
	}
	figs, err := StepFigures("dm", "Demand control and migration over time", "count", lines, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 {
		t.Fatalf("%d figures, want 2 (migrations; starving_jobs and paused)", len(figs))
	}
	if !slices.Equal(figs[0].Legend, []string{"migrations"}) || !slices.Equal(figs[1].Legend, []string{"starving_jobs", "paused"}) {
		t.Errorf("legends %q and %q", figs[0].Legend, figs[1].Legend)
	}
	if top := figs[1].fr.p.Y.Max; top != 2 {
		t.Errorf("the small series' axis tops at %g, want 2", top)
	}
	if figs[0].Name != "dm" || figs[1].Name != "dm-2" || !strings.Contains(figs[1].Title, "starving_jobs, paused") {
		t.Errorf("names %q, %q; title %q", figs[0].Name, figs[1].Name, figs[1].Title)
	}
	if !strings.Contains(figs[1].Caption, "factor 10") {
		t.Errorf("the caption does not say why the series are apart: %q", figs[1].Caption)
	}
	// one scale: one figure
	same, err := StepFigures("q", "queue", "jobs", []StepLine{{"queued", ts, []float64{1, 5, 3, 2, 0}}, {"running", ts, []float64{2, 2, 4, 1, 0}}}, 0)
	if err != nil || len(same) != 1 {
		t.Fatalf("series of one size: %d figures, %v", len(same), err)
	}

	f, err := StepFigure("lc", "Cumulative lease time and cost", "VM × h, price units", []StepLine{
		{"lease_time", ts, []float64{0, 1, 2, 3, 4}}, {"cost", ts, []float64{0, 1, 2, 3, 4}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Legend, []string{"lease_time = cost"}) || !strings.Contains(f.Caption, "Identical at every time (drawn once): lease_time, cost") {
		t.Errorf("identical series: legend %q, caption %q", f.Legend, f.Caption)
	}
}

// TestSentinelDrawnApart (review of issue 29, A7): a swept value that
// means "none" (manager MTBF 0: the managers never fail) is no point on a
// numeric axis: drawn at x = 0, left of the shortest MTBF, the lines read
// "a longer MTBF gives a worse makespan". It is drawn past the largest
// value at a tick of its name, not joined to the line.
func TestSentinelDrawnApart(t *testing.T) {
	f, err := SweepFigure("mtbf", Sweep{Title: "makespan", XLabel: "manager MTBF (s; 0 = none)", Metric: MetricInfo("makespan"),
		Series: []Series{{Name: "grid-stat", X: []float64{0, 10800, 43200, 172800}, Y: []float64{100, 180, 140, 110}, Err: []float64{1, 2, 2, 1}}},
		Apart:  []ApartX{{X: 0, Name: "none"}}})
	if err != nil {
		t.Fatal(err)
	}
	p := f.fr.p
	var none, zero []float64
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		switch tk.Label {
		case "none":
			none = append(none, tk.Value)
		case "0":
			zero = append(zero, tk.Value)
		}
	}
	if len(none) != 1 || !(none[0] > 172800) || len(zero) != 0 {
		t.Errorf("ticks: \"none\" at %v (want one, right of 172,800), \"0\" at %v (want none)", none, zero)
	}
	if !(p.X.Min >= 10800) {
		t.Errorf("the axis starts at %g, left of the shortest MTBF", p.X.Min)
	}
	if !strings.Contains(f.Caption, "drawn apart") || !strings.Contains(f.Caption, "not joined") {
		t.Errorf("caption: %q", f.Caption)
	}
	figs := []Figure{f}
	render(t, "", figs)
	if !strings.Contains(string(figs[0].SVG), ">none<") {
		t.Errorf("the SVG has no tick reading \"none\"")
	}
	// one value on the axis besides "none" (the quick scale's [0, 10800])
	q, err := SweepFigure("mtbf-quick", Sweep{Title: "makespan", XLabel: "manager MTBF (s; 0 = none)", Metric: MetricInfo("makespan"),
		Series: []Series{{Name: "grid-stat", X: []float64{0, 10800}, Y: []float64{100, 180}, Err: []float64{1, 2}},
			{Name: "grid-minmin", X: []float64{0, 10800}, Y: []float64{90, 170}, Err: []float64{1, 2}}},
		Apart: []ApartX{{X: 0, Name: "none"}}})
	if err != nil {
		t.Fatal(err)
	}
	qs := []Figure{q}
	render(t, "", qs)
	for _, want := range []string{">none<", ">10.8 k<"} {
		if !strings.Contains(string(qs[0].SVG), want) {
			t.Errorf("one value and none: the SVG has no tick %q", want)
		}
	}
}

// legendColour is the colour of the legend entry of a figure's series.
func legendColour(t *testing.T, f Figure, name string) color.Color {
	t.Helper()
	for _, e := range f.fr.legend {
		if e.name == name || e.name == "ours: "+name {
			for _, th := range e.thumbs {
				switch v := th.(type) {
				case *plotter.Line:
					return v.Color
				case *plotter.Scatter:
					return v.Color
				}
			}
		}
	}
	t.Fatalf("%s: no legend entry %q in %q", f.Name, name, f.Legend)
	return nil
}

// TestSeriesColourFollowsName (review of issue 29, A8): a policy is one
// colour in every figure of a report, whatever the order of the series
// or the other series of each figure (srrm-r-et was light blue in exp1's
// figures and pink in exp2's).
func TestSeriesColourFollowsName(t *testing.T) {
	pal := NewPalette()
	xs := []float64{1, 2, 3}
	mk := func(name string, y float64) Series {
		return Series{Name: name, X: xs, Y: []float64{y, y + 1, y + 3}, Err: []float64{0.1, 0.1, 0.1}}
	}
	a, err := SweepFigure("exp1", Sweep{Title: "exp1", XLabel: "x", Metric: MetricInfo("mean_wait"), Palette: pal,
		Series: []Series{mk("drrm", 1), mk("srrm-r-et", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SweepFigure("exp2", Sweep{Title: "exp2", XLabel: "x", Metric: MetricInfo("mean_wait"), Palette: pal,
		Series: []Series{mk("fcfs", 5), mk("srrm-r-et", 2), mk("srrm", 3), mk("drrm", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"drrm", "srrm-r-et"} {
		if ca, cb := legendColour(t, a, n), legendColour(t, b, n); ca != cb {
			t.Errorf("%s is %v in one figure and %v in the other", n, ca, cb)
		}
	}
	// within a figure the colours differ
	seen := map[color.Color]string{}
	for _, n := range []string{"fcfs", "srrm-r-et", "srrm", "drrm"} {
		c := legendColour(t, b, n)
		if o, dup := seen[c]; dup {
			t.Errorf("%s and %s share a colour", n, o)
		}
		seen[c] = n
	}
}

// TestSymLogThreshold (review of issue 29, C15): the symmetric-log
// threshold is the largest power of ten not above the smallest positive
// value, raised to a thousandth of the largest value when the smallest is
// smaller still — as docs/reports.md says.
func TestSymLogThreshold(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{0, 20, 3000}, 10},
		{[]float64{0, 0.001, 5000}, 1}, // 5000/1000 = 5: 1, not 0.001
		{[]float64{0, 0.25, 100}, 0.1},
		{[]float64{0, 0}, 1},
	} {
		if got := symLogThreshold([][]float64{c.v}); got != c.want {
			t.Errorf("threshold of %v: %g, want %g", c.v, got, c.want)
		}
	}
}

// TestGanttWindowInOneUnit (review of issue 29, C20): the Gantt chart's
// caption gives its window in one unit, the unit of its time axis: not
// "776.5 s to 8.284 days".
func TestGanttWindowInOneUnit(t *testing.T) {
	var jobs []GanttJob
	for i := 0; i < GanttMaxJobs+50; i++ {
		jobs = append(jobs, GanttJob{ID: int64(i), Start: 776.5 + float64(i)*1430, End: 776.5 + float64(i)*1430 + 5000, Nodes: [][2]int{{i % 4, i % 4}}})
	}
	f, err := GanttFigure("g", "cloud", jobs, 4, GanttOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(time 0.008987 to 8.284 days)"; !strings.Contains(f.Caption, want) {
		t.Errorf("caption %q lacks %q", f.Caption, want)
	}
}

// TestSummaryCountsExact (review of issue 29, B13, in part): a run's
// summary table gives whole numbers exactly (54,034 jobs, not "54.03 k").
func TestSummaryCountsExact(t *testing.T) {
	tb := summaryTable([]map[string]any{{"jobs": 54034.0, "wait": map[string]any{"mean": 20576.23748, "median": 1229.0}, "killed": -3.0}}, []string{"easy"})
	got := map[string]string{}
	for _, r := range tb.Rows {
		got[r[0]] = r[1]
	}
	for k, want := range map[string]string{"jobs": "54,034", "wait.median": "1,229", "wait.mean": "20.58 k", "killed": "-3"} {
		if got[k] != want {
			t.Errorf("%s reads %q, want %q", k, got[k], want)
		}
	}
}
