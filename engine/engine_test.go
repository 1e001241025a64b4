package engine_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/model"
)

// scripted is a policy for engine tests: FCFS on first-fit nodes, plus a
// hook that runs after every event.
type scripted struct {
	q       []*engine.Job
	notices []engine.Notice
	at      func(v *engine.View, p *engine.Plan)
}

func (s *scripted) Notify(v *engine.View, n engine.Notice) {
	s.notices = append(s.notices, n)
	if n.Kind == engine.NoticeSubmitted || n.Kind == engine.NoticeRequeued {
		s.q = append(s.q, n.Job)
	}
}

func (s *scripted) Schedule(v *engine.View, p *engine.Plan) {
	if s.at != nil {
		s.at(v, p)
	}
	for len(s.q) > 0 {
		j := s.q[0]
		if j.State != engine.Queued {
			s.q = s.q[1:]
			continue
		}
		if j.Procs > v.FreePEs() {
			return
		}
		var a engine.Alloc
		need := j.Procs
		for n := v.NextFreeNode(0); need > 0 && n >= 0; n = v.NextFreeNode(n + 1) {
			k := min(need, v.NodeFree(n))
			a = a.Add(n, k)
			need -= k
		}
		if err := p.Start(j, a); err != nil {
			return
		}
		s.q = s.q[1:]
	}
}

func find(e *engine.Engine, id int64) *engine.Job {
	for _, j := range e.Jobs() {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func TestStartAndEnd(t *testing.T) {
	e := Run(t, model.Uniform("t", 4, 1), Jobs(J(1).At(5).Procs(3).Run(7)), &scripted{}, engine.Options{})
	j := find(e, 1)
	if j.Start != 5 || j.End != 12 || j.State != engine.Completed || j.Alloc.String() != "0-2" {
		t.Fatalf("job = start %g end %g %s on %q, want 5 12 completed on 0-2", j.Start, j.End, j.State, j.Alloc)
	}
}

func TestPreemptRequeueAndDrop(t *testing.T) {
	for _, requeue := range []bool{true, false} {
		s := &scripted{}
		s.at = func(v *engine.View, p *engine.Plan) {
			if v.Now() == 4 {
				for _, j := range v.Running() {
					if err := p.Preempt(j, requeue); err != nil {
						t.Fatal(err)
					}
					if requeue {
						s.q = append(s.q, j) // the policy re-queues what it preempts
					}
				}
			}
		}
		// Job 2's arrival at 4 is the event that triggers the preemption.
		e := Run(t, model.Uniform("t", 2, 1), Jobs(J(1).Procs(2).Run(10), J(2).At(4).Procs(1).Run(1)), s, engine.Options{})
		j := find(e, 1)
		if requeue {
			// Job 2 (queued first) takes a processor at 4; job 1 needs
			// both and restarts from the beginning at 5, ending at 15.
			if j.State != engine.Completed || j.Start != 5 || j.End != 15 || j.Preemptions != 1 || j.LostTime != 4 {
				t.Errorf("requeue: %s start %g end %g preemptions %d lost %g", j.State, j.Start, j.End, j.Preemptions, j.LostTime)
			}
		} else if j.State != engine.Dropped || j.End != 4 {
			t.Errorf("drop: %s end %g, want dropped at 4", j.State, j.End)
		}
	}
}

func TestNodeFailure(t *testing.T) {
	for _, requeue := range []bool{true, false} {
		s := &scripted{}
		e := engine.New(model.Uniform("t", 2, 1), Jobs(J(1).Procs(2).Run(10), J(2).At(1).Procs(1).Run(2)), s, engine.Options{})
		e.FailNode(3, 1, requeue)
		e.RepairNode(20, 1)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		j1, j2 := find(e, 1), find(e, 2)
		if requeue {
			// At 3 node 1 fails: job 1 is requeued behind job 2, which
			// starts on node 0 (3–5); job 1 needs both nodes and waits for
			// the repair at 20.
			if j1.State != engine.Completed || j1.Start != 20 || j2.Start != 3 {
				t.Errorf("requeue: j1 %s start %g, j2 start %g; want completed 20, 3", j1.State, j1.Start, j2.Start)
			}
		} else if j1.State != engine.Failed || j1.End != 3 || j2.Start != 3 {
			t.Errorf("fail: j1 %s end %g, j2 start %g; want failed 3, 3", j1.State, j1.End, j2.Start)
		}
		var kinds []engine.NoticeKind
		for _, n := range s.notices {
			if n.Kind == engine.NoticeNodeDown || n.Kind == engine.NoticeNodeUp {
				kinds = append(kinds, n.Kind)
			}
		}
		if len(kinds) != 2 || kinds[0] != engine.NoticeNodeDown || kinds[1] != engine.NoticeNodeUp {
			t.Errorf("platform notices %v, want down then up", kinds)
		}
	}
}

func TestAddRemoveNodes(t *testing.T) {
	s := &scripted{}
	e := engine.New(model.Uniform("t", 1, 1), Jobs(J(1).Procs(2).Run(5), J(2).At(1).Procs(1).Run(5)), s, engine.Options{})
	e.AddNode(3, model.NodeSpec{Name: "new", PEs: 1, Speed: 1})
	e.RemoveNode(4, 0, false)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	// Job 1 needs 2 processors: it starts when the second node joins at 3,
	// and fails when node 0 is removed at 4. Job 2 then runs on node 1.
	j1, j2 := find(e, 1), find(e, 2)
	if j1.Start != 3 || j1.State != engine.Failed || j2.Start != 4 || j2.Alloc.String() != "1" {
		t.Fatalf("j1 start %g %s; j2 start %g on %q", j1.Start, j1.State, j2.Start, j2.Alloc)
	}
	if e.View().AvailPEs() != 1 {
		t.Fatalf("avail %d after add+remove, want 1", e.View().AvailPEs())
	}
}

func TestPeriodicTimer(t *testing.T) {
	s := &scripted{}
	e := engine.New(model.Uniform("t", 1, 1), Jobs(J(1).Run(25)), s, engine.Options{})
	if err := e.Every(0, 10, 7); err != nil {
		t.Fatal(err)
	}
	e.Timer(12, 99)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, n := range s.notices {
		if n.Kind == engine.NoticeTimer {
			got = append(got, n.Tag)
		}
	}
	// Ticks at 0, 10, 20 while the job runs (it ends at 25); the periodic
	// timer alone does not keep the simulation going after that.
	want := []int64{7, 7, 99, 7}
	if len(got) != len(want) {
		t.Fatalf("timers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("timers %v, want %v", got, want)
		}
	}
	if err := e.Every(0, 0, 1); err == nil {
		t.Fatal("period 0 accepted")
	}
}

func TestStretchAndSpeed(t *testing.T) {
	s := &scripted{}
	var e *engine.Engine
	s.at = func(v *engine.View, p *engine.Plan) {
		if v.Now() == 2 {
			for _, j := range v.Running() {
				if err := e.Stretch(j, 3); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	p := model.Uniform("t", 2, 1)
	p.Nodes[1].Speed = 0.5
	e = engine.New(p, Jobs(J(1).Procs(1).Run(10), J(2).At(2).Procs(1).Run(4)), s, engine.Options{Overrun: engine.OverrunExtend})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	// Job 1: 2 s done, 8 s left stretched ×3 → ends at 2 + 24 = 26.
	// Job 2 starts at 2 on node 1 at speed 0.5 → 8 s, ends at 10. It is not
	// stretched: the stretch is applied before it starts in that pass.
	if j := find(e, 1); j.End != 26 {
		t.Errorf("stretched job ends at %g, want 26", j.End)
	}
	if j := find(e, 2); j.End != 10 {
		t.Errorf("job on a half-speed node ends at %g, want 10", j.End)
	}
}

func TestInvalidPlans(t *testing.T) {
	cases := map[string]func(v *engine.View, p *engine.Plan, j *engine.Job) error{
		"oversubscribe": func(v *engine.View, p *engine.Plan, j *engine.Job) error {
			return p.Start(j, engine.Alloc{{First: 0, Count: 1, PEs: 2}})
		},
		"wrong size": func(v *engine.View, p *engine.Plan, j *engine.Job) error {
			return p.Start(j, engine.Alloc{{First: 0, Count: 1, PEs: 1}})
		},
		"out of range": func(v *engine.View, p *engine.Plan, j *engine.Job) error {
			return p.Start(j, engine.Alloc{{First: 1, Count: 2, PEs: 1}})
		},
		"preempt queued": func(v *engine.View, p *engine.Plan, j *engine.Job) error { return p.Preempt(j, true) },
		"past timer":     func(v *engine.View, p *engine.Plan, j *engine.Job) error { return p.Timer(-1, 0) },
	}
	for name, act := range cases {
		t.Run(name, func(t *testing.T) {
			var pol funcPolicy
			pol.schedule = func(v *engine.View, p *engine.Plan) {
				if pol.j != nil {
					if err := act(v, p, pol.j); !errors.Is(err, engine.ErrInvalidPlan) {
						t.Errorf("err = %v, want ErrInvalidPlan", err)
					}
					pol.j = nil
				}
			}
			e := engine.New(model.Uniform("t", 2, 1), Jobs(J(1).Procs(2).Run(1)), &pol, engine.Options{})
			err := e.Run()
			if !errors.Is(err, engine.ErrInvalidPlan) || !strings.Contains(err.Error(), "t=0") {
				t.Fatalf("Run = %v, want the invalid plan with its time", err)
			}
		})
	}
}

type funcPolicy struct {
	j        *engine.Job
	schedule func(v *engine.View, p *engine.Plan)
}

func (f *funcPolicy) Notify(v *engine.View, n engine.Notice) {
	if n.Kind == engine.NoticeSubmitted {
		f.j = n.Job
	}
}
func (f *funcPolicy) Schedule(v *engine.View, p *engine.Plan) { f.schedule(v, p) }

func TestRunUntilResumes(t *testing.T) {
	e := engine.New(model.Uniform("t", 1, 1), Jobs(J(1).Run(5), J(2).At(1).Run(5)), &scripted{}, engine.Options{})
	if err := e.RunUntil(6); err != nil {
		t.Fatal(err)
	}
	if j := find(e, 2); j.State != engine.Running || e.Now() != 5 {
		t.Fatalf("at 6: job 2 %s, now %g", j.State, e.Now())
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if j := find(e, 2); j.End != 10 || math.IsNaN(j.End) {
		t.Fatalf("job 2 ends %g, want 10", j.End)
	}
}
