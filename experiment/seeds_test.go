package experiment

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
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

// TestSeed002QuickFig89 (issues 16 and 28): figures 8–9 at quick scale
// run both main loops (standard EASY and §2.4's SingleBackfill) and both
// readings of where u is updated, and report the QoS rate in both
// readings (EL/AL ≤ 1 ≤ AL/EL) and the makespan in both (the last end;
// the sum of completion times, which is at least the last end and at most
// jobs × it). Random choice never reads u, so its runs are identical under
// the two u readings, and the u runs differ somewhere. SDSC-BLUE's
// windows: a window starting later runs other jobs.
func TestSeed002QuickFig89(t *testing.T) {
	t.Setenv("GRIDSCHED_TRACES", testenv.TracesDir(t))
	seen := map[string]bool{}
	for _, name := range []string{"easy-unstable-fig89", "easy-unstable-fig89-blue"} {
		byReading := map[string]map[string]Row{} // config without u_update → u_update → row
		for _, r := range quickRows(t, name) {
			seen[r.Params["policy"]] = true
			q, a := r.Metrics["mean_qos"], r.Metrics["mean_qos_alel"]
			if !(q > 0 && q <= 1 && a >= 1) {
				t.Errorf("%s: mean_qos %g, mean_qos_alel %g", r.ConfigID, q, a)
			}
			if _, ok := r.Metrics["mean_response"]; !ok {
				t.Errorf("%s: no mean response", r.ConfigID)
			}
			ms, sum, n := r.Metrics["makespan"], r.Metrics["sum_completion"], r.Metrics["jobs"]
			if !(ms > 0 && sum >= ms && sum <= n*ms) {
				t.Errorf("%s: sum of completion times %g against makespan %g and %g jobs", r.ConfigID, sum, ms, n)
			}
			key := fmt.Sprintf("%s %s %s %s %s %d", r.Params["workload.trace"], r.Params["workload.skip"], r.Params["platform.nodes"],
				r.Params["node_select"], r.Params["policy"], r.Rep)
			if byReading[key] == nil {
				byReading[key] = map[string]Row{}
			}
			byReading[key][r.Params["instability.u_update"]] = r
		}
		differ := false
		for key, rs := range byReading {
			all, delaying := rs["all"], rs["delaying"]
			if all.Metrics == nil || delaying.Metrics == nil {
				t.Fatalf("%s %s: u_update readings run: %v", name, key, slices.Sorted(maps.Keys(rs)))
			}
			same := maps.Equal(all.Metrics, delaying.Metrics)
			if strings.Contains(key, " random ") && !same {
				t.Errorf("%s %s: random choice differs between the u readings", name, key)
			}
			differ = differ || !same
		}
		if !differ {
			t.Errorf("%s: u updated on all machines gives the same runs as on the delaying ones", name)
		}
	}
	if !seen["easy"] || !seen["easy-single"] {
		t.Errorf("policies run: %v", seen)
	}
}
