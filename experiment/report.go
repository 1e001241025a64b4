package experiment

import (
	"github.com/gridsched/gridsched/internal/atomicfile"
	"io"

	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// Output file names in an experiment folder.
const (
	StoreFile     = "store.db"
	RunsFile      = "runs.csv"
	AggregateFile = "aggregate.csv"
	ReportFile    = "report.html"
	FiguresDir    = "figures"
)

// StoredSpec reads back the spec a store was made from.
func (st *Store) StoredSpec() (*Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(st.Spec), &s); err != nil {
		return nil, fmt.Errorf("%s: cannot read its spec: %w", st.Path, err)
	}
	s.Label = st.Label
	return &s, nil
}

// Export writes runs.csv and aggregate.csv of the store into dir.
func Export(st *Store, dir string) ([]Row, *Spec, error) {
	s, err := st.StoredSpec()
	if err != nil {
		return nil, nil, err
	}
	rows, err := st.Rows()
	if err != nil {
		return nil, nil, err
	}
	rows = s.PairedRows(rows)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{RunsFile, func(w io.Writer) error { return WriteRuns(w, rows) }},
		{AggregateFile, func(w io.Writer) error { return WriteAggregate(w, Aggregate(rows, s.Metrics)) }},
	} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return nil, nil, err
		}
	}
	return rows, s, nil
}

// axes decides the layout of a sweep's figures: the x axis (the plot's
// x with its zip partners: zipped parameters form one axis, except a
// text partner that keeps lines of its own (splitPartners) and a partner
// plot.series or plot.panels names), the parameters whose values make
// the lines (plot.series; default the policy and every parameter a claim
// compares), and the panels (every other parameter that varies;
// plot.panels must list them if given).
type axes struct {
	x       string
	onAxis  map[string]bool
	series  []string
	panels  []string
	varying map[string]bool
}

func layoutOf(s *Spec, aggs []Agg) axes {
	ax := axes{x: xOf(s), onAxis: onAxis(s), varying: map[string]bool{}}
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
	return ax
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
			parts = append(parts, report.ParamLabel(k)+" "+shortName(v))
		}
	}
	return strings.Join(parts, ", ")
}

// Section builds the report section of a sweep: for each metric and
// panel, its mean against the x axis with one line per series and the
// paper's numbers (references) as markers on the same axes; the claims
// with verdicts; the paper's numbers against ours; the aggregates.
func Section(s *Spec, rows []Row, figDir string) (report.Section, error) {
	title := s.Name
	if s.Label != "" {
		title += " (" + s.Label + ")"
	}
	sec := report.Section{Title: title, Description: s.Description}
	aggs := Aggregate(rows, s.Metrics)
	if len(aggs) == 0 {
		sec.Notes = append(sec.Notes, "No finished runs yet.")
		return sec, nil
	}
	ax := layoutOf(s, aggs)
	var notes []string
	facets := facetsOf(aggs, ax)
	for _, m := range s.Metrics {
		for _, fc := range facets {
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
			xlabel := report.ParamLabel(ax.x)
			if ax.x == "" {
				xlabel = "configuration"
			}
			f, err := report.SweepFigure(figDir, name, report.Sweep{Title: ft, XLabel: xlabel, Metric: mi, Series: series, Categories: cats,
				Refs: refsOf(s, m, ax, fc, pos)})
			if err != nil {
				return sec, err
			}
			sec.Figures = append(sec.Figures, f)
		}
		for _, a := range aggs {
			if a.Metric == m && a.N < 2 {
				notes = append(notes, "Points with a single replication have no confidence interval (deterministic replays need only one).")
				break
			}
		}
	}
	if len(notes) > 0 {
		sec.Notes = append(sec.Notes, notes[0])
	}
	if len(s.Claims) > 0 {
		sec.Lead = append(sec.Lead, claimsTable(s, NewRowsData(rows)))
	}
	if len(s.References) > 0 {
		sec.Tables = append(sec.Tables, referenceTable(s, NewRowsData(rows)))
	}
	t := report.Table{Title: "Aggregates (mean ± 95% CI half-width, n replications)", Columns: []string{"configuration", "metric", "n", "mean", "± 95% CI", "sd"}}
	for _, a := range aggs {
		t.Rows = append(t.Rows, []string{a.ConfigID, a.Metric, strconv.Itoa(a.N), num(a.Mean), num(a.HalfWidth), num(a.SD)})
	}
	sec.Tables = append(sec.Tables, t)
	return sec, nil
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.Abs(v) >= 1e5 || (math.Abs(v) < 1e-3 && v != 0) {
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
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
				parts = append(parts, report.ParamLabel(k)+" = "+shortName(v))
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

// sameValue compares parameter values, numbers as numbers.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, y := parseNum(a), parseNum(b)
	return !math.IsNaN(x) && x == y
}

// shortName drops file extensions and the ".params." of parameter paths
// for legends.
func shortName(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, ".gz"), ".swf")
	s = strings.TrimPrefix(s, "workload.params.")
	return strings.TrimPrefix(s, "workload.")
}

// WriteOutputs writes the exports, figures and HTML report of the stores
// (exports next to each store, figures and report.html in dir); it returns
// the report's path. With several stores (reproduce) the report has one
// section per experiment; extra sections come last.
func WriteOutputs(title string, stores []*Store, dir string, extra ...report.Section) (string, error) {
	return WriteReport(title, stores, dir, ReportFile, extra...)
}

// WriteReport is WriteOutputs with the report's file name. With claims or
// references it also writes, per seed, the reproduction table as
// Markdown (reproduction-seedNNN.md in dir) and adds it to the report.
func WriteReport(title string, stores []*Store, dir, file string, extra ...report.Section) (string, error) {
	page := report.Page{Title: title}
	var exps []Experiment
	for _, st := range stores {
		out := filepath.Dir(st.Path) // exports sit next to their store
		rows, s, err := Export(st, out)
		if err != nil {
			return "", err
		}
		sec, err := Section(s, rows, filepath.Join(dir, FiguresDir))
		if err != nil {
			return "", err
		}
		sec.Notes = append(sec.Notes, fmt.Sprintf("Exports: %s and %s in %s; result store %s.", RunsFile, AggregateFile, out, st.Path))
		if s.Workload.Trace != "" {
			sec.Notes = append(sec.Notes, "Traces are the Parallel Workloads Archive's cleaned versions (\"-cln\"), with fewer jobs than the original logs.")
		}
		page.Sections = append(page.Sections, sec)
		e, err := writeAggregates(st, s, rows, filepath.Join(dir, AggregatesDir))
		if err != nil {
			return "", err
		}
		exps = append(exps, e)
	}
	repro, err := writeReproduction(dir, exps)
	if err != nil {
		return "", err
	}
	page.Sections = append(repro, page.Sections...)
	page.Sections = append(page.Sections, extra...)
	path := filepath.Join(dir, file)
	return path, page.WriteFile(path)
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}
