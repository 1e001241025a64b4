package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/report"
)

// zipSpec is reservations-exp1's shape: the x axis zipped with three other
// parameters, three policies, a second grid parameter compared by a
// claim, and paper numbers.
const zipSpec = `name: zipped
workload:
  model: lublin
  params: {nodes: 32}
  jobs: 50
platform: {nodes: 32}
policies: [fcfs, easy]
zip:
  platform.nodes: [8, 16, 32]
  workload.jobs: [40, 50, 60]
grid:
  overrun: [kill, extend]
  workload.arrival_scale: [1, 2]
replications: {count: 2}
seed: 4
metrics: [mean_wait]
plot: {x: platform.nodes}
claims:
  - {claim: extend waits less, source: test, metric: mean_wait, param: overrun, better: extend, worse: kill, expect: better, lower_is_better: true}
references:
  - {where: {platform.nodes: 16, overrun: kill, policy: easy, workload.arrival_scale: 2}, metric: mean_wait, value: 7}
  - {where: {platform.nodes: 32, overrun: extend, policy: fcfs, workload.arrival_scale: 1}, metric: mean_wait, value: 9}
`

func fakeRows(s *Spec) []Row {
	return fakeRowsOf(s, func(i, r int) map[string]float64 { return map[string]float64{"mean_wait": float64(10*i + r)} })
}

// fakeRowsOf are two replications of every configuration of s, with the
// metrics of configuration i, replication r.
func fakeRowsOf(s *Spec, metrics func(i, r int) map[string]float64) []Row {
	var rows []Row
	for i, c := range s.Configs() {
		params := map[string]string{}
		for _, p := range c.Params {
			params[p.Key] = FormatValue(p.Value)
		}
		for r := 0; r < 2; r++ {
			rows = append(rows, Row{Key: fmt.Sprint(i, r), ConfigIndex: i, ConfigID: fmt.Sprint(i), Params: params, Rep: r, Metrics: metrics(i, r)})
		}
	}
	return rows
}

// TestZipIsOneAxis: zipped parameters make one x axis (no figure per zip
// tuple); the policy and the parameter a claim compares are lines on the
// same axes; the remaining grid parameter makes panels; each paper number
// is a marker in exactly the figure of its configuration; axes have units.
func TestZipIsOneAxis(t *testing.T) {
	s := mustParse(t, zipSpec, "")
	if len(s.Configs()) == 0 {
		t.Fatal("no configurations")
	}
	sec, err := Section(s, fakeRows(s), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 2 {
		t.Fatalf("%d figures, want 2 (one panel per arrival scale)", len(sec.Figures))
	}
	refs := 0
	for _, f := range sec.Figures {
		if f.XValues != 3 {
			t.Errorf("%s: %d x values, want 3", f.Name, f.XValues)
		}
		if f.YLabel != "mean wait (s)" || f.XLabel != "nodes" {
			t.Errorf("%s: labels %q, %q", f.Name, f.XLabel, f.YLabel)
		}
		for _, line := range []string{"ours: fcfs, overrun rule = kill", "ours: easy, overrun rule = extend"} {
			if !slices.Contains(f.Legend, line) {
				t.Errorf("%s: no line %q in %q", f.Name, line, f.Legend)
			}
		}
		refs += f.Refs
		if bad := report.SVGColourErrors(string(f.SVG)); len(bad) > 0 {
			t.Errorf("%s: %v", f.Name, bad)
		}
	}
	if refs != 2 || sec.Figures[0].Refs != 1 || sec.Figures[1].Refs != 1 {
		t.Errorf("paper markers: %d and %d, want one per panel", sec.Figures[0].Refs, sec.Figures[1].Refs)
	}
	if len(sec.Lead) != 1 || sec.Lead[0].Columns[6] != "verdict" {
		t.Errorf("no claims table before the figures")
	}
}

// TestPlotSpecErrors: series and panels must name parameters of the sweep.
func TestPlotSpecErrors(t *testing.T) {
	doc := strings.Replace(zipSpec, "plot: {x: platform.nodes}", "plot: {x: platform.nodes, series: [nodes_typo], panels: [platform.nodes]}", 1)
	_, err := Parse("spec.yaml", []byte(doc), "")
	if err == nil || !strings.Contains(err.Error(), "plot.series[0]") || !strings.Contains(err.Error(), "nodes_typo") || !strings.Contains(err.Error(), "plot.panels[0]") {
		t.Errorf("error: %v", err)
	}
}

// TestReproductionTable: per seed, one row per claim (with its verdict)
// and per paper number that ran; numbers that did not run are counted.
func TestReproductionTable(t *testing.T) {
	s := mustParse(t, "description: Seed 009, a test\n"+zipSpec, "")
	s.References = append(s.References, Reference{Where: map[string]any{"platform.nodes": 99}, Metric: "mean_wait", Value: 1, Source: "table 2"})
	rts := ReproductionTables([]Experiment{{Spec: s, Data: NewRowsData(fakeRows(s)), Info: AggInfo{Experiment: s.Name, Runs: len(fakeRows(s))}}})
	if len(rts) != 1 || rts[0].Seed != "009" {
		t.Fatalf("%+v", rts)
	}
	md := rts[0].Markdown()
	for _, want := range []string{"# Seed 009: reproduction table", "| experiment | where in the paper | statement | paper | ours | relative effect (95% CI) | test | verdict |",
		"| zipped | test | extend waits less |", "1 more numbers of table 2", "(n=2)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "\n| zipped"); n != 5 {
		t.Errorf("%d rows, want 5 (the experiment in the header table; a claim, two numbers, one count)", n)
	}
}
