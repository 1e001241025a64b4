package experiment

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// axes decides the layout of a sweep's figures: the x axis (the plot's
// x with its zip partners: zipped parameters form one axis, except a
// partner plot.series or plot.panels names), the
// parameters whose values make the lines (plot.series; default the
// policy and every parameter a claim compares), and the panels (every
// other parameter that varies; plot.panels must list them if given).
// A zip partner whose values would put two configurations of one line at
// the same x (hierarchical-weights: grid-stat and grid-minmin both at the
// default weights) makes lines instead: no line ever joins two
// configurations at one x.
type axes struct {
	x       string
	model   string // the workload model, for parameter labels
	onAxis  map[string]bool
	series  []string
	panels  []string
	varying map[string]bool
}

func layoutOf(s *Spec, aggs []Agg) axes {
	ax := axes{x: xOf(s), model: s.Workload.Model, onAxis: onAxis(s), varying: map[string]bool{}}
	vals := map[string]map[string]bool{}
	var keys []string
	for _, a := range aggs {
		for k, v := range a.Params {
			if vals[k] == nil {
				vals[k] = map[string]bool{}
				keys = append(keys, k)
			}
			vals[k][v] = true
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(vals[k]) > 1 {
			ax.varying[k] = true
		}
	}
	inSeries := map[string]bool{}
	if len(s.Plot.Series) > 0 {
		for _, k := range s.Plot.Series {
			if !inSeries[k] {
				inSeries[k] = true
				ax.series = append(ax.series, k)
			}
		}
	} else {
		cands := []string{"policy"}
		for _, c := range s.Claims {
			if c.Param != "" {
				cands = append(cands, c.Param)
			}
		}
		for _, k := range cands {
			if !inSeries[k] && !ax.onAxis[k] && (ax.varying[k] || k == "policy") {
				inSeries[k] = true
				ax.series = append(ax.series, k)
			}
		}
	}
	inPanel := map[string]bool{}
	for _, k := range append(append([]string(nil), s.Plot.Panels...), keys...) {
		if ax.varying[k] && !ax.onAxis[k] && !inSeries[k] && !inPanel[k] {
			inPanel[k] = true
			ax.panels = append(ax.panels, k)
		}
	}
	// Lines, never merged: while two configurations of one panel and one
	// line sit at one x, the on-axis partners that tell them apart become
	// lines (the policy first).
	for {
		k := ax.collision(aggs)
		if k == "" {
			break
		}
		ax.onAxis[k] = false
		if !inSeries[k] {
			inSeries[k] = true
			ax.series = append(ax.series, k)
		}
	}
	return ax
}

// collision returns an on-axis parameter (not x) that differs between two
// configurations drawn at the same point (same panel, line and x), or "".
func (ax axes) collision(aggs []Agg) string {
	at := map[string]map[string]string{}
	var found []string
	for _, a := range aggs {
		var key []string
		for _, k := range ax.panels {
			key = append(key, a.Params[k])
		}
		key = append(key, ax.seriesName(a.Params), a.Params[ax.x], a.Metric)
		id := strings.Join(key, "\x00")
		prev, ok := at[id]
		if !ok {
			at[id] = a.Params
			continue
		}
		for k, v := range a.Params {
			if k != ax.x && ax.onAxis[k] && prev[k] != v {
				found = append(found, k)
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Slice(found, func(i, j int) bool {
		if (found[i] == "policy") != (found[j] == "policy") {
			return found[i] == "policy"
		}
		return found[i] < found[j]
	})
	return found[0]
}

// within is the layout for one panel: a series parameter that does not
// vary among the panel's configurations does not name its lines.
func (ax axes) within(aggs []Agg) axes {
	vals := map[string]map[string]bool{}
	for _, a := range aggs {
		for _, k := range ax.series {
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
			vals[k][a.Params[k]] = true
		}
	}
	out := ax
	out.varying = map[string]bool{}
	for k, v := range ax.varying {
		out.varying[k] = v
	}
	for _, k := range ax.series {
		if k != "policy" && len(vals[k]) < 2 {
			out.varying[k] = false
		}
	}
	return out
}

// seriesName names a line by its series parameters.
func (ax axes) seriesName(p map[string]string) string {
	var parts []string
	for _, k := range ax.series {
		v, ok := p[k]
		if !ok {
			continue
		}
		if k == "policy" {
			if ax.varying[k] || len(ax.series) == 1 {
				parts = append(parts, v)
			}
		} else if ax.varying[k] {
			parts = append(parts, report.ParamShort(k, ax.model)+" = "+shortName(v))
		}
	}
	return strings.Join(parts, ", ")
}

// seriesLabel says what tells the lines apart ("policy", "node selection").
func (ax axes) seriesLabel() string {
	var parts []string
	for _, k := range ax.series {
		if ax.varying[k] || k == "policy" {
			parts = append(parts, report.ParamLabel(k, ax.model))
		}
	}
	return strings.Join(parts, ", ")
}

// paperCite finds the paper's figure or table a source names ("§3.2,
// figure 5" → "figure 5"); a source of our own ("our variant", "our
// addition to figures 8–9") names none.
var paperCite = regexp.MustCompile(`(?i)\b(figure|fig\.|table)s?\s*(\d+)(\s*[–-]\s*\d+)?`)

// cite is a place in the paper, sortable in the paper's order (figures,
// then tables, by number).
type cite struct {
	text string
	kind int // 0 figure, 1 table
	num  int
}

func citeOf(source string) (cite, bool) {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(source)), "our") {
		return cite{}, false
	}
	m := paperCite.FindStringSubmatch(source)
	if m == nil {
		return cite{}, false
	}
	n, _ := strconv.Atoi(m[2])
	kind, word := 0, "figure"
	if strings.EqualFold(m[1], "table") {
		kind, word = 1, "table"
	}
	return cite{text: word + " " + m[2] + strings.ReplaceAll(strings.TrimSpace(m[3]), " ", ""), kind: kind, num: n}, true
}

func (c cite) less(d cite) bool {
	if c.kind != d.kind {
		return c.kind < d.kind
	}
	return c.num < d.num
}

// paperFigures maps each metric of the spec that the paper draws (a claim
// or a reference on it cites a figure or table) to the first such place.
func paperFigures(s *Spec) map[string]cite {
	out := map[string]cite{}
	note := func(metric, source string) {
		c, ok := citeOf(source)
		if !ok {
			return
		}
		if old, seen := out[metric]; !seen || c.less(old) {
			out[metric] = c
		}
	}
	for i := range s.Claims {
		for _, m := range s.Claims[i].MetricNames() {
			note(strings.TrimPrefix(m, "-"), s.Claims[i].Source)
		}
	}
	for _, r := range s.References {
		note(r.Metric, r.Source)
	}
	return out
}

// sweepFigures draws every metric of the sweep in every panel (unrendered:
// report.Render draws them). A figure of a metric the paper draws says
// which of the paper's figures it reproduces.
func sweepFigures(s *Spec, aggs []Agg, pal *report.Palette) ([]report.Figure, error) {
	ax := layoutOf(s, aggs)
	facets := facetsOf(aggs, ax)
	cites := paperFigures(s)
	var figs []report.Figure
	for _, m := range s.Metrics {
		for _, fc := range facets {
			ax := ax.within(fc.aggs)
			series, cats, pos := seriesOf(fc.aggs, m, ax)
			if len(series) == 0 {
				continue
			}
			name := sanitize(s.Name + "-" + m + fc.suffix)
			mi := s.metricInfo(m)
			ft := mi.Name
			if s.Plot.Title != "" {
				ft = s.Plot.Title + ": " + mi.Name
			}
			if fc.title != "" {
				ft += " (" + fc.title + ")"
			}
			xlabel := report.ParamLabel(ax.x, ax.model)
			if ax.x == "" {
				xlabel = "configuration"
			}
			f, err := report.SweepFigure(name, report.Sweep{Title: ft, XLabel: xlabel, SeriesLabel: ax.seriesLabel(), Metric: mi, Series: series, Categories: cats,
				Refs: refsOf(s, m, ax, fc, pos), Paper: cites[m].text, Apart: sentinels(xlabel), Palette: pal})
			if err != nil {
				return nil, err
			}
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// sentinel finds, in a parameter's label, a value that means "none"
// ("manager MTBF (s; 0 = none)": MTBF 0 is a manager that never fails).
var sentinel = regexp.MustCompile(`(?i)(?:^|[\s(;,])(-?\d+(?:\.\d+)?) = (none|never|off|unlimited|infinite|no [a-z]+)\b`)

// sentinels are the values a parameter's label says are no number on its
// axis: the figure draws them apart, at the right, under their name.
func sentinels(label string) []report.ApartX {
	var out []report.ApartX
	for _, m := range sentinel.FindAllStringSubmatch(label, -1) {
		out = append(out, report.ApartX{X: report.ParseFloat(m[1]), Name: m[2]})
	}
	return out
}

type facet struct {
	title, suffix string
	params        map[string]string
	aggs          []Agg
}

// facetsOf splits the aggregates into one figure (panel) per combination
// of the panel parameters.
func facetsOf(aggs []Agg, ax axes) []facet {
	var out []facet
	index := map[string]int{}
	for _, a := range aggs {
		var parts []string
		params := map[string]string{}
		for _, k := range ax.panels {
			if v, ok := a.Params[k]; ok {
				parts = append(parts, report.ParamShort(k, ax.model)+" = "+shortName(v))
				params[k] = v
			}
		}
		title := strings.Join(parts, ", ")
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			suffix := ""
			if title != "" {
				var ps []string
				for _, k := range ax.panels {
					ps = append(ps, shortName(k)+"-"+shortName(params[k]))
				}
				suffix = "-" + sanitize(strings.Join(ps, "-"))
			}
			out = append(out, facet{title: title, suffix: suffix, params: params})
		}
		out[i].aggs = append(out[i].aggs, a)
	}
	return out
}

// seriesOf groups the aggregates of metric m (of one facet) into lines.
// When some x value is not a number the axis is nominal. It also returns
// the position of each x value on the axis.
func seriesOf(aggs []Agg, m string, ax axes) ([]report.Series, []string, map[string]float64) {
	numeric := true
	var xs []string
	seenX := map[string]bool{}
	for _, a := range aggs {
		if a.Metric != m {
			continue
		}
		x := a.Params[ax.x]
		if math.IsNaN(report.ParseFloat(x)) {
			numeric = false
		}
		if !seenX[x] {
			seenX[x] = true
			xs = append(xs, x)
		}
	}
	var cats []string
	pos := map[string]float64{}
	if numeric {
		for _, x := range xs {
			pos[x] = report.ParseFloat(x)
		}
	} else {
		for i, x := range xs {
			pos[x] = float64(i)
			cats = append(cats, shortName(x))
		}
	}
	byName := map[string]*report.Series{}
	var order []string
	for _, a := range aggs {
		if a.Metric != m {
			continue
		}
		name := ax.seriesName(a.Params)
		if name == "" {
			name = "ours"
		}
		s := byName[name]
		if s == nil {
			s = &report.Series{Name: name}
			byName[name] = s
			order = append(order, name)
		}
		s.X = append(s.X, pos[a.Params[ax.x]])
		s.Y = append(s.Y, a.Mean)
		s.Err = append(s.Err, a.HalfWidth)
	}
	out := make([]report.Series, len(order))
	for i, n := range order {
		s := *byName[n]
		idx := make([]int, len(s.X))
		for k := range idx {
			idx[k] = k
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
		t := report.Series{Name: s.Name}
		for _, k := range idx {
			t.X = append(t.X, s.X[k])
			t.Y = append(t.Y, s.Y[k])
			t.Err = append(t.Err, s.Err[k])
		}
		out[i] = t
	}
	return out, cats, pos
}

// refsOf places the spec's references for metric m in facet fc: the
// reference's where must agree with the panel's values; its x is its
// value of the x axis (or of a zip partner); its series, from its values
// of the series parameters.
func refsOf(s *Spec, m string, ax axes, fc facet, pos map[string]float64) []report.RefPoint {
	var out []report.RefPoint
	for i := range s.References {
		r := &s.References[i]
		if r.Metric != m {
			continue
		}
		// every parameter the reference names, but the x axis and the
		// series, has the facet's (constant) value
		ok := len(fc.aggs) > 0
		inSeries := map[string]bool{}
		for _, k := range ax.series {
			inSeries[k] = true
		}
		for k, w := range r.Where {
			if ax.onAxis[k] || inSeries[k] || !ok {
				continue
			}
			if v, has := fc.aggs[0].Params[k]; !has || !sameValue(fmt.Sprint(w), v) {
				ok = false
			}
		}
		// and our runs have the metric there: no paper marker beside no
		// data of ours
		has := false
		for j := range fc.aggs {
			has = has || fc.aggs[j].N > 0 && r.matches(&fc.aggs[j])
		}
		if !ok || !has {
			continue
		}
		xv, found := math.NaN(), false
		for key, p := range pos {
			if w, has := r.Where[ax.x]; has && sameValue(fmt.Sprint(w), key) {
				xv, found = p, true
			}
		}
		if !found {
			continue
		}
		params := map[string]string{}
		for k, w := range r.Where {
			params[k] = fmt.Sprint(w)
		}
		name := ax.seriesName(params)
		out = append(out, report.RefPoint{Series: name, X: xv, Y: r.Value})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].X < out[j].X })
	return out
}
