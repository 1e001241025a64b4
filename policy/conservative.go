package policy

import (
	"container/heap"
	"math"

	"github.com/gridsched/gridsched/engine"
)

// Conservative is conservative backfilling (Mu'alem & Feitelson 2001).
// Every job gets a reservation when it arrives: the earliest time (anchor)
// at which enough processors are free for its whole estimated run, given
// the running jobs and every earlier reservation. A job starts when its
// reservation comes. When a job ends earlier than its estimate the
// schedule is compressed: queued jobs are revisited in arrival order and
// each moves to its earliest feasible slot, never later. A job therefore
// never starts later than its first reservation as long as estimates are
// upper bounds and the platform does not shrink.
//
// When the platform changes (nodes down or up) or a job outlives its
// estimate (OverrunExtend), reservations can become infeasible; the
// schedule is then rebuilt from scratch in arrival order.
type Conservative struct {
	sel  NodeSelector
	q    queue // waiting jobs in arrival order
	run  runningSet
	res  []float64 // reservation start per job index; NaN = not placed; +Inf = cannot fit now
	due  dueHeap   // placed reservations by start time (lazily invalidated)
	todo []*engine.Job

	compress, rebuild bool
}

var _ engine.Policy = (*Conservative)(nil)

// NewConservative returns conservative backfilling using sel for node
// selection.
func NewConservative(sel NodeSelector) *Conservative {
	return &Conservative{sel: sel, run: newRunningSet()}
}

func (c *Conservative) resOf(j *engine.Job) *float64 {
	for int(j.Index) >= len(c.res) {
		c.res = append(c.res, math.NaN())
	}
	return &c.res[j.Index]
}

func (c *Conservative) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted:
		c.q = c.q.insert(n.Job)
		c.todo = append(c.todo, n.Job)
	case engine.NoticeRequeued:
		c.run.stopped(n.Job)
		c.q = c.q.insert(n.Job)
		c.rebuild = true
	case engine.NoticeEnded:
		if k := c.run.stopped(n.Job); v.Now() < k {
			c.compress = true
		}
	case engine.NoticeEstimateExtended:
		c.run.extended(n.Job)
		c.rebuild = true
	case engine.NoticeNodeDown, engine.NoticeNodeUp:
		c.rebuild = true
	}
}

func (c *Conservative) place(now float64, j *engine.Job) {
	t := c.run.prof.EarliestFit(now, j.Est, j.Procs)
	*c.resOf(j) = t
	if !math.IsInf(t, 1) {
		c.run.prof.Reserve(t, t+j.Est, j.Procs)
		heap.Push(&c.due, dueEntry{t: t, j: j})
	}
}

func (c *Conservative) unplace(j *engine.Job) {
	r := c.resOf(j)
	if t := *r; !math.IsNaN(t) && !math.IsInf(t, 1) {
		c.run.prof.Unreserve(t, t+j.Est, j.Procs)
	}
	*r = math.NaN()
}

func (c *Conservative) Schedule(v *engine.View, p *engine.Plan) {
	now := v.Now()
	c.run.prof.Base = v.FreePEs()
	for pass := 0; pass < 2; pass++ {
		if c.rebuild {
			for _, j := range c.q {
				c.unplace(j)
			}
			c.due = c.due[:0]
			c.todo = append(c.todo[:0], c.q...)
			c.rebuild, c.compress = false, false
		}
		if c.compress {
			c.compress = false
			c.compressQueue(now)
		}
		for _, j := range c.todo {
			if j.State == engine.Queued && math.IsNaN(*c.resOf(j)) {
				c.place(now, j)
			}
		}
		c.todo = c.todo[:0]
		if c.startDue(v, p) {
			return
		}
		// A reservation that has come cannot start although no running
		// job is due to end: the schedule no longer matches the platform.
		c.rebuild = true
	}
}

// compressQueue moves each queued job, in arrival order, to its earliest
// feasible slot if that is earlier than its reservation (one pass, as
// Mu'alem & Feitelson describe compression).
func (c *Conservative) compressQueue(now float64) {
	for _, j := range c.q {
		r := *c.resOf(j)
		if math.IsNaN(r) || r <= now {
			continue
		}
		t := c.run.prof.EarliestFitBefore(now, j.Est, j.Procs, r)
		if math.IsInf(t, 1) {
			continue // no earlier slot
		}
		c.unplace(j)
		c.run.prof.Reserve(t, t+j.Est, j.Procs)
		*c.resOf(j) = t
		heap.Push(&c.due, dueEntry{t: t, j: j})
	}
}

// startDue starts every job whose reservation has come. It reports false
// when one of them cannot start and no running job is expected to free
// processors at or before now.
func (c *Conservative) startDue(v *engine.View, p *engine.Plan) bool {
	now := v.Now()
	var blocked []dueEntry
	for len(c.due) > 0 && c.due[0].t <= now {
		e := heap.Pop(&c.due).(dueEntry)
		j := e.j
		if j.State != engine.Queued || *c.resOf(j) != e.t {
			continue // stale entry
		}
		if tryStart(v, p, c.sel, j) {
			c.run.prof.Unreserve(e.t, e.t+j.Est, j.Procs)
			*c.resOf(j) = math.NaN()
			c.run.prof.Base = v.FreePEs()
			c.run.started(j)
			c.q = c.q.remove(j)
			continue
		}
		blocked = append(blocked, e)
	}
	for _, e := range blocked {
		heap.Push(&c.due, e)
	}
	if len(blocked) == 0 {
		return true
	}
	// Processors still held by jobs expected to end by now will be freed
	// by completions at this same instant (arrivals are handled first);
	// wait for them.
	for _, r := range v.Running() {
		if r.ExpectedEnd() <= now {
			return true
		}
	}
	return false
}

type dueEntry struct {
	t float64
	j *engine.Job
}

type dueHeap []dueEntry

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(a, b int) bool {
	if h[a].t != h[b].t {
		return h[a].t < h[b].t
	}
	return h[a].j.Index < h[b].j.Index
}
func (h dueHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
