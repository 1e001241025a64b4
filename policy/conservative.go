package policy

import (
	"math"
	"math/bits"
	"slices"

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
	q    queue  // waiting jobs in arrival order, and started ones not yet dropped (inQ)
	inQ  []bool // per job index: waiting (an entry of q that is not is dropped later)
	dead int    // entries of q not waiting
	run  runningSet[*resProfile]
	res  []float64 // reservation start per job index; NaN = not placed; +Inf = cannot fit now
	due  resHeap   // placed reservations by start time
	todo []*engine.Job

	compress, rebuild bool
	wake              float64 // time of the timer already asked for (NaN: none)

	// Skipping jobs that cannot move (issue 19). Free processors in the
	// profile rise only where a job ends before its estimate and where a
	// compression moves a reservation earlier; everything else (arrivals,
	// starts at the reservation, ends at the estimate) leaves the future
	// profile alone or lowers it, and the rest (requeues, overruns,
	// platform changes) rebuilds the schedule. rises logs every rise with
	// a bound on the free processors there; checked[j] is the number of
	// rises logged when job j was last known to have no earlier slot. A
	// job whose every later window was infeasible then can only have
	// gained one through a point that rose since, and only if that point
	// now has at least its processors free (see compressQueue).
	rises   []rise
	nRises  uint64 // rises logged since the start (rises[i] is number nRises-len(rises)+i+1)
	checked []uint64
	mq      []uint64 // rises of this pass's window with decreasing bounds (maxSince)
	mqHead  int
	lastQ   uint64
	sufB    []float64 // sufB[i]: latest end of rises[i:] at the pass's start

	// Questions a failure answers (issue 30). While no job moves, the
	// profile is fixed; a job of at most j's processors and estimate,
	// with a reservation no later than j's, found no slot in [now, to):
	// neither has j there (a window of j's there holds one of the
	// other's, cut at a reservation no later), so j's search starts at
	// to. One failure is kept per class of fitClass, valid while moves is
	// unchanged.
	fails []failure
	moves uint64
	newB  float64 // latest end of the rises logged during the pass

	// Lower bounds on the earliest fit (issue 30, target 1). While no
	// rise is logged and the schedule is not rebuilt, free processors at
	// every time from now on only fall (see rises above), so the
	// earliest fit of a (processors, duration) pair only moves later, and
	// a pair never fits earlier than a pair it dominates in both. A job's
	// search therefore starts at the earliest fit of its class's corner
	// (the largest pair of the form m·2^e, m in 8..15, below it in
	// both: fitClass), and the corner's own search starts at the latest
	// earliest fit found for any corner it dominates, its own included
	// (domMax). The
	// bounds hold for one generation (rises logged plus rebuilds) and are
	// dropped when it changes; a place in a generation whose first place
	// it is searches plainly, so a profile that rises between arrivals
	// (estimates above the runtime) does not pay for corners it cannot
	// keep. TestConservativeLargeEqualsAsking (its exact-estimate seeds) and
	// TestPropertyConservativeSkipEqualsAsking check the schedules against
	// the oracle; TestPropertyFitClass the classes.
	lb       domMax // the corners' earliest fits, stamped with lbGen
	lbGen    uint64
	rebuilds uint64

	// OnReserve, if set, is called for every reservation made or moved
	// (for tests and traces).
	OnReserve func(j *engine.Job, start float64)
}

var _ engine.ConsultingPolicy = (*Conservative)(nil)

// Consultation implements engine.ConsultingPolicy: compression at t sees
// every job that ends at t released, so the order in which the engine
// handles same-time completions cannot decide which queued job moves
// into the freed processors.
func (c *Conservative) Consultation() engine.Consultation { return engine.SettledInstants }

// NewConservative returns conservative backfilling using sel for node
// selection.
func NewConservative(sel NodeSelector) *Conservative {
	return &Conservative{sel: sel, run: newResRunningSet(), wake: math.NaN()}
}

func (c *Conservative) resOf(j *engine.Job) *float64 {
	if int(j.Index) >= len(c.res) {
		c.res = growTo(c.res, int(j.Index)+1, math.NaN())
	}
	return &c.res[j.Index]
}

func (c *Conservative) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted:
		c.enqueue(n.Job)
		c.todo = append(c.todo, n.Job)
	case engine.NoticeRequeued:
		c.run.stopped(n.Job)
		c.enqueue(n.Job)
		c.rebuild = true
	case engine.NoticeEnded:
		if k := c.run.stopped(n.Job); v.Now() < k {
			c.compress = true
			c.logRise(v.Now(), k, -1) // bound taken once the profile's base is current
		}
	case engine.NoticeEstimateExtended:
		c.run.extended(n.Job)
		c.rebuild = true
	case engine.NoticeNodeDown, engine.NoticeNodeUp:
		c.rebuild = true
	}
}

// enqueue adds j to the waiting jobs (a requeued job whose entry is
// still in q gets it back).
func (c *Conservative) enqueue(j *engine.Job) {
	if int(j.Index) >= len(c.inQ) {
		c.inQ = growTo(c.inQ, int(j.Index)+1, false)
	}
	if c.inQ[j.Index] {
		return
	}
	c.inQ[j.Index] = true
	if _, ok := c.q.find(j); ok {
		c.dead-- // its entry is still there
		return
	}
	c.q = c.q.insert(j)
}

// dequeue drops j from the waiting jobs. Its entry stays in q (every
// loop over q skips a job without a reservation) until half of q's
// entries are such, then q is compacted: removing from the middle of an
// overloaded queue at every start cost O(queue) per job (issue 30).
func (c *Conservative) dequeue(j *engine.Job) {
	c.inQ[j.Index] = false
	c.dead++
	if 2*c.dead > len(c.q) {
		c.q = slices.DeleteFunc(c.q, func(k *engine.Job) bool { return !c.inQ[k.Index] })
		c.dead = 0
	}
}

func (c *Conservative) place(now float64, j *engine.Job) {
	t := c.earliest(now, j)
	*c.resOf(j) = t
	*c.checkedOf(j) = c.nRises
	if c.OnReserve != nil {
		c.OnReserve(j, t)
	}
	if !math.IsInf(t, 1) {
		c.run.prof.Reserve(t, slotEnd(t, j.Est), j.Procs)
		c.due.set(j, t)
	}
}

// earliest is the profile's EarliestFit(now, j.Est, j.Procs), started at
// the bound of j's class when one holds.
func (c *Conservative) earliest(now float64, j *engine.Job) float64 {
	prof := c.run.prof
	if g := c.nRises + c.rebuilds + 1; g != c.lbGen {
		c.lbGen = g // drops every bound (stamped with an older generation)
		return prof.EarliestFit(now, j.Est, j.Procs)
	}
	k, P, D, ok := fitClass(j.Procs, j.Est)
	if !ok {
		return prof.EarliestFit(now, j.Est, j.Procs)
	}
	// The corner's search starts at the latest earliest fit found for a
	// corner it dominates (its own included).
	from := max(now, c.lb.most(k/fitDC, k%fitDC, c.lbGen))
	cb := prof.EarliestFit(from, D, P)
	c.lb.raise(k/fitDC, k%fitDC, cb, c.lbGen)
	if math.IsInf(cb, 1) {
		return cb // the corner never fits, so neither does j
	}
	return prof.EarliestFit(max(now, cb), j.Est, j.Procs)
}

// fitClass is the class of a (processors, duration) pair, an index below
// fitPC·fitDC, and its corner (P, D) <= (procs, dur): below 8 processors
// P = procs, above P = m·2^e with m in 8..15 the largest such at most
// procs; D likewise for the duration, which must be at least 1 and below
// 2^63 (the float's exponent and three leading bits of its mantissa).
func fitClass(procs int, dur float64) (k, P int, D float64, ok bool) {
	if procs < 1 || procs >= 1<<31 || !(dur >= 1) || dur >= 1<<63 {
		return 0, 0, 0, false
	}
	pc := procs
	P = procs
	if procs >= 8 {
		e := bits.Len(uint(procs)) - 4
		m := procs >> e
		P = m << e
		pc = 8 + e*8 + (m - 8)
	}
	b := math.Float64bits(dur)
	ex := int(b>>52&0x7ff) - 1022 // dur = f·2^ex, f in [0.5, 1): 1..63
	m := 8 + int(b>>49&7)         // the leading four bits of f·16
	D = math.Float64frombits(b &^ (1<<49 - 1))
	return pc*fitDC + ex*8 + (m - 8), P, D, true
}

// fitDC is the number of duration classes of fitClass (8 per octave, 64
// octaves).
const fitDC = 8 * 64

func (c *Conservative) unplace(j *engine.Job) {
	r := c.resOf(j)
	if t := *r; !math.IsNaN(t) && !math.IsInf(t, 1) {
		c.run.prof.Unreserve(t, slotEnd(t, j.Est), j.Procs)
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
			c.due.clear()
			c.rises, c.mq, c.mqHead = c.rises[:0], c.mq[:0], 0
			c.todo = append(c.todo[:0], c.q...)
			c.rebuild, c.compress = false, false
			c.rebuilds++
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
//
// A job is asked only if a rise logged since it was last known unable to
// move has a bound of at least its processors: a feasible window now that
// was infeasible then holds a point whose free count went up, that point
// lies in a logged rise, and the last rise logged over it bounds its free
// count from above (only falls followed), so that bound is at least the
// job's processors. Every job skipped this way would have been refused by
// EarliestFitBefore, so the schedule is the one of asking every job
// (TestPropertyConservativeSkipEqualsAsking).
func (c *Conservative) compressQueue(now float64) {
	start := c.nRises
	c.mq, c.mqHead, c.lastQ = c.mq[:0], 0, 0
	for i := range c.rises {
		if r := &c.rises[i]; r.max < 0 {
			r.max = c.run.prof.MaxOver(max(r.a, now), r.b)
		}
		c.pushMax(start - uint64(len(c.rises)) + uint64(i) + 1)
	}
	// The latest end of the rises logged since each one (sufB), and of
	// those logged during this pass (newB): a new slot starts before the
	// end of a rise (below).
	c.sufB = c.sufB[:0]
	for i := len(c.rises) - 1; i >= 0; i-- {
		b := c.rises[i].b
		if n := len(c.sufB); n > 0 {
			b = max(b, c.sufB[n-1])
		}
		c.sufB = append(c.sufB, b)
	}
	slices.Reverse(c.sufB)
	c.newB = math.Inf(-1)
	c.moves++
	for _, j := range c.q {
		r := *c.resOf(j)
		if math.IsNaN(r) || r <= now {
			continue
		}
		chk := c.checkedOf(j)
		if c.maxSince(*chk) < j.Procs {
			*chk = c.nRises
			continue // nothing rose where it could fit
		}
		// The slot it may now have holds a point that rose since, so it
		// starts before that rise's end: the search stops there rather
		// than at its reservation (issue 30; same answer).
		to := min(r, c.endSince(*chk))
		from := now
		k, _, _, classed := fitClass(j.Procs, j.Est)
		if classed && k < len(c.fails) {
			if f := &c.fails[k]; f.gen == c.moves && f.procs <= j.Procs && f.est <= j.Est && f.r <= r {
				from = max(from, f.to)
			}
		}
		t := math.Inf(1)
		if from < to {
			t = c.run.prof.EarliestFitIn(from, to, j.Est, j.Procs, r)
		}
		if math.IsInf(t, 1) {
			*chk = c.nRises
			if classed {
				if k >= len(c.fails) {
					c.fails = growTo(c.fails, k+1, failure{})
				}
				c.fails[k] = failure{procs: j.Procs, est: j.Est, r: r, to: to, gen: c.moves}
			}
			continue // no earlier slot
		}
		c.moves++
		c.unplace(j)
		c.run.prof.Reserve(t, slotEnd(t, j.Est), j.Procs)
		*c.resOf(j) = t
		if c.OnReserve != nil {
			c.OnReserve(j, t)
		}
		c.due.set(j, t)
		if !math.IsInf(r, 1) {
			// The old slot is free again beyond the new one's end.
			if a, b := max(r, slotEnd(t, j.Est)), slotEnd(r, j.Est); a < b {
				c.logRise(a, b, c.run.prof.MaxOver(a, b))
			}
		}
		*chk = c.nRises
	}
	// Every job that can be asked again was asked (or placed) after the
	// rises logged before this pass.
	if drop := len(c.rises) - int(c.nRises-start); drop > 0 {
		c.rises = append(c.rises[:0], c.rises[drop:]...)
	}
}

// rise records that free processors went up on [a, b); max bounds them
// there (−1 until computed).
type rise struct {
	a, b float64
	max  int
}

func (c *Conservative) logRise(a, b float64, bound int) {
	c.rises = append(c.rises, rise{a: a, b: b, max: bound})
	c.newB = max(c.newB, b)
	c.nRises++
	if bound >= 0 {
		c.pushMax(c.nRises)
	}
}

type failure struct {
	procs      int
	est, r, to float64
	gen        uint64
}

// endSince is the latest end of the rises logged after the first checked
// (+Inf if some of them are no longer in the log), during a compression
// pass.
func (c *Conservative) endSince(checked uint64) float64 {
	first := c.nRises - uint64(len(c.rises))
	if checked < first {
		return math.Inf(1)
	}
	b := c.newB
	if i := checked - first; i < uint64(len(c.sufB)) {
		b = max(b, c.sufB[i])
	}
	return b
}

func (c *Conservative) checkedOf(j *engine.Job) *uint64 {
	if int(j.Index) >= len(c.checked) {
		c.checked = growTo(c.checked, int(j.Index)+1, 0)
	}
	return &c.checked[j.Index]
}

// maxSince bounds the free processors at every point that rose after
// the first checked rises were logged: the largest bound among the later
// rises (−1 if none). Within a pass jobs are asked in arrival order and
// were last checked in that order (or placed later), so checked only
// grows and a deque of decreasing bounds answers in O(1) amortized; a
// smaller checked falls back to scanning the log.
func (c *Conservative) maxSince(checked uint64) int {
	first := c.nRises - uint64(len(c.rises))
	if checked < first {
		return math.MaxInt // its rises are no longer in the log
	}
	if checked < c.lastQ {
		m := -1
		for _, r := range c.rises[checked-first:] {
			m = max(m, r.max)
		}
		return m
	}
	c.lastQ = checked
	for c.mqHead < len(c.mq) && c.mq[c.mqHead] <= checked {
		c.mqHead++
	}
	if c.mqHead == len(c.mq) {
		return -1
	}
	return c.riseAt(c.mq[c.mqHead]).max
}

// riseAt is the rise numbered num (1 is the first ever logged).
func (c *Conservative) riseAt(num uint64) *rise {
	return &c.rises[num-(c.nRises-uint64(len(c.rises)))-1]
}

// pushMax adds rise num, whose bound is known, to the deque.
func (c *Conservative) pushMax(num uint64) {
	m := c.riseAt(num).max
	for len(c.mq) > c.mqHead && c.riseAt(c.mq[len(c.mq)-1]).max <= m {
		c.mq = c.mq[:len(c.mq)-1]
	}
	c.mq = append(c.mq, num)
}

// armTimer makes sure the policy is consulted at the earliest reservation
// start. That time was a profile point (an expected end or a reservation
// end) when the reservation was made, but that job may have ended early
// or moved, leaving no event there.
func (c *Conservative) armTimer(v *engine.View, p *engine.Plan) {
	for len(c.due.h) > 0 {
		e := c.due.h[0]
		if e.j.State == engine.Queued && *c.resOf(e.j) == e.t {
			break
		}
		c.due.pop() // stale
	}
	if len(c.due.h) == 0 {
		return
	}
	t := c.due.h[0].t
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
func (c *Conservative) startDue(v *engine.View, p *engine.Plan) bool {
	now := v.Now()
	for len(c.due.h) > 0 && c.due.h[0].t <= now {
		e := c.due.h[0]
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
		c.run.prof.Unreserve(e.t, slotEnd(e.t, j.Est), j.Procs)
		*c.resOf(j) = math.NaN()
		c.run.prof.Base = v.FreePEs()
		c.run.started(j)
		c.dequeue(j)
	}
	return true
}

type dueEntry struct {
	t float64
	j *engine.Job
}

// resHeap is a binary min-heap of the placed reservations by (start,
// arrival order), one entry per job: it knows where each job's entry is,
// so a reservation that compression moves earlier is sifted in place
// instead of leaving a stale entry behind (on an overloaded queue most
// entries were stale).
type resHeap struct {
	h   []dueEntry
	pos []int32 // per job index: position in h plus one; 0 = absent
}

func (h *resHeap) less(a, b int) bool {
	if h.h[a].t != h.h[b].t {
		return h.h[a].t < h.h[b].t
	}
	return h.h[a].j.Index < h.h[b].j.Index
}

func (h *resHeap) swap(a, b int) {
	h.h[a], h.h[b] = h.h[b], h.h[a]
	h.pos[h.h[a].j.Index] = int32(a + 1)
	h.pos[h.h[b].j.Index] = int32(b + 1)
}

func (h *resHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *resHeap) down(i int) {
	n := len(h.h)
	for {
		l, best := 2*i+1, i
		if l < n && h.less(l, best) {
			best = l
		}
		if l+1 < n && h.less(l+1, best) {
			best = l + 1
		}
		if best == i {
			return
		}
		h.swap(i, best)
		i = best
	}
}

// set gives j's reservation the start t, adding its entry if it has none.
func (h *resHeap) set(j *engine.Job, t float64) {
	if int(j.Index) >= len(h.pos) {
		h.pos = growTo(h.pos, int(j.Index)+1, 0)
	}
	i := int(h.pos[j.Index]) - 1
	if i < 0 {
		h.h = append(h.h, dueEntry{t: t, j: j})
		i = len(h.h) - 1
		h.pos[j.Index] = int32(i + 1)
		h.up(i)
		return
	}
	old := h.h[i].t
	h.h[i].t = t
	if t < old {
		h.up(i)
	} else {
		h.down(i)
	}
}

// pop removes the earliest entry.
func (h *resHeap) pop() {
	n := len(h.h) - 1
	h.swap(0, n)
	h.pos[h.h[n].j.Index] = 0
	h.h[n] = dueEntry{}
	h.h = h.h[:n]
	h.down(0)
}

func (h *resHeap) clear() {
	for _, e := range h.h {
		h.pos[e.j.Index] = 0
	}
	clear(h.h)
	h.h = h.h[:0]
}
