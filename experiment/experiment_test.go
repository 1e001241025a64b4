package experiment

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/sim"
)

const small = `name: small
workload:
  model: lublin
  params: {nodes: 32}
  jobs: 150
platform: {nodes: 32}
policies: [fcfs, easy]
grid:
  workload.params.arrival_scale: [0.8, 1.2]
replications: {count: 3}
seed: 4
metrics: [mean_wait, mean_bsld, utilization]
`

func mustParse(t *testing.T, doc, label string) *Spec {
	t.Helper()
	s, err := Parse("spec.yaml", []byte(doc), label)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSpecErrors: a typo in a key, a wrong type and an out-of-range value
// in one spec give three clear errors at once, each with its position.
func TestSpecErrors(t *testing.T) {
	doc := strings.Replace(small, "policies:", "policys:", 1)
	doc = strings.Replace(doc, "jobs: 150", "jobs: many", 1)
	doc = strings.Replace(doc, "replications: {count: 3}", "replications: {count: 0}", 1)
	_, err := Parse("spec.yaml", []byte(doc), "")
	want := []string{
		`spec.yaml:5:9: workload.jobs: want an integer, got text "many"`,
		`spec.yaml:7:1: policys: unknown key "policys" (known keys: `,
		`spec.yaml:10:23: replications.count: 0 is out of range: want a value >= 1`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing error %q in:\n%v", w, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 3 {
		t.Errorf("%d errors, want 3:\n%v", n, err)
	}
	// Semantic errors also point at their value.
	cases := map[string]string{
		strings.Replace(small, "count: 3", "count: -1", 1):                              `spec.yaml:10:23: replications.count: -1 is out of range: want a value >= 1`,
		strings.Replace(small, "[fcfs, easy]", "[fcfs, eazy]", 1):                       `policies[1]: unknown policy "eazy"`,
		strings.Replace(small, "mean_bsld,", "mean_bslowdown,", 1):                      `metrics[1]: unknown metric "mean_bslowdown"`,
		strings.Replace(small, "workload.params.arrival_scale", "workload.paramz.x", 1): `unknown parameter "workload.paramz.x"`,
		strings.Replace(small, "[0.8, 1.2]", "[0.8, -1]", 1):                            `arrival_scale: must be positive`,
		// A parameter swept by both grid and zip (found in session 6: every
		// configuration carried two values of node_select, one silently won).
		small + "zip: {workload.params.arrival_scale: [1, 2]}\n":                                                                     `zip.workload.params.arrival_scale: "workload.params.arrival_scale" is both a grid and a zip parameter`,
		strings.Replace(small, "replications: {count: 3}", "replications: {min: 1, max: 5, metric: mean_wait, rel_halfwidth: 2}", 1): `replications.rel_halfwidth: 2 is out of range: want a value in (0,1)`,
		// Hierarchical grids (seed 001): dispatchers need a hierarchy;
		// its parameters are checked with the rest.
		strings.Replace(small, "[fcfs, easy]", "[fcfs, grid-stat]", 1):                                           `policies[1]: grid-stat needs a hierarchy section`,
		strings.Replace(small, "[fcfs, easy]", "[grid-minmax]", 1) + "hierarchy: {tree: paper109}\n":             `unknown hierarchy policy "grid-minmax"`,
		strings.Replace(small, "[fcfs, easy]", "[grid-stat]", 1) + "hierarchy: {heterogeneity: 1.5}\n":           `hierarchy.heterogeneity: 1.5 is out of range`,
		strings.Replace(small, "[fcfs, easy]", "[grid-stat]", 1) + "hierarchy: {weights: {cpu: 0.5}}\n":          `weights: must sum to 1, got 0.5`,
		strings.Replace(small, "[fcfs, easy]", "[grid-stat]", 1) + "hierarchy: {tree: /nonexistent/tree.yaml}\n": `/nonexistent/tree.yaml`,
		// The elastic cloud (seed 003).
		strings.Replace(small, "[fcfs, easy]", "[cloud-sjf]", 1) + "cloud: {}\n":                  `unknown cloud policy "cloud-sjf"`,
		strings.Replace(small, "[fcfs, easy]", "[cloud-ljfs]", 1) + "cloud: {migration: worst}\n": `migration: want none, first-fit or best-fit, got "worst"`,
	}
	for doc, want := range cases {
		_, err := Parse("spec.yaml", []byte(doc), "")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
	if _, err := Parse("spec.yaml", []byte(small), "nolabel"); err == nil || !strings.Contains(err.Error(), `no label "nolabel"`) {
		t.Errorf("unknown label: %v", err)
	}
}

func TestConfigs(t *testing.T) {
	s := mustParse(t, small, "")
	cs := s.Configs()
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	want := "workload.params.arrival_scale=0.8,policy=fcfs|workload.params.arrival_scale=0.8,policy=easy|workload.params.arrival_scale=1.2,policy=fcfs|workload.params.arrival_scale=1.2,policy=easy"
	if strings.Join(ids, "|") != want {
		t.Fatalf("configs %v", ids)
	}
	rc, err := cs[2].Resolve(s)
	if err != nil || rc.Policy != "fcfs" || rc.Workload.Params["arrival_scale"] != 1.2 || rc.Workload.Params["nodes"] == nil {
		t.Fatalf("%+v %v", rc, err)
	}
	// Common random numbers: replication r has one seed for every configuration.
	if s.NewRun(&cs[0], 1).Seed != s.NewRun(&cs[3], 1).Seed || s.NewRun(&cs[0], 1).Seed == s.NewRun(&cs[0], 2).Seed {
		t.Fatal("seeds")
	}
}

func sweep(t *testing.T, s *Spec, path string, o Options) {
	t.Helper()
	st, err := OpenStore(path, s, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Sweep(s, st, o); err != nil {
		t.Fatal(err)
	}
}

func exports(t *testing.T, path string, metrics []string) string {
	t.Helper()
	st, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WriteRuns(&a, rows)
	WriteAggregate(&b, Aggregate(rows, metrics))
	return a.String() + "\n----\n" + b.String()
}

// TestDeterministicExportsAndShards: the same spec run twice gives
// byte-identical exports; shards 1, 3 and 7 merged equal the single run.
func TestDeterministicExportsAndShards(t *testing.T) {
	s := mustParse(t, small, "")
	dir := t.TempDir()
	one := filepath.Join(dir, "one.db")
	sweep(t, s, one, Options{Workers: 2})
	again := filepath.Join(dir, "again.db")
	sweep(t, s, again, Options{Workers: 1})
	ref := exports(t, one, s.Metrics)
	if ref != exports(t, again, s.Metrics) {
		t.Fatal("two runs of the same spec differ")
	}
	if n := strings.Count(ref, "\n"); n < 12 {
		t.Fatalf("export too short:\n%s", ref)
	}
	for _, n := range []int{1, 3, 7} {
		var parts []string
		for i := 0; i < n; i++ {
			p := filepath.Join(dir, "shard", string(rune('a'+n)), string(rune('a'+i))+".db")
			os.MkdirAll(filepath.Dir(p), 0o755)
			sweep(t, s, p, Options{Workers: 2, Shard: i, Shards: n})
			parts = append(parts, p)
		}
		merged := filepath.Join(dir, "merged"+string(rune('a'+n))+".db")
		if _, err := Merge(merged, parts); err != nil {
			t.Fatal(err)
		}
		if got := exports(t, merged, s.Metrics); got != ref {
			t.Errorf("%d shards merged differ from the single run:\n%s\nvs\n%s", n, got, ref)
		}
	}
	// Merge refuses another experiment.
	other := mustParse(t, strings.Replace(small, "seed: 4", "seed: 5", 1), "")
	op := filepath.Join(dir, "other.db")
	sweep(t, other, op, Options{Workers: 2})
	if _, err := Merge(filepath.Join(dir, "bad.db"), []string{one, op}); err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("merge of different specs: %v", err)
	}
	// Resume with another spec is refused; without --resume an existing store is refused.
	if _, err := OpenStore(one, other, true); err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("resume with another spec: %v", err)
	}
	if _, err := OpenStore(one, s, false); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("existing store without resume: %v", err)
	}
}

// TestResumeSkipsDone: a second sweep on a complete store runs nothing.
func TestResumeSkipsDone(t *testing.T) {
	s := mustParse(t, small, "")
	p := filepath.Join(t.TempDir(), "s.db")
	sweep(t, s, p, Options{Workers: 2})
	st, _ := OpenStore(p, s, true)
	defer st.Close()
	sum, err := Sweep(s, st, Options{Workers: 2})
	if err != nil || sum.Ran != 0 || sum.AlreadyDone != 12 {
		t.Fatalf("%+v %v", sum, err)
	}
}

// TestAdaptiveReplications: replications stop at the first checkpoint
// where the CI half-width of the metric is below the target, else at max.
func TestAdaptiveReplications(t *testing.T) {
	doc := strings.Replace(small, "replications: {count: 3}", "replications: {min: 3, max: 12, metric: mean_wait, rel_halfwidth: 0.02}", 1)
	s := mustParse(t, doc, "")
	if cps := s.checkpoints(); len(cps) != 4 || cps[0] != 3 || cps[1] != 5 || cps[2] != 8 || cps[3] != 12 {
		t.Fatalf("checkpoints %v", cps)
	}
	p := filepath.Join(t.TempDir(), "a.db")
	sweep(t, s, p, Options{Workers: 2})
	st, _ := OpenExisting(p)
	rows, _ := st.Rows()
	st.Close()
	for _, a := range Aggregate(rows, []string{"mean_wait"}) {
		stopped := a.N == 12 || (a.Mean != 0 && a.HalfWidth/a.Mean <= 0.02)
		if !stopped || (a.N != 3 && a.N != 5 && a.N != 8 && a.N != 12) {
			t.Errorf("%s: n = %d, relative half-width %g", a.ConfigID, a.N, a.HalfWidth/a.Mean)
		}
	}
	// needed() on hand-made values: constant values stop at min.
	vals := map[int]float64{0: 5, 1: 5, 2: 5}
	if n := s.needed(vals); n != 3 {
		t.Errorf("constant metric: need %d, want 3", n)
	}
	vals = map[int]float64{0: 1, 1: 9, 2: 1}
	if n := s.needed(vals); n != 5 {
		t.Errorf("noisy metric: need %d, want the next checkpoint 5", n)
	}
}

// TestCICoverage: the 95% CI of the mean of exponential samples (mean 1,
// n = 40: service times of the gang model, seed 003) covers the true
// mean in about 95% of 4,000 repetitions. Skewness makes the t interval
// slightly optimistic at this n (about 93.5%), hence the band.
func TestCICoverage(t *testing.T) {
	e := distuv.Exponential{Rate: 1, Src: sim.Source(1, "ci-coverage")}
	covered := 0
	const reps, n = 4000, 40
	x := make([]float64, n)
	for r := 0; r < reps; r++ {
		for i := range x {
			x[i] = e.Rand()
		}
		m, _, hw := CI95(x)
		if math.Abs(m-1) <= hw {
			covered++
		}
	}
	frac := float64(covered) / reps
	t.Logf("coverage %.4f", frac)
	if frac < 0.92 || frac > 0.965 {
		t.Errorf("95%% CI covers the true mean in %.3f of repetitions", frac)
	}
	// Against a hand computation: x = 1..5: mean 3, sd √2.5, t(0.975, 4) = 2.7764.
	m, sd, hw := CI95([]float64{1, 2, 3, 4, 5})
	if m != 3 || math.Abs(sd-math.Sqrt(2.5)) > 1e-12 || math.Abs(hw-2.7764451*math.Sqrt(2.5)/math.Sqrt(5)) > 1e-6 {
		t.Errorf("CI95 = %g %g %g", m, sd, hw)
	}
}

// TestBuiltinSpecsLoad: every built-in experiment parses in every label.
func TestBuiltinSpecsLoad(t *testing.T) {
	testenv.TracesDir(t)
	if len(Builtin()) < 2 {
		t.Fatal(Builtin())
	}
	for _, name := range Builtin() {
		s, err := LoadBuiltin(name, "")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// Every label the spec declares (quick, paper, and the named
		// re-runs the docs cite) must load too.
		for label := range s.Labels {
			if _, err := LoadBuiltin(name, label); err != nil {
				t.Errorf("%s %s: %v", name, label, err)
			}
		}
		if _, ok := s.Labels["quick"]; !ok {
			t.Errorf("%s has no quick label", name)
		}
	}
}

// TestHashIgnoresCommentary: descriptions and claims do not change the
// experiment's identity; anything a run depends on does.
func TestHashIgnoresCommentary(t *testing.T) {
	a := mustParse(t, small, "")
	b := mustParse(t, "description: words\n"+small+"claims:\n  - {claim: x, source: y, metric: mean_wait, trend: increasing}\n", "")
	c := mustParse(t, strings.Replace(small, "seed: 4", "seed: 5", 1), "")
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() {
		t.Fatalf("hashes %s %s %s", a.Hash(), b.Hash(), c.Hash())
	}
}

// TestReferences: a paper's number is shown next to the aggregate of the
// configurations it names (numbers compare as numbers), "no run" when
// none matches; a reference to a parameter the spec does not vary is an
// error.
func TestReferences(t *testing.T) {
	s := &Spec{Grid: map[string][]any{"workload.params.lambda": {1.75, 4.0}}, References: []Reference{
		{Where: map[string]any{"workload.params.lambda": 4.0, "policy": "cloud-ljfs"}, Metric: "cpe", Value: -0.06, Source: "table 1"},
		{Where: map[string]any{"workload.params.lambda": 9}, Metric: "cpe", Value: 0.1},
	}}
	var rows []Row
	for rep, v := range []float64{-0.03, -0.02, -0.01, -0.02, -0.02} {
		seed := fmt.Sprint(rep)
		rows = append(rows,
			Row{ConfigIndex: 0, ConfigID: "a", Params: map[string]string{"workload.params.lambda": "4", "policy": "cloud-ljfs"}, Rep: rep, Seed: seed, Metrics: map[string]float64{"cpe": v, "mean_response": 1.7}},
			Row{ConfigIndex: 1, ConfigID: "b", Params: map[string]string{"workload.params.lambda": "1.75", "policy": "cloud-ljfs"}, Rep: rep, Seed: seed, Metrics: map[string]float64{"cpe": 0.5}})
	}
	tab := referenceTable(s, NewRowsData(rows))
	// ours −0.02 ± 0.0088 against the paper's −0.06: (−0.02 − (−0.06)) / 0.06 = +66.7%.
	if len(tab.Rows) != 2 || tab.Rows[0][2] != "-0.06" || !strings.Contains(tab.Rows[0][3], "-0.0200") || !strings.Contains(tab.Rows[0][3], "(n=5)") || strings.Contains(tab.Rows[0][3], "0.5") ||
		!strings.HasPrefix(tab.Rows[0][4], "+66.7% ± ") || tab.Rows[0][5] != "same sign, outside our 95% CI" {
		t.Errorf("row 1: %v", tab.Rows[0])
	}
	if tab.Rows[1][3] != "no run" {
		t.Errorf("row 2: %v", tab.Rows[1])
	}
	bad := Reference{Where: map[string]any{"cloud.xfactor": 10}, Metric: "cpe"}
	if err := bad.validate(s); err == nil || !strings.Contains(err.Error(), "not a grid or zip parameter") {
		t.Errorf("reference to an unvaried parameter: %v", err)
	}
}

// TestCloudRuns: a cloud spec (seed 003) runs through the experiment
// runner: LJFS runs report the CPE against AFCFS on the same jobs (so
// the CPE of AFCFS against itself would be 0: we check it by hand), and
// the same run twice gives the same numbers.
func TestCloudRuns(t *testing.T) {
	doc := `name: cloud
workload:
  model: gang
  params: {q: 0.5, lambda: 2}
  jobs: 2000
cloud: {migration: first-fit, xfactor: 10, monitor_limit: 0, alf: 0}
policies: [cloud-afcfs, cloud-ljfs]
pairing: {base: cloud-afcfs, relative: [{name: cpe_lt, metric: lease_time}, {name: cpe_rt, metric: mean_response}], sums: [{name: cpe, of: [cpe_lt, cpe_rt]}]}
replications: {count: 1}
seed: 3
metrics: [mean_response, lease_time, cpe, migrations]
`
	s := mustParse(t, doc, "")
	cs := s.Configs()
	if len(cs) != 2 {
		t.Fatalf("%d configurations", len(cs))
	}
	cache := NewCache()
	a, err := s.Execute(s.NewRun(&cs[0], 0), cache)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Execute(s.NewRun(&cs[1], 0), cache)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a["cpe"]; ok || !(a["lease_time"] > 0) || !(a["migrations"] > 0) {
		t.Errorf("AFCFS run: %v", a)
	}
	// The paper's convention (§4.2): AFCFS the base, negative when AFCFS
	// is the more cost-efficient.
	want := (a["lease_time"]-l["lease_time"])/a["lease_time"] + (a["mean_response"]-l["mean_response"])/a["mean_response"]
	if math.Abs(l["cpe"]-want) > 1e-12 {
		t.Errorf("CPE %g, from the two runs %g", l["cpe"], want)
	}
	again, err := s.Execute(s.NewRun(&cs[1], 0), NewCache())
	if err != nil || again["cpe"] != l["cpe"] || again["mean_response"] != l["mean_response"] {
		t.Errorf("not deterministic: %v then %v (%v)", l, again, err)
	}
	// runs.csv of a cloud sweep has the cloud's metric columns and none
	// of another system's (issue 13, item 3).
	var b bytes.Buffer
	rows := []Row{{ConfigIndex: 0, ConfigID: "a", Metrics: a}, {ConfigIndex: 1, ConfigID: "b", Metrics: l}}
	if err := WriteRuns(&b, rows); err != nil {
		t.Fatal(err)
	}
	head := strings.Split(strings.SplitN(b.String(), "\n", 2)[0], ",")
	for _, want := range []string{"mean_response", "lease_time", "vm_utilization", "cpe", "cpe_lt"} {
		if !slices.Contains(head, want) {
			t.Errorf("runs.csv lacks %s: %v", want, head)
		}
	}
	for _, other := range []string{"mean_qos", "ap", "imbalance", "median_wait", "killed", "utilization"} {
		if slices.Contains(head, other) {
			t.Errorf("runs.csv of a cloud sweep has another system's column %s: %v", other, head)
		}
	}
}

// TestAbsentMetrics: a metric a run does not report (CPE of an AFCFS run,
// η without failures) is neither averaged as a zero nor written as one.
func TestAbsentMetrics(t *testing.T) {
	rows := []Row{
		{ConfigIndex: 0, ConfigID: "a", Params: map[string]string{"policy": "a"}, Metrics: map[string]float64{"mean_wait": 1}},
		{ConfigIndex: 1, ConfigID: "b", Params: map[string]string{"policy": "b"}, Metrics: map[string]float64{"mean_wait": 2, "cpe": -0.5}},
		{ConfigIndex: 1, ConfigID: "b", Params: map[string]string{"policy": "b"}, Rep: 1, Metrics: map[string]float64{"mean_wait": 4}},
	}
	aggs := Aggregate(rows, []string{"mean_wait", "cpe"})
	for _, a := range aggs {
		if a.Metric == "cpe" && (a.ConfigID != "b" || a.N != 1 || a.Mean != -0.5) {
			t.Errorf("cpe aggregate %+v: want only config b, one value, -0.5", a)
		}
	}
	if len(aggs) != 3 {
		t.Errorf("%d aggregates, want 3 (no cpe for a)", len(aggs))
	}
	var b bytes.Buffer
	if err := WriteRuns(&b, rows[:1]); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for i, h := range head {
		if h == "cpe" && row[i] != "" {
			t.Errorf("absent cpe written as %q", row[i])
		}
	}
}

// The label a spec ran with survives the store: the canonical JSON leaves
// it out (the hash must not depend on it), so reports read it from the
// store's meta table. Before session 6 every reproduction table of
// `reproduce --quick` said "(default scale)".
func TestStoredSpecKeepsLabel(t *testing.T) {
	s := mustParse(t, small+"labels:\n  quick:\n    replications: {count: 1}\n", "quick")
	path := filepath.Join(t.TempDir(), "store.db")
	st, err := OpenStore(path, s, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	re, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	got, err := re.StoredSpec()
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "quick" || got.Replications.Count != 1 {
		t.Fatalf("stored spec: label %q, replications %d; want quick, 1", got.Label, got.Replications.Count)
	}
	md := ReproTable{Seed: "000", Scale: got.Label}.Markdown()
	if !strings.Contains(md, "(quick scale)") {
		t.Fatalf("reproduction table header: %s", strings.SplitN(md, "\n", 4)[2])
	}
}
