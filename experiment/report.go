package experiment

import (
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct {
		name  string
		write func(*os.File) error
	}{
		{RunsFile, func(f *os.File) error { return WriteRuns(f, rows) }},
		{AggregateFile, func(f *os.File) error { return WriteAggregate(f, Aggregate(rows, s.Metrics)) }},
	} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return nil, nil, err
		}
	}
	return rows, s, nil
}

// Section builds the report section of a sweep: for each metric, its
// mean against the plot parameter with one line per combination of the
// other parameters (typically: per policy), and a table of aggregates.
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
	xkey := s.Plot.X
	if xkey == "" {
		if ks := sortedKeys(s.Grid); len(ks) > 0 {
			xkey = ks[0]
		} else if ks := sortedKeys(s.Zip); len(ks) > 0 {
			xkey = ks[0]
		}
	}
	var notes []string
	facets := facetsOf(aggs, xkey)
	for _, m := range s.Metrics {
		for _, fc := range facets {
			series, cats := seriesOf(fc.aggs, m, xkey)
			name := sanitize(s.Name + "-" + m + fc.suffix)
			ft := m
			if s.Plot.Title != "" {
				ft = s.Plot.Title + ": " + m
			}
			if fc.title != "" {
				ft += " (" + fc.title + ")"
			}
			xlabel := xkey
			if xlabel == "" {
				xlabel = "configuration"
			}
			f, err := report.SweepFigure(figDir, name, ft, xlabel, m, series, cats)
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
		ct := report.Table{Title: "The paper's claims and our results", Columns: []string{"claim", "paper", "ours", "agrees", "note"}}
		for _, c := range s.Claims {
			v := c.Check(s, aggs)
			ct.Rows = append(ct.Rows, []string{c.Claim + " (" + c.Source + ")", c.Paper, v.Ours, v.Agrees, c.Note})
		}
		sec.Tables = append(sec.Tables, ct)
	}
	if len(s.References) > 0 {
		sec.Tables = append(sec.Tables, referenceTable(s, aggs))
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
	aggs          []Agg
}

// facetsOf splits the aggregates into one figure per combination of the
// parameters other than the x axis and the policy, so that each figure
// compares policies (a handful of lines, a readable legend).
func facetsOf(aggs []Agg, xkey string) []facet {
	var out []facet
	index := map[string]int{}
	for _, a := range aggs {
		keys := make([]string, 0, len(a.Params))
		for k := range a.Params {
			if k != xkey && k != "policy" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, shortName(k)+"="+shortName(a.Params[k]))
		}
		title := strings.Join(parts, ", ")
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			suffix := ""
			if title != "" {
				suffix = "-" + sanitize(strings.Join(parts, "-"))
			}
			out = append(out, facet{title: title, suffix: suffix})
		}
		out[i].aggs = append(out[i].aggs, a)
	}
	return out
}

// seriesOf groups the aggregates of metric m (of one facet) by policy.
// When some x value is not a number the axis is nominal.
func seriesOf(aggs []Agg, m, xkey string) ([]report.Series, []string) {
	numeric := true
	var xs []string
	seenX := map[string]bool{}
	for _, a := range aggs {
		if a.Metric != m {
			continue
		}
		x := a.Params[xkey]
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
		// Within a facet every other parameter is fixed: the policy names
		// the line.
		var parts []string
		if p, ok := a.Params["policy"]; ok {
			parts = append(parts, p)
		}
		name := strings.Join(parts, ", ")
		if name == "" {
			name = m
		}
		s := byName[name]
		if s == nil {
			s = &report.Series{Name: name}
			byName[name] = s
			order = append(order, name)
		}
		s.X = append(s.X, pos[a.Params[xkey]])
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
	return out, cats
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
	page := report.Page{Title: title}
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
	}
	page.Sections = append(page.Sections, extra...)
	path := filepath.Join(dir, ReportFile)
	return path, page.WriteFile(path)
}
