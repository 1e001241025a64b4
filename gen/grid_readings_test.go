package gen

import (
	"math"
	"sort"
	"testing"
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
	if math.Abs(frac-0.577) > 0.04 || ms < 35 || ms > 90 || ml < 8000 || ml > 25000 {
		t.Errorf("paper-log2: short fraction %.3f (want ≈ 0.577), medians %.0f s and %.0f s (want ≈ 55 s and ≈ 15,000 s)", frac, ms, ml)
	}
}

// TestGridFigure7 (seed 004 §3, figure 7: "这些作业的纯运行时间差别不大,
// 但完成期限有较大差别" — the pure runtimes of these 10 jobs differ
// little, but their deadlines differ a lot). Over 1,000 windows of 10
// consecutive jobs (e = 1, B ~ U[2, 6]), the coefficient of variation of
// the runtimes l and of the deadline spans td − ta = B·l: with either
// runtime reading the runtimes of 10 consecutive jobs differ by orders of
// magnitude (median CV > 1), so the statement cannot hold of spans
// either; it holds only when the runtimes are close (l fixed: the spans
// vary by B alone, CV = (4/√12)/4 ≈ 0.29). We also log how often a
// window has runtimes within a CV of 0.5 (a figure-7-like draw).
func TestGridFigure7(t *testing.T) {
	cv := func(x []float64) float64 {
		m, v := 0.0, 0.0
		for _, a := range x {
			m += a
		}
		m /= float64(len(x))
		for _, a := range x {
			v += (a - m) * (a - m)
		}
		return math.Sqrt(v/float64(len(x)-1)) / m
	}
	for _, rt := range []string{"lublin", "paper-log2"} {
		p := DefaultGridParams()
		p.Runtime, p.E1, p.E2 = rt, 1, 1
		g, err := NewGrid(p, 7)
		if err != nil {
			t.Fatal(err)
		}
		var cvl, cvd []float64
		for range 1000 {
			var l, d []float64
			for range 10 {
				j := g.Next()
				l = append(l, j.Runtime)
				d = append(d, j.Deadline-j.Submit)
			}
			cvl = append(cvl, cv(l))
			cvd = append(cvd, cv(d))
		}
		close := 0
		for _, c := range cvl {
			if c < 0.5 {
				close++
			}
		}
		sort.Float64s(cvl)
		sort.Float64s(cvd)
		t.Logf("%s: median CV of 10 runtimes %.2f, of 10 deadline spans %.2f; windows with runtime CV < 0.5: %d of 1000", rt, cvl[500], cvd[500], close)
		if cvl[500] < 1 {
			t.Errorf("%s: median CV of runtimes %.2f: the runtimes of consecutive jobs differ little", rt, cvl[500])
		}
	}
}
