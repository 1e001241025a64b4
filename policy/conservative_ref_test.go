package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// refConservative is conservative backfilling as it was before compression
// skipped jobs that cannot move (issue 19): every compression asks every
// queued job whether it can move earlier. It is the oracle the
// skipping Conservative is checked against (same reservations, same
// starts, job for job).
//
// It is conservative backfilling (Mu'alem & Feitelson 2001).
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
type refConservative struct {
	sel  NodeSelector
	q    queue // waiting jobs in arrival order
	run  runningSet[*Profile]
	res  []float64 // reservation start per job index; NaN = not placed; +Inf = cannot fit now
	due  dueHeap   // placed reservations by start time (lazily invalidated)
	todo []*engine.Job

	compress, rebuild bool
	wake              float64 // time of the timer already asked for (NaN: none)

	// OnReserve, if set, is called for every reservation made or moved
	// (for tests and traces).
	OnReserve func(j *engine.Job, start float64)
}

var _ engine.ConsultingPolicy = (*refConservative)(nil)

// Consultation implements engine.ConsultingPolicy: compression at t sees
// every job that ends at t released, so the order in which the engine
// handles same-time completions cannot decide which queued job moves
// into the freed processors.
func (c *refConservative) Consultation() engine.Consultation { return engine.SettledInstants }

// NewRefConservative returns the oracle (tests only), using sel for node
// selection.
func NewRefConservative(sel NodeSelector) engine.Policy {
	return &refConservative{sel: sel, run: newRunningSet(), wake: math.NaN()}
}

func (c *refConservative) resOf(j *engine.Job) *float64 {
	for int(j.Index) >= len(c.res) {
		c.res = append(c.res, math.NaN())
	}
	return &c.res[j.Index]
}

func (c *refConservative) Notify(v *engine.View, n engine.Notice) {
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

func (c *refConservative) place(now float64, j *engine.Job) {
	t := c.run.prof.EarliestFit(now, j.Est, j.Procs)
	*c.resOf(j) = t
	if c.OnReserve != nil {
		c.OnReserve(j, t)
	}
	if !math.IsInf(t, 1) {
		c.run.prof.Reserve(t, t+j.Est, j.Procs)
		c.due.push(dueEntry{t: t, j: j})
	}
}

func (c *refConservative) unplace(j *engine.Job) {
	r := c.resOf(j)
	if t := *r; !math.IsNaN(t) && !math.IsInf(t, 1) {
		c.run.prof.Unreserve(t, t+j.Est, j.Procs)
	}
	*r = math.NaN()
}

func (c *refConservative) Schedule(v *engine.View, p *engine.Plan) {
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
			c.armTimer(v, p)
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
func (c *refConservative) compressQueue(now float64) {
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
		if c.OnReserve != nil {
			c.OnReserve(j, t)
		}
		c.due.push(dueEntry{t: t, j: j})
	}
}

// armTimer makes sure the policy is consulted at the earliest reservation
// start. That time was a profile point (an expected end or a reservation
// end) when the reservation was made, but that job may have ended early
// or moved, leaving no event there.
func (c *refConservative) armTimer(v *engine.View, p *engine.Plan) {
	for len(c.due) > 0 {
		e := c.due[0]
		if e.j.State == engine.Queued && *c.resOf(e.j) == e.t {
			break
		}
		c.due.pop() // stale
	}
	if len(c.due) == 0 {
		return
	}
	t := c.due[0].t
	if t > v.Now() && (math.IsNaN(c.wake) || c.wake <= v.Now() || t < c.wake) {
		c.wake = t
		p.Timer(t, 0)
	}
}

// startDue starts, in reservation order, every job whose reservation has
// come. When one cannot start yet because processors are still held by
// jobs that end at this very instant (their completions are handled after
// arrivals), it and every later due job wait for the next pass at the same
// instant, so the reservation order holds. It reports false when a due
// job cannot start and no such completion is pending: the schedule no
// longer matches the platform.
func (c *refConservative) startDue(v *engine.View, p *engine.Plan) bool {
	now := v.Now()
	for len(c.due) > 0 && c.due[0].t <= now {
		e := c.due[0]
		j := e.j
		if j.State != engine.Queued || *c.resOf(j) != e.t {
			c.due.pop() // stale entry
			continue
		}
		if !tryStart(v, p, c.sel, j) {
			for _, r := range v.Running() {
				if r.ExpectedEnd() <= now {
					return true
				}
			}
			return false
		}
		c.due.pop()
		c.run.prof.Unreserve(e.t, e.t+j.Est, j.Procs)
		*c.resOf(j) = math.NaN()
		c.run.prof.Base = v.FreePEs()
		c.run.started(j)
		c.q = c.q.remove(j)
	}
	return true
}

// SetRefOnReserve sets the oracle's OnReserve hook (tests only).
func SetRefOnReserve(p engine.Policy, f func(j *engine.Job, start float64)) {
	p.(*refConservative).OnReserve = f
}

// dueHeap (the oracle's) is a binary min-heap of reservations by (start, arrival
// order). Entries go stale when a reservation moves; they are skipped when
// they reach the top.
type dueHeap []dueEntry

func (h dueHeap) less(a, b int) bool {
	if h[a].t != h[b].t {
		return h[a].t < h[b].t
	}
	return h[a].j.Index < h[b].j.Index
}

func (h *dueHeap) push(e dueEntry) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *dueHeap) pop() {
	q := *h
	n := len(q) - 1
	q[0] = q[n]
	q[n] = dueEntry{}
	q = q[:n]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < n && q.less(l, best) {
			best = l
		}
		if l+1 < n && q.less(l+1, best) {
			best = l + 1
		}
		if best == i {
			break
		}
		q[i], q[best] = q[best], q[i]
		i = best
	}
	*h = q
}

// ConservativeProfileLen is the number of points in c's profile.
func ConservativeProfileLen(c *Conservative) int { return c.run.prof.Len() }

// SetConservativeTree makes c's profile switch to the tree above
// treeAbove points and back under flatBelow, with chunks of chunk points
// (tests: a small profile then exercises the tree and the switches).
func SetConservativeTree(c *Conservative, treeAbove, flatBelow, chunk int) {
	c.run.prof.treeAbove, c.run.prof.flatBelow, c.run.prof.chunk = treeAbove, flatBelow, chunk
}
