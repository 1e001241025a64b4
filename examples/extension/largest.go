package main

import (
	"cmp"
	"slices"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
)

// LargestFirst starts the waiting jobs that fit, widest first (ties in
// arrival order). It reserves nothing: a job that does not fit never
// holds back a narrower one.
type LargestFirst struct {
	sel     policy.NodeSelector
	waiting []*engine.Job
}

// NewLargestFirst is the policy's factory: a fresh policy for each run,
// placing jobs with the run's node selection.
func NewLargestFirst(sel policy.NodeSelector) engine.Policy { return &LargestFirst{sel: sel} }

// Notify keeps the waiting list: the engine hands over every job that
// arrives or is requeued, once.
func (l *LargestFirst) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted, engine.NoticeRequeued:
		l.waiting = append(l.waiting, n.Job)
	}
}

// Schedule starts what fits, widest first; the engine checks every start.
func (l *LargestFirst) Schedule(v *engine.View, p *engine.Plan) {
	slices.SortStableFunc(l.waiting, func(a, b *engine.Job) int {
		return cmp.Or(b.Procs-a.Procs, cmp.Compare(a.Index, b.Index))
	})
	kept := l.waiting[:0]
	for _, j := range l.waiting {
		if j.Procs <= v.FreePEs() {
			if a, ok := l.sel.Select(v, j, v.AllocBuffer()); ok && p.Start(j, a) == nil {
				continue
			}
		}
		kept = append(kept, j)
	}
	l.waiting = kept
}
