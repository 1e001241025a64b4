package experiment

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// Reference is one number a paper reports for one configuration (for
// example a cell of seed 003's table 1): the report shows it next to our
// mean and 95% CI at the configurations matching Where.
type Reference struct {
	// Where gives parameter values (grid or zip keys, or policy); every
	// configuration with these values matches.
	Where  map[string]any `yaml:"where" json:"where"`
	Metric string         `yaml:"metric" json:"metric"`
	Value  float64        `yaml:"value" json:"value"`
	Source string         `yaml:"source" json:"source,omitempty"`
}

func (r *Reference) validate(s *Spec) error {
	if !s.isMetric(r.Metric) {
		return fmt.Errorf("metric: unknown metric %q", r.Metric)
	}
	if len(r.Where) == 0 {
		return fmt.Errorf("where: name the configuration (parameter values)")
	}
	for _, k := range sortedKeys(r.Where) {
		if k != "policy" && s.Grid[k] == nil && s.Zip[k] == nil {
			return fmt.Errorf("where.%s: not a grid or zip parameter of this experiment", k)
		}
	}
	return nil
}

// matches reports whether an aggregate's parameters have r's values
// (numbers compare as numbers: 4 matches 4.0).
func (r *Reference) matches(a *Agg) bool {
	if a.Metric != r.Metric {
		return false
	}
	for k, want := range r.Where {
		got, ok := a.Params[k]
		if !ok {
			return false
		}
		w := fmt.Sprint(want)
		if got == w {
			continue
		}
		if x, y := parseNum(got), parseNum(w); math.IsNaN(x) || x != y {
			return false
		}
	}
	return true
}

// referenceTable is the report table of a spec's references: the
// paper's number, ours, their ratio and whether the paper's number lies
// within our 95% CI.
func referenceTable(s *Spec, data Data) report.Table {
	t := report.Table{Title: "The paper's numbers next to ours (mean ± 95% CI half-width, n)", Columns: []string{"configuration", "metric", "paper", "ours", "relative effect (ours − paper) / |paper|", "difference", "source"}}
	for i := range s.References {
		r := &s.References[i]
		var parts []string
		keys := sortedKeys(r.Where)
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, shortName(k)+"="+fmt.Sprint(r.Where[k]))
		}
		row, ran, class := refRow(s, r, data)
		if !ran {
			t.Rows = append(t.Rows, []string{strings.Join(parts, ", "), r.Metric, strconv.FormatFloat(r.Value, 'g', -1, 64), "no run", "–", class, r.Source})
			continue
		}
		t.Rows = append(t.Rows, []string{strings.Join(parts, ", "), r.Metric, strconv.FormatFloat(r.Value, 'g', -1, 64), row[4], row[5], class, r.Source})
	}
	return t
}

// ReferenceMatches reports whether aggregate a is at r's configuration
// and metric.
func ReferenceMatches(r *Reference, a *Agg) bool { return r.matches(a) }
