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
	q       qindex // waiting jobs, indexed for the backfill pass
	run     runningSet[*Profile]
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
		e.q.reserve(v.NumJobs())
		e.q.add(n.Job)
	case engine.NoticeRequeued:
		e.run.stopped(n.Job)
		e.q.add(n.Job)
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
	h := e.q.first()
	for h >= 0 && e.start(v, p, e.q.jobs[h]) {
		e.q.del(h)
		h = e.q.first()
	}
	if h < 0 {
		return
	}
	head := e.q.jobs[h]
	if e.OnShadow != nil && head != e.lastHead {
		e.lastHead = head
		sh, _ := e.shadow(v, head)
		e.OnShadow(head, sh)
	}
	free := v.FreePEs()
	if e.q.count < 2 || free == 0 {
		return
	}
	shadow, extra := e.shadow(v, head)
	now := v.Now()
	// The rest of the queue in arrival order; the index skips the jobs
	// that cannot start now (too wide, or too long and wider than the
	// extra processors).
	for i := e.q.next(h+1, free, extra, now, shadow); i >= 0; i = e.q.next(i+1, free, extra, now, shadow) {
		j := e.q.jobs[i]
		if slotEnd(now, j.Est) <= shadow {
			if e.start(v, p, j) {
				e.q.del(i)
			}
		} else if e.start(v, p, j) { // j.Procs <= extra
			extra -= j.Procs
			e.q.del(i)
		}
		if free = v.FreePEs(); free == 0 {
			break
		}
	}
}
