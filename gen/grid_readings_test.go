package gen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// TestGridRuntimeReadings (seed 004 §2.1: "令 (a1, β1, β2, p) = (10.74,
// 37.96, 0.55, 0.37, 0.577)", five values for four names): the
// paper-log2 reading — shapes 10.74 and 37.96, scales 0.55 and 0.37,
// weight 0.577, a hyper-gamma of log2(runtime) — gives components of
// median ≈ 2^5.7 ≈ 55 s and ≈ 2^13.9 ≈ 4 h, about 58% short jobs: a
// plausible grid mix, unlike the ln reading of the same numbers
// (e^14 s ≈ 14 days). We check the short fraction and both medians.
func TestGridRuntimeReadings(t *testing.T) {
	p := DefaultGridParams()
	p.Runtime = "paper-log2"
	g, err := NewGrid(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	var short, long []float64
	for range 20000 {
		l := g.Next().Runtime
		if l < 1000 {
			short = append(short, l)
		} else {
			long = append(long, l)
		}
	}
	frac := float64(len(short)) / 20000
	med := func(x []float64) float64 { sort.Float64s(x); return x[len(x)/2] }
	ms, ml := med(short), med(long)
	t.Logf("paper-log2: %.3f short (< 1000 s), median short %.0f s, median long %.0f s", frac, ms, ml)
	docHas(t, "workloads.md", fmt.Sprintf("Measured (`gen.TestGridRuntimeReadings`, 20,000 jobs, seed 4): %.1f%% of jobs under 1,000 s, median %s s, the others' median %s s.", 100*frac, thousands(ms), thousands(ml)))
	if math.Abs(frac-0.577) > 0.04 || ms < 35 || ms > 90 || ml < 8000 || ml > 25000 {
		t.Errorf("paper-log2: short fraction %.3f (want ≈ 0.577), medians %.0f s and %.0f s (want ≈ 55 s and ≈ 15,000 s)", frac, ms, ml)
	}
}

// TestGridFigure7 (seed 004 §3, figure 7: "这些作业的纯运行时间差别不大,
// 但完成期限有较大差别" — the pure runtimes of these 10 jobs differ
// little, but their deadlines differ a lot). Over 1,000 windows of 10
// consecutive jobs (e = 1, B ~ U[2, 6]): the coefficient of variation and
// the range (max − min) of the runtimes l and of the deadline spans
// td − ta = B·l. With the draw exponentiated (runtime_draw log, either
// runtime reading) the runtimes of 10 consecutive jobs differ by orders of
// magnitude (median CV > 1), so the statement cannot hold; with the
// paper's tuple read as a hyper-gamma of the runtime itself (paper-log2,
// raw: components of mean 5.9 s and 14.0 s) it does: the median runtime
// CV is below 0.5, in more than half the windows, and the spans' range is
// several times the runtimes'. (Lublin's components, raw, have means 3.9
// and 9.4 s: after flooring to whole seconds the CV stays near 0.6.)
func TestGridFigure7(t *testing.T) {
	for _, rt := range []string{"lublin", "paper-log2"} {
		for _, d := range []string{"log", "raw"} {
			p := DefaultGridParams()
			p.Runtime, p.RuntimeDraw, p.E1, p.E2 = rt, d, 1, 1
			g, err := NewGrid(p, 7)
			if err != nil {
				t.Fatal(err)
			}
			w := Figure7Windows(g, 1000, 10)
			t.Logf("%s/%s: median CV of 10 runtimes %.2f, of 10 deadline spans %.2f; median range of the runtimes %.0f s, of the spans %.0f s; windows with runtime CV < 0.5: %d of 1000",
				rt, d, w.RuntimeCV, w.SpanCV, w.RuntimeRange, w.SpanRange, w.Close)
			switch {
			case d == "log" && w.RuntimeCV < 1:
				t.Errorf("%s/%s: median CV of runtimes %.2f: the runtimes of consecutive jobs differ little", rt, d, w.RuntimeCV)
			case rt == "paper-log2" && d == "raw" && (w.RuntimeCV >= 0.5 || w.SpanRange < 3*w.RuntimeRange || w.Close < 500):
				t.Errorf("%s/%s: median runtime CV %.2f, span range %.0f against runtime range %.0f, %d close windows: figure 7's picture does not hold", rt, d, w.RuntimeCV, w.SpanRange, w.RuntimeRange, w.Close)
			}
		}
	}
}

// TestGridRuntimeKS (seed 004 §2.1): the runtimes the grid generator
// writes — through the whole path, size-dependent mixture weight, cap,
// exponentiation (or not) and flooring to whole seconds — follow the
// hyper-gamma of the reading, for every runtime reading (lublin,
// paper-log2) and draw reading (log, raw): a Kolmogorov–Smirnov test of
// the randomized probability integral transform against U[0, 1], 20,000
// jobs of the default sizes, significance 0.001. Runtimes of one reading
// tested against another's model fail.
func TestGridRuntimeKS(t *testing.T) {
	jitter := sim.Stream(1, "test/pit")
	sample := func(p GridParams) []model.Job {
		g, err := NewGrid(p, 9)
		if err != nil {
			t.Fatal(err)
		}
		return Take(g, sampleN)
	}
	pit := func(m GridParams, jobs []model.Job) []float64 {
		u := make([]float64, len(jobs))
		for i, j := range jobs {
			u[i] = m.RuntimePIT(j, jitter.Float64())
		}
		return u
	}
	readings := map[string]GridParams{}
	var names []string
	for _, rt := range []string{"lublin", "paper-log2"} {
		for _, d := range []string{"log", "raw"} {
			p := DefaultGridParams()
			p.Runtime, p.RuntimeDraw = rt, d
			readings[rt+"/"+d] = p
			names = append(names, rt+"/"+d)
		}
	}
	for _, name := range names {
		p := readings[name]
		requireKS(t, "grid runtimes, "+name, pit(p, sample(p)), uniformCDF(0, 1))
	}
	lublin := sample(readings["lublin/log"])
	if ksPasses(t, "lublin runtimes against the paper-log2 model", pit(readings["paper-log2/log"], lublin), uniformCDF(0, 1)) {
		t.Error("the runtime test does not tell the readings apart")
	}
	if ksPasses(t, "lublin runtimes against the raw-draw model", pit(readings["lublin/raw"], lublin), uniformCDF(0, 1)) {
		t.Error("the runtime test does not tell the draw readings apart")
	}
}

// TestFigure7DocTable: the table of figure 7 by reading in
// docs/workloads.md is what `gridsched workload grid-tables` (seed 1)
// prints, rounded as the doc rounds it.
func TestFigure7DocTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "workloads.md"))
	if err != nil {
		t.Fatal(err)
	}
	tabs, err := GridTables(1)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for _, tb := range tabs {
		if tb.Name == "fig7-readings" {
			rows = tb.Rows
		}
	}
	names := []string{"lublin, log (default)", "lublin, raw", "paper-log2, log", "paper-log2, raw"}
	for i, r := range rows {
		close := thousands(r[5])
		if i == 0 {
			close += " of 1,000"
		}
		want := fmt.Sprintf("| %s | %.2f | %.2f | %s s | %s s | %s |", names[i], r[1], r[2], thousands(r[3]), thousands(r[4]), close)
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/workloads.md lacks the row %q", want)
		}
	}
}

// thousands writes x rounded to a whole number with thousands commas, as
// the docs write numbers.
func thousands(x float64) string {
	s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// docHas fails unless docs/NAME contains want (a number the doc quotes
// from a test: the test is what keeps it true).
func docHas(t *testing.T, name, want string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), want) {
		t.Errorf("docs/%s lacks %q", name, want)
	}
}

// TestGridSequentialRunTimes (docs/hierarchical.md): the jobs of
// hierarchical-sequential's setting at its densest arrivals (six sites,
// sequential jobs, s = 0.001, 1,000 jobs, seed 2009) arrive within about
// 33 s — the model has no daily cycle — and their run times are bimodal:
// a median of about a minute against a mean near an hour.
func TestGridSequentialRunTimes(t *testing.T) {
	p := DefaultGridParams()
	p.Sites, p.SerialProb, p.S = []float64{1, 1, 1, 1, 1, 1}, 1, 0.001
	g, err := NewGrid(p, 2009)
	if err != nil {
		t.Fatal(err)
	}
	jobs := Take(g, 1000)
	r := make([]float64, len(jobs))
	sum := 0.0
	for i, j := range jobs {
		r[i] = j.Runtime
		sum += j.Runtime
	}
	sort.Float64s(r)
	last := jobs[len(jobs)-1].Submit
	med, mean, p95 := r[(len(r)-1)/2], sum/float64(len(r)), r[949]
	if last > 60 || mean < 20*med {
		t.Errorf("last submit %.1f s, median %.0f s, mean %.0f s: want every job within a minute and a mean far above the median", last, med, mean)
	}
	docHas(t, "hierarchical.md", fmt.Sprintf("the 1,000 jobs arrive within %s s, and their run times have a median of %s s, a mean of %s s and a 95th percentile of %s s", thousands(math.Ceil(last)), thousands(med), thousands(mean), thousands(p95)))
}
