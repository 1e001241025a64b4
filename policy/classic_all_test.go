package policy_test

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	sim "github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/workload"
)

// TestClassicConservativeExpiriesAtOneInstant: under --overrun extend the
// engine consults a policy between two jobs' estimate extensions at one
// instant even when completions at that instant are still to come
// (completionPending looks at the next event only: an extension). On 11
// processors, at 17 jobs 13 and 10 outlive their estimates and jobs 27
// (node 9) and 23 (node 0) end; job 16 (5 processors) and then job 9 (2
// processors) are reserved at 17. At the consultation between the two
// extensions 16 cannot start yet (nodes 1, 2, 6 and 10 are free) while 9
// could. Conservative keeps the reservation order: 16 waits for the
// completions and 9 waits behind it; both start at 17, 16 on 0-2, 6, 9
// and, after it ends at once, 9 on 0-1. The catalogue's depth=all used to
// start 9 on 1-2 ahead of 16 and re-plan only at the next consultation;
// it now decides as Conservative does (found by
// TestPropertyClassicEqualsDedicated, shrunk).
func TestClassicConservativeExpiriesAtOneInstant(t *testing.T) {
	// id, submit, run, estimate, processors
	spec := [][5]float64{{3, 0, 11, 12, 3}, {13, 0, 18, 17, 3}, {22, 0, 0, 1, 10}, {5, 1, 5, 4, 1}, {16, 1, 0, 1, 5},
		{9, 1, 0, 5, 2}, {10, 3, 13, 3, 2}, {21, 7, 9, 1, 1}, {27, 8, 9, 1, 1}, {23, 15, 2, 1, 1}}
	var jobs []model.Job
	for _, x := range spec {
		j := model.NewJob(int64(x[0]), x[1], x[2], int(x[4]))
		j.Estimate = x[3]
		jobs = append(jobs, j)
	}
	s, _ := policy.ParseSpec("conservative")
	ded, _ := policy.New("conservative", nil)
	for _, pol := range []engine.Policy{ded, policy.NewClassic(s, policy.FirstFit{})} {
		e := engine.New(model.Uniform("u", 11, 1), jobs, pol, engine.Options{Overrun: engine.OverrunExtend})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		got := map[int64]string{}
		for _, j := range e.Jobs() {
			got[j.ID] = j.Alloc.String()
			if j.ID == 16 || j.ID == 9 {
				if j.Start != 17 {
					t.Errorf("%T: job %d starts at %g, want 17", pol, j.ID, j.Start)
				}
			}
		}
		if got[16] != "0-2 6 9" || got[9] != "0-1" {
			t.Errorf("%T: job 16 on %s, job 9 on %s; want 0-2 6 9 and 0-1", pol, got[16], got[9])
		}
	}
}

// TestNewClassicBase: "classic" alone (every axis at its default) is a
// policy name like "classic:depth=1", as docs/policies.md writes it; an
// unknown bare name is still refused.
func TestNewClassicBase(t *testing.T) {
	for _, name := range []string{"classic", "classic:depth=1"} {
		p, err := policy.New(name, nil)
		if err != nil || p == nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := policy.New("classical", nil); err == nil || !strings.Contains(err.Error(), `unknown policy "classical"`) {
		t.Errorf("classical: %v", err)
	}
}

// TestClassicEqualsDedicatedOnTraces: on real traces, whose estimates
// jobs overrun, the catalogue's points of fcfs, easy and conservative
// start every job as the dedicated implementations do, with jobs killed
// at their request or extended past it (the random workloads of
// TestPropertyClassicEqualsDedicated are small; here queues run long and
// many estimates end at one instant). The first 8,000 jobs of two traces
// keep it short; the whole of SDSC-SP2, HPC2N, SDSC-BLUE, LLNL-Atlas
// and OSC-Clust were checked the same way.
func TestClassicEqualsDedicatedOnTraces(t *testing.T) {
	for _, tr := range []string{"SDSC-SP2-1998-4.2-cln.swf.gz", "OSC-Clust-2000-3.1-cln.swf.gz"} {
		cfg := sim.Config{WorkloadPath: testenv.Trace(t, tr), Transform: workload.Transform{First: 8000}}
		wl, plat, err := sim.Load(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"fcfs", "easy", "conservative"} {
			for _, o := range []engine.Overrun{engine.OverrunKill, engine.OverrunExtend} {
				ded, _ := policy.New(name, nil)
				s, _ := policy.ParseSpec(name)
				a := engine.New(plat, wl.Jobs, ded, engine.Options{Overrun: o})
				b := engine.New(plat, wl.Jobs, policy.NewClassic(s, policy.FirstFit{}), engine.Options{Overrun: o})
				if err := a.Run(); err != nil {
					t.Fatal(err)
				}
				if err := b.Run(); err != nil {
					t.Fatal(err)
				}
				overran := 0
				for i, j := range a.Jobs() {
					if j.Runtime > j.Estimate {
						overran++
					}
					if k := b.Jobs()[i]; j.Start != k.Start || j.Alloc.String() != k.Alloc.String() {
						t.Fatalf("%s, %s, overrun %d: job %d starts at %g on %s; the catalogue's point starts it at %g on %s", tr, name, o, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
					}
				}
				if overran == 0 {
					t.Fatalf("%s: no job overruns its estimate; the check needs some", tr)
				}
			}
		}
	}
}
