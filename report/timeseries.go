package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// StepLine is one step function of time: value Y[k] from T[k] (seconds)
// until T[k+1]; the line ends at its last sample.
type StepLine struct {
	Name string
	T, Y []float64
}

// SeriesBuckets is the number of time buckets a time-series figure is
// drawn with: a line with more change points is drawn as its
// time-weighted mean per bucket over a band from the bucket's minimum to
// its maximum, so that a run of any length gives a figure of bounded
// size in which every peak survives.
const SeriesBuckets = 400

// buckets is a step function reduced to n equal time buckets over
// [t0, t0+n·dt): per bucket its minimum, maximum and time-weighted mean
// (NaN where the function is not defined: before its first sample or
// after its last).
type buckets struct {
	t0, dt         float64
	lo, hi, mean   []float64
	first, last    int // the buckets the line covers
	start, end     float64
	exact          bool // few enough samples: draw the steps themselves
	points         plotter.XYs
	changes, total int
}

// bucketize reduces the step function (ts, ys), defined on [ts[0],
// ts[len-1]], to n buckets of [t0, t1].
func bucketize(ts, ys []float64, t0, t1 float64, n int) buckets {
	b := buckets{t0: t0, dt: (t1 - t0) / float64(n), lo: make([]float64, n), hi: make([]float64, n), mean: make([]float64, n)}
	if b.dt <= 0 {
		b.dt = 1
	}
	for i := range b.lo {
		b.lo[i], b.hi[i], b.mean[i] = math.Inf(1), math.Inf(-1), 0
	}
	cover := make([]float64, n) // time of the bucket the line covers
	idx := func(t float64) int { return min(n-1, max(0, int((t-t0)/b.dt))) }
	b.start, b.end = ts[0], ts[len(ts)-1]
	for k := 0; k+1 < len(ts); k++ {
		s, e, y := ts[k], ts[k+1], ys[k]
		if math.IsNaN(y) || e < s {
			continue
		}
		first, last := idx(s), idx(e)
		if e == s {
			last = first
		}
		for i := first; i <= last; i++ {
			b.lo[i], b.hi[i] = min(b.lo[i], y), max(b.hi[i], y)
			// overlap of [s, e) with bucket i
			bs, be := t0+float64(i)*b.dt, t0+float64(i+1)*b.dt
			if o := min(e, be) - max(s, bs); o > 0 {
				b.mean[i] += y * o
				cover[i] += o
			}
		}
	}
	// the last sample's value holds at its instant
	if y := ys[len(ys)-1]; !math.IsNaN(y) {
		i := idx(b.end)
		b.lo[i], b.hi[i] = min(b.lo[i], y), max(b.hi[i], y)
		if cover[i] == 0 {
			b.mean[i], cover[i] = y, 1
		}
	}
	b.first, b.last = -1, -1
	for i := range b.mean {
		if math.IsInf(b.lo[i], 1) {
			b.lo[i], b.hi[i], b.mean[i] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		if cover[i] > 0 {
			b.mean[i] /= cover[i]
		} else {
			b.mean[i] = (b.lo[i] + b.hi[i]) / 2
		}
		if b.first < 0 {
			b.first = i
		}
		b.last = i
	}
	return b
}

// stepPoints are the corners of a step function (ts, ys).
func stepPoints(ts, ys []float64, div float64) plotter.XYs {
	pts := make(plotter.XYs, 0, 2*len(ts))
	for k := range ts {
		if k > 0 {
			pts = append(pts, plotter.XY{X: ts[k] / div, Y: ys[k-1]})
		}
		pts = append(pts, plotter.XY{X: ts[k] / div, Y: ys[k]})
	}
	return pts
}

// StepFigure draws step functions of time (utilization, queue length),
// each only over its own time span (a run that ended earlier is not
// drawn as 0 afterwards). A line with more than 2·SeriesBuckets samples
// is drawn as a band from the minimum to the maximum of each of
// SeriesBuckets time buckets, under a line of the time-weighted mean over
// window seconds (window ≤ 0: over each bucket).
//
// Lines identical at every sample are drawn once and named together
// ("lease_time = cost"), as a sweep figure's identical series are.
func StepFigure(name, title, ylabel string, lines []StepLine, window float64) (Figure, error) {
	lines, notes := mergeIdentical(lines)
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		if len(l.T) > 0 {
			t0, t1 = min(t0, l.T[0]), max(t1, l.T[len(l.T)-1])
		}
	}
	if t0 > t1 {
		t0, t1 = 0, 1
	}
	div, unit := timeScale(t1 - t0)
	p := newPlot("time ("+unit+")", ylabel)
	fr := newFrame(title, p)
	spans := map[string][2]float64{}
	banded := false
	for i, l := range lines {
		if len(l.T) == 0 || len(l.T) != len(l.Y) {
			continue
		}
		var pts plotter.XYs
		isBand := false
		span := [2]float64{l.T[0], l.T[len(l.T)-1]}
		if len(l.T) <= 2*SeriesBuckets && window <= 0 {
			pts = stepPoints(l.T, l.Y, div)
		} else {
			b := bucketize(l.T, l.Y, t0, t1, SeriesBuckets)
			band, mean := b.band(div), b.meanLine(div, window)
			if len(band) > 2 {
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return Figure{}, err
				}
				poly.Color = translucent(i, 40)
				poly.LineStyle.Width = 0
				p.Add(poly)
				banded, isBand = true, true
			}
			pts = mean
		}
		if len(pts) == 0 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		ln.Color = Color(i)
		ln.Width = vg.Points(1)
		if !isBand {
			ln.Dashes = dashes(i)
		}
		p.Add(ln)
		spans[l.Name] = span
		if l.Name != "" {
			fr.add(l.Name, ln)
		}
	}
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	caption := "Each line covers its own run's time span."
	if banded {
		bucket := (t1 - t0) / SeriesBuckets
		if window > 0 {
			caption += fmt.Sprintf(" Lines: time-weighted moving average over %s; shaded bands: minimum to maximum within each %s bucket, so that peaks stay visible.", durationText(window), durationText(bucket))
		} else {
			caption += fmt.Sprintf(" Lines: time-weighted mean within each %s bucket; shaded bands: minimum to maximum within it, so that peaks stay visible.", durationText(bucket))
		}
	}
	for _, n := range notes {
		caption += " " + n
	}
	f := figure(name, title, caption, fr)
	f.Spans = spans
	return f, nil
}

// mergeIdentical draws lines with the same samples once, named together;
// it returns the caption's note for each such group.
func mergeIdentical(lines []StepLine) ([]StepLine, []string) {
	var out []StepLine
	var groups [][]string
	for _, l := range lines {
		found := false
		for i := range out {
			if len(l.T) > 0 && slices.Equal(out[i].T, l.T) && equalNaN(out[i].Y, l.Y) {
				groups[i] = append(groups[i], l.Name)
				found = true
				break
			}
		}
		if !found {
			out = append(out, l)
			groups = append(groups, []string{l.Name})
		}
	}
	var notes []string
	for i, g := range groups {
		if len(g) > 1 {
			out[i].Name = strings.Join(g, " = ")
			notes = append(notes, "Identical at every time (drawn once): "+strings.Join(g, ", ")+".")
		}
	}
	return out, notes
}

func equalNaN(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

// StepFigures draws lines of one declared figure as StepFigure does, but
// on separate axes when their sizes differ by more than a factor 10: a
// count that never exceeds 2 on the axis of a cumulative count reaching
// 1,900 reads as a flat zero. The lines are grouped from the largest
// down (a group takes every line whose largest value is at least a tenth
// of the group's largest), each group a figure of its own, in the
// lines' order; a line that is 0 throughout joins the last group.
func StepFigures(name, title, ylabel string, lines []StepLine, window float64) ([]Figure, error) {
	peak := make([]float64, len(lines))
	order := make([]int, len(lines))
	for i, l := range lines {
		order[i] = i
		for _, y := range l.Y {
			if !math.IsNaN(y) {
				peak[i] = max(peak[i], math.Abs(y))
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return peak[order[a]] > peak[order[b]] })
	group := make([]int, len(lines))
	groups := 0
	top := math.NaN()
	for _, i := range order {
		switch {
		case groups == 0:
			groups, top = 1, peak[i]
		case peak[i] == 0:
		case peak[i] < top/10:
			groups++
			top = peak[i]
		}
		group[i] = groups - 1
	}
	if groups <= 1 {
		f, err := StepFigure(name, title, ylabel, lines, window)
		return []Figure{f}, err
	}
	var describe []string
	parts := make([][]StepLine, groups)
	for i, l := range lines {
		parts[group[i]] = append(parts[group[i]], l)
	}
	for _, part := range parts {
		hi := 0.0
		var names []string
		for _, l := range part {
			names = append(names, l.Name)
			for _, y := range l.Y {
				if !math.IsNaN(y) {
					hi = max(hi, math.Abs(y))
				}
			}
		}
		describe = append(describe, fmt.Sprintf("%s up to %s", strings.Join(names, ", "), HumanNum(hi)))
	}
	var figs []Figure
	for g, part := range parts {
		var names []string
		for _, l := range part {
			names = append(names, l.Name)
		}
		n := name
		if g > 0 {
			n = fmt.Sprintf("%s-%d", name, g+1)
		}
		f, err := StepFigure(n, title+": "+strings.Join(names, ", "), ylabel, part, window)
		if err != nil {
			return nil, err
		}
		f.Caption += fmt.Sprintf(" One of %d figures of these series, each on its own axis, as their sizes differ by more than a factor 10 (%s).", groups, strings.Join(describe, "; "))
		figs = append(figs, f)
	}
	return figs, nil
}

// band is the polygon from each covered bucket's minimum to its maximum.
func (b buckets) band(div float64) plotter.XYs {
	if b.first < 0 {
		return nil
	}
	var top, bottom plotter.XYs
	for i := b.first; i <= b.last; i++ {
		if math.IsNaN(b.lo[i]) {
			continue
		}
		x0 := max(b.start, b.t0+float64(i)*b.dt) / div
		x1 := min(b.end, b.t0+float64(i+1)*b.dt) / div
		top = append(top, plotter.XY{X: x0, Y: b.hi[i]}, plotter.XY{X: x1, Y: b.hi[i]})
		bottom = append(bottom, plotter.XY{X: x0, Y: b.lo[i]}, plotter.XY{X: x1, Y: b.lo[i]})
	}
	for i := len(bottom) - 1; i >= 0; i-- {
		top = append(top, bottom[i])
	}
	return top
}

// meanLine is the time-weighted mean at each bucket's centre: of the
// bucket, or of the preceding window seconds when window > 0.
func (b buckets) meanLine(div, window float64) plotter.XYs {
	if b.first < 0 {
		return nil
	}
	w := 1
	if window > 0 {
		w = max(1, int(math.Round(window/b.dt)))
	}
	var pts plotter.XYs
	sum, n := 0.0, 0
	var ring []float64
	for i := b.first; i <= b.last; i++ {
		if math.IsNaN(b.mean[i]) {
			continue
		}
		ring = append(ring, b.mean[i])
		sum += b.mean[i]
		n++
		if len(ring) > w {
			sum -= ring[0]
			ring = ring[1:]
			n--
		}
		x := b.t0 + (float64(i)+0.5)*b.dt
		x = min(max(x, b.start), b.end)
		pts = append(pts, plotter.XY{X: x / div, Y: sum / float64(n)})
	}
	// the line reaches both ends of the span
	if len(pts) > 0 {
		pts = append(plotter.XYs{{X: b.start / div, Y: pts[0].Y}}, pts...)
		pts = append(pts, plotter.XY{X: b.end / div, Y: pts[len(pts)-1].Y})
	}
	return pts
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
