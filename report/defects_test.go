package report

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestBoxPlotKeepsZeros (issue 29): a box plot's quartiles are over every
// value. 43% of the jobs wait 0 s (as EASY's on SDSC-SP2): the median of
// this sample is 100, which a plot that drops the zeros before computing
// its quartiles draws as 5,000. The axis is symmetric-log so the zeros are
// drawn, and the label gives their share.
func TestBoxPlotKeepsZeros(t *testing.T) {
	var waits []float64
	for i := 0; i < 43; i++ {
		waits = append(waits, 0)
	}
	for i := 0; i < 14; i++ {
		waits = append(waits, 100)
	}
	for i := 0; i < 43; i++ {
		waits = append(waits, 10000)
	}
	f, err := BoxFigure("b", "wait", "wait (s)", [][]float64{waits, {5, 50, 500}}, []string{"easy", "fcfs"}, true)
	if err != nil {
		t.Fatal(err)
	}
	b := f.Boxes[0]
	if b.N != 100 || b.Median != 100 || b.Q1 != 0 || b.ZeroShare != 0.43 {
		t.Errorf("box over %d values: Q1 %g, median %g, zeros %g; want 100 values, Q1 0, median 100, zeros 0.43", b.N, b.Q1, b.Median, b.ZeroShare)
	}
	if _, ok := f.fr.p.Y.Scale.(SymLog); !ok {
		t.Errorf("a wide sample with zeros is on a %T axis, want SymLog", f.fr.p.Y.Scale)
	}
	if !strings.Contains(f.Caption, "zero values are drawn") {
		t.Errorf("caption does not say how zeros are drawn: %q", f.Caption)
	}
	figs := []Figure{f}
	render(t, "", figs)
	if !strings.Contains(string(figs[0].SVG), "43% at 0") {
		t.Errorf("the category label does not give the share at 0")
	}
}

// TestSymLogOrdersValues: the symmetric-log scale is monotone, linear
// below its threshold and logarithmic above.
func TestSymLogOrdersValues(t *testing.T) {
	s := SymLog{C: 1}
	prev := -1.0
	for _, v := range []float64{0, 0.5, 1, 10, 100, 1e4} {
		n := s.Normalize(0, 1e4, v)
		if !(n > prev) && v != 0 {
			t.Errorf("Normalize(%g) = %g, not above %g", v, n, prev)
		}
		prev = n
	}
	if a, b := s.Normalize(0, 1e4, 10), s.Normalize(0, 1e4, 100); math.Abs((b-a)-(s.Normalize(0, 1e4, 1000)-b)) > 1e-12 {
		t.Errorf("decades above the threshold are not equally spaced")
	}
}

// TestEachRunOverItsOwnSpan (issue 29): comparing runs, a run that ends
// earlier is drawn only until its end, not at 0 until the longest run
// ends (which reads as a run with an idle machine).
func TestEachRunOverItsOwnSpan(t *testing.T) {
	short := StepLine{Name: "fcfs", T: []float64{0, 100, 200, 1000}, Y: []float64{0.5, 1, 0.8, 0}}
	long := StepLine{Name: "easy", T: []float64{0, 100, 5000}, Y: []float64{0.9, 0.7, 0}}
	for _, window := range []float64{0, 300} {
		f, err := StepFigure("u", "utilization", "utilization", []StepLine{short, long}, window)
		if err != nil {
			t.Fatal(err)
		}
		if s := f.Spans["fcfs"]; s[0] != 0 || s[1] != 1000 {
			t.Errorf("window %g: the shorter run is drawn over %v, want [0 1000]", window, s)
		}
		if s := f.Spans["easy"]; s[1] != 5000 {
			t.Errorf("window %g: the longer run is drawn over %v, want up to 5000", window, s)
		}
	}
}

// TestBucketsKeepPeaks: a long series is drawn as bucket means within a
// minimum–maximum band; a one-sample spike survives in its bucket's
// maximum, and the means are time-weighted.
func TestBucketsKeepPeaks(t *testing.T) {
	var ts, ys []float64
	for i := 0; i <= 100000; i++ {
		ts = append(ts, float64(i))
		y := 1.0
		if i == 31337 {
			y = 50 // one second at 50
		}
		ys = append(ys, y)
	}
	b := bucketize(ts, ys, 0, 100000, 400)
	k := int(31337 / b.dt)
	if b.hi[k] != 50 || b.lo[k] != 1 {
		t.Errorf("spike bucket: band [%g, %g], want [1, 50]", b.lo[k], b.hi[k])
	}
	if want := 1 + 49/b.dt; math.Abs(b.mean[k]-want) > 1e-9 {
		t.Errorf("spike bucket mean %g, want %g (time-weighted)", b.mean[k], want)
	}
	f, err := StepFigure("s", "long", "jobs", []StepLine{{"q", ts, ys}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	render(t, "", figs)
	if n := len(figs[0].SVG); n > 60000 {
		t.Errorf("a 100,001-sample series drew a %d-byte SVG", n)
	}
	if !strings.Contains(figs[0].Caption, "minimum to maximum") {
		t.Errorf("caption: %q", figs[0].Caption)
	}
}

// TestTickLabelsAreDistinct (issue 29): ticks close together on a large
// axis are labelled with enough digits to tell them apart (an axis read
// "3.423 M" three times).
func TestTickLabelsAreDistinct(t *testing.T) {
	ts := humanTicks{plot.ConstantTicks{{Value: 3423100, Label: "x"}, {Value: 3423200, Label: "x"}, {Value: 3423300, Label: "x"}}}.Ticks(3423000, 3423400)
	var labels []string
	for _, tk := range ts {
		labels = append(labels, tk.Label)
	}
	if labels[0] == labels[1] || labels[1] == labels[2] {
		t.Errorf("tick labels %q are not distinct", labels)
	}
	if labels[1] != "3.4232 M" {
		t.Errorf("labels %q: want the shortest distinct form", labels)
	}
}

// TestIdenticalSeriesStayVisible (issue 29): series that coincide at
// every point are drawn once and named together (hierarchical-failures'
// detections: six dispatchers, one line), so a reader knows none is
// hidden; series that differ keep their own lines.
func TestIdenticalSeriesStayVisible(t *testing.T) {
	same := Series{X: []float64{0, 10800}, Y: []float64{0, 4}, Err: []float64{0, 1}}
	var series []Series
	for _, n := range []string{"grid-stat", "grid-minmin", "grid-aco"} {
		s := same
		s.Name = n
		series = append(series, s)
	}
	series = append(series, Series{Name: "grid-random", X: []float64{0, 10800}, Y: []float64{0, 5}, Err: []float64{0, 1}})
	f, err := SweepFigure("d", Sweep{Title: "detections", XLabel: "MTBF", Metric: MetricInfo("jobs"), Series: series})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Legend, []string{"grid-stat = grid-minmin = grid-aco", "grid-random"}) {
		t.Errorf("legend %q", f.Legend)
	}
	if !strings.Contains(f.Caption, "Identical at every point (drawn once): grid-stat, grid-minmin, grid-aco") {
		t.Errorf("caption does not say which lines coincide: %q", f.Caption)
	}
}

// TestDegenerateSweepsAreNotPlots (issue 29): a metric with the same value
// at every point is one sentence, not a flat line on a −1…1 axis; a sweep
// with one x value is a point chart of its series, not one-point "lines".
func TestDegenerateSweepsAreNotPlots(t *testing.T) {
	flat := []Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}, Err: []float64{0, 0, 0}}, {Name: "b", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}, Err: []float64{math.NaN(), 0, 0}}}
	f, err := SweepFigure("c", Sweep{Title: "idle", XLabel: "x", Metric: MetricInfo("killed"), Series: flat})
	if err != nil {
		t.Fatal(err)
	}
	if f.fr != nil || !strings.Contains(f.Text, "killed jobs is 0 count at every one of the 6 points") {
		t.Errorf("a constant metric: text %q, plot %v", f.Text, f.fr != nil)
	}
	one := []Series{{Name: "easy", X: []float64{7}, Y: []float64{10}, Err: []float64{1}}, {Name: "fcfs", X: []float64{7}, Y: []float64{20}, Err: []float64{2}}}
	f, err = SweepFigure("p", Sweep{Title: "one x", XLabel: "nodes", SeriesLabel: "policy", Metric: MetricInfo("mean_wait"), Series: one})
	if err != nil {
		t.Fatal(err)
	}
	if f.XLabel != "policy" || !strings.Contains(f.Caption, "all at nodes = 7") || f.XValues != 1 {
		t.Errorf("one x value: x label %q, caption %q", f.XLabel, f.Caption)
	}
}

// TestComparedRunsEndWhereTheyEnd (issue 29): the comparison of two runs
// draws the one that ended first only over its own time span, in the
// utilization and the queue figures.
func TestComparedRunsEndWhereTheyEnd(t *testing.T) {
	mk := func(name string, end float64) *Run {
		return &Run{Name: name, Sizes: []float64{1}, Waits: []float64{0}, Responses: []float64{1}, BSLDs: []float64{1}, WaitBySize: map[int][]float64{0: {0}},
			T: []float64{0, end / 2, end}, Util: []float64{1, 0.5, 0}, Queued: []float64{2, 1, 0}, Running: []float64{1, 1, 0}}
	}
	sec, err := RunsSection([]*Run{mk("fcfs", 1000), mk("easy", 5000)}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range sec.Figures {
		if f.Spans == nil {
			continue
		}
		n++
		if s := f.Spans["fcfs"]; s != [2]float64{0, 1000} {
			t.Errorf("%s: fcfs (ended at 1000) drawn over %v", f.Name, s)
		}
		if s := f.Spans["easy"]; s != [2]float64{0, 5000} {
			t.Errorf("%s: easy drawn over %v", f.Name, s)
		}
	}
	if n != 2 {
		t.Errorf("%d time-series figures, want utilization and queue", n)
	}
}

// TestPublicationFormats (issue 29): every figure also as a PDF with its
// fonts embedded and a PNG of 300 dpi at its width (1,050 pixels across a
// 3.5 in column, with the resolution recorded in the file), byte-stable.
func TestPublicationFormats(t *testing.T) {
	dir := t.TempDir()
	f, err := SweepFigure("f", Sweep{Title: "a figure for a paper", XLabel: "nodes", Metric: MetricInfo("mean_wait"),
		Series: []Series{{Name: "easy", X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}, Err: []float64{0.1, 0.2, 0.1}}}})
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	if err := Render([]*Figure{&figs[0]}, Output{Dir: dir, Formats: []string{"pdf", "png"}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(figs[0].Files, []string{"pdf", "png"}) {
		t.Errorf("files %v", figs[0].Files)
	}
	pdf, err := os.ReadFile(filepath.Join(dir, "f.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("/FontFile2")) || !bytes.Contains(bytes.ToLower(pdf), []byte("liberationsans")) {
		t.Errorf("the PDF does not embed its font (%d bytes)", len(pdf))
	}
	b, err := os.ReadFile(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 1050 || figs[0].Width != 252 {
		t.Errorf("PNG %d px wide for a %g pt figure; want 1,050 px for 3.5 in (252 pt)", cfg.Width, figs[0].Width)
	}
	i := bytes.Index(b, []byte("pHYs"))
	if i < 0 || binary.BigEndian.Uint32(b[i+4:]) != 11811 || b[i+12] != 1 {
		t.Errorf("the PNG does not record 300 dpi (11,811 pixels per metre)")
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("the PNG with its pHYs chunk does not decode: %v", err)
	}
	if _, err := ParseFormats("svg,eps"); err == nil || !strings.Contains(err.Error(), `"eps"`) {
		t.Errorf("an unknown format: %v", err)
	}
}
