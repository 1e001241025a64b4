package unstable

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// singleCase is worked out by hand on 4 single-processor nodes
// (estimates = run times):
//
//	J1 at 0, 2 procs, 100 s   J2 at 0, 2 procs, 50 s   (both start at 0)
//	J3 at 1, 4 procs, 10 s    head from 1; shadow 100 (J1's end), extra 0
//	J4 at 2, 1 proc, 30 s     no processor free at 2: waits
//	J5 at 60, 1 proc, 20 s
//
// At 50 J2 ends and two processors are free. Standard EASY scans the
// queue: J4 ends by the shadow (50 + 30 ≤ 100) and starts at 50; J5
// starts when it arrives (60 + 20 ≤ 100). §2.4's SingleBackfill looks
// only at the head (J3, does not fit) and at the arriving job: J4 was
// not arriving at 50, so it waits until it is the head, after J3 (100–
// 110) → 110; J5, arriving at 60, fits and ends by the shadow → 60.
func singleCase() []model.Job {
	return Jobs(
		J(1).At(0).Procs(2).Run(100).Est(100),
		J(2).At(0).Procs(2).Run(50).Est(50),
		J(3).At(1).Procs(4).Run(10).Est(10),
		J(4).At(2).Procs(1).Run(30).Est(30),
		J(5).At(60).Procs(1).Run(20).Est(20),
	)
}

// TestSingleBackfill pins seed 002 §2.4's main loop (SingleBackfill) on
// singleCase, against standard EASY on the same jobs.
func TestSingleBackfill(t *testing.T) {
	p := model.Uniform("u", 4, 1)
	check := func(name string, pol engine.Policy, want map[int64]float64) {
		t.Helper()
		e := Run(t, p, singleCase(), pol, engine.Options{})
		got := Starts(e)
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: J%d starts at %g, want %g\n%s", name, id, got[id], w, Gantt(e, 10))
			}
		}
	}
	check("easy", policy.NewEASY(policy.FirstFit{}), map[int64]float64{1: 0, 2: 0, 3: 100, 4: 50, 5: 60})
	check("easy-single", NewSingleBackfill(policy.FirstFit{}, "arrival"), map[int64]float64{1: 0, 2: 0, 3: 100, 4: 110, 5: 60})
	// §1.3's "first qualifying job": at 50 J4 is the first (and only)
	// queued job that qualifies → 50, as EASY here.
	check("easy-first", NewSingleBackfill(policy.FirstFit{}, "first"), map[int64]float64{3: 100, 4: 50, 5: 60})
	for _, name := range []string{"easy-single", "easy-first"} {
		if _, err := policy.New(name, policy.FirstFit{}); err != nil {
			t.Errorf("%s not registered: %v", name, err)
		}
	}
}

// TestFirstBackfillsOne (§1.3 step 2③ against §2.4): 4 nodes; J1 (2
// procs, 100 s) and J5 (2 procs, 5 s) start at 0; J2 (4 procs, 10 s) is
// the head from 1 (shadow 100, extra 0); J3 and J4 (1 proc, 10 s) arrive
// at 2, when nothing is free. At 5 J5 ends and two processors are free:
// EASY backfills both (5 + 10 ≤ 100); "first" only J3, the first that
// qualifies, and J4 at the next event (J3's end, 15); "arrival" neither
// (they are not arriving), so they wait until they are the head, after
// J2 (100–110).
func TestFirstBackfillsOne(t *testing.T) {
	p := model.Uniform("u", 4, 1)
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(100).Est(100),
		J(5).At(0).Procs(2).Run(5).Est(5),
		J(2).At(1).Procs(4).Run(10).Est(10),
		J(3).At(2).Procs(1).Run(10).Est(10),
		J(4).At(2).Procs(1).Run(10).Est(10),
	)
	for _, c := range []struct {
		name   string
		pol    engine.Policy
		j3, j4 float64
	}{
		{"easy", policy.NewEASY(policy.FirstFit{}), 5, 5},
		{"easy-first", NewSingleBackfill(policy.FirstFit{}, "first"), 5, 15},
		{"easy-single", NewSingleBackfill(policy.FirstFit{}, "arrival"), 110, 110},
	} {
		e := Run(t, p, jobs, c.pol, engine.Options{})
		s := Starts(e)
		if s[3] != c.j3 || s[4] != c.j4 || s[2] != 100 {
			t.Errorf("%s: J3 %g (want %g), J4 %g (want %g), J2 %g (want 100)\n%s", c.name, s[3], c.j3, s[4], c.j4, s[2], Gantt(e, 10))
		}
	}
}

// TestSingleBackfillProperty (§2.4, random workloads): every job
// completes, none starts before its submission, and a job that did not
// start when it arrived starts no earlier than every job submitted
// before it (waiting jobs are only ever started as the queue head).
func TestSingleBackfillProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nodes := rapid.IntRange(1, 6).Draw(rt, "nodes")
		p := model.Uniform("u", nodes, 2)
		n := rapid.IntRange(1, 30).Draw(rt, "n")
		var jobs []model.Job
		at := 0.0
		for i := range n {
			at += float64(rapid.IntRange(0, 20).Draw(rt, "gap"))
			run := float64(rapid.IntRange(1, 100).Draw(rt, "run"))
			j := model.NewJob(int64(i+1), at, run, rapid.IntRange(1, 2*nodes).Draw(rt, "procs"))
			j.Estimate = run + float64(rapid.IntRange(0, 50).Draw(rt, "slack"))
			jobs = append(jobs, j)
		}
		e := engine.New(p, jobs, NewSingleBackfill(policy.FirstFit{}, "arrival"), engine.Options{})
		if err := e.Run(); err != nil {
			rt.Fatal(err)
		}
		js := e.Jobs()
		for _, b := range js {
			if b.State != engine.Completed || b.Start < b.Submit {
				rt.Fatalf("job %d: state %v, submit %g, start %g", b.ID, b.State, b.Submit, b.Start)
			}
			if b.Start == b.Submit {
				continue
			}
			for _, a := range js {
				if a.Index < b.Index && a.Start > b.Start {
					rt.Fatalf("job %d waited (submit %g) and started at %g, before job %d submitted earlier (start %g)", b.ID, b.Submit, b.Start, a.ID, a.Start)
				}
			}
		}
	})
}
