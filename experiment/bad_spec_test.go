package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/metrics"
)

// TestSpecRefusesBadInput: each malformed spec is refused with its
// position (issue 18, items 1, 2, 4): tags that crashed the YAML decoder,
// alias bombs, sizes that exhausted memory, non-finite grid values
// pointed at in the spec itself.
func TestSpecRefusesBadInput(t *testing.T) {
	bomb := "zip:\n  workload.jobs: &a [1,1,1,1,1,1,1,1,1,1]\n  x1: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  x2: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  x3: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  x4: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	var big strings.Builder
	big.WriteString("grid:\n")
	for i := range 10 {
		big.WriteString("  workload.params.k" + string(rune('a'+i)) + ": [1,2,3,4,5,6,7,8,9,10]\n")
	}
	for _, c := range []struct{ name, edit, want string }{
		{"tag on policies", "policies: !foo bar\n", "spec.yaml:10:11: policies: YAML tag !foo is not accepted here"},
		{"tag in grid", "grid:\n  policy: !x foo\n", "spec.yaml:12:11: grid.policy: YAML tag !x is not accepted here"},
		{"str tag", "seed: !!str 4\n", "spec.yaml:10:7: seed: YAML tag !!str is not accepted here"},
		{"alias bomb", bomb, "the document expands to more than 100000 values"},
		{"undefined alias", "policies: *nope\n", "spec.yaml:10:11: alias *nope refers to no anchor"},
		{"jobs 1e9", "workload: {model: lublin, params: {nodes: 32}, jobs: 1000000000}\n", "spec.yaml:7:54: workload.jobs: 1000000000 jobs is over the limit of 10000000 (raise it with --max-jobs)"},
		{"nodes 2e9", "platform: {nodes: 2000000000}\n", "spec.yaml:10:19: platform.nodes: 2000000000 nodes is over the limit of 1048576 (raise it with --max-nodes)"},
		{"count 1e9", "replications: {count: 1000000000}\n", "spec.yaml:10:23: replications.count: 1000000000 replications is over the limit of 100000"},
		{"grid 1e10", big.String(), "spec.yaml:12:21: grid: the sweep has 20000000000 configurations, over the limit of 100000"},
		{"arrival_scale inf", "workload: {model: lublin, params: {nodes: 32}, jobs: 150, arrival_scale: .inf}\n", "spec.yaml:7:74: workload.arrival_scale: want a finite number, got .inf"},
		{"grid value inf", "grid:\n  workload.arrival_scale: [1, .inf]\n", "spec.yaml:12:31: grid.workload.arrival_scale[1]: want a finite number, got .inf"},
		{"grid value nan", "grid:\n  platform.nodes: [8, .nan]\n", "spec.yaml:12:23: grid.platform.nodes[1]: want an integer, got nan .nan"},
		{"grid value range", "grid:\n  workload.arrival_scale: [0, 1]\n", "spec.yaml:12:28: grid.workload.arrival_scale[0]: 0 is out of range: want a value > 0"},
		{"grid jobs cap", "grid:\n  workload.jobs: [8, 20000000]\n", "spec.yaml:12:22: grid.workload.jobs[1]: workload.jobs: 20000000 jobs is over the limit"},
		{"grid nodes cap", "grid:\n  platform.nodes: [8, 2000000000]\n", "spec.yaml:12:23: grid.platform.nodes[1]: platform.nodes: 2000000000 nodes is over the limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(small, "grid:\n  workload.params.arrival_scale: [0.8, 1.2]\n", "", 1) + c.edit
			// Later keys replace earlier ones only when they are new:
			// drop the base key the edit repeats.
			for _, k := range []string{"policies:", "workload:", "platform:", "replications:", "seed:"} {
				if strings.HasPrefix(c.edit, k) {
					doc = dropKey(small, k) + c.edit
				}
			}
			s, err := Parse("spec.yaml", []byte(doc), "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q\nspec:\n%s", err, c.want, doc)
			}
			if s != nil {
				t.Fatal("a spec came back with the error")
			}
		})
	}
}

// dropKey removes a top-level key (one line, or a block) and the grid of
// the base spec, so the edit's lines come last.
func dropKey(doc, key string) string {
	var out []string
	skip := false
	for _, l := range strings.Split(strings.TrimSuffix(doc, "\n"), "\n") {
		top := !strings.HasPrefix(l, " ")
		if top {
			skip = strings.HasPrefix(l, key) || strings.HasPrefix(l, "grid:")
		}
		if !skip {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// TestMissingTraceNamesEveryPlace: a trace that is nowhere is an error
// naming the spec's folder, GRIDSCHED_TRACES and the default folder
// (issue 18, item 13), found before any store exists.
func TestMissingTraceNamesEveryPlace(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "envtraces")
	t.Setenv("GRIDSCHED_TRACES", env)
	path := filepath.Join(dir, "spec.yaml")
	doc := "name: t\nworkload: {trace: nowhere.swf}\nplatform: {nodes: 8}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckFiles()
	for _, want := range []string{`trace "nowhere.swf" not found`, "the spec's folder " + dir, "GRIDSCHED_TRACES=" + env, "the default folder " + filepath.Join("..", "shared", "traces")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v lacks %q", err, want)
		}
	}
	// Found in the spec's folder first, then in GRIDSCHED_TRACES.
	os.Mkdir(env, 0o755)
	os.WriteFile(filepath.Join(env, "nowhere.swf"), []byte("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 1 -1 -1\n"), 0o644)
	if p, err := s.FindTrace("nowhere.swf"); err != nil || p != filepath.Join(env, "nowhere.swf") {
		t.Fatalf("%s %v", p, err)
	}
	os.WriteFile(filepath.Join(dir, "nowhere.swf"), []byte("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 1 -1 -1\n"), 0o644)
	if p, err := s.FindTrace("nowhere.swf"); err != nil || p != filepath.Join(dir, "nowhere.swf") {
		t.Fatalf("%s %v", p, err)
	}
	if err := s.CheckFiles(); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaAndSemanticErrorsTogether: a typo in a key, an out-of-range
// value and an unknown policy are reported in one go (issue 18, item 4).
func TestSchemaAndSemanticErrorsTogether(t *testing.T) {
	doc := strings.Replace(small, "policies: [fcfs, easy]", "policies: [fcfs, eazy]", 1)
	doc = strings.Replace(doc, "seed: 4", "sed: 4", 1)
	doc = strings.Replace(doc, "replications: {count: 3}", "replications: {count: 0}", 1)
	_, err := Parse("spec.yaml", []byte(doc), "")
	for _, want := range []string{
		`spec.yaml:11:1: sed: unknown key "sed"`,
		`spec.yaml:10:23: replications.count: 0 is out of range`,
		`spec.yaml:7:18: policies[1]: unknown policy "eazy"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if err != nil && strings.Count(err.Error(), "replications.count") != 1 {
		t.Errorf("an error reported twice:\n%v", err)
	}
	if err != nil && strings.Contains(err.Error(), "replications.min") {
		t.Errorf("count 0 (out of range) was read as a missing count:\n%v", err)
	}
}

// TestNoEndedJobLeavesMetricsEmpty (issue 18, item 6): a run in which no
// job ran to an end has no wait, slowdown, utilization or makespan: its
// runs.csv cells are empty, not 0; the counts are still written.
func TestNoEndedJobLeavesMetricsEmpty(t *testing.T) {
	s := metrics.Summarize(nil, 4, nil)
	m := MetricValues(&s)
	for _, k := range []string{"mean_wait", "p95_bsld", "utilization", "makespan", "throughput"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present: %v", k, m)
		}
	}
	if v, ok := m["jobs"]; !ok || v != 0 {
		t.Errorf("jobs: %v", m)
	}
	var b strings.Builder
	if err := WriteRuns(&b, []Row{{ConfigID: "c", Params: map[string]string{}, Seed: "1", Metrics: m}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for i, h := range head {
		switch h {
		case "mean_wait", "utilization", "makespan":
			if row[i] != "" {
				t.Errorf("%s = %q, want empty", h, row[i])
			}
		case "jobs":
			if row[i] != "0" {
				t.Errorf("jobs = %q", row[i])
			}
		}
	}
}

// TestWrongTypeAndSemanticErrorsTogether (issue 18, item 4): after a value
// of the wrong type (count: "x", a list where a policy name goes), the
// spec's other problems — an out-of-range value, an unknown policy, a bad
// overrun, a missing trace (also one named in a grid) — are reported in
// the same run, each at its line and column, and the wrong-typed count
// does not bring the adaptive-replication errors that a missing count
// would.
func TestWrongTypeAndSemanticErrorsTogether(t *testing.T) {
	t.Setenv("GRIDSCHED_TRACES", t.TempDir())
	doc := `name: t
workload:
  trace: nowhere.swf
  arrival_scale: 0
platform: {nodes: 8}
policies: [fcfs, [easy], eazy]
overrun: sometimes
replications: {count: "x"}
metrics: [mean_wait]
`
	_, err := Parse(filepath.Join(t.TempDir(), "spec.yaml"), []byte(doc), "")
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		`spec.yaml:8:23: replications.count: want an integer, got text "x"`,
		`spec.yaml:6:18: policies[1]: want a text value, got a list`,
		`spec.yaml:4:18: workload.arrival_scale: 0 is out of range`,
		`spec.yaml:6:26: policies[2]: unknown policy "eazy"`,
		`spec.yaml:7:10: overrun: want kill or extend, got "sometimes"`,
		`spec.yaml:3:10: workload.trace: trace "nowhere.swf" not found`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	for _, not := range []string{"replications.min", "rel_halfwidth", `policies[1]: unknown`} {
		if strings.Contains(msg, not) {
			t.Errorf("%q: a consequence of the wrong type, reported in:\n%s", not, msg)
		}
	}
	if strings.Count(msg, "replications.count") != 1 {
		t.Errorf("replications.count reported more than once:\n%s", msg)
	}
	// A spec whose only problems are semantic names its missing traces
	// too, those of a grid at their values (the base trace, which the grid
	// replaces, is not read).
	doc = "name: t\nworkload: {trace: base.swf}\nplatform: {nodes: 8}\npolicies: [eazy]\nreplications: {count: 1}\nmetrics: [mean_wait]\ngrid:\n  workload.trace: [nowhere.swf, gone.swf]\n"
	_, err = Parse(filepath.Join(t.TempDir(), "spec.yaml"), []byte(doc), "")
	if err != nil && strings.Contains(err.Error(), "base.swf") {
		t.Errorf("the grid's trace replaces base.swf, reported:\n%v", err)
	}
	for _, want := range []string{`spec.yaml:4:12: policies[0]: unknown policy "eazy"`,
		`spec.yaml:8:20: grid.workload.trace[0]: trace "nowhere.swf" not found`,
		`spec.yaml:8:33: grid.workload.trace[1]: trace "gone.swf" not found`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestTagsAndWrongSectionsWithOtherErrors (issue 18, item 4): a YAML tag
// and a whole section of the wrong type are reported together with the
// spec's other schema and semantic errors, each at its line and column,
// and a section of the wrong type brings none of its consequences (an
// empty grid would make plot.x "not a grid parameter", a missing
// hierarchy would make grid-stat "need a hierarchy section", an empty
// replications would ask for adaptive min/max).
func TestTagsAndWrongSectionsWithOtherErrors(t *testing.T) {
	// Every case adds its lines at line 9 on; the base has two real
	// errors: an unknown policy (4:18) and overrun (5:10).
	base := "name: t\n" +
		"workload: {model: lublin, params: {nodes: 32}, jobs: 150}\n" +
		"platform: {nodes: 32}\n" +
		"policies: [fcfs, eazy]\n" +
		"overrun: sometimes\n" +
		"seed: 4\n" +
		"metrics: [mean_wait]\n" +
		"plot: {x: workload.jobs}\n"
	const grid = "grid:\n  workload.jobs: [100, 200]\n"
	const reps = "replications: {count: 3}\n"
	always := []string{
		`spec.yaml:4:18: policies[1]: unknown policy "eazy"`,
		`spec.yaml:5:10: overrun: want kill or extend, got "sometimes"`,
	}
	for _, c := range []struct {
		name, lines string
		want        []string // besides always
		not         []string
	}{
		{"tag on a scalar", "seed2: 1\n" + grid + "replications: {count: !!str 3}\n",
			[]string{`spec.yaml:9:1: seed2: unknown key "seed2"`, `spec.yaml:12:23: replications.count: YAML tag !!str is not accepted here`},
			[]string{"replications.min"}},
		{"tag on a list key", grid + reps + "metrics2: !foo bar\nclaims: !x [a]\n",
			[]string{`spec.yaml:12:1: metrics2: unknown key`, `spec.yaml:13:9: claims: YAML tag !x is not accepted here`},
			[]string{"metrics2: YAML tag"}},
		{"tag in a grid value", "grid:\n  workload.jobs: [100, !!int 200]\n" + reps + "sed: 1\n",
			[]string{`spec.yaml:10:24: grid.workload.jobs[1]: YAML tag !!int is not accepted here`, `spec.yaml:12:1: sed: unknown key`},
			nil},
		{"tag on a section", grid + reps + "hierarchy: !t {tree: paper109}\n",
			[]string{`spec.yaml:12:12: hierarchy: YAML tag !t is not accepted here`},
			nil},
		{"replications: 5", grid + "replications: 5\n",
			[]string{`spec.yaml:11:15: replications: want a mapping of keys, got integer 5`},
			[]string{"replications.min", "replications.max", "rel_halfwidth", "replications.metric"}},
		{"workload: [a]", grid + reps + "workload: [a]\n",
			[]string{`spec.yaml:12:11: workload: want a mapping of keys, got a list`},
			[]string{"give a trace or a model", "configuration"}},
		{`grid: "x"`, reps + `grid: "x"` + "\n",
			[]string{`spec.yaml:10:7: grid: want a mapping, got text "x"`},
			[]string{"plot.x", "not a grid"}},
		{"zip: 3", reps + "zip: 3\n",
			[]string{`spec.yaml:10:6: zip: want a mapping, got integer 3`},
			[]string{"plot.x", "not a grid"}},
		{"hierarchy: x", grid + reps + "hierarchy: x\n",
			[]string{`spec.yaml:12:12: hierarchy: want a mapping of keys, got text "x"`},
			[]string{"needs a hierarchy section"}},
		{"platform: [1]", grid + reps + "platform: [1]\n",
			[]string{`spec.yaml:12:11: platform: want a mapping of keys, got a list`},
			[]string{"configuration"}},
		{"pairing: 5", grid + reps + "pairing: 5\nclaims: [{metric: cpe, trend: increasing}]\n",
			[]string{`spec.yaml:12:10: pairing: want a mapping of keys, got integer 5`},
			[]string{`claims[0]`, "pairing.base", "pairing.relative"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, real := base, always
			if strings.Contains(c.lines, "hierarchy:") {
				// A policy that needs the hierarchy section.
				doc = strings.Replace(doc, "policies: [fcfs, eazy]", "policies: [grid-stat, eazy]", 1)
				real = []string{`spec.yaml:4:23: policies[1]: unknown policy "eazy"`, always[1]}
			}
			for _, k := range []string{"workload:", "platform:"} {
				if strings.Contains(c.lines, "\n"+k) {
					// Keep the line numbers: the base line becomes a comment.
					doc = strings.Replace(doc, k, "# "+k, 1)
				}
			}
			doc += c.lines
			_, err := Parse("spec.yaml", []byte(doc), "")
			if err == nil {
				t.Fatalf("accepted:\n%s", doc)
			}
			msg := err.Error()
			for _, want := range append(append([]string{}, real...), c.want...) {
				if !strings.Contains(msg, want) {
					t.Errorf("missing %q in:\n%s\nspec:\n%s", want, msg, doc)
				}
			}
			for _, not := range c.not {
				if strings.Contains(msg, not) {
					t.Errorf("%q: a consequence, reported in:\n%s", not, msg)
				}
			}
			// Each problem once.
			for _, l := range strings.Split(msg, "\n") {
				if strings.Count(msg, l) != 1 {
					t.Errorf("reported twice: %s", l)
				}
			}
		})
	}
}
