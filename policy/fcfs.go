package policy

import "github.com/gridsched/gridsched/engine"

// FCFS starts jobs strictly in arrival order: the queue head starts as
// soon as it fits, and nothing overtakes it.
type FCFS struct {
	sel NodeSelector
	q   queue
}

var _ engine.ConsultingPolicy = (*FCFS)(nil)

// NewFCFS returns an FCFS policy using sel for node selection.
func NewFCFS(sel NodeSelector) *FCFS { return &FCFS{sel: sel} }

// Consultation implements engine.ConsultingPolicy: FCFS decides once every
// job ending at an instant has released its processors. Its start times
// would be the same either way (it never starts out of order); the nodes
// it picks would not.
func (f *FCFS) Consultation() engine.Consultation { return engine.SettledInstants }

func (f *FCFS) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted, engine.NoticeRequeued:
		f.q = f.q.insert(n.Job)
	}
}

func (f *FCFS) Schedule(v *engine.View, p *engine.Plan) {
	started := 0
	for _, j := range f.q {
		if !tryStart(v, p, f.sel, j) {
			break
		}
		started++
	}
	f.q = f.q[started:]
}

// tryStart starts j now if it fits and node selection can place it.
func tryStart(v *engine.View, p *engine.Plan, sel NodeSelector, j *engine.Job) bool {
	if j.Procs > v.FreePEs() {
		return false
	}
	a, ok := sel.Select(v, j, v.AllocBuffer()) // Start copies what it keeps
	if !ok {
		return false
	}
	return p.Start(j, a) == nil
}
