package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// linearEASY is EASY as it was written before the queue index: the
// backfill pass scans every waiting job. It is the oracle the indexed
// EASY is checked against (same decisions, job for job).
type linearEASY struct {
	sel NodeSelector
	q   queue
	run runningSet[*Profile]
}

// NewLinearEASY returns the scanning EASY oracle (tests only).
func NewLinearEASY(sel NodeSelector) engine.Policy {
	return &linearEASY{sel: sel, run: newRunningSet()}
}

func (e *linearEASY) Consultation() engine.Consultation { return engine.SettledInstants }

func (e *linearEASY) Notify(v *engine.View, n engine.Notice) {
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

func (e *linearEASY) start(v *engine.View, p *engine.Plan, j *engine.Job) bool {
	if !tryStart(v, p, e.sel, j) {
		return false
	}
	e.run.started(j)
	return true
}

func (e *linearEASY) Schedule(v *engine.View, p *engine.Plan) {
	started := 0
	for _, j := range e.q {
		if !e.start(v, p, j) {
			break
		}
		started++
	}
	e.q = e.q[started:]
	if len(e.q) < 2 || v.FreePEs() == 0 {
		return
	}
	e.run.prof.Base = v.FreePEs()
	shadow, extra := math.Inf(1), 0
	if t, ok := e.run.prof.FirstAtLeast(math.Inf(-1), e.q[0].Procs); ok {
		shadow, extra = max(t, v.Now()), e.run.prof.Value(t)-e.q[0].Procs
	}
	now := v.Now()
	w := 1
	for i := 1; i < len(e.q); i++ {
		free := v.FreePEs()
		if free == 0 {
			w += copy(e.q[w:], e.q[i:])
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
