package experiment

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/report"
)

// fakeMetrics are two replications of every configuration of s, with a
// value of every metric of the spec that differs between configurations.
func fakeMetrics(s *Spec) []Row {
	return fakeRowsOf(s, func(i, r int) map[string]float64 {
		m := map[string]float64{}
		for k, name := range s.Metrics {
			m[name] = 0.001 * float64(1+(7*i+3*k)%11+r)
		}
		return m
	})
}

// quickSection is the section of built-in experiment name at its quick
// label, on fakeMetrics.
func quickSection(t *testing.T, name string) (*Spec, report.Section) {
	t.Helper()
	s, err := LoadBuiltin(name, "quick")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := SectionOf(s, fakeMetrics(s))
	if err != nil {
		t.Fatal(err)
	}
	return s, sec
}

// builtinSpecs loads every built-in spec under every label it has.
func builtinSpecs(t *testing.T) []*Spec {
	t.Helper()
	var out []*Spec
	for _, n := range Builtin() {
		s, err := LoadBuiltin(n, "")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
		labels := make([]string, 0, len(s.Labels))
		for l := range s.Labels {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		for _, l := range labels {
			ls, err := LoadBuiltin(n, l)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ls)
		}
	}
	return out
}

var mustBe = regexp.MustCompile(`^lambda: (.*) must be positive`)

// TestBuiltinAxisLabelsFromDefinitions (issue 29): every parameter a
// built-in spec sweeps (its x axis, its lines, its panels) is labelled by
// its definition — the spec's own keys, the workload model's parameter
// field (its label tag) or the system's section — never by a bare key;
// each spec's figures carry exactly that x-axis label. A workload model's
// λ is read by what the model's own check calls it: "mean interval"
// (seed 000's reservation models: the expected time between two
// requests) or "arrival rate" (seed 003's gang model, per hour).
func TestBuiltinAxisLabelsFromDefinitions(t *testing.T) {
	for _, s := range builtinSpecs(t) {
		name := s.Name + "/" + s.Label
		x := xOf(s)
		def, ok := report.ParamDefinition(x, s.Workload.Model)
		if x != "" && !ok {
			t.Errorf("%s: x axis %q has no definition with a label", name, x)
			continue
		}
		for _, axis := range []map[string][]any{s.Grid, s.Zip} {
			for k := range axis {
				if _, ok := report.ParamDefinition(k, s.Workload.Model); !ok {
					t.Errorf("%s: swept parameter %q has no definition with a label", name, k)
				}
			}
		}
		if strings.HasSuffix(x, ".lambda") {
			m, err := gen.Lookup(s.Workload.Model)
			if err != nil {
				t.Fatal(err)
			}
			over := []string{"lambda=-1"}
			if s.Workload.Model == "trace-reservations" {
				over = append(over, "trace=t")
			}
			p, err := m.Params("", nil, over)
			if err != nil {
				t.Fatal(err)
			}
			meaning := mustBe.FindStringSubmatch(strings.TrimPrefix(m.Check(p).Error(), s.Workload.Model+": "))
			if meaning == nil || !strings.Contains(def, meaning[1]) {
				t.Errorf("%s: λ is labelled %q; the %s model calls it %v", name, def, s.Workload.Model, meaning)
			}
		}
		n, fits := s.ConfigCount()
		if !fits || n > 400 || x == "" {
			continue // the label's figures are checked at the smaller labels
		}
		sec, err := SectionOf(s, fakeMetrics(s))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sec.Figures {
			if f.Text == "" && f.XLabel != def && f.XValues > 1 {
				t.Errorf("%s: figure %s: x label %q, want its definition's %q", name, f.Name, f.XLabel, def)
			}
		}
	}
}

// TestSeed000LambdaIsAnInterval (issue 29): seed 000's λ is the mean
// interval between requests (§3.1: "期望时间间隔 λ ... 相邻两个请求之间的时间间
// 隔服从指数分布,我们把该时间间隔的期望记做 λ": the expected time between two
// requests), so AP rises with λ; the axis read "arrival rate", which
// reverses every trend.
func TestSeed000LambdaIsAnInterval(t *testing.T) {
	for _, n := range []string{"reservations-exp2", "reservations-osc-lambda"} {
		_, sec := quickSection(t, n)
		f := sec.Figures[0]
		if !strings.Contains(f.XLabel, "mean interval λ between requests") || strings.Contains(f.XLabel, "rate") || !strings.HasSuffix(f.XLabel, "(s)") {
			t.Errorf("%s: x axis %q", n, f.XLabel)
		}
	}
	s, err := LoadBuiltin("cloud-gang-fig23", "quick")
	if err != nil {
		t.Fatal(err)
	}
	if l := report.ParamLabel("workload.params.lambda", s.Workload.Model); l != "arrival rate λ (jobs per hour)" {
		t.Errorf("seed 003's λ: %q", l)
	}
}

// TestNoLineJoinsConfigurationsAtOneX (issue 29): hierarchical-weights
// zips the policy with the weights, and grid-stat and grid-minmin both
// run at the default weights; they were one line "ours" with a vertical
// segment at that weight. Each policy is its own line now, and no line
// has two points at one x.
func TestNoLineJoinsConfigurationsAtOneX(t *testing.T) {
	s, err := LoadBuiltin("hierarchical-weights", "quick")
	if err != nil {
		t.Fatal(err)
	}
	rows := fakeMetrics(s)
	aggs := Aggregate(rows, s.Metrics)
	ax := layoutOf(s, aggs)
	for _, fc := range facetsOf(aggs, ax) {
		series, _, _ := seriesOf(fc.aggs, "makespan", ax)
		var names []string
		for _, sr := range series {
			names = append(names, sr.Name)
			xs := map[float64]bool{}
			for _, x := range sr.X {
				if xs[x] {
					t.Errorf("line %q has two points at x = %g", sr.Name, x)
				}
				xs[x] = true
			}
		}
		if !slices.Equal(names, []string{"grid-stat", "grid-minmin"}) {
			t.Errorf("lines %q, want grid-stat and grid-minmin", names)
		}
	}
}

// TestCuratedReport: a seed's section opens with its verdicts, then shows
// the paper's figures in the paper's order (figure 3 before figure 4,
// whatever the order of the experiments), each saying which figure it
// reproduces; every other figure and table is folded per experiment;
// experiments of no seed are folded in a last section.
func TestCuratedReport(t *testing.T) {
	var specs []*Spec
	var secs []report.Section
	for _, n := range []string{"reservations-exp2", "reservations-exp1", "lublin-load"} {
		s, sec := quickSection(t, n)
		specs, secs = append(specs, s), append(secs, sec)
	}
	summary := report.Table{Title: "verdicts", Columns: []string{"claim", "verdict"}, Rows: [][]string{{"c", "agrees"}}}
	out := Curate(specs, secs, map[string][]report.Table{"000": {summary}}, nil)
	if len(out) != 2 || out[0].Seed != "000" || out[1].Seed != "" {
		t.Fatalf("sections: %d (%q, …)", len(out), out[0].Title)
	}
	seed := out[0]
	if len(seed.Summary) != 1 || seed.Summary[0].Rows[0][1] != "agrees" {
		t.Errorf("no verdict summary first")
	}
	var papers []string
	for _, f := range seed.Figures {
		papers = append(papers, f.Paper)
		if !strings.HasPrefix(f.Caption, "From reservations-exp") {
			t.Errorf("%s: caption does not name its experiment: %q", f.Name, f.Caption)
		}
	}
	if !slices.IsSortedFunc(papers, func(a, b string) int {
		ca, _ := citeOf(a)
		cb, _ := citeOf(b)
		if ca.less(cb) {
			return -1
		}
		if cb.less(ca) {
			return 1
		}
		return 0
	}) || len(papers) == 0 || papers[0] != "figure 3" {
		t.Errorf("paper figures in order %q, want figure 3 first and the paper's order", papers)
	}
	folded := 0
	for _, fd := range seed.Folds {
		folded += len(fd.Figures)
		for _, f := range fd.Figures {
			if f.Paper != "" {
				t.Errorf("a paper figure (%s) is folded", f.Name)
			}
		}
	}
	if folded == 0 || len(seed.Folds) != 2 {
		t.Errorf("%d folds, %d folded figures: the diagnostics (idle_start, start_free, …) must be folded per experiment", len(seed.Folds), folded)
	}
	if len(out[1].Figures) != 0 || len(out[1].Folds) != 1 {
		t.Errorf("an experiment of no seed shows figures unfolded")
	}
}
