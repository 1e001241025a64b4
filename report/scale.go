package report

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
)

// SymLog is a symmetric logarithmic axis: linear on [−C, C], logarithmic
// beyond, so that zeros (a job that did not wait) sit at the bottom of
// an axis that still spreads values over orders of magnitude. Box plots
// and CDFs of waits, responses and slowdowns use it whenever a sample has
// values ≤ 0 and a wide range; a plain log axis cannot show a zero, and
// leaving zeros out moves every quartile (EASY on SDSC-SP2: a median wait
// of 16,929 s without the 42.8 % of jobs that waited 0 s, 1,229 s with
// them).
type SymLog struct{ C float64 }

func (s SymLog) f(v float64) float64 {
	a := math.Abs(v)
	if a <= s.C {
		return v / s.C
	}
	return math.Copysign(1+math.Log10(a/s.C), v)
}

// Normalize implements plot.Normalizer.
func (s SymLog) Normalize(min, max, x float64) float64 {
	lo, hi := s.f(min), s.f(max)
	if hi == lo {
		return 0.5
	}
	return (s.f(x) - lo) / (hi - lo)
}

// symLogTicks labels 0, the linear threshold and every power of ten above
// it (every other one when there are many).
type symLogTicks struct{ C float64 }

func (t symLogTicks) Ticks(lo, hi float64) []plot.Tick {
	var vals []float64
	if lo <= 0 && hi >= 0 {
		vals = append(vals, 0)
	}
	for p := t.C; p <= hi*1.0001; p *= 10 {
		if p >= lo {
			vals = append(vals, p)
		}
	}
	step := 1
	if len(vals) > 7 {
		step = 2
	}
	var ts []plot.Tick
	for i, v := range vals {
		label := ""
		if i%step == 0 || v == 0 {
			label = "x"
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	// minor ticks: 2…9 × each power of ten
	for p := t.C; p <= hi; p *= 10 {
		for k := 2.0; k < 10; k++ {
			if v := k * p; v > lo && v < hi {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Value < ts[j].Value })
	return distinctLabels(ts)
}

// symLogThreshold picks C: the largest power of ten not above the
// smallest positive value (at least 1e-3 of the largest, so that a stray
// tiny value does not waste half the axis), or 1 when there is none.
func symLogThreshold(values [][]float64) float64 {
	minPos, maxAbs := math.Inf(1), 0.0
	for _, s := range values {
		for _, v := range s {
			if v > 0 {
				minPos = math.Min(minPos, v)
			}
			if !math.IsNaN(v) {
				maxAbs = math.Max(maxAbs, math.Abs(v))
			}
		}
	}
	if math.IsInf(minPos, 1) {
		return 1
	}
	minPos = math.Max(minPos, maxAbs*1e-3)
	return math.Pow(10, math.Floor(math.Log10(minPos)))
}

// axisScale decides the axis for samples: linear, log (every value
// positive, spanning more than a factor 30) or symlog (some values ≤ 0
// and the positive ones span more than a factor 30). It returns the
// caption's sentence for the choice.
func axisScale(a *plot.Axis, samples [][]float64) string {
	lo, hi := math.Inf(1), 0.0
	nonPos := false
	for _, s := range samples {
		for _, v := range s {
			switch {
			case math.IsNaN(v):
			case v > 0:
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			default:
				nonPos = true
			}
		}
	}
	if !(hi > 30*lo) {
		return ""
	}
	if !nonPos {
		a.Scale = plot.LogScale{}
		a.Tick.Marker = logTicks{}
		return "Logarithmic axis."
	}
	c := symLogThreshold(samples)
	a.Scale = SymLog{C: c}
	a.Tick.Marker = symLogTicks{C: c}
	a.Min = math.Min(a.Min, 0)
	return "Symmetric-log axis: linear from 0 to " + HumanNum(c) + ", logarithmic above, so that zero values are drawn and counted."
}

// logTicks labels a logarithmic axis at its powers of ten, and also at
// 2× and 5× them when it spans fewer than three decades (so that an axis
// from 1,000 to 60,000 does not read "10 k" alone); minor ticks at every
// other integer multiple.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	few := math.Log10(hi/lo) < 3
	var ts []plot.Tick
	for p := math.Pow(10, math.Floor(math.Log10(lo))); p <= hi; p *= 10 {
		for k := 1.0; k < 10; k++ {
			v := k * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			label := ""
			if k == 1 || few && (k == 2 || k == 5) {
				label = "x"
			}
			ts = append(ts, plot.Tick{Value: v, Label: label})
		}
	}
	labelled := 0
	for _, t := range ts {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		// under a decade and no power of ten inside: label the ends
		ts = append(ts, plot.Tick{Value: lo, Label: "x"}, plot.Tick{Value: hi, Label: "x"})
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].Value < ts[j].Value })
	}
	return distinctLabels(ts)
}
