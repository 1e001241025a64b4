package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestFiguresAreByteStable: the same data gives byte-identical SVG and
// PNG files, so figures can be golden-tested and reports reproduced.
func TestFiguresAreByteStable(t *testing.T) {
	series := []Series{
		{Name: "easy", X: []float64{0.8, 1, 1.2}, Y: []float64{10, 7, 3}, Err: []float64{2, 1, math.NaN()}},
		{Name: "fcfs", X: []float64{0.8, 1, 1.2}, Y: []float64{900, 400, 100}, Err: []float64{50, 20, 10}},
	}
	var files [2][][]byte
	for i := range files {
		dir := t.TempDir()
		f, err := SweepFigure("fig", Sweep{Title: "a title", XLabel: "x", Metric: MetricInfo("mean_wait"), Series: series})
		if err != nil {
			t.Fatal(err)
		}
		if err := Render([]*Figure{&f}, Output{Dir: dir, Formats: []string{"svg", "png", "pdf"}}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(f.SVG), "<svg ") || !strings.Contains(f.Caption, "logarithmic") || !strings.Contains(f.Caption, "95% confidence") {
			t.Errorf("figure: caption %q, svg starts %.20q", f.Caption, f.SVG)
		}
		for _, ext := range []string{".svg", ".png", ".pdf"} {
			b, err := os.ReadFile(filepath.Join(dir, "fig"+ext))
			if err != nil || len(b) < 1000 {
				t.Fatalf("%s: %v (%d bytes)", ext, err, len(b))
			}
			files[i] = append(files[i], b)
		}
	}
	for k := range files[0] {
		if !bytes.Equal(files[0][k], files[1][k]) {
			t.Errorf("figure file %d differs between two renderings", k)
		}
	}
	// Without a folder: the same figure inline, no file written (a
	// caller that only reads the figure's SVG and metadata).
	wd, _ := os.Getwd()
	before, _ := os.ReadDir(wd)
	f, err := SweepFigure("fig", Sweep{Title: "a title", XLabel: "x", Metric: MetricInfo("mean_wait"), Series: series})
	if err == nil {
		err = Render([]*Figure{&f}, Output{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := inlineSVG(files[0][0]); f.SVG != want {
		t.Errorf("inline SVG without a folder differs from the file's")
	}
	if after, _ := os.ReadDir(wd); len(after) != len(before) {
		t.Errorf("a figure without a folder wrote files: %d entries, were %d", len(after), len(before))
	}
}

// TestPageIsSelfContained renders a page and checks it needs no network.
func TestPageIsSelfContained(t *testing.T) {
	sec, err := GridModelSection(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 5 {
		t.Fatalf("%d seed-004 figures", len(sec.Figures))
	}
	p := Page{Title: "t", Sections: []Section{sec, {Title: "s2", Tables: []Table{{Title: "tab", Columns: []string{"a"}, Rows: [][]string{{"<b>"}}}}}}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Count(html, "<svg") != 5 || strings.Contains(html, `src="http`) || strings.Contains(html, "<script") || !strings.Contains(html, "Paper: figure 4") {
		t.Errorf("page not self-contained or figures missing")
	}
	if !strings.Contains(html, "&lt;b&gt;") {
		t.Error("table text is not escaped")
	}
}

// TestSVGColoursAreValid: every colour in every kind of figure is valid SVG
// (the Gantt chart's translucent fills were "#B71249F" when alpha was set
// on a premultiplied colour).
func TestSVGColoursAreValid(t *testing.T) {
	if bad := SVGColourErrors(`<path style="fill:#B71249F;stroke:#000000"/>`); len(bad) != 1 {
		t.Fatalf("the checker misses an invalid colour: %v", bad)
	}
	dir := t.TempDir()
	var jobs []GanttJob
	for i := 0; i < 30; i++ {
		jobs = append(jobs, GanttJob{ID: int64(i), Start: float64(i * 100), End: float64(i*100 + 250), Nodes: [][2]int{{i % 8, i%8 + 1}}})
	}
	var figs []Figure
	add := func(f Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f)
	}
	add(GanttFigure("g", "gantt", jobs, 10, GanttOptions{}))
	add(OverviewFigure("o", "overview", jobs, 10))
	add(SweepFigure("s", Sweep{Title: "t", XLabel: "x", Metric: MetricInfo("utilization"),
		Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.98}, Err: []float64{0.1, 0.1}}},
		Refs:   []RefPoint{{Series: "a", X: 1, Y: 0.6}, {X: 2, Y: 0.9}}}))
	add(CDFFigure("c", "cdf", "s", [][]float64{{1, 2, 3}, {0, 2, 5}}, []string{"a", "b"}, true))
	add(BoxFigure("b", "box", "s", [][]float64{{1, 2, 3, 9}, {2, 5, 7}}, []string{"a", "b"}, false))
	add(StepFigure("st", "step", "jobs", []StepLine{{"q", []float64{0, 10, 20}, []float64{1, 2, 0}}}, 5))
	add(HistogramFigure("h", "hist", "procs", []float64{1, 2, 4, 8, 3}))
	render(t, dir, figs)
	for _, f := range figs {
		if bad := SVGColourErrors(string(f.SVG)); len(bad) > 0 {
			t.Errorf("%s: invalid colours %v", f.Name, bad[:min(3, len(bad))])
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Name+".svg"))
		if err != nil || len(SVGColourErrors(string(b))) > 0 {
			t.Errorf("%s.svg: %v", f.Name, err)
		}
	}
	if figs[2].Refs != 2 || figs[2].XValues != 2 || !strings.Contains(string(figs[2].SVG), "paper") || !strings.Contains(string(figs[2].SVG), "ours: a") {
		t.Errorf("sweep: %d refs, %d x values; legend lacks paper/ours", figs[2].Refs, figs[2].XValues)
	}
}

// TestCIBarsStayInPhysicalRange: a mean near 0 with a wide CI does not
// pull the axis below 0, and a utilization near 1 not above 1.
func TestCIBarsStayInPhysicalRange(t *testing.T) {
	f, err := SweepFigure("m", Sweep{Title: "makespan", XLabel: "x", Metric: MetricInfo("makespan"),
		Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1000, 250000}, Err: []float64{500000, 10}}}})
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	render(t, "", figs)
	f = figs[0]
	if strings.Contains(string(f.SVG), ">-") || strings.Contains(string(f.SVG), "−") {
		t.Errorf("negative tick on a makespan axis")
	}
	if !strings.Contains(f.Caption, "clipped") {
		t.Errorf("caption does not say CI bars are clipped: %q", f.Caption)
	}
}

func TestHumanNum(t *testing.T) {
	for v, want := range map[float64]string{1250000: "1.25 M", 2500: "2500", 12500: "12.5 k", 0.25: "0.25", 0: "0", 3e-5: "3.00e-05"} {
		if got := HumanNum(v); got != want {
			t.Errorf("HumanNum(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestEmptyRunSaysNoJobs: a run without jobs gives a note, not a panic.
func TestEmptyRunSaysNoJobs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "empty")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte("job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources\n"), 0o644)
	sec, err := RunSection(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 0 || len(sec.Notes) != 1 || !strings.Contains(sec.Notes[0], "no jobs") {
		t.Errorf("figures %d, notes %v", len(sec.Figures), sec.Notes)
	}
}

// TestDegenerateRunsDrawWithoutPanic (issue 18, item 6): a run whose
// jobs were all rejected (none ran to an end) gets a note; runs whose
// every wait is 0 and every slowdown 1 (one value on a log axis) are
// drawn, alone and side by side (box plots), instead of panicking inside
// gonum/plot.
func TestDegenerateRunsDrawWithoutPanic(t *testing.T) {
	const head = "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,bounded_slowdown\n"
	mk := func(name, rows string) string {
		dir := filepath.Join(t.TempDir(), name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte(head+rows), 0o644)
		return dir
	}
	rejected := mk("rejected", "1,w,0,2,10,0,REJECTED,,,,,,,,\n")
	one := mk("one", "1,w,0,2,10,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1,0-1,1\n")
	two := mk("two", "1,w,0,2,10,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1,0-1,1\n")
	load := func(dirs ...string) []*Run {
		var runs []*Run
		for _, d := range dirs {
			r, err := LoadRun(d)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		return runs
	}
	sec, err := RunsSection(load(rejected), RunOptions{})
	if err != nil || len(sec.Figures) != 0 || len(sec.Notes) != 1 || !strings.Contains(sec.Notes[0], "no job ran to an end") {
		t.Errorf("rejected: %v, figures %d, notes %v", err, len(sec.Figures), sec.Notes)
	}
	for _, dirs := range [][]string{{one}, {one, two}, {one, rejected}} {
		sec, err := RunsSection(load(dirs...), RunOptions{})
		if err != nil || len(sec.Figures) == 0 {
			t.Errorf("%v: %v, figures %d", dirs, err, len(sec.Figures))
		}
	}
}

// TestGanttWindowForLargeRuns: more jobs than the cap are drawn over a
// window, and the caption says so.
func TestGanttWindowForLargeRuns(t *testing.T) {
	var jobs []GanttJob
	for i := 0; i < GanttMaxJobs+50; i++ {
		jobs = append(jobs, GanttJob{ID: int64(i), Start: float64(i), End: float64(i + 3), Nodes: [][2]int{{i % 4, i % 4}}})
	}
	f, err := GanttFigure("g", "big", jobs, 4, GanttOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Caption, fmt.Sprintf("first %d of %d", GanttMaxJobs, GanttMaxJobs+50)) {
		t.Errorf("caption: %q", f.Caption)
	}
}

// TestWrapWidthFits: measured wrapping keeps every line within its width,
// breaking inside a word only when the word alone is wider.
func TestWrapWidthFits(t *testing.T) {
	sty := textStyle(titleSize, "title")
	w := vg.Points(120)
	for _, s := range []string{
		"Seed 003: the ALF lease threshold (figures 2–3): mean response time",
		"{backlog: 0.3, cpu: 0.3, queue: 0.3, speed: 0.1}",
		"easy-unstable-fig89-mean_qos-trace-SDSC-BLUE-2000-4-2-cln-first1250",
	} {
		got := wrapWidth(sty, s, w)
		for _, l := range strings.Split(got, "\n") {
			if sty.Width(l) > w {
				t.Errorf("%q: line %q is %v wide, more than %v", s, l, sty.Width(l), w)
			}
		}
		if strings.Join(strings.Fields(strings.ReplaceAll(got, "\n", "")), "") != strings.Join(strings.Fields(s), "") {
			t.Errorf("%q wrapped to %q: text lost", s, got)
		}
	}
	if got := wrapWidth(sty, "short title", w); got != "short title" {
		t.Errorf("a short title was wrapped: %q", got)
	}
}
