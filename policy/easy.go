package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// EASY is EASY (aggressive) backfilling as Lifka and Mu'alem–Feitelson
// define it. Jobs wait in arrival order; only the head holds a
// reservation. After every event:
//
//  0. start queue-head jobs while the head fits;
//  1. if the head does not fit, its shadow time is the earliest expected
//     end (start + estimate) of running jobs at which enough processors
//     are free, and its extra processors are those free at the shadow time
//     beyond what it needs;
//  2. scan the rest of the queue in arrival order and start a job now if
//     it fits in the free processors and either ends by the shadow time
//     (now + estimate <= shadow) or uses no more than the extra
//     processors, which it then consumes.
//
// With estimates that are upper bounds the head never starts later than
// its shadow time; other queued jobs can be delayed.
//
// "After every event" is, by default, after every settled instant
// (engine.SettledInstants): when several jobs end at t, EASY decides once
// all of them have released their processors, so the order in which the
// engine handles same-time completions cannot change a schedule. The
// reference simulator pyss reaches the same state for completions at
// their estimates (its plan counts every job with start + estimate <= t as
// free at t). NewEASYPerEvent is the reading in which EASY is consulted
// after each single event, completions before arrivals (CQSim's order).
type EASY struct {
	sel     NodeSelector
	q       queue
	run     runningSet
	consult engine.Consultation

	// OnShadow, if set, is called with the queue head and its shadow time
	// each time a new job becomes the blocked head (for tests and traces).
	OnShadow func(head *engine.Job, shadow float64)
	lastHead *engine.Job
}

var _ engine.ConsultingPolicy = (*EASY)(nil)

// NewEASY returns EASY backfilling using sel for node selection, consulted
// on settled instants.
func NewEASY(sel NodeSelector) *EASY {
	return &EASY{sel: sel, run: newRunningSet(), consult: engine.SettledInstants}
}

// NewEASYPerEvent returns EASY consulted after every single event, with
// same-time completions handled before arrivals and a pass after each
// (engine.EveryEventCompletionsFirst), as CQSim does.
func NewEASYPerEvent(sel NodeSelector) *EASY {
	return &EASY{sel: sel, run: newRunningSet(), consult: engine.EveryEventCompletionsFirst}
}

// Consultation implements engine.ConsultingPolicy.
func (e *EASY) Consultation() engine.Consultation { return e.consult }

func (e *EASY) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted:
		e.q = e.q.insert(n.Job)
	case engine.NoticeRequeued:
		e.run.stopped(n.Job)
		e.q = e.q.insert(n.Job)
	case engine.NoticeEnded:
		e.run.stopped(n.Job)
	case engine.NoticeEstimateExtended:
		e.run.extended(n.Job)
	}
}

func (e *EASY) start(v *engine.View, p *engine.Plan, j *engine.Job) bool {
	if !tryStart(v, p, e.sel, j) {
		return false
	}
	e.run.started(j)
	return true
}

// Shadow returns the head job's shadow time and extra processors for the
// current state; +Inf when the head can never fit on the processors that
// are up.
func (e *EASY) shadow(v *engine.View, head *engine.Job) (float64, int) {
	e.run.prof.Base = v.FreePEs()
	t, ok := e.run.prof.FirstAtLeast(math.Inf(-1), head.Procs)
	if !ok {
		return math.Inf(1), 0
	}
	return max(t, v.Now()), e.run.prof.Value(t) - head.Procs
}

func (e *EASY) Schedule(v *engine.View, p *engine.Plan) {
	started := 0
	for _, j := range e.q {
		if !e.start(v, p, j) {
			break
		}
		started++
	}
	e.q = e.q[started:]
	if e.OnShadow != nil && len(e.q) > 0 && e.q[0] != e.lastHead {
		e.lastHead = e.q[0]
		sh, _ := e.shadow(v, e.q[0])
		e.OnShadow(e.q[0], sh)
	}
	if len(e.q) < 2 || v.FreePEs() == 0 {
		return
	}
	shadow, extra := e.shadow(v, e.q[0])
	now := v.Now()
	w := 1
	for i := 1; i < len(e.q); i++ {
		free := v.FreePEs()
		if free == 0 {
			if w != i {
				w += copy(e.q[w:], e.q[i:])
			} else {
				w = len(e.q)
			}
			break
		}
		j := e.q[i]
		if j.Procs <= free {
			if now+j.Est <= shadow {
				if e.start(v, p, j) {
					continue
				}
			} else if j.Procs <= extra {
				if e.start(v, p, j) {
					extra -= j.Procs
					continue
				}
			}
		}
		e.q[w] = j
		w++
	}
	clear(e.q[w:])
	e.q = e.q[:w]
}
