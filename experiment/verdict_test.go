package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cfgRuns is one configuration of a synthetic store: its parameters and
// one value of the metric per replication.
type cfgRuns struct {
	params map[string]string
	vals   []float64
}

// runsOf makes a store's rows of metric m. With paired, replication r of
// every configuration has the seed r (common random numbers, as the
// runner makes them); else each configuration has its own seeds.
func runsOf(m string, paired bool, cfgs ...cfgRuns) []Row {
	var rows []Row
	for i, c := range cfgs {
		for r, v := range c.vals {
			seed := fmt.Sprint(r)
			if !paired {
				seed = fmt.Sprintf("%d-%d", i, r)
			}
			rows = append(rows, Row{ConfigIndex: i, ConfigID: fmt.Sprint(c.params), Params: c.params, Rep: r, Seed: seed, Metrics: map[string]float64{m: v}})
		}
	}
	return rows
}

// p builds parameters from key=value pairs.
func p(kv ...string) map[string]string {
	out := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		out[k] = v
	}
	return out
}

// plus adds d to every value.
func plus(vals []float64, d float64) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v + d
	}
	return out
}

// times multiplies every value by f.
func times(vals []float64, f float64) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v * f
	}
	return out
}

func f64(v float64) *float64 { return &v }

// noisy are ten replications with a large spread between replications
// (common to every configuration of a replication, as common random
// numbers make it).
var noisy = []float64{100, 160, 80, 140, 95, 170, 60, 120, 150, 75}

func compareSpec() *Spec {
	return &Spec{Grid: map[string][]any{"x": {1, 2, 3}, "node_select": {"u", "random"}}, Plot: PlotSpec{X: "x"}}
}

func uBetter() Claim {
	return Claim{Metric: "makespan", Param: "node_select", Better: "u", Worse: "random", Expect: "better", LowerIsBetter: true}
}

func only(t *testing.T, r ClaimResult) Outcome {
	t.Helper()
	if len(r.Outcomes) != 1 {
		t.Fatalf("%d outcomes, want 1: %+v", len(r.Outcomes), r.Outcomes)
	}
	return r.Outcomes[0]
}

// TestOneReplicationIsNotAWin: with one replication there is no CI: a
// 0.07% difference (seed 001's hierarchical-sequential, printed "agrees"
// before) and a 50% one are "not enough replications", never a win — in
// comparisons, trends and bounds alike.
func TestOneReplicationIsNotAWin(t *testing.T) {
	s := compareSpec()
	for _, d := range []float64{-0.0007, -0.5} {
		rows := runsOf("makespan", true,
			cfgRuns{p("x=1", "node_select=u"), []float64{100 * (1 + d)}},
			cfgRuns{p("x=1", "node_select=random"), []float64{100}})
		c := uBetter()
		if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != NotEnough {
			t.Errorf("difference %g with one replication: %s (%s), want %s", d, o.Class, o.Ours, NotEnough)
		}
	}
	rows := runsOf("makespan", true,
		cfgRuns{p("x=1", "node_select=u"), []float64{1}},
		cfgRuns{p("x=3", "node_select=u"), []float64{9}})
	tr := Claim{Metric: "makespan", Trend: "increasing"}
	if o := only(t, Evaluate(s, &tr, NewRowsData(rows))); o.Class != NotEnough {
		t.Errorf("trend with one replication: %s, want %s", o.Class, NotEnough)
	}
	bound := Claim{Metric: "makespan", AtMost: f64(10)}
	if o := only(t, Evaluate(s, &bound, NewRowsData(rows))); o.Class != NotEnough {
		t.Errorf("bound with one replication: %s, want %s", o.Class, NotEnough)
	}
}

// TestPairedAndWelch: runs that share seeds are compared per replication
// (paired t): a steady 5% gain under a large spread between
// replications is a win. The same numbers without shared seeds go
// through Welch's unpaired interval, where the spread hides the gain: a
// tie. Each row names the test used.
func TestPairedAndWelch(t *testing.T) {
	s := compareSpec()
	c := uBetter()
	for _, tc := range []struct {
		paired    bool
		class     string
		test      string
		ours      string
		effectPfx string
	}{
		{true, Agrees, "paired t, n=10", "1 point: 1 win, 0 ties, 0 losses", "-5.0% ± 1.2%"},
		{false, NoDifference, "Welch, n=10+10", "1 point: 0 wins, 1 tie, 0 losses", "-5.0% ± "},
	} {
		rows := runsOf("makespan", tc.paired,
			cfgRuns{p("x=1", "node_select=u"), times(noisy, 0.95)},
			cfgRuns{p("x=1", "node_select=random"), noisy})
		o := only(t, Evaluate(s, &c, NewRowsData(rows)))
		if o.Class != tc.class || o.Test != tc.test || o.Ours != tc.ours || !strings.HasPrefix(o.Effect, tc.effectPfx) {
			t.Errorf("paired=%v: %s, %q, %q, effect %q; want %s, %q, %q, %q…", tc.paired, o.Class, o.Test, o.Ours, o.Effect, tc.class, tc.test, tc.ours, tc.effectPfx)
		}
	}
	// The paired interval is Student's t on the differences: u − random
	// is −5% of noisy, exactly; the half-width is t(0.975, 9) × sd/√10.
	rows := runsOf("makespan", true,
		cfgRuns{p("x=1", "node_select=u"), plus(noisy, -5)},
		cfgRuns{p("x=1", "node_select=random"), plus(noisy, []float64{0}[0])})
	rows[0].Metrics["makespan"] += 2 // one replication differs by −3, the others by −5
	d := compareAt(NewRowsData(rows), 0, 1, "makespan")
	mean := (-3 - 5*9) / 10.0
	var ss float64
	for i := 0; i < 10; i++ {
		v := -5.0
		if i == 0 {
			v = -3
		}
		ss += (v - mean) * (v - mean)
	}
	want := 2.262157 * math.Sqrt(ss/9) / math.Sqrt(10)
	if !d.paired || d.n != 10 || math.Abs(d.d-mean) > 1e-9 || math.Abs(d.h-want) > 1e-5 {
		t.Errorf("paired difference %+v, want mean %g ± %g over 10 pairs", d, mean, want)
	}
	// Welch: unequal variances and sizes, Welch–Satterthwaite df.
	a, b := Stat{N: 5, Mean: 10, SD: 2}, Stat{N: 8, Mean: 12, SD: 4}
	va, vb := 4.0/5, 16.0/8
	df := (va + vb) * (va + vb) / (va*va/4 + vb*vb/7)
	if got, want := welchHalfWidth(a, b), t975(df)*math.Sqrt(va+vb); math.Abs(got-want) > 1e-12 || math.Abs(df-10.7) > 0.2 {
		t.Errorf("Welch half-width %g, want %g (df %g)", got, want, df)
	}
}

// TestNegligibleFloor: a 0.1% difference beyond its CI is negligible
// under the default 1% floor, never a win; with the floor set to 0 it
// wins; a 2% difference wins either way.
func TestNegligibleFloor(t *testing.T) {
	s := compareSpec()
	for _, tc := range []struct {
		gain  float64
		floor *float64
		want  string
	}{
		{0.001, nil, Negligible},
		{0.001, f64(0), Agrees},
		{0.02, nil, Agrees},
		{0.02, f64(0.05), Negligible},
	} {
		c := uBetter()
		c.Floor = tc.floor
		rows := runsOf("makespan", true,
			cfgRuns{p("x=1", "node_select=u"), times(noisy, 1-tc.gain)},
			cfgRuns{p("x=1", "node_select=random"), noisy})
		if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != tc.want {
			t.Errorf("gain %g, floor %v: %s (%s), want %s", tc.gain, tc.floor, o.Class, o.Ours, tc.want)
		}
	}
}

// TestComparisonVerdicts: one case per class of a comparison, and the
// sign convention: the relative effect is (subject − base)/|base|
// whichever way is better.
func TestComparisonVerdicts(t *testing.T) {
	s := compareSpec()
	two := func(u, r [3]float64) []Row {
		var cs []cfgRuns
		for i := 0; i < 3; i++ {
			x := fmt.Sprint(i + 1)
			cs = append(cs, cfgRuns{p("x="+x, "node_select=u"), times(noisy[:5], u[i])}, cfgRuns{p("x="+x, "node_select=random"), times(noisy[:5], r[i])})
		}
		return runsOf("makespan", true, cs...)
	}
	for _, tc := range []struct {
		name   string
		u, r   [3]float64
		expect string
		want   string
	}{
		{"wins everywhere", [3]float64{0.5, 0.5, 0.5}, [3]float64{1, 1, 1}, "better", Agrees},
		{"1 win, 2 ties", [3]float64{0.5, 1, 1}, [3]float64{1, 1, 1}, "better", Partly},
		{"ties everywhere", [3]float64{1, 1, 1}, [3]float64{1, 1, 1}, "better", NoDifference},
		{"a loss", [3]float64{0.5, 0.5, 1.5}, [3]float64{1, 1, 1}, "better", Disagrees},
		{"loses, ties, then wins", [3]float64{1.2, 1, 0.5}, [3]float64{1, 1, 1}, "better-when-ample", Agrees},
		{"wins when scarce, ties when ample: the claim is about the ample end", [3]float64{0.5, 1, 1}, [3]float64{1, 1, 1}, "better-when-ample", Disagrees},
		{"wins when scarce, ties between, wins when ample", [3]float64{0.5, 1, 0.5}, [3]float64{1, 1, 1}, "better-when-ample", Partly},
		{"ends in a loss", [3]float64{0.5, 0.5, 1.2}, [3]float64{1, 1, 1}, "better-when-ample", Disagrees},
		{"the same: identical", [3]float64{1, 1, 1}, [3]float64{1, 1, 1}, "same", Agrees},
		{"the same: 30% apart", [3]float64{1, 1, 1.3}, [3]float64{1, 1, 1}, "same", Disagrees},
	} {
		c := uBetter()
		c.Expect = tc.expect
		o := only(t, Evaluate(s, &c, NewRowsData(two(tc.u, tc.r))))
		if o.Class != tc.want {
			t.Errorf("%s: %s (%s; %v), want %s", tc.name, o.Class, o.Ours, o.Details, tc.want)
		}
	}
	// u halves the makespan: −50%, the subject's change against the
	// base, though lower is better.
	c := uBetter()
	o := only(t, Evaluate(s, &c, NewRowsData(two([3]float64{0.5, 0.5, 0.5}, [3]float64{1, 1, 1}))))
	if o.Effect != "-50.0% (3 points)" {
		t.Errorf("effect %q, want -50.0%% (3 points)", o.Effect)
	}
	// And "higher is better" keeps the sign: QoS up by 10% is +10%.
	q := Claim{Metric: "makespan", Param: "node_select", Better: "u", Worse: "random", Expect: "better"}
	o = only(t, Evaluate(s, &q, NewRowsData(runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), times(noisy, 1.1)}, cfgRuns{p("x=1", "node_select=random"), noisy}))))
	if o.Class != Agrees || !strings.HasPrefix(o.Effect, "+10.0% ± ") {
		t.Errorf("higher is better: %s, %q", o.Class, o.Effect)
	}
}

// TestRemainingLevelSizeRule: sizes are compared by what remains, on a
// log scale: against the paper's −66.7% (a third remains), −99.9% and
// −10% are different sizes, −60% and −80% the same; a ratio of 1.21
// against the paper's 1.33 is the same size, 3.0 is not.
func TestRemainingLevelSizeRule(t *testing.T) {
	for _, tc := range []struct {
		r, R float64
		same bool
	}{
		{0.001, 1.0 / 3, false}, {0.9, 1.0 / 3, false}, {0.4, 1.0 / 3, true}, {0.2, 1.0 / 3, true},
		{1.21, 1.33, true}, {3.0, 1.33, false}, {1.05, 1.33, false},
		{0, 1.0 / 3, false}, {0, 0, true}, {0.3, 0, false},
	} {
		if got := SameSize(tc.r, tc.R); got != tc.same {
			t.Errorf("SameSize(%g, %g) = %v, want %v", tc.r, tc.R, got, tc.same)
		}
	}
	// In a trend claim: PP_DRRM keeps 0.1% where the paper keeps 33%.
	s := &Spec{Grid: map[string][]any{"flex": {0.1, 0.5, 0.9}, "policy": {"drrm"}}, Plot: PlotSpec{X: "flex"}}
	c := Claim{Metric: "pp", Trend: "decreasing", Change: f64(-0.667)}
	for _, tc := range []struct {
		last float64
		want string
	}{{0.001, DifferentSize}, {0, DifferentSize}, {0.4, Agrees}} {
		rows := runsOf("pp", true,
			cfgRuns{p("flex=0.1", "policy=drrm"), times(noisy[:5], 1)},
			cfgRuns{p("flex=0.5", "policy=drrm"), times(noisy[:5], (1+tc.last)/2)},
			cfgRuns{p("flex=0.9", "policy=drrm"), times(noisy[:5], tc.last)})
		if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != tc.want {
			t.Errorf("keeps %g of its level: %s (%s), want %s", tc.last, o.Class, o.Ours, tc.want)
		}
	}
	// In a comparison with the paper's ratio at one x.
	cs := compareSpec()
	r := Claim{Metric: "ap", Param: "node_select", Better: "u", Worse: "random", Expect: "better", Ratio: 1.33, At: 2}
	for _, tc := range []struct {
		ratio float64
		want  string
	}{{1.21, Agrees}, {3, DifferentSize}} {
		rows := runsOf("ap", true,
			cfgRuns{p("x=1", "node_select=u"), times(noisy, 5)}, cfgRuns{p("x=1", "node_select=random"), noisy},
			cfgRuns{p("x=2", "node_select=u"), times(noisy, tc.ratio)}, cfgRuns{p("x=2", "node_select=random"), noisy})
		if o := only(t, Evaluate(cs, &r, NewRowsData(rows))); o.Class != tc.want {
			t.Errorf("ratio %g at x=2 (5 at x=1, not the paper's point): %s (%s), want %s", tc.ratio, o.Class, o.Ours, tc.want)
		}
	}
}

// TestTrendPerSeries: trends are judged per series, over the series the
// claim names; a non-paper variant going the other way is shown, not
// judged. Without the list it decides the verdict.
func TestTrendPerSeries(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"nodes": {5, 25, 100}}, Policies: []string{"drrm", "srrm-r", "srrm-r-et"}, Plot: PlotSpec{X: "nodes"}}
	var cs []cfgRuns
	for _, pol := range []string{"drrm", "srrm-r", "srrm-r-et"} {
		for i, n := range []string{"5", "25", "100"} {
			f := 1 - 0.3*float64(i) // falls
			if pol == "srrm-r-et" {
				f = 1 + 0.3*float64(i) // the project's variant rises
			}
			cs = append(cs, cfgRuns{p("nodes="+n, "policy="+pol), times(noisy[:4], f)})
		}
	}
	data := NewRowsData(runsOf("pp", true, cs...))
	named := Claim{Metric: "pp", Trend: "decreasing", Series: []string{"drrm", "srrm-r"}}
	o := only(t, Evaluate(s, &named, data))
	if o.Class != Agrees || o.Ours != "decreasing in 2 of 2 series; judged: the claim's series (drrm, srrm-r)" {
		t.Errorf("named series: %s (%s)", o.Class, o.Ours)
	}
	shown := false
	for _, d := range o.Details {
		shown = shown || strings.HasPrefix(d, "srrm-r-et (not judged): 5→100") && strings.HasSuffix(d, "the opposite way beyond the CIs")
	}
	if !shown {
		t.Errorf("the variant's direction is not shown: %v", o.Details)
	}
	every := Claim{Metric: "pp", Trend: "decreasing"}
	if o := only(t, Evaluate(s, &every, data)); o.Class != Disagrees || o.Verdict != "disagrees (1 of 3 series the opposite way)" ||
		o.Ours != "decreasing in 2 of 3 series; the opposite way: srrm-r-et; judged: every series (drrm, srrm-r, srrm-r-et)" {
		t.Errorf("every series: %s (%s)", o.Class, o.Ours)
	}
	// A step back beyond the CIs is not a clean trend.
	back := runsOf("pp", true,
		cfgRuns{p("nodes=5", "policy=drrm"), times(noisy[:4], 1)},
		cfgRuns{p("nodes=25", "policy=drrm"), times(noisy[:4], 0.2)},
		cfgRuns{p("nodes=100", "policy=drrm"), times(noisy[:4], 0.5)})
	if o := only(t, Evaluate(s, &every, NewRowsData(back))); o.Class != Partly {
		t.Errorf("a fall with a step back: %s (%s)", o.Class, o.Ours)
	}
	flat := Claim{Metric: "pp", Trend: "flat", Floor: f64(0.05), Series: []string{"drrm"}}
	steady := runsOf("pp", true, cfgRuns{p("nodes=5", "policy=drrm"), noisy[:4]}, cfgRuns{p("nodes=100", "policy=drrm"), times(noisy[:4], 1.01)})
	if o := only(t, Evaluate(s, &flat, NewRowsData(steady))); o.Class != Agrees {
		t.Errorf("flat within 5%%: %s (%s)", o.Class, o.Ours)
	}
}

// readingsSpec sweeps u_update (a reading of the paper) beside the
// compared node selection.
const readingsSpec = `name: readings
description: Seed 009, readings
workload: {model: lublin, params: {nodes: 32}, jobs: 50}
platform: {nodes: 32}
policies: [easy]
instability: {model: published}
grid:
  platform.nodes: [16, 32]
  node_select: [u, random]
  instability.u_update: [delaying, all]
readings:
  - {param: instability.u_update, paper: all, source: "§2.2"}
replications: {count: 3}
seed: 1
metrics: [makespan, mean_response]
plot: {x: platform.nodes}
labels:
  quick:
    grid:
      platform.nodes: [16, 32]
      node_select: [u, random]
      instability.u_update: [delaying]
claims:
  - {claim: u wins, source: fig. 8, metric: makespan, param: node_select, better: u, worse: random, expect: better, lower_is_better: true}
`

// readingRows: u wins under u_update=all and loses under delaying.
func readingRows() []Row {
	var cs []cfgRuns
	for _, upd := range []string{"delaying", "all"} {
		for _, n := range []string{"16", "32"} {
			f := 0.8
			if upd == "delaying" {
				f = 1.2
			}
			cs = append(cs, cfgRuns{p("platform.nodes="+n, "node_select=u", "instability.u_update="+upd, "policy=easy"), times(noisy[:3], f)},
				cfgRuns{p("platform.nodes="+n, "node_select=random", "instability.u_update="+upd, "policy=easy"), noisy[:3]})
		}
	}
	return runsOf("makespan", true, cs...)
}

// TestReadingsAxis: a claim is evaluated under each reading, the paper's
// first, in one row; a reading not run at this label is "not run at this
// scale"; every reading agreeing gives one verdict.
func TestReadingsAxis(t *testing.T) {
	s := mustParse(t, readingsSpec, "")
	r := Evaluate(s, &s.Claims[0], NewRowsData(readingRows()))
	if r.Verdict != "agrees under u_update=all; disagrees (2 losses of 2 points) under u_update=delaying" {
		t.Errorf("verdict %q", r.Verdict)
	}
	if len(r.Outcomes) != 2 || r.Outcomes[0].Reading != "u_update=all" {
		t.Errorf("outcomes %+v: the paper's reading must come first", r.Outcomes)
	}
	row := claimRow(s, r)
	if !strings.HasPrefix(row[4], "u_update=all: 2 points: 2 wins, 0 ties, 0 losses; u_update=delaying: 2 points: 0 wins, 0 ties, 2 losses") {
		t.Errorf("ours cell %q", row[4])
	}
	// At the quick label only delaying runs: the paper's reading is not
	// run at this scale, and says so.
	q := mustParse(t, readingsSpec, "quick")
	var delaying []Row
	for _, row := range readingRows() {
		if row.Params["instability.u_update"] == "delaying" {
			delaying = append(delaying, row)
		}
	}
	r = Evaluate(q, &q.Claims[0], NewRowsData(delaying))
	if r.Verdict != "not run at this scale under u_update=all; disagrees (2 losses of 2 points) under u_update=delaying" {
		t.Errorf("quick verdict %q", r.Verdict)
	}
	// Metric readings: the same claim on two metrics, the paper's first.
	m := s.Claims[0]
	m.Metric = []any{"mean_response", "makespan"}
	rows := readingRows()
	for i := range rows {
		rows[i].Metrics["mean_response"] = rows[i].Metrics["makespan"]
		if rows[i].Params["node_select"] == "u" {
			rows[i].Metrics["mean_response"] *= 0.5
		}
	}
	r = Evaluate(s, &m, NewRowsData(rows))
	want := "agrees under [metric=mean_response, u_update=all], [metric=mean_response, u_update=delaying] and [metric=makespan, u_update=all]; disagrees (2 losses of 2 points) under metric=makespan, u_update=delaying"
	if r.Verdict != want {
		t.Errorf("metric readings: %q\nwant %q", r.Verdict, want)
	}
}

// TestByDistribution: a claim per trace window gives the distribution
// of its verdicts, never one window's verdict.
func TestByDistribution(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"workload.skip": {0, 100, 200}, "node_select": {"u", "random"}, "x": {1}}, Plot: PlotSpec{X: "x"}}
	c := uBetter()
	c.By = "workload.skip"
	var cs []cfgRuns
	for i, skip := range []string{"0", "100", "200"} {
		f := []float64{0.5, 1, 1}[i]
		cs = append(cs, cfgRuns{p("workload.skip="+skip, "x=1", "node_select=u"), times(noisy[:5], f)}, cfgRuns{p("workload.skip="+skip, "x=1", "node_select=random"), noisy[:5]})
	}
	o := only(t, Evaluate(s, &c, NewRowsData(runsOf("makespan", true, cs...))))
	if o.Class != Mixed || o.Verdict != "no difference detected in 2 of 3 skip values, agrees in 1" {
		t.Errorf("by: %s, %q", o.Class, o.Verdict)
	}
}

// TestBoundClaim: a metric at most a bound at every configuration (a KS
// statistic under its critical value).
func TestBoundClaim(t *testing.T) {
	s := compareSpec()
	for _, tc := range []struct {
		vals []float64
		want string
	}{
		{[]float64{0.008, 0.009, 0.0085}, Agrees},
		{[]float64{0.02, 0.021, 0.0205}, Disagrees},
		{[]float64{0.005, 0.02, 0.013}, Partly},
	} {
		c := Claim{Metric: "ks", AtMost: f64(0.0138)}
		o := only(t, Evaluate(s, &c, NewRowsData(runsOf("ks", true, cfgRuns{p("x=1"), tc.vals}, cfgRuns{p("x=2"), []float64{0.008, 0.009, 0.0085}}))))
		if o.Class != tc.want {
			t.Errorf("%v: %s (%s), want %s", tc.vals, o.Class, o.Ours, tc.want)
		}
	}
}

// TestClaimSpecErrors: a claim naming a value, policy or parameter the
// experiment does not sweep is a spec error at load, with its line and
// column; a value swept only at another label is not (it is "not run at
// this scale").
func TestClaimSpecErrors(t *testing.T) {
	base := strings.Split(readingsSpec, "claims:\n")[0] + "claims:\n"
	for _, tc := range []struct{ claim, want string }{
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: uu, worse: random, expect: better}\n",
			`spec.yaml:24:73: claims[0].better: "uu" is not a value of node_select in the sweep (values: u, random)`},
		{"  - {claim: c, source: s, metric: makespan, param: overrun, better: extend, worse: kill, expect: better}\n",
			`spec.yaml:24:52: claims[0].param: "overrun" is not a swept parameter of this experiment`},
		{"  - {claim: c, source: s, metric: makespan, trend: increasing, series: [easy, fcfs]}\n",
			`spec.yaml:24:79: claims[0].series[1]: "fcfs" is not a policy of the sweep (policies: easy)`},
		{"  - {claim: c, source: s, metric: makespan, trend: increasing, series: [node_select=v]}\n",
			`claims[0].series[0]: "v" is not a value of node_select in the sweep`},
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: better, by: workload.skip}\n",
			`claims[0].by: "workload.skip" is not a swept parameter`},
		{"  - {claim: c, source: s, metric: [makespan, nope], param: node_select, better: u, worse: random, expect: better}\n",
			`spec.yaml:24:35: claims[0].metric: unknown metric "nope"`},
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: better, ratio: 1.3, at: 64}\n",
			`claims[0].at: 64 is not a value of the x axis platform.nodes (values: 16, 32)`},
		{"  - {claim: c, source: s, metric: makespan, trend: upward}\n", `claims[0].trend: want increasing, decreasing or flat, got "upward"`},
		{"  - {claim: c, source: s, metric: makespan, trend: increasing, param: node_select, better: u, worse: random}\n", `claims[0]: a claim is a comparison`},
		{"  - {claim: c, source: s, metric: makespan, at_most: 0.1, floor: 2}\n", `claims[0].floor: 2 is out of range`},
	} {
		_, err := Parse("spec.yaml", []byte(base+tc.claim), "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %q", strings.TrimSpace(tc.claim), err, tc.want)
		}
	}
	bad := strings.Replace(readingsSpec, "{param: instability.u_update, paper: all", "{param: instability.u_updat, paper: all", 1)
	if _, err := Parse("spec.yaml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), `spec.yaml:12:13: readings[0].param: "instability.u_updat" is not a swept parameter`) {
		t.Errorf("reading of an unswept parameter: %v", err)
	}
	bad = strings.Replace(readingsSpec, "paper: all", "paper: every", 1)
	if _, err := Parse("spec.yaml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), `readings[0].paper: every is not a value of instability.u_update`) {
		t.Errorf("paper value not swept: %v", err)
	}
	// all is swept only without the label: valid at quick too.
	if _, err := Parse("spec.yaml", []byte(readingsSpec), "quick"); err != nil {
		t.Errorf("quick label: %v", err)
	}
}

// TestNotRunAtThisScale: a claim whose configurations do not exist at
// the runs' label is "not run at this scale", never "no difference".
func TestNotRunAtThisScale(t *testing.T) {
	s := compareSpec()
	c := uBetter()
	rows := runsOf("makespan", true, cfgRuns{p("x=1", "node_select=random"), noisy[:3]})
	if r := Evaluate(s, &c, NewRowsData(rows)); r.Verdict != NotRun {
		t.Errorf("only the base ran: %q", r.Verdict)
	}
	tr := Claim{Metric: "makespan", Trend: "increasing"}
	if r := Evaluate(s, &tr, NewRowsData(rows)); r.Verdict != NotRun {
		t.Errorf("one x value: %q", r.Verdict)
	}
}

// TestAggregatesRegenerateTheTables: the compact aggregates written
// from the runs answer every question of the claims and references: the
// table from the file is byte for byte the table from the runs; the file
// holds no per-run values; a claim changed since the file was written is
// reported, not answered with zeros.
func TestAggregatesRegenerateTheTables(t *testing.T) {
	s := mustParse(t, readingsSpec, "")
	s.References = []Reference{{Where: map[string]any{"platform.nodes": 16, "node_select": "u", "instability.u_update": "all"}, Metric: "makespan", Value: 100, Source: "fig. 8"}}
	rows := readingRows()
	info := AggInfo{Experiment: s.Name, Label: "", SpecHash: s.Hash(), Code: "test", Date: "2026-01-31"}
	f := BuildAggregates(s, rows, info)
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadAggFile("agg.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := g.Bytes()
	if string(b2) != string(b) {
		t.Errorf("write → read → write changed the file:\n%s\n---\n%s", b, b2)
	}
	fromRuns := ReproductionTables([]Experiment{{Spec: s, Data: NewRowsData(rows), Info: g.AggInfo}})[0].Markdown()
	fromFile := ReproductionTables([]Experiment{{Spec: s, Data: g, Info: g.AggInfo}})[0].Markdown()
	if fromRuns != fromFile {
		t.Errorf("the table from the aggregates differs from the table from the runs:\n%s\n---\n%s", fromRuns, fromFile)
	}
	if len(g.Missing()) != 0 {
		t.Errorf("missing answers: %v", g.Missing())
	}
	for _, want := range []string{"# experiment: readings\n", "# runs: 24\n", "# code: test\n", "kind,config,base,metric,n,mean,sd,base_mean,diff_mean,diff_sd,config_id,", "\npair,"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("aggregates lack %q:\n%s", want, b)
		}
	}
	if n := strings.Count(string(b), "\n"); n > 8+16+16+8+2 {
		t.Errorf("%d lines for 16 configurations: more than the rules need", n)
	}
	// The claim now compares another metric: the file cannot answer.
	s.Claims[0].Metric = "mean_response"
	ReproductionTables([]Experiment{{Spec: s, Data: g, Info: g.AggInfo}})
	if len(g.Missing()) == 0 {
		t.Error("a question the file cannot answer went unnoticed")
	}
	for _, bad := range []struct{ edit, want string }{
		{"stat,4,,makespan,3,", "stat,4,,makespan,x,"},
		{"# runs: 24", "# runs: many"},
	} {
		if _, err := ReadAggFile("agg.csv", []byte(strings.Replace(string(b), bad.edit, bad.want, 1))); err == nil || !strings.Contains(err.Error(), "agg.csv:") {
			t.Errorf("%q: %v", bad.want, err)
		}
	}
}

// TestSummaryMarkers: the generated summary goes between its markers
// (inserted after the title the first time), the prose below is kept,
// and a second run changes nothing.
func TestSummaryMarkers(t *testing.T) {
	doc := []byte("# Title\n\nProse.\n")
	a, err := WithSummary(doc, "002", "one\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\n" + SummaryBegin("002") + "one\n" + summaryEnd + "\nProse.\n"
	if string(a) != want {
		t.Fatalf("first insertion:\n%s\nwant\n%s", a, want)
	}
	b, err := WithSummary(a, "002", "two\nlines\n")
	if err != nil || string(b) != strings.Replace(want, "one\n", "two\nlines\n", 1) {
		t.Errorf("replacement: %v\n%s", err, b)
	}
	if _, err := WithSummary(a, "003", "x\n"); err == nil {
		t.Error("markers of another seed accepted")
	}
	if _, err := WithSummary([]byte("# T\n"+SummaryBegin("002")+"no end\n"), "002", "x\n"); err == nil {
		t.Error("a missing end marker accepted")
	}
}

// TestCommittedTablesRegenerate is the CI check of the committed
// verdicts: every reproduction table under docs/reproduction/quick and
// docs/reproduction/paper, and the summary at the top of every seed doc,
// is byte for byte what the committed aggregates and the built-in specs'
// claims give (gridsched verdicts --check). Each aggregates file stays
// well under 1 MB.
func TestCommittedTablesRegenerate(t *testing.T) {
	docs := filepath.Join("..", "docs")
	files, err := Regenerate(docs)
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for path, want := range files {
		have, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run gridsched verdicts)", path, err)
			continue
		}
		if string(have) != string(want) {
			t.Errorf("%s differs from what the committed aggregates give: run gridsched verdicts (or export the aggregates again from the stores)", path)
		}
		if strings.Contains(path, "reproduction-seed") {
			tables++
		}
	}
	if tables == 0 {
		t.Error("no reproduction table regenerated")
	}
	csvs, _ := filepath.Glob(filepath.Join(docs, "reproduction", "*", AggregatesDir, "*.csv"))
	for _, p := range csvs {
		if st, err := os.Stat(p); err != nil || st.Size() > 512<<10 {
			t.Errorf("%s: %v bytes, over 512 KiB", p, st.Size())
		}
	}
	for seed, doc := range SeedDocs {
		b, err := os.ReadFile(filepath.Join(docs, doc))
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(string(b), SummaryBegin(seed)); i < 0 || strings.Count(string(b[:i]), "\n") > 2 {
			t.Errorf("%s does not open with the generated summary of seed %s", doc, seed)
		}
	}
}

// TestSubjectAtErrors: pairing.subject_at names swept values of a
// parameter and pairs with one policy.
func TestSubjectAtErrors(t *testing.T) {
	doc := `name: cpe
workload: {model: gang, params: {q: 0.5, lambda: 2}, jobs: 200}
cloud: {migration: first-fit, xfactor: 10}
policies: [cloud-ljfs, cloud-afcfs]
pairing: {base: cloud-afcfs, for: [cloud-ljfs], relative: [{name: cpe_lt, metric: lease_time}], subject_at: {cloud.migration: worst-fit}}
zip:
  policy: [cloud-ljfs, cloud-afcfs]
  cloud.migration: [first-fit, best-fit]
replications: {count: 2}
seed: 1
metrics: [cpe_lt]
`
	if _, err := Parse("spec.yaml", []byte(doc), ""); err == nil || !strings.Contains(err.Error(), "spec.yaml:5:127: pairing.subject_at.cloud.migration: worst-fit is not a value of cloud.migration") {
		t.Errorf("a value not swept: %v", err)
	}
	ok := strings.Replace(doc, "worst-fit", "first-fit", 1)
	s, err := Parse("spec.yaml", []byte(ok), "")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Parse("spec.yaml", []byte(strings.Replace(ok, ", subject_at: {cloud.migration: first-fit}", "", 1)), "")
	if s.Hash() != plain.Hash() {
		t.Error("subject_at changes the spec hash (it changes no run)")
	}
	if _, err := Parse("spec.yaml", []byte(strings.Replace(ok, "for: [cloud-ljfs]", "for: []", 1)), ""); err == nil || !strings.Contains(err.Error(), "pairing.subject_at: pairs stored runs with the runs of one policy") {
		t.Errorf("subject_at without one for policy: %v", err)
	}
}

// TestSummaryFitsAScreen: a seed doc's summary shows SummaryRows claims
// and folds the rest.
func TestSummaryFitsAScreen(t *testing.T) {
	s := mustParse(t, readingsSpec, "")
	for len(s.Claims) < SummaryRows+5 {
		s.Claims = append(s.Claims, s.Claims[0])
	}
	rt := ReproductionTables([]Experiment{{Spec: s, Data: NewRowsData(readingRows()), Info: AggInfo{Experiment: s.Name, Label: "paper", Runs: 24}}})[0]
	sum := rt.Summary("reproduction/paper")
	open := strings.Index(sum, "<details><summary>5 more claims</summary>")
	if open < 0 || !strings.HasSuffix(sum, "</details>\n") {
		t.Fatalf("summary:\n%s", sum)
	}
	if n := strings.Count(sum[:open], "\n| fig. 8 |"); n != SummaryRows {
		t.Errorf("%d claims before the fold, want %d", n, SummaryRows)
	}
	if !strings.Contains(sum, "(paper scale: 1 experiment, 24 runs;") || strings.Contains(sum, "reduced-scale") {
		t.Errorf("summary header:\n%s", sum[:300])
	}
}

// TestZippedReadings: two readings zipped together are evaluated at the
// pairs the zip runs, not at every combination of their values (a pair
// the zip never makes is no reading, not "not run at this scale"), while
// a grid reading still crosses them.
func TestZippedReadings(t *testing.T) {
	s := &Spec{
		Grid:     map[string][]any{"node_select": {"u", "random"}, "x": {1, 2}, "g": {"a", "b"}},
		Zip:      map[string][]any{"d": {0, 0.1, 0.1}, "w": {"keep", "keep", "move"}},
		Labels:   map[string]Labels{"quick": {Grid: map[string][]any{"x": {1}}}},
		Readings: []Reading{{Param: "d", Paper: 0.1}, {Param: "w", Paper: "keep"}, {Param: "g"}},
	}
	c := uBetter()
	var configs []DataConfig
	for _, z := range [][2]string{{"0", "keep"}, {"0.1", "keep"}, {"0.1", "move"}} {
		for _, g := range []string{"a", "b"} {
			configs = append(configs, DataConfig{Params: map[string]string{"d": z[0], "w": z[1], "g": g, "node_select": "u", "x": "1"}})
		}
	}
	var got []string
	for _, cb := range readingCombos(s, &c, configs) {
		got = append(got, cb.label)
	}
	want := []string{"d=0.1, w=keep, g=a", "d=0.1, w=keep, g=b", "d=0.1, w=move, g=a", "d=0.1, w=move, g=b", "d=0, w=keep, g=a", "d=0, w=keep, g=b"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("reading combinations\n%q\nwant\n%q", got, want)
	}
	if !s.sweepable(map[string]string{"d": "0", "x": "2"}) || s.sweepable(map[string]string{"d": "0", "w": "move"}) {
		t.Error("sweepable: a grid value crosses the zip; the zip's unmade pair is not sweepable")
	}
}
