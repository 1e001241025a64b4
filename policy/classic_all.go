package policy

import (
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
)

// allState is what depth=all (conservative backfilling) keeps beyond the
// profile: the reservations by start time, the jobs to place, and the
// log of the profile's rises that lets compression skip the jobs that
// cannot move.
type allState struct {
	due     resHeap // reservations by (start, arrival order), one entry per reserved job
	fresh   []*engine.Job
	rises   riseLog
	checked []uint64 // per job index: rises logged when it was last known unable to move
	dead    int      // started jobs still in c.wait (dropped when they are half of it)

	// Lower bounds on the earliest fit (issue 32). Within a generation
	// (the schedule neither rebuilt nor the processors up changed) free
	// processors rise only where a slot leaves the profile (unslot), each
	// rise ending no later than riseEnd. A window that did not fit
	// before such rises and fits after overlaps one, so it starts before
	// riseEnd: from riseEnd on, a (processors, duration) pair's earliest
	// fit only moves later, and never precedes that of a pair it
	// dominates. A placement therefore searches plainly below riseEnd,
	// and from riseEnd on starts at the earliest fit of its class's
	// corner (fitClass), whose own search starts at the latest earliest
	// fit found for any corner it dominates (domMax): found from
	// max(now, riseEnd) in this generation, it is still a bound. Without
	// compression every rise is a job ending before its prediction, so
	// riseEnd stays within one prediction of now while the reservations
	// of a growing backlog lie far beyond it. TestPropertyClassicBoundsEqualPlain
	// checks the schedules against plain searches.
	lb      domMax
	gen     uint64 // generation of lb's values (from 1)
	riseEnd float64
	base    int  // the profile's Base when the generation began
	plain   bool // no bounds (tests: the plain searches they must equal)
}

// rose records that the profile rose somewhere before t (never NaN: the
// engine refuses jobs with non-finite times).
func (a *allState) rose(t float64) {
	if t > a.riseEnd {
		a.riseEnd = t
	}
}

// newGen drops every bound.
func (a *allState) newGen(base int) {
	a.gen++
	a.riseEnd = math.Inf(-1)
	a.base = base
}

// classicVerifyFit, if set, is handed every bounded placement's answer
// with the plain search's (tests).
var classicVerifyFit func(now, dur float64, procs int, bounded, plain float64)

// earliest is the profile's EarliestFit(now, dur, procs), using the
// generation's bounds from riseEnd on.
func (c *Classic) earliest(now, dur float64, procs int) float64 {
	t := c.earliestBounded(now, dur, procs)
	if classicVerifyFit != nil {
		classicVerifyFit(now, dur, procs, t, c.prof.EarliestFit(now, dur, procs))
	}
	return t
}

func (c *Classic) earliestBounded(now, dur float64, procs int) float64 {
	a := &c.all
	prof := c.prof
	k, P, D, ok := fitClass(procs, dur)
	if !ok || a.plain {
		return prof.EarliestFit(now, dur, procs)
	}
	b := max(now, a.riseEnd)
	if b > now {
		if t := prof.EarliestFitIn(now, b, dur, procs, math.Inf(1)); !math.IsInf(t, 1) {
			return t
		}
	}
	cb := prof.EarliestFit(max(b, a.lb.most(k/fitDC, k%fitDC, a.gen)), D, P)
	a.lb.raise(k/fitDC, k%fitDC, cb, a.gen)
	if math.IsInf(cb, 1) {
		return cb // the corner never fits from b on, so neither does j
	}
	return prof.EarliestFit(cb, dur, procs)
}

func (c *Classic) checkedOf(j *engine.Job) *uint64 {
	a := &c.all
	if int(j.Index) >= len(a.checked) {
		a.checked = growTo(a.checked, int(j.Index)+1, 0)
	}
	return &a.checked[j.Index]
}

// scheduleAll is depth=all, conservative backfilling as pyss plans it
// and as the dedicated Conservative decides: a job is reserved at its
// earliest slot when it arrives and starts when its reservation comes;
// with compress=yes, after a job ends before its prediction every later
// reservation, in arrival order, moves to its earliest slot (never
// later). Reservations that have come start in (start, arrival) order;
// when one cannot start because processors are still held by a job the
// engine ends at this instant, it and the later ones wait for the pass
// that follows that completion; when one cannot start otherwise, the
// schedule no longer matches the platform and is rebuilt in the same
// pass (as Conservative does).
//
// Cost. A pass touches the jobs it places, the reservations that come
// and, when compressing, every waiting job in O(1) except those that a
// rise of the profile since they were last asked may let move (see
// riseLog), each an O(log n) search.
func (c *Classic) scheduleAll(v *engine.View, p *engine.Plan) {
	now := v.Now()
	a := &c.all
	if a.gen == 0 || c.prof.Base != a.base {
		a.newGen(c.prof.Base)
	}
	for pass := 0; pass < 2; pass++ {
		if c.reset {
			c.reset, c.early = false, false
			c.dropStarted()
			for _, j := range c.wait {
				c.unslot(j)
			}
			a.due.clear()
			a.rises.clear()
			a.fresh = append(a.fresh[:0], c.wait...)
			a.newGen(c.prof.Base)
		}
		if c.early && c.s.Compress {
			c.compressAll(now)
		}
		c.early = false
		for _, j := range a.fresh {
			d := c.d(j)
			if d.queued && j.State == engine.Queued && math.IsNaN(d.pstart) {
				c.place(now, j)
			}
		}
		clear(a.fresh)
		a.fresh = a.fresh[:0]
		if c.startDue(v, p) {
			c.armTimer(v, p)
			return
		}
		c.reset = true // a reservation that came cannot start: the schedule no longer matches the platform
	}
}

// place reserves j at its earliest slot from now (none if it can never
// fit the processors that are up).
func (c *Classic) place(now float64, j *engine.Job) {
	d := c.d(j)
	*c.checkedOf(j) = c.all.rises.n
	if t := c.earliest(now, d.pred, j.Procs); !math.IsInf(t, 1) {
		c.slot(j, t, d.pred)
		c.all.due.set(j, t)
	}
}

// compressAll moves every reservation, in arrival order, to its earliest
// slot if that is earlier. A job is asked only if the profile rose, since
// it was last asked, somewhere with at least its processors free
// (riseLog); the others would be refused. The test with the job's own
// reservation in place (EarliestFitBefore) is pyss's "remove it, then
// place it at its earliest" whenever the profile is nowhere negative,
// which holds at depth=all: a prediction raised past a reservation
// rebuilds the schedule.
func (c *Classic) compressAll(now float64) {
	a := &c.all
	a.rises.begin(now, c.prof)
	for _, j := range c.wait {
		d := c.d(j)
		r := d.pstart
		if !d.queued || j.State != engine.Queued || math.IsNaN(r) || r <= now {
			continue
		}
		chk := c.checkedOf(j)
		if a.rises.maxSince(*chk) < j.Procs {
			*chk = a.rises.n
			continue // nothing rose where it could fit
		}
		t := c.prof.EarliestFitBefore(now, d.pred, j.Procs, r)
		if math.IsInf(t, 1) {
			*chk = a.rises.n
			continue
		}
		pred := d.ppred
		c.unslot(j)
		c.slot(j, t, pred)
		a.due.set(j, t)
		// The old slot is free again beyond the new one's end.
		if lo, hi := max(r, slotEnd(t, pred)), slotEnd(r, pred); lo < hi {
			a.rises.log(lo, hi, c.prof.MaxOver(lo, hi))
		}
		*chk = a.rises.n
	}
	a.rises.end()
}

// startDue starts, in reservation order, every job whose reservation has
// come (as Conservative.startDue). It reports false when one cannot start
// and no job the engine runs ends at this instant.
func (c *Classic) startDue(v *engine.View, p *engine.Plan) bool {
	now := v.Now()
	h := &c.all.due
	for len(h.h) > 0 && h.h[0].t <= now {
		j := h.h[0].j
		d := c.d(j)
		if !d.queued || j.State != engine.Queued || d.pstart != h.h[0].t {
			h.pop() // stale
			continue
		}
		if !c.launch(v, p, j, d.pred) {
			for _, r := range v.Running() {
				if r.ExpectedEnd() <= now {
					return true
				}
			}
			return false
		}
		if c.all.dead++; 2*c.all.dead > len(c.wait) { // dropped from c.wait later

			c.dropStarted()
		}
	}
	return true
}

// dropStarted removes the started jobs from c.wait (O(queue), at most
// once per as many starts as the queue is long).
func (c *Classic) dropStarted() {
	if c.all.dead == 0 {
		return
	}
	c.wait = slices.DeleteFunc(c.wait, func(j *engine.Job) bool {
		d := c.d(j)
		d.inWait = d.queued
		return !d.queued
	})
	c.all.dead = 0
}

// armTimer asks for a consultation at the earliest reservation start (the
// event that made it a profile point may have moved or gone).
func (c *Classic) armTimer(v *engine.View, p *engine.Plan) {
	h := &c.all.due
	for len(h.h) > 0 {
		j := h.h[0].j
		if d := c.d(j); d.queued && j.State == engine.Queued && d.pstart == h.h[0].t {
			break
		}
		h.pop()
	}
	if len(h.h) == 0 {
		return
	}
	t := h.h[0].t
	if t > v.Now() && (math.IsNaN(c.wake) || c.wake <= v.Now() || t < c.wake) {
		c.wake = t
		p.Timer(t, 0)
	}
}

// del removes j's entry if it has one.
func (h *resHeap) del(j *engine.Job) {
	if int(j.Index) >= len(h.pos) || h.pos[j.Index] == 0 {
		return
	}
	i := int(h.pos[j.Index]) - 1
	n := len(h.h) - 1
	if i != n {
		h.swap(i, n)
	}
	h.pos[j.Index] = 0
	h.h[n] = dueEntry{}
	h.h = h.h[:n]
	if i < n {
		h.down(i)
		h.up(i)
	}
}

// riseLog records where free processors in a depth=all profile went up,
// so that compression asks only the jobs that may move. Free processors
// rise only where a job ends before its prediction and where compression
// moves a reservation earlier; every other change lowers the future
// profile or rebuilds the schedule (clear). Each rise [a, b) carries a
// bound on the free processors there (−1 until begin computes it). A job
// last known unable to move when n rises had been logged gained an
// earlier window only through a point that rose since, whose free count
// the last rise over it bounds from above: if every later bound is below
// its processors it cannot move. Jobs are asked in arrival order and
// were last asked in that order, so the bounds since a job's mark are
// kept as a deque of decreasing bounds (O(1) amortized per job).
type riseLog struct {
	r  []rise
	n  uint64 // rises logged since the start; r[i] is number n-len(r)+i+1
	mq []uint64
	mh int
	lq uint64
	st uint64
}

func (l *riseLog) clear() {
	l.r, l.mq, l.mh = l.r[:0], l.mq[:0], 0
}

// log records a rise over [a, b) with bound (−1: computed by begin).
func (l *riseLog) log(a, b float64, bound int) {
	l.r = append(l.r, rise{a: a, b: b, max: bound})
	l.n++
	if bound >= 0 {
		l.push(l.n)
	}
}

// begin computes the missing bounds (from now on) and opens a pass.
func (l *riseLog) begin(now float64, p *Profile) {
	l.st = l.n
	l.mq, l.mh, l.lq = l.mq[:0], 0, 0
	for i := range l.r {
		if r := &l.r[i]; r.max < 0 {
			r.max = p.MaxOver(max(r.a, now), r.b)
		}
		l.push(l.st - uint64(len(l.r)) + uint64(i) + 1)
	}
}

// end drops the rises every job has been asked after.
func (l *riseLog) end() {
	if drop := len(l.r) - int(l.n-l.st); drop > 0 {
		l.r = append(l.r[:0], l.r[drop:]...)
	}
}

func (l *riseLog) at(num uint64) *rise { return &l.r[num-(l.n-uint64(len(l.r)))-1] }

func (l *riseLog) push(num uint64) {
	m := l.at(num).max
	for len(l.mq) > l.mh && l.at(l.mq[len(l.mq)-1]).max <= m {
		l.mq = l.mq[:len(l.mq)-1]
	}
	l.mq = append(l.mq, num)
}

// maxSince bounds the free processors at every point that rose after the
// first checked rises: the largest bound among the later ones (−1 if
// none; MaxInt if they are no longer in the log).
func (l *riseLog) maxSince(checked uint64) int {
	first := l.n - uint64(len(l.r))
	if checked < first {
		return math.MaxInt
	}
	if checked < l.lq {
		m := -1
		for _, r := range l.r[checked-first:] {
			m = max(m, r.max)
		}
		return m
	}
	l.lq = checked
	for l.mh < len(l.mq) && l.mq[l.mh] <= checked {
		l.mh++
	}
	if l.mh == len(l.mq) {
		return -1
	}
	return l.at(l.mq[l.mh]).max
}
