package experiment

// The verdict rules' corner cases: zips that repeat the compared value,
// a trend's range, flat over the whole range, a claim about one point,
// zeros, bad aggregates, paper numbers against the claim's direction,
// the interval's label and the floor against the CI.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var steady = []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100}

// TestZipRepeatedComparedValue: a zip that repeats the compared value
// (u and random each at x = 1 and 2) pairs each subject with the base at
// its own x, not with the last base of the zip. u beats random by 10%
// at both x, while random at x = 2 is twice random at x = 1.
func TestZipRepeatedComparedValue(t *testing.T) {
	s := &Spec{Zip: map[string][]any{"x": {1, 2, 1, 2}, "node_select": {"u", "u", "random", "random"}}, Plot: PlotSpec{X: "x"}}
	rows := runsOf("makespan", true,
		cfgRuns{p("x=1", "node_select=u"), times(steady, 0.9)},
		cfgRuns{p("x=2", "node_select=u"), times(steady, 1.8)},
		cfgRuns{p("x=1", "node_select=random"), steady},
		cfgRuns{p("x=2", "node_select=random"), times(steady, 2)})
	c := uBetter()
	o := only(t, Evaluate(s, &c, NewRowsData(rows)))
	if o.Class != Agrees || o.Effect != "-10.0% (2 points)" {
		t.Errorf("zip with repeated values: %s (%s; %s; %v), want agrees at -10%%", o.Class, o.Ours, o.Effect, o.Details)
	}
	// A partner that moves with the compared value (one migration rule
	// per policy) is not matched: it is named in the detail lines.
	s = &Spec{Zip: map[string][]any{"node_select": {"u", "random"}, "rule": {"first", "best"}}, Grid: map[string][]any{"x": {1, 2}}, Plot: PlotSpec{X: "x"}}
	rows = runsOf("makespan", true,
		cfgRuns{p("x=1", "node_select=u", "rule=first"), times(steady, 0.9)},
		cfgRuns{p("x=2", "node_select=u", "rule=first"), times(steady, 0.9)},
		cfgRuns{p("x=1", "node_select=random", "rule=best"), steady},
		cfgRuns{p("x=2", "node_select=random", "rule=best"), steady})
	o = only(t, Evaluate(s, &c, NewRowsData(rows)))
	if o.Class != Agrees || !strings.Contains(o.Details[0], "u (rule=first) ") || !strings.Contains(o.Details[0], "random (rule=best) ") {
		t.Errorf("moving partner: %s (%s; %v)", o.Class, o.Ours, o.Details)
	}
}

// TestCloudGangAlfPairsWithinQ: the built-in cloud-gang-fig23 zips q
// with each q's own λ (q = 0.25: 1.75–2.5; 0.5: 2–2.75; 0.75: 2.5–4), so
// λ = 2.5 occurs under q = 0.25 and q = 0.75. With a response that rises
// with λ within every q (100 − 40q + 10λ), figure 2's trend (by q)
// agrees under every reading, and each series runs over its own q's λ
// only.
func TestCloudGangAlfPairsWithinQ(t *testing.T) {
	s, err := LoadBuiltin("cloud-gang-fig23", "")
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for i, c := range s.Configs() {
		params := map[string]string{}
		for _, p := range c.Params {
			params[p.Key] = FormatValue(p.Value)
		}
		q, l := parseNum(params["workload.params.q"]), parseNum(params["workload.params.lambda"])
		for r := 0; r < 5; r++ {
			rows = append(rows, Row{ConfigIndex: i, ConfigID: c.ID, Params: params, Rep: r, Seed: string(rune('a' + r)),
				Metrics: map[string]float64{"mean_response": 100 - 40*q + 10*l + float64(r)}})
		}
	}
	c := &s.Claims[0]
	if c.Trend != "increasing" || c.By != "workload.params.q" {
		t.Fatalf("claim 0 is not figure 2's trend by q: %+v", c)
	}
	res := Evaluate(s, c, NewRowsData(rows))
	if len(res.Outcomes) != 6 {
		t.Errorf("%d readings, want 6 (ALF 1, 2, 4 × two monitors)", len(res.Outcomes))
	}
	for _, o := range res.Outcomes {
		if o.Class != Agrees || o.Verdict != "agrees (3 of 3 q values)" {
			t.Errorf("%s under %s: %s (%s), want agrees in every q", c.Claim, o.Reading, o.Class, o.Verdict)
		}
	}
	ends := map[string]string{"0.25": "1.75→2.5", "0.5": "2→2.75", "0.75": "2.5→4"}
	seen := 0
	for _, o := range res.Outcomes {
		for _, d := range o.Details {
			for q, span := range ends {
				if strings.Contains(d, "q="+q+": ") && strings.Contains(d, "→") {
					seen++
					if !strings.Contains(d, "q="+q+": "+span+": ") {
						t.Errorf("a series of q = %s not over its own λ (%s): %s", q, span, d)
					}
				}
			}
		}
	}
	if seen == 0 {
		t.Errorf("no series detail names its q: %+v", res.Outcomes)
	}
}

// TestAmbiguousZipPairingIsASpecError: a subject with two candidate
// bases in the zip (u at x = 1 against random at x = 1 and x = 1 again,
// told apart by nothing) is refused at load.
func TestAmbiguousZipPairingIsASpecError(t *testing.T) {
	spec := strings.Replace(readingsSpec, "  node_select: [u, random]\n  instability.u_update: [delaying, all]\n",
		"  instability.u_update: [delaying, all]\nzip:\n  node_select: [u, random, random]\n  workload.params.load: [1, 1, 1]\n", 1)
	_, err := Parse("spec.yaml", []byte(spec), "")
	if err == nil || !strings.Contains(err.Error(), "claims[0].param: ambiguous pairing") {
		t.Errorf("ambiguous zip pairing: %v", err)
	}
}

// earlyRise is TPC_DRRM's shape (§3.2): a small rise from 5 to 10, then a
// steady fall.
func earlyRise() (*Spec, Data) {
	s := &Spec{Grid: map[string][]any{"nodes": {5, 10, 25, 50, 75, 100}}, Policies: []string{"drrm"}, Plot: PlotSpec{X: "nodes"}}
	var cs []cfgRuns
	for i, f := range []float64{404, 467, 300, 142, 65, 34} {
		cs = append(cs, cfgRuns{p("nodes="+[]string{"5", "10", "25", "50", "75", "100"}[i], "policy=drrm"), times(steady, f/100)})
	}
	return s, NewRowsData(runsOf("tpc", true, cs...))
}

// TestTrendFrom: from: says where the paper's trend starts. Over the
// whole axis the rise 5→10 is a step back (partly); from 10 the trend
// agrees, the rise before it shown, not judged; the size is judged over
// the claim's range.
func TestTrendFrom(t *testing.T) {
	s, data := earlyRise()
	whole := Claim{Metric: "tpc", Trend: "decreasing", Series: []string{"drrm"}}
	if o := only(t, Evaluate(s, &whole, data)); o.Class != Partly {
		t.Errorf("over the whole axis: %s (%s), want partly", o.Class, o.Ours)
	}
	from := Claim{Metric: "tpc", Trend: "decreasing", Series: []string{"drrm"}, From: 10, Change: f64(34.0/467 - 1)}
	o := only(t, Evaluate(s, &from, data))
	if o.Class != Agrees || !strings.Contains(o.Ours, "over nodes 10→100") || !strings.Contains(o.Ours, "last/first 0.0728") {
		t.Errorf("from 10: %s (%s), want agrees over 10→100", o.Class, o.Ours)
	}
	if !strings.Contains(o.Details[0], "5→10 (before the claim's range): +15.6%") {
		t.Errorf("the rise before the range is not shown: %v", o.Details)
	}
	to := Claim{Metric: "tpc", Trend: "increasing", Series: []string{"drrm"}, To: 10}
	if o := only(t, Evaluate(s, &to, data)); o.Class != Agrees {
		t.Errorf("to 10: %s (%s)", o.Class, o.Ours)
	}
	base := strings.Split(readingsSpec, "claims:\n")[0] + "claims:\n"
	for _, tc := range []struct{ claim, want string }{
		{"  - {claim: c, source: s, metric: makespan, trend: decreasing, from: 20}\n", "claims[0].from: 20 is not a value of the x axis platform.nodes (values: 16, 32)"},
		{"  - {claim: c, source: s, metric: makespan, trend: decreasing, from: 32, to: 16}\n", "claims[0].to: the claim's range 32→16 along platform.nodes is empty"},
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, from: 16}\n", "claims[0]: series, change, from and to belong to trends"},
	} {
		if _, err := Parse("spec.yaml", []byte(base+tc.claim), ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", strings.TrimSpace(tc.claim), err, tc.want)
		}
	}
}

// TestTrendSizeOverAShorterRange: a series that misses the first x of
// the paper's range at this label has its direction judged, not its
// size against the paper's whole-range change.
func TestTrendSizeOverAShorterRange(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"flex": {0.1, 0.5, 0.9}}, Policies: []string{"drrm"}, Plot: PlotSpec{X: "flex"}}
	c := Claim{Metric: "pp", Trend: "decreasing", Change: f64(-0.667)}
	rows := runsOf("pp", true, cfgRuns{p("flex=0.5", "policy=drrm"), steady}, cfgRuns{p("flex=0.9", "policy=drrm"), times(steady, 0.1)})
	o := only(t, Evaluate(s, &c, NewRowsData(rows)))
	if o.Class != Agrees || !strings.Contains(o.Ours, "size not judged in 1 series that do not span 0.1→0.9") {
		t.Errorf("0.5→0.9 only against the paper's 0.1→0.9: %s (%s)", o.Class, o.Ours)
	}
}

// TestFlatOverTheWholeRange: "fluctuates by less than 5%" checks every
// point against the first, not only the ends: a +50% bump in the middle
// is not flat.
func TestFlatOverTheWholeRange(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"nodes": {5, 25, 100}}, Policies: []string{"srrm-r"}, Plot: PlotSpec{X: "nodes"}}
	c := Claim{Metric: "pp", Trend: "flat", Floor: f64(0.05), Series: []string{"srrm-r"}}
	for _, tc := range []struct {
		mid  float64
		want string
	}{{1.5, Disagrees}, {1.02, Agrees}} {
		rows := runsOf("pp", true,
			cfgRuns{p("nodes=5", "policy=srrm-r"), steady},
			cfgRuns{p("nodes=25", "policy=srrm-r"), times(steady, tc.mid)},
			cfgRuns{p("nodes=100", "policy=srrm-r"), times(steady, 1.01)})
		o := only(t, Evaluate(s, &c, NewRowsData(rows)))
		if o.Class != tc.want {
			t.Errorf("middle ×%g: %s (%s; %v), want %s", tc.mid, o.Class, o.Ours, o.Details, tc.want)
		}
		if tc.want == Disagrees && !strings.Contains(o.Details[0], "5→25 (the first change beyond the floor, from 5)") {
			t.Errorf("the deciding point is not shown: %v", o.Details)
		}
	}
}

// TestRatioAtItsPoint: a claim about one x ("0.684 at σ = 0.4": at_only)
// is judged at that x; the other points are shown, not judged (a loss
// elsewhere does not decide it). A general statement with the paper's
// ratio at one x ("far below", 0.224 at 25) is judged at every point,
// its size at at: only.
func TestRatioAtItsPoint(t *testing.T) {
	s := compareSpec()
	c := Claim{Metric: "eta", Param: "node_select", Better: "u", Worse: "random", Expect: "better", LowerIsBetter: true, Ratio: 0.684, At: 2, AtOnly: true}
	rows := runsOf("eta", true,
		cfgRuns{p("x=1", "node_select=u"), times(steady, 1.2)}, cfgRuns{p("x=1", "node_select=random"), steady},
		cfgRuns{p("x=2", "node_select=u"), times(steady, 0.684)}, cfgRuns{p("x=2", "node_select=random"), steady},
		cfgRuns{p("x=3", "node_select=u"), steady}, cfgRuns{p("x=3", "node_select=random"), steady})
	o := only(t, Evaluate(s, &c, NewRowsData(rows)))
	if o.Class != Agrees || !strings.HasPrefix(o.Ours, "1 point at x = 2 (2 more shown, not judged): 1 win") {
		t.Errorf("the paper's point x=2 matches exactly: %s (%s)", o.Class, o.Ours)
	}
	notJudged := 0
	for _, d := range o.Details {
		if strings.Contains(d, "(context: the claim is about x = 2)") {
			notJudged++
		}
	}
	if notJudged != 2 {
		t.Errorf("the other points are not shown as context: %v", o.Details)
	}
	general := c
	general.AtOnly = false
	if o := only(t, Evaluate(s, &general, NewRowsData(rows))); o.Class != Disagrees || !strings.HasPrefix(o.Ours, "3 points: 1 win, 1 tie, 1 loss; ratio 0.684 (paper 0.684)") {
		t.Errorf("a general statement: %s (%s), want disagrees (the loss at x=1), ratio at x=2", o.Class, o.Ours)
	}
	base := strings.Split(readingsSpec, "claims:\n")[0] + "claims:\n"
	bad := "  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: better, at_only: true}\n"
	if _, err := Parse("spec.yaml", []byte(base+bad), ""); err == nil || !strings.Contains(err.Error(), "claims[0].at_only: a claim about one point names it: at_only needs at:") {
		t.Errorf("at_only without at: %v", err)
	}
	// At a label without that x: not run at this scale.
	rows = runsOf("eta", true, cfgRuns{p("x=1", "node_select=u"), steady}, cfgRuns{p("x=1", "node_select=random"), steady})
	if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != NotRun || o.Ours != "no run at the claim's point x = 2" {
		t.Errorf("without the claim's point: %s (%s)", o.Class, o.Ours)
	}
}

// TestZerosAreTheSame: a claim of no difference, or a flat trend, over
// a metric that is exactly 0 on both sides agrees (a difference of 0 ± 0).
func TestZerosAreTheSame(t *testing.T) {
	zeros := make([]float64, 10)
	c := uBetter()
	c.Expect = "same"
	rows := runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), zeros}, cfgRuns{p("x=1", "node_select=random"), zeros})
	if o := only(t, Evaluate(compareSpec(), &c, NewRowsData(rows))); o.Class != Agrees {
		t.Errorf("identical zeros: %s (%s)", o.Class, o.Ours)
	}
	s := &Spec{Grid: map[string][]any{"nodes": {5, 100}}, Policies: []string{"a"}, Plot: PlotSpec{X: "nodes"}}
	tr := Claim{Metric: "pp", Trend: "flat"}
	rows = runsOf("pp", true, cfgRuns{p("nodes=5", "policy=a"), zeros}, cfgRuns{p("nodes=100", "policy=a"), zeros})
	if o := only(t, Evaluate(s, &tr, NewRowsData(rows))); o.Class != Agrees {
		t.Errorf("flat zeros: %s (%s)", o.Class, o.Ours)
	}
}

// TestZeroBase: against a base of exactly 0 a relative effect has no
// size, so a floating-point crumb (1e-9) is not a loss; abs_floor (the
// metric's unit) judges such points.
func TestZeroBase(t *testing.T) {
	zeros := make([]float64, 10)
	tiny, one := make([]float64, 10), make([]float64, 10)
	for i := range tiny {
		tiny[i], one[i] = 1e-9, 1+float64(i%2)/10
	}
	for _, tc := range []struct {
		subject []float64
		abs     *float64
		want    string
		ours    string
	}{
		{tiny, nil, NoDifference, "1 against a base of 0 (no relative size; set abs_floor)"},
		{tiny, f64(1e-6), Negligible, "1 negligible (CI within ±1.0% or ±1.000e-06)"},
		{one, f64(0.5), Disagrees, "0 wins, 0 ties, 1 loss"},
	} {
		c := uBetter()
		c.AbsFloor = tc.abs
		rows := runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), tc.subject}, cfgRuns{p("x=1", "node_select=random"), zeros})
		o := only(t, Evaluate(compareSpec(), &c, NewRowsData(rows)))
		if o.Class != tc.want || !strings.Contains(o.Ours, tc.ours) || !strings.Contains(o.Effect, "relative effect – (base 0; difference") {
			t.Errorf("base 0, subject %g, abs_floor %v: %s (%s; %s), want %s (%s)", tc.subject[0], tc.abs, o.Class, o.Ours, o.Effect, tc.want, tc.ours)
		}
	}
}

// TestAggregatesRefuseBadNumbers: an aggregates file with a non-finite
// number, a negative sd, a second row of one question, a diff_mean that
// is not mean − base_mean, or a pair mean that is not its subject's mean
// is refused with the line, never read into a verdict.
func TestAggregatesRefuseBadNumbers(t *testing.T) {
	s := mustParse(t, readingsSpec+"  - {claim: t, source: s, metric: makespan, trend: increasing}\n", "")
	f := BuildAggregates(s, readingRows(), AggInfo{Experiment: s.Name, Code: "t", Date: "2026-01-01"})
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAggFile("agg.csv", b); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	lines := strings.Split(string(b), "\n")
	edit := func(kind string, col int, v string) string {
		out := append([]string(nil), lines...)
		for i, l := range out {
			if strings.HasPrefix(l, kind+",") {
				cells := strings.Split(l, ",")
				cells[col] = v
				out[i] = strings.Join(cells, ",")
				break
			}
		}
		return strings.Join(out, "\n")
	}
	dup := func(kind string) string {
		for i, l := range lines {
			if strings.HasPrefix(l, kind+",") {
				return strings.Join(append(append(append([]string(nil), lines[:i+1]...), l), lines[i+1:]...), "\n")
			}
		}
		return ""
	}
	for _, tc := range []struct{ name, data, want string }{
		{"diff_sd NaN", edit("pair", 9, "NaN"), "diff_sd: want a finite number"},
		{"diff_sd Inf", edit("pair", 9, "Inf"), "diff_sd: want a finite number"},
		{"diff_sd negative", edit("pair", 9, "-5"), "diff_sd: a standard deviation is not negative"},
		{"sd negative", edit("stat", 6, "-1"), "sd: a standard deviation is not negative"},
		{"mean NaN", edit("stat", 5, "NaN"), "mean: want a finite number"},
		{"diff_mean edited", edit("pair", 8, "-1"), "is not mean − base_mean"},
		{"pair mean edited", edit("pair", 5, "1"), "is not mean − base_mean"},
		{"a second stat row", dup("stat"), "a second stat row"},
		{"a second pair row", dup("pair"), "a second pair row"},
	} {
		_, err := ReadAggFile("agg.csv", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "agg.csv:") {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// TestLeftoverTables: a reproduction table no aggregates give (a seed
// whose aggregates were removed, a stray copy) is listed, so the check
// reports it and a regeneration removes it.
func TestLeftoverTables(t *testing.T) {
	docs := t.TempDir()
	dir := filepath.Join(docs, "reproduction", "paper")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"reproduction-seed000.md", "reproduction-seed009.md", "notes.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	left, err := Leftovers(docs, map[string][]byte{filepath.Join(dir, "reproduction-seed000.md"): nil})
	if err != nil || len(left) != 1 || filepath.Base(left[0]) != "reproduction-seed009.md" {
		t.Errorf("leftovers %v (%v), want reproduction-seed009.md only", left, err)
	}
}

// TestPaperNumbersAgainstTheClaimsDirection: a paper ratio or change
// that goes against the claim's own direction can only ever read "same
// direction, different size": a spec error at load.
func TestPaperNumbersAgainstTheClaimsDirection(t *testing.T) {
	base := strings.Split(readingsSpec, "claims:\n")[0] + "claims:\n"
	for _, tc := range []struct{ claim, want string }{
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: better, lower_is_better: true, ratio: 1.5}\n",
			"claims[0].ratio: the paper's ratio u/random = 1.5 is not below 1"},
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: better, ratio: 0.5}\n",
			"claims[0].ratio: the paper's ratio u/random = 0.5 is not above 1"},
		{"  - {claim: c, source: s, metric: makespan, param: node_select, better: u, worse: random, expect: same, ratio: 0.9}\n",
			"claims[0].ratio: a claim of no difference (expect: same) has no ratio"},
		{"  - {claim: c, source: s, metric: makespan, trend: decreasing, change: 0.5}\n",
			"claims[0].change: the paper's change +50.0% goes against the claim's trend (decreasing)"},
		{"  - {claim: c, source: s, metric: makespan, trend: increasing, change: -0.5}\n",
			"claims[0].change: the paper's change -50.0% goes against the claim's trend (increasing)"},
	} {
		if _, err := Parse("spec.yaml", []byte(base+tc.claim), ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", strings.TrimSpace(tc.claim), err, tc.want)
		}
	}
}

// TestIntervalLabels: one replication says so ("one replication, no
// CI"); replications that give the same difference every time say
// "exact (sd 0)", not a paired t of independent draws.
func TestIntervalLabels(t *testing.T) {
	c := uBetter()
	rows := runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), []float64{90}}, cfgRuns{p("x=1", "node_select=random"), []float64{100}})
	if o := only(t, Evaluate(compareSpec(), &c, NewRowsData(rows))); o.Test != "n=1 (one replication, no CI)" || o.Class != NotEnough {
		t.Errorf("one replication: %q %s", o.Test, o.Class)
	}
	rows = runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), []float64{90, 90}}, cfgRuns{p("x=1", "node_select=random"), []float64{100, 100}})
	if o := only(t, Evaluate(compareSpec(), &c, NewRowsData(rows))); o.Test != "exact (sd 0), n=2" || o.Class != Agrees {
		t.Errorf("identical replications: %q %s", o.Test, o.Class)
	}
	if got := joinTests([]string{"exact (sd 0), n=2", "paired t, n=10", "paired t, n=20", "exact (sd 0), n=3"}); got != "paired t, n=10–20 (2); exact (sd 0), n=2–3 (2)" {
		t.Errorf("joinTests: %q", got)
	}
}

// TestFloorJudgesTheCI: a win needs its whole CI beyond the floor:
// −1.4% ± 1.4% against a 1% floor is undetermined, not a win (and the
// verdict says it lies beyond 0); a CI
// within the floor is negligible; one wholly beyond it is a win. The
// verdict counts the points that decide it.
func TestFloorJudgesTheCI(t *testing.T) {
	c := uBetter()
	base := []float64{100, 100, 100, 100, 100}
	for _, tc := range []struct {
		sub  []float64
		want string
		ours string
	}{
		{[]float64{97.2, 99.9, 98.0, 99.5, 98.4}, NoDifference, "1 undetermined (CI straddles ±1.0%)"},
		{[]float64{99.7, 99.6, 99.8, 99.7, 99.7}, Negligible, "1 negligible (CI within ±1.0%)"},
		{[]float64{95, 95.2, 94.9, 95.1, 95}, Agrees, "1 point: 1 win"},
	} {
		rows := runsOf("makespan", true, cfgRuns{p("x=1", "node_select=u"), tc.sub}, cfgRuns{p("x=1", "node_select=random"), base})
		o := only(t, Evaluate(compareSpec(), &c, NewRowsData(rows)))
		if o.Class != tc.want || !strings.Contains(o.Ours, tc.ours) {
			t.Errorf("%v: %s (%s; %s), want %s (%s)", tc.sub, o.Class, o.Ours, o.Effect, tc.want, tc.ours)
		}
		// An undetermined point differs from 0: the verdict says so
		// rather than a bare "no difference detected".
		if undet := tc.want == NoDifference; undet != strings.Contains(o.Verdict, "(but 1 of 1 point beyond 0, by a size its CI leaves undetermined)") {
			t.Errorf("%v: verdict %q", tc.sub, o.Verdict)
		}
	}
	// The verdict says how many points decide it (no multiplicity
	// control: a reader sees one loss among many).
	var cs []cfgRuns
	for i, f := range []float64{0.9, 0.9, 1.1} {
		x := "x=" + string(rune('1'+i))
		cs = append(cs, cfgRuns{p(x, "node_select=u"), times(steady, f)}, cfgRuns{p(x, "node_select=random"), steady})
	}
	if r := Evaluate(compareSpec(), &c, NewRowsData(runsOf("makespan", true, cs...))); r.Verdict != "disagrees (1 loss of 3 points)" {
		t.Errorf("verdict %q", r.Verdict)
	}
}

// TestTallyIgnoresReadingsNotRun: a reading not run at this scale is no
// verdict, so a claim whose readings that ran agree on one class counts
// in that class (it was counted as "depends on the reading"); only a
// claim none of whose readings ran counts as not run.
func TestTallyIgnoresReadingsNotRun(t *testing.T) {
	o := func(c string) Outcome { return Outcome{Class: c} }
	for _, c := range []struct {
		outs []Outcome
		want string
	}{
		{[]Outcome{o(Agrees), o(NotRun)}, Agrees},
		{[]Outcome{o(NotRun), o(Disagrees), o(Disagrees)}, Disagrees},
		{[]Outcome{o(Agrees), o(Disagrees), o(NotRun)}, "depends on the reading"},
		{[]Outcome{o(NotRun), o(NotRun)}, NotRun},
		{[]Outcome{o(Partly)}, Partly},
	} {
		if got := claimClass(c.outs); got != c.want {
			t.Errorf("claimClass(%v) = %q, want %q", c.outs, got, c.want)
		}
	}
}

// cells are n configurations (x = 1…n) of a metric near v: two
// replications, v ± spread.
func cells(m string, spread float64, vs ...float64) []Row {
	var cs []cfgRuns
	for i, v := range vs {
		cs = append(cs, cfgRuns{p(fmt.Sprintf("x=%d", i+1)), []float64{v - spread, v + spread}})
	}
	return runsOf(m, true, cs...)
}

// TestBoundShare: a bound at the paper's share of the configurations
// ("negative in 43 of 48 cells"). One point of four above 0 with a
// tiny CI (two replications that happened to agree) refutes "every
// cell ≤ 0" but not the paper's share; three of four above do (their
// probability at the paper's share of exceptions is 0.4%); 43 of 48
// below agree with the share and not with "every cell".
func TestBoundShare(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"x": {1, 2}}, Plot: PlotSpec{X: "x"}}
	every := Claim{Metric: "cpe", AtMost: f64(0)}
	share := Claim{Metric: "cpe", AtMost: f64(0), Share: f64(43.0 / 48)}
	one := cells("cpe", 1e-5, -0.05, -0.04, -0.06, 0.0069)
	if o := only(t, Evaluate(s, &every, NewRowsData(one))); o.Class != Disagrees {
		t.Errorf("every cell, one above: %s (%s), want %s", o.Class, o.Ours, Disagrees)
	}
	if o := only(t, Evaluate(s, &share, NewRowsData(one))); o.Class != Partly || !strings.Contains(o.Ours, "4 of 4 at the paper's share 0.896 needed") {
		t.Errorf("share, one of four above: %s (%s), want %s", o.Class, o.Ours, Partly)
	}
	three := cells("cpe", 1e-5, -0.05, 0.04, 0.06, 0.0069)
	if o := only(t, Evaluate(s, &share, NewRowsData(three))); o.Class != Disagrees || o.Verdict != "disagrees (3 of 4 configurations beyond)" {
		t.Errorf("share, three of four above: %s, want disagrees", o.Verdict)
	}
	var vs []float64
	for i := 0; i < 48; i++ {
		v := -0.03
		if i%10 == 9 {
			v = 0.01 // 5 of 48 above 0, as in the paper's table 1
		}
		vs = append(vs, v)
	}
	paper := cells("cpe", 1e-5, vs...)
	if o := only(t, Evaluate(s, &share, NewRowsData(paper))); o.Class != Agrees {
		t.Errorf("share, 43 of 48 below: %s (%s), want %s", o.Class, o.Ours, Agrees)
	}
	if o := only(t, Evaluate(s, &every, NewRowsData(paper))); o.Class != Disagrees {
		t.Errorf("every cell, 43 of 48 below: %s, want %s", o.Class, Disagrees)
	}
	// Undetermined points (CIs across 0) are no evidence either way.
	wide := cells("cpe", 0.2, -0.01, 0.01, 0.02, 0.0)
	if o := only(t, Evaluate(s, &share, NewRowsData(wide))); o.Class != NoDifference {
		t.Errorf("share, wide CIs: %s (%s), want %s", o.Class, o.Ours, NoDifference)
	}
	if _, err := Parse("spec.yaml", []byte(strings.Replace(readingsSpec, "expect: better, lower_is_better: true}", "expect: better, lower_is_better: true, share: 0.9}", 1)), ""); err == nil || !strings.Contains(err.Error(), "claims[0].share: share belongs to bounds") {
		t.Errorf("share on a comparison: %v", err)
	}
}

// TestBinomialTail checks the tail against sums worked out by hand.
func TestBinomialTail(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		p    float64
		want float64
	}{
		{4, 1, 0.5, 15.0 / 16}, {4, 4, 0.5, 1.0 / 16}, {4, 0, 0.3, 1}, {4, 5, 0.3, 0}, {4, 1, 0, 0},
		{4, 3, 5.0 / 48, 4*math.Pow(5.0/48, 3)*(43.0/48) + math.Pow(5.0/48, 4)},
	} {
		if got := binomialTail(tc.n, tc.k, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("P(Bin(%d, %g) ≥ %d) = %g, want %g", tc.n, tc.p, tc.k, got, tc.want)
		}
	}
}

// TestBoundInterval: at_least and at_most together bound an interval
// ("negligible": |CPE| ≤ 0.05); a point is within only when its whole CI
// is, beyond when its whole CI is outside.
func TestBoundInterval(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"x": {1, 2}}, Plot: PlotSpec{X: "x"}}
	c := Claim{Metric: "cpe", AtLeast: f64(-0.05), AtMost: f64(0.05)}
	if o := only(t, Evaluate(s, &c, NewRowsData(cells("cpe", 0.001, -0.03, 0.02, 0.0)))); o.Class != Agrees || !strings.HasPrefix(o.Ours, "within [-0.05, 0.05] at 3 of 3") {
		t.Errorf("all within: %s (%s)", o.Class, o.Ours)
	}
	if o := only(t, Evaluate(s, &c, NewRowsData(cells("cpe", 0.001, -0.03, -0.2)))); o.Class != Disagrees {
		t.Errorf("one below the interval: %s (%s), want %s", o.Class, o.Ours, Disagrees)
	}
	if o := only(t, Evaluate(s, &c, NewRowsData(cells("cpe", 0.001, 0.03, 0.2)))); o.Class != Disagrees {
		t.Errorf("one above the interval: %s (%s), want %s", o.Class, o.Ours, Disagrees)
	}
	if o := only(t, Evaluate(s, &c, NewRowsData(cells("cpe", 0.001, 0.03, 0.045)))); o.Class != Partly {
		t.Errorf("one straddling the bound: %s (%s), want %s", o.Class, o.Ours, Partly)
	}
	lower := Claim{Metric: "cpe", AtLeast: f64(0)}
	if o := only(t, Evaluate(s, &lower, NewRowsData(cells("cpe", 0.001, 0.03, 0.02)))); o.Class != Agrees {
		t.Errorf("at least 0: %s (%s), want %s", o.Class, o.Ours, Agrees)
	}
	bad := strings.Replace(readingsSpec, "  - {claim: u wins, source: fig. 8, metric: makespan, param: node_select, better: u, worse: random, expect: better, lower_is_better: true}",
		"  - {claim: small, source: fig. 8, metric: makespan, at_least: 5, at_most: 5}", 1)
	if _, err := Parse("spec.yaml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), "claims[0].at_least: the bounds leave nothing between them") {
		t.Errorf("empty interval: %v", err)
	}
}

// TestNegatedMetricReading: a metric named with a leading minus is a
// reading of the metric's sign (Δ = (A − B)/A or (B − A)/A): a bound
// "≤ 0" that holds under the metric fails under its negation, and a
// comparison's relative effect changes sign.
func TestNegatedMetricReading(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"x": {1, 2}}, Plot: PlotSpec{X: "x"}}
	c := Claim{Metric: []any{"cpe", "-cpe"}, AtMost: f64(0)}
	res := Evaluate(s, &c, NewRowsData(cells("cpe", 0.001, -0.03, -0.02)))
	if len(res.Outcomes) != 2 || res.Outcomes[0].Class != Agrees || res.Outcomes[1].Class != Disagrees ||
		res.Verdict != "agrees under metric=cpe; disagrees (2 of 2 configurations above) under metric=-cpe" {
		t.Errorf("negated bound: %s (%+v)", res.Verdict, res.Outcomes)
	}
	cs := compareSpec()
	cmp := uBetter()
	cmp.Metric = []any{"makespan", "-makespan"}
	rows := runsOf("makespan", true,
		cfgRuns{p("x=1", "node_select=u"), times(steady, 0.9)},
		cfgRuns{p("x=1", "node_select=random"), steady})
	res = Evaluate(cs, &cmp, NewRowsData(rows))
	if res.Outcomes[0].Class != Agrees || res.Outcomes[1].Class != Disagrees || !strings.HasPrefix(res.Outcomes[1].Effect, "+10.0%") {
		t.Errorf("negated comparison: %s (%s / %s)", res.Verdict, res.Outcomes[0].Effect, res.Outcomes[1].Effect)
	}
	bad := strings.Replace(readingsSpec, "metric: makespan, param", "metric: [makespan, -nosuch], param", 1)
	if _, err := Parse("spec.yaml", []byte(bad), ""); err == nil || !strings.Contains(err.Error(), `unknown metric "-nosuch"`) {
		t.Errorf("negated unknown metric: %v", err)
	}
}

// TestClaimWhere: where restricts a claim to some configurations (a
// statement about "p = 0.5 and 0.75"): a loss at another value does not
// count; where may not name the compared parameter or a reading, and
// its values must be swept.
func TestClaimWhere(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"x": {1, 2}, "q": {0.25, 0.5}, "node_select": {"u", "random"}}, Plot: PlotSpec{X: "x"}}
	var cs []cfgRuns
	for _, q := range []string{"0.25", "0.5"} {
		f := 0.9
		if q == "0.25" {
			f = 1.2
		}
		for _, x := range []string{"1", "2"} {
			cs = append(cs, cfgRuns{p("x="+x, "q="+q, "node_select=u"), times(steady, f)}, cfgRuns{p("x="+x, "q="+q, "node_select=random"), steady})
		}
	}
	rows := runsOf("makespan", true, cs...)
	c := uBetter()
	if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != Disagrees {
		t.Errorf("every q: %s (%s), want %s", o.Class, o.Ours, Disagrees)
	}
	c.Where = map[string]any{"q": []any{0.5}}
	if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != Agrees || o.Effect != "-10.0% (2 points)" {
		t.Errorf("where q = 0.5: %s (%s), want agrees at -10%%", o.Class, o.Effect)
	}
	c.Where = map[string]any{"q": 0.75}
	if o := only(t, Evaluate(s, &c, NewRowsData(rows))); o.Class != NotRun {
		t.Errorf("where q = 0.75 (never run): %s, want %s", o.Class, NotRun)
	}
	// A reading that the where's configurations never run with is no
	// reading of the claim: a baseline that migrates nothing has no
	// monitor, so only the monitor it runs under is listed, not
	// "not run at this scale" under the other.
	z := &Spec{Zip: map[string][]any{"migration": {"first", "best", "none"}, "monitor": {"tasks", "tasks", "jobs"}}, Grid: map[string][]any{"x": {1, 2}},
		Plot: PlotSpec{X: "x"}, Readings: []Reading{{Param: "monitor"}}}
	var zs []cfgRuns
	for _, m := range [][2]string{{"first", "tasks"}, {"best", "tasks"}, {"none", "jobs"}} {
		for _, x := range []string{"1", "2"} {
			zs = append(zs, cfgRuns{p("x="+x, "migration="+m[0], "monitor="+m[1]), []float64{0.01, 0.011}})
		}
	}
	base := Claim{Metric: "cpe", AtLeast: f64(0), Where: map[string]any{"migration": "none"}}
	if res := Evaluate(z, &base, NewRowsData(runsOf("cpe", true, zs...))); len(res.Outcomes) != 1 || res.Verdict != "agrees (under monitor=jobs)" {
		t.Errorf("baseline's readings: %s (%d outcomes)", res.Verdict, len(res.Outcomes))
	}
	for _, tc := range []struct{ where, want string }{
		{"{node_select: u}", `claims[0].where.node_select: "node_select" is the claim's compared parameter`},
		{"{instability.u_update: all}", `claims[0].where.instability.u_update: "instability.u_update" is a reading`},
		{"{platform.nodes: [16, 64]}", "claims[0].where.platform.nodes: 64 is not a value of platform.nodes"},
		{"{nosuch: 1}", `claims[0].where.nosuch: "nosuch" is not a swept parameter`},
	} {
		spec := strings.Replace(readingsSpec, "lower_is_better: true}", "lower_is_better: true, where: "+tc.where+"}", 1)
		if _, err := Parse("spec.yaml", []byte(spec), ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("where %s: %v, want %q", tc.where, err, tc.want)
		}
	}
}
