package experiment

import (
	"path/filepath"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// quickRows runs a built-in experiment at its quick label and returns
// its rows (what `reproduce --quick` runs for it).
func quickRows(t *testing.T, name string) []Row {
	t.Helper()
	s, err := LoadBuiltin(name, "quick")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "s.db")
	sweep(t, s, p, Options{Workers: 2})
	st, err := OpenExisting(p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no runs", name)
	}
	return rows
}

// TestSeed001QuickExperiments (issue 16): the new seed-001 experiments
// run at quick scale and exercise what they are about.
func TestSeed001QuickExperiments(t *testing.T) {
	// The literal setting: 109 one-CPU nodes, sequential jobs; every job
	// of the quick workload completes under every dispatcher.
	for _, r := range quickRows(t, "hierarchical-literal") {
		if r.Metrics["makespan"] <= 0 || r.Metrics["mean_response"] <= 0 {
			t.Errorf("literal %s: %v", r.ConfigID, r.Metrics)
		}
	}
	// Sequential jobs on paper109 (one heterogeneity at quick scale).
	for _, r := range quickRows(t, "hierarchical-sequential") {
		if r.Metrics["makespan"] <= 0 {
			t.Errorf("sequential %s: %v", r.ConfigID, r.Metrics)
		}
	}
	// The monitor: standby managers are brought in (activations) and,
	// with under-estimates and a factor, jobs are re-dispatched.
	for _, r := range quickRows(t, "hierarchical-monitor") {
		sb, f := r.Params["hierarchy.standby"], r.Params["hierarchy.redispatch_factor"]
		if (sb != "0") != (r.Metrics["activations"] > 0) {
			t.Errorf("monitor %s: %g activations", r.ConfigID, r.Metrics["activations"])
		}
		if f == "0" && r.Metrics["redispatched"] != 0 {
			t.Errorf("monitor %s: re-dispatch off but %g re-dispatched", r.ConfigID, r.Metrics["redispatched"])
		}
		if f != "0" && sb == "0" && r.Metrics["redispatched"] == 0 {
			t.Errorf("monitor %s: nothing re-dispatched", r.ConfigID)
		}
	}
	// The weights move statistical balancing: the simplex corners give
	// different makespans from the default weights.
	ms := map[string]float64{}
	for _, r := range quickRows(t, "hierarchical-weights") {
		ms[r.Params["policy"]+" "+r.Params["hierarchy.weights"]] = r.Metrics["makespan"]
	}
	def := ms["grid-stat {backlog: 0.3, cpu: 0.3, queue: 0.3, speed: 0.1}"]
	if def == 0 || len(ms) != 4 {
		t.Fatalf("weights: %v", ms)
	}
	if ms["grid-stat {speed: 1}"] == def || ms["grid-stat {backlog: 1}"] == def {
		t.Errorf("weights do not move statistical balancing: %v", ms)
	}
}

// TestSeed002QuickFig89 (issue 16): figures 8–9 at quick scale run both
// main loops (standard EASY and §2.4's SingleBackfill) and report the
// QoS rate in both readings, EL/AL ≤ 1 ≤ AL/EL.
func TestSeed002QuickFig89(t *testing.T) {
	t.Setenv("GRIDSCHED_TRACES", testenv.TracesDir(t))
	seen := map[string]bool{}
	for _, r := range quickRows(t, "easy-unstable-fig89") {
		seen[r.Params["policy"]] = true
		q, a := r.Metrics["mean_qos"], r.Metrics["mean_qos_alel"]
		if !(q > 0 && q <= 1 && a >= 1) {
			t.Errorf("%s: mean_qos %g, mean_qos_alel %g", r.ConfigID, q, a)
		}
		if _, ok := r.Metrics["mean_response"]; !ok {
			t.Errorf("%s: no mean response", r.ConfigID)
		}
	}
	if !seen["easy"] || !seen["easy-single"] {
		t.Errorf("policies run: %v", seen)
	}
}
