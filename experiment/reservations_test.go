package experiment

import (
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// TestReservationSetupsKeepTasksRunning (seed 000 §3.1: "在每个非预留队列中
// 生成足够多的……非预留任务,使得在每个预留任务开始执行时,在各个资源上都有正在
// 运行的非预留任务" — every queue holds enough tasks that a task runs on
// every resource whenever a reservation starts): in experiments 1–3 and
// the failure experiment at quick scale, every configuration, no admitted
// reservation starts on a resource whose task queue has run dry.
func TestReservationSetupsKeepTasksRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick configurations")
	}
	for _, name := range []string{"reservations-exp1", "reservations-exp2", "reservations-exp3", "reservations-failure"} {
		s, err := LoadBuiltin(name, "quick")
		if err != nil {
			t.Fatal(err)
		}
		cache := NewCache()
		for _, c := range s.Configs() {
			m, err := s.Execute(s.NewRun(&c, 0), cache)
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.ID, err)
			}
			v, ok := m["idle_start"]
			if !ok || v != 0 {
				t.Errorf("%s %s: idle_start = %v (present %v), want 0", name, c.ID, v, ok)
			}
		}
	}
}

// TestOSCBackgroundLoad (seed 000 §3.1, real workload: "其余的非预留任务平均
// 分配到各个节点上", the non-reserved tasks are evenly distributed over the
// nodes): with the tasks queued at the start on their nodes (background:
// start, the default), more than 90% of the nodes no reservation holds run a task while the
// reservation requests arrive (task_busy, λ = 300 s); with the trace's own
// submit times (background: trace) the nodes are almost idle (below 10%),
// the set-up artefact this option keeps visible.
func TestOSCBackgroundLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("converts the OSC trace")
	}
	testenv.Trace(t, "OSC-Clust-2000-3.1-cln.swf.gz")
	t.Setenv(testenv.TracesEnv, testenv.TracesDir(t))
	for _, c := range []struct {
		bg     string
		lo, hi float64
	}{{"start", 0.9, 1}, {"trace", 0, 0.1}} {
		s, err := LoadBuiltin("reservations-osc-lambda", "quick")
		if err != nil {
			t.Fatal(err)
		}
		s.Workload.Params["background"] = c.bg
		s.Policies = []string{"drrm"}
		s.Grid = map[string][]any{"workload.params.lambda": {300}}
		cs := s.Configs()
		if len(cs) != 1 {
			t.Fatalf("%d configurations", len(cs))
		}
		m, err := s.Execute(s.NewRun(&cs[0], 0), NewCache())
		if err != nil {
			t.Fatal(err)
		}
		if b := m["task_busy"]; !(b >= c.lo && b <= c.hi) {
			t.Errorf("background %s: task_busy %g, want in [%g, %g]", c.bg, b, c.lo, c.hi)
		} else {
			t.Logf("background %s: task_busy %.3f, pp %.3f", c.bg, b, m["pp"])
		}
	}
}

// TestOSCFlexibleSRRMKeepsNodesBusy (seed 000 §3.3, figures 11–12; issue
// 15): at flexibility 0.9 an SRRM reservation that waits for the running
// task must not leave its node idle behind another booking. Before the
// fix SRRM_r's task_busy there was 0.84–0.87 (DRRM's 1.00); the nodes no
// reservation holds must run a task whenever a request arrives.
func TestOSCFlexibleSRRMKeepsNodesBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("converts the OSC trace")
	}
	testenv.Trace(t, "OSC-Clust-2000-3.1-cln.swf.gz")
	t.Setenv(testenv.TracesEnv, testenv.TracesDir(t))
	s, err := LoadBuiltin("reservations-osc-flex", "quick")
	if err != nil {
		t.Fatal(err)
	}
	s.Policies = []string{"srrm-r", "srrm-m"}
	s.Grid = map[string][]any{"workload.params.flexibility": {0.9}}
	for _, c := range s.Configs() {
		m, err := s.Execute(s.NewRun(&c, 0), NewCache())
		if err != nil {
			t.Fatal(err)
		}
		if b := m["task_busy"]; !(b >= 0.99) {
			t.Errorf("%s: task_busy %g at flexibility 0.9, want ≥ 0.99 (pp %.3f, start_waited %.3f)", c.ID, b, m["pp"], m["start_waited"])
		} else {
			t.Logf("%s: task_busy %.4f, pp %.3f, start_waited %.3f, start_free %.3f", c.ID, b, m["pp"], m["start_waited"], m["start_free"])
		}
	}
}
