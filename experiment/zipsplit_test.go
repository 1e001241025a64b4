package experiment

import (
	"fmt"
	"testing"
)

// TestZipPartnersSplitTheAxis (issue 16 review): sizes zipped with
// traces, each trace with its own sizes, repeat x values along the zip.
// A comparison must pair u and random on the same trace, and the figure
// must not draw one line through both traces. Trace A: u halves the
// metric at both sizes (two wins); trace B: no difference (two ties).
// Pairing by x alone compared u on A with random on B (two losses).
func TestZipPartnersSplitTheAxis(t *testing.T) {
	s := &Spec{
		Zip:    map[string][]any{"workload.trace": {"A.swf", "A.swf", "B.swf", "B.swf"}, "platform.nodes": {10, 20, 10, 20}},
		Grid:   map[string][]any{"node_select": {"random", "u"}},
		Plot:   PlotSpec{X: "platform.nodes"},
		Claims: []Claim{{Claim: "u wins", Metric: "makespan", Param: "node_select", Better: "u", Worse: "random", Expect: "better", LowerIsBetter: true}},
	}
	var aggs []Agg
	var rows []Row
	for _, tr := range []struct {
		trace     string
		random, u float64
	}{{"A.swf", 100, 50}, {"B.swf", 10, 10}} {
		for _, n := range []string{"10", "20"} {
			for sel, mean := range map[string]float64{"random": tr.random, "u": tr.u} {
				p := map[string]string{"workload.trace": tr.trace, "platform.nodes": n, "node_select": sel, "policy": "easy"}
				aggs = append(aggs, Agg{Params: p, Metric: "makespan", N: 5, Mean: mean, HalfWidth: 1})
				for rep, noise := range []float64{-1, 0, 1, 0.5, -0.5} {
					rows = append(rows, Row{ConfigIndex: len(aggs), ConfigID: fmt.Sprint(p), Params: p, Rep: rep, Seed: fmt.Sprint(rep), Metrics: map[string]float64{"makespan": mean + noise}})
				}
			}
		}
	}
	v := Evaluate(s, &s.Claims[0], NewRowsData(rows)).Outcomes[0]
	if v.Ours != "4 points: 2 wins, 2 ties, 0 losses" {
		t.Errorf("claim: %s (%s); want 2 wins (trace A) and 2 ties (trace B)", v.Ours, v.Details)
	}
	ax := layoutOf(s, aggs)
	if ax.onAxis["workload.trace"] || !ax.onAxis["platform.nodes"] {
		t.Errorf("layout: trace on the axis %v, nodes %v; want the trace in panels or series", ax.onAxis["workload.trace"], ax.onAxis["platform.nodes"])
	}
	found := false
	for _, k := range append(append([]string(nil), ax.panels...), ax.series...) {
		found = found || k == "workload.trace"
	}
	if !found {
		t.Errorf("layout: the trace is neither a panel nor a series: %+v", ax)
	}
}
