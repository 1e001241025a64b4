package reservation

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/rrg"
	"github.com/gridsched/gridsched/system"
)

// TestSectionsReachThePolicy: the failure section's replan rule and the
// reservation section's readings are checked when prepared (a wrong name
// is an error naming the key and the known values) and set on the
// reservation policy by the run's hooks; an empty value keeps the
// policy's own reading.
func TestSectionsReachThePolicy(t *testing.T) {
	fs, _ := system.BySection("failure")
	ms, _ := system.BySection("reservation")
	if fs == nil || ms == nil {
		t.Fatal("the failure and reservation sections are not registered")
	}
	for _, c := range []struct {
		s    *system.System
		v    any
		want string
	}{
		{fs, &FailureParams{Sigma: 0.5, Replan: "own"}, `replan: want one of [literal own-degree], got "own"`},
		{ms, &ModelParams{Predictor: "oracle"}, `predictor: want one of [queue running queue-length running-slack], got "oracle"`},
		{ms, &ModelParams{Placement: "end"}, `placement: want gap or start, got "end"`},
		{ms, &ModelParams{Requeue: "middle"}, `requeue: want front or back, got "middle"`},
	} {
		if _, err := c.s.Prepare(c.v, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.v, err, c.want)
		}
	}
	run := func(pol *Policy, sections ...any) {
		r := &system.Run{Platform: resources(2)}
		for i, s := range []*system.System{fs, ms} {
			if sections[i] == nil {
				continue
			}
			prep, err := s.Prepare(sections[i], nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Attach(r, prep); err != nil {
				t.Fatal(err)
			}
		}
		for _, h := range r.Hooks {
			if err := h(nil, pol); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := New(SRRMMinCost, 1)
	run(p, nil, &ModelParams{Predictor: "running-slack", Placement: "start", Requeue: "back"})
	if p.pred != PredictRunningSlack || !p.atStart || !p.requeueBack {
		t.Errorf("reservation section not applied: predictor %s, at start %v, back %v", p.pred, p.atStart, p.requeueBack)
	}
	p = New(SRRMMinCost, 1)
	p.pred, p.atStart = PredictQueueLength, true
	run(p, nil, &ModelParams{})
	if p.pred != PredictQueueLength || !p.atStart || p.requeueBack {
		t.Errorf("an empty reservation section changed the policy's readings: %s, %v, %v", p.pred, p.atStart, p.requeueBack)
	}
	d := New(DRRM, 1)
	r := &system.Run{Platform: resources(2)}
	prep, err := fs.Prepare(&FailureParams{Sigma: 0.5, Replan: "own-degree"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Attach(r, prep); err != nil || len(r.Hooks) != 1 {
		t.Fatalf("failure section: %v, %d hooks", err, len(r.Hooks))
	}
	if err := r.Hooks[0](engine.New(r.Platform, nil, d, engine.Options{}), d); err != nil {
		t.Fatal(err)
	}
	if d.replan != rrg.ReplanOwnDegree {
		t.Errorf("failure section: replan %s, want own-degree", d.replan)
	}
}
