package policy

import (
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
)

// Classic is the composable batch policy of the catalogue: one point of
// the four axes of a Spec (queue order, reservation depth, backfill order,
// estimate source). Its decisions follow the definitions of pyss (the
// Parallel Workloads Archive group's simulator) where pyss ships the
// point, so that the registered aliases give pyss's schedules job for job.
//
// State. The policy keeps its own runtime prediction pred per job (the
// estimate source sets it; the engine's estimate, the request, is what
// the job is killed at) and an availability profile in which a running
// job occupies [start, start+pred) and, for depth > 1, reservations
// occupy their slots. Free processors now are the profile's value now, so
// a job whose prediction runs out at t counts as free at t whether or
// not its completion has been handled (as in pyss's CPU snapshot).
//
// Under-prediction. A job still running when its prediction runs out has
// its prediction raised at once to the engine's estimate (the request):
// the one jump of EASY++'s correction. It happens before any decision at
// that instant, with no pass of its own.
//
// Consultation. consult=settled (the default) decides once per settled
// instant, like easy and conservative. consult=pyss decides after every
// single event, arrivals before completions at an instant (pyss's order);
// a job it starts on processors whose job ends at that very instant (free
// in the profile, still held in the engine until its completion is
// handled) is started as soon as they are released, at the same instant.
type Classic struct {
	s       Spec
	sel     NodeSelector
	consult engine.Consultation

	wait []*engine.Job // waiting jobs in the queue order of the last pass (without idx)
	idx  *oindex       // waiting jobs of a static order at depth 0 or 1 with backfill none or queue
	bidx *oindex       // with idx, fcfs order: the same jobs in sjbf or reverse backfill order
	capx *cappedIndex  // with idx, fcfs order, sjbf, estimate=epp, common=yes: the jobs in sjbf order (instead of bidx)
	kt   *ktour        // waiting jobs of a linear dynamic order at depth 1 without backfilling
	seq  int64         // enqueues so far (idx's tie-break: stable in queue order)
	prof *Profile      // running jobs [start, start+pred) and reservations; Base = processors up
	jd   []jobData
	run  []*engine.Job // running jobs in start order (probabilistic only)
	exp  expHeap
	pend []*engine.Job // started by a decision, waiting for processors released at this instant
	// starts counts the jobs launch took out of the queue; clean is its
	// value when wait was last filtered in this pass (live, compact).
	starts, clean int

	hist  history
	prob  *probState
	trig  bool // a submission or completion since the last pass
	early bool // a job ended before its prediction since the last pass
	reset bool // depth=all: re-plan every reservation
	wake  float64
	all   allState // depth=all

	// OnShadow, if set, is called with the queue head and its shadow time
	// each time a new job becomes the blocked head behind which EASY-style
	// backfilling (depth 1) runs (for tests and traces).
	OnShadow func(head *engine.Job, shadow float64)
	lastHead *engine.Job

	scratch, scratch2 []*engine.Job
	dp                []float64
	dpLong            []int32
	dpTake            []bool
	counter           int32
}

type jobData struct {
	pred    float64 // current prediction (runtime the policy plans with)
	est     float64 // the request at submission
	pstart  float64 // start of the job's slot in the profile (running or reserved); NaN none
	ppred   float64 // length of that slot
	bypass  int32   // maui: times bypassed by a backfilled job
	arrival int32   // maui: arrival counter
	seq     int64   // enqueue count when it last joined the queue (ties of the queue order)
	queued  bool
	running bool
	inWait  bool // depth=all: in c.wait (perhaps started and not yet dropped: allState.dead)
}

var _ engine.ConsultingPolicy = (*Classic)(nil)

// NewClassic returns the policy of spec s (already checked) using sel for
// node selection.
func NewClassic(s Spec, sel NodeSelector) *Classic {
	c := &Classic{s: s, sel: sel, prof: NewProfile(0), consult: engine.SettledInstants, wake: math.NaN()}
	if s.Consult == "pyss" {
		c.consult = engine.EveryEvent
	}
	c.hist.init(s)
	if s.Backfill == "probabilistic" {
		c.prob = newProbState(s)
	}
	if staticOrder(s.Order) && (s.Depth == 0 || s.Depth == 1) && (s.Backfill == "none" || s.Backfill == "queue") {
		c.idx = newOindex()
	}
	if s.Order == "fcfs" && (s.Depth == 0 || s.Depth == 1) && (s.Backfill == "sjbf" || s.Backfill == "reverse") {
		c.idx, c.bidx = newOindex(), newOindex()
		if s.Backfill == "sjbf" && s.Estimate == "epp" && s.Common {
			c.bidx, c.capx = nil, newCappedIndex()
		}
	}
	if !staticOrder(s.Order) && s.Order != "maui" && s.Depth == 1 && s.Backfill == "none" {
		c.kt = newKtour(c)
	}
	return c
}

// Spec returns the policy's point in the catalogue.
func (c *Classic) Spec() Spec { return c.s }

// Consultation implements engine.ConsultingPolicy.
func (c *Classic) Consultation() engine.Consultation { return c.consult }

func (c *Classic) d(j *engine.Job) *jobData {
	if int(j.Index) >= len(c.jd) {
		c.jd = growTo(c.jd, int(j.Index)+1, jobData{pstart: math.NaN()})
	}
	return &c.jd[j.Index]
}

func (c *Classic) Notify(v *engine.View, n engine.Notice) {
	j := n.Job
	switch n.Kind {
	case engine.NoticeSubmitted:
		d := c.d(j)
		d.est = j.Est
		d.pred = c.initialPred(j, d.est)
		d.arrival = c.counter
		c.counter++
		c.enqueue(j, v.Now())
		c.trig = true
		c.hist.submitted(c, j)
	case engine.NoticeRequeued:
		c.stopped(j)
		d := c.d(j)
		d.pred = c.initialPred(j, d.est)
		c.enqueue(j, v.Now())
		c.trig, c.reset = true, true
	case engine.NoticeEnded:
		d := c.d(j)
		if d.running && v.Now() < slotEnd(d.pstart, d.ppred) {
			c.early = true
			if c.s.Depth == DepthAll && c.s.Compress {
				c.all.rises.log(v.Now(), slotEnd(d.pstart, d.ppred), -1)
			}
		}
		c.hist.ended(c, j, j.End-j.Start)
		c.stopped(j)
		c.trig = true
	case engine.NoticeEstimateExtended:
		// A job outliving its request under OverrunExtend is the engine's
		// event and changes the plan: a pass follows, as in easy and
		// conservative. (A prediction running out is the policy's own and
		// has no pass, as in pyss.)
		if d := c.d(j); d.running && slotEnd(d.pstart, d.ppred) <= v.Now() {
			c.raise(j)
		}
		c.reset, c.trig = true, true
	case engine.NoticeNodeDown, engine.NoticeNodeUp:
		// The platform changed: the plan is rebuilt in the pass that
		// follows, as in easy and conservative, and the starts still
		// waiting for processors (consult=pyss) are decided again.
		c.withdrawPending(v.Now())
		c.reset, c.trig = true, true
	}
}

// withdrawPending returns to the queue, each at its old place, the jobs a
// consult=pyss decision started that the engine has not placed yet (they
// wait for processors released at this instant): the platform changed, so
// the plan they were started in no longer holds — they may no longer fit
// the processors up at all, and the first of them would then block the
// others for ever — and the pass that follows decides again. A withdrawn
// job is predicted afresh, as a requeued one is.
func (c *Classic) withdrawPending(now float64) {
	pend := c.pend
	c.pend = nil
	for _, j := range pend {
		if j.State != engine.Queued {
			continue
		}
		d := c.d(j)
		seq := d.seq
		c.stopped(j)
		d.pred = c.initialPred(j, d.est)
		c.enqueueSeq(j, now, seq)
	}
	clear(pend)
	c.pend = pend[:0]
}

func (c *Classic) enqueue(j *engine.Job, now float64) {
	c.enqueueSeq(j, now, c.seq)
	c.seq++
}

// enqueueSeq puts j in the queue with enqueue count seq (its place among
// jobs of equal order key).
func (c *Classic) enqueueSeq(j *engine.Job, now float64, seq int64) {
	d := c.d(j)
	d.queued = true
	c.hist.enqueued(c, j)
	d.seq = seq
	if c.idx != nil {
		c.idx.insert(j, c.orderKey(j, 0), d.seq, c.testPred(j))
		if c.bidx != nil {
			c.bidx.insert(j, c.backfillKey(j), int64(j.Index), c.testPred(j))
		}
		if c.capx != nil {
			c.capx.insert(j, d.est)
		}
		return
	}
	if c.kt != nil {
		c.kt.insert(j, now, d.seq, dynSlope(c.s.Order, j, d.est))
		return
	}
	if c.s.Depth == DepthAll {
		c.all.fresh = append(c.all.fresh, j)
		if d.inWait {
			c.all.dead-- // started, requeued before it was dropped from c.wait
			return
		}
		d.inWait = true
	}
	if c.s.Order == "fcfs" {
		c.wait = queue(c.wait).insert(j)
		return
	}
	c.wait = append(c.wait, j)
}

// predChanged is told that a waiting job's prediction changed.
func (c *Classic) predChanged(j *engine.Job) {
	if c.idx != nil {
		c.idx.setPred(j, c.testPred(j))
	}
	if c.bidx != nil {
		c.bidx.rekey(j, c.backfillKey(j), c.testPred(j))
	}
}

// backfillKey is a waiting job's place in the sjbf or reverse backfill
// order (ties in arrival order, the fcfs queue's: the stable sort of
// candidates).
func (c *Classic) backfillKey(j *engine.Job) float64 {
	if c.s.Backfill == "reverse" {
		return -j.Submit
	}
	return c.testPred(j)
}

// stopped removes a job that left its processors from the profile.
func (c *Classic) stopped(j *engine.Job) {
	d := c.d(j)
	if d.running {
		c.unslot(j)
		d.running = false
		if c.prob != nil {
			if i := slices.Index(c.run, j); i >= 0 {
				c.run = slices.Delete(c.run, i, i+1)
				c.prob.removed(i)
			}
		}
	}
	if i := slices.Index(c.pend, j); i >= 0 {
		c.pend = slices.Delete(c.pend, i, i+1)
	}
}

// slot puts j in the profile over [t, slotEnd(t, pred)).
func (c *Classic) slot(j *engine.Job, t, pred float64) {
	d := c.d(j)
	d.pstart, d.ppred = t, pred
	c.prof.Reserve(t, slotEnd(t, pred), j.Procs)
}

func (c *Classic) unslot(j *engine.Job) {
	d := c.d(j)
	if !math.IsNaN(d.pstart) {
		c.prof.Unreserve(d.pstart, slotEnd(d.pstart, d.ppred), j.Procs)
		if c.s.Depth == DepthAll {
			c.all.due.del(j)
			c.all.rose(slotEnd(d.pstart, d.ppred))
		}
		d.pstart = math.NaN()
	}
}

// free is the number of processors free now in the profile.
func (c *Classic) free(now float64) int { return c.prof.Value(now) }

// canStartNow: j fits now for pred in the profile.
func (c *Classic) canStartNow(now, pred float64, procs int) bool {
	if c.prof.Value(now) < procs {
		return false
	}
	_, below := c.prof.FirstBelow(now, slotEnd(now, pred), procs)
	return !below
}

// launch starts j now for pred: in the profile at once, in the engine
// now or, under consult=pyss, once the processors of jobs that end at
// this instant are released. It reports false (and changes nothing) if
// the engine cannot place it.
func (c *Classic) launch(v *engine.View, p *engine.Plan, j *engine.Job, pred float64) bool {
	now := v.Now()
	d := c.d(j)
	if len(c.pend) == 0 || c.consult != engine.EveryEvent {
		if !tryStart(v, p, c.sel, j) {
			if c.consult != engine.EveryEvent || v.FreePEs() >= j.Procs {
				return false
			}
			c.pend = append(c.pend, j)
		}
	} else {
		c.pend = append(c.pend, j)
	}
	c.unslot(j)
	d.pred = pred
	c.slot(j, now, pred)
	if c.idx != nil {
		c.idx.remove(j)
	}
	if c.bidx != nil {
		c.bidx.remove(j)
	}
	if c.capx != nil {
		c.capx.remove(j)
	}
	if c.kt != nil {
		c.kt.remove(j, now)
	}
	d.queued, d.running = false, true
	c.starts++
	if c.prob != nil {
		c.run = append(c.run, j)
	}
	c.exp.push(slotEnd(now, pred), j)
	return true
}

// startPending starts, in decision order, the jobs that wait for
// processors released at this instant.
func (c *Classic) startPending(v *engine.View, p *engine.Plan) {
	k := 0
	for _, j := range c.pend {
		if k == 0 && j.State == engine.Queued && tryStart(v, p, c.sel, j) {
			continue
		}
		if j.State == engine.Queued {
			c.pend[k] = j
			k++
		}
	}
	clear(c.pend[k:])
	c.pend = c.pend[:k]
}

// expire raises the prediction of every running job that outlived it to
// the engine's estimate (the request, or more under OverrunExtend).
func (c *Classic) expire(now float64) {
	for len(c.exp.h) > 0 && c.exp.h[0].t <= now {
		e := c.exp.pop()
		j := e.j
		d := c.d(j)
		if !d.running || j.State != engine.Running || slotEnd(d.pstart, d.ppred) != e.t {
			continue // stale, or not started in the engine yet
		}
		if j.End <= now {
			continue // ends at this instant, at its prediction
		}
		if d.pstart+j.Est <= now {
			continue // its request runs out too: raised when the engine extends it (OverrunExtend)
		}
		c.raise(j)
	}
}

// raise sets a running job's prediction to the engine's estimate.
func (c *Classic) raise(j *engine.Job) {
	d := c.d(j)
	start := d.pstart
	c.unslot(j)
	d.pred = j.Est
	c.slot(j, start, j.Est)
	c.exp.push(slotEnd(start, j.Est), j)
	if c.s.Depth == DepthAll {
		// The longer slot may overlap reservations: re-plan them all
		// (compression only ever moves a reservation earlier).
		c.reset = true
	}
}

func (c *Classic) Schedule(v *engine.View, p *engine.Plan) {
	now := v.Now()
	c.prof.Base = v.AvailPEs()
	c.expire(now)
	if len(c.pend) > 0 {
		c.startPending(v, p)
	}
	if c.s.Depth == DepthAll {
		c.scheduleAll(v, p)
		return
	}
	if !c.trig {
		return
	}
	if c.idx != nil || c.kt != nil {
		c.trig, c.early = false, false
		c.scheduleIndexed(v, p)
		return
	}
	c.trig, c.early = false, false
	c.compact()
	c.clean = c.starts
	if len(c.wait) == 0 {
		return
	}
	c.sortQueue(now)
	switch {
	case c.s.Depth == 0:
		c.filler(v, p)
	default:
		c.headLoop(v, p)
		if c.s.Backfill != "none" && len(c.live()) >= 2 {
			c.backfill(v, p)
		}
	}
	if c.clean != c.starts {
		c.compact() // else the list is as the first compact left it
	}
}

// compact drops started jobs from the waiting list.
func (c *Classic) compact() {
	k := 0
	for _, j := range c.wait {
		if c.d(j).queued && j.State == engine.Queued {
			c.wait[k] = j
			k++
		}
	}
	clear(c.wait[k:])
	c.wait = c.wait[:k]
}

// live is the waiting list without the jobs started in this pass (as it
// is if none started since it was last filtered: clean).
func (c *Classic) live() []*engine.Job {
	if c.clean == c.starts {
		return c.wait
	}
	c.clean = c.starts
	k := 0
	for _, j := range c.wait {
		if c.d(j).queued {
			c.wait[k] = j
			k++
		}
	}
	clear(c.wait[k:])
	c.wait = c.wait[:k]
	return c.wait
}

func (c *Classic) headLoop(v *engine.View, p *engine.Plan) {
	now := v.Now()
	for _, j := range c.wait {
		if c.free(now) < j.Procs || !c.launch(v, p, j, c.headPred(j)) {
			return
		}
	}
}

// filler (depth 0): every job that fits now starts, in backfill order.
func (c *Classic) filler(v *engine.View, p *engine.Plan) {
	now := v.Now()
	for _, j := range c.candidates(c.wait, c.free(now)) {
		if c.free(now) >= j.Procs {
			c.launch(v, p, j, c.testPred(j))
		}
	}
}

// testPred is the prediction a backfill candidate is tested and started
// with.
func (c *Classic) testPred(j *engine.Job) float64 {
	if c.s.Estimate == "tail-double" {
		return c.s.Factor * c.d(j).est
	}
	return c.pred(j)
}

// candidates returns the jobs of tail that fit in free processors, in
// the spec's backfill order (a scratch copy). Leaving out the others is
// exact: free processors only fall during a pass, so they never start,
// and a stable sort keeps the rest in the order it gives them among all.
func (c *Classic) candidates(tail []*engine.Job, free int) []*engine.Job {
	out := c.scratch[:0]
	for _, j := range tail {
		if j.Procs <= free {
			out = append(out, j)
		}
	}
	c.scratch = out
	switch c.s.Backfill {
	case "sjbf":
		slices.SortStableFunc(out, func(a, b *engine.Job) int { return cmpF(c.testPred(a), c.testPred(b)) })
	case "reverse":
		slices.SortStableFunc(out, func(a, b *engine.Job) int { return cmpF(b.Submit, a.Submit) })
	}
	return out
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// backfill runs the backfill step behind a blocked head.
func (c *Classic) backfill(v *engine.View, p *engine.Plan) {
	now := v.Now()
	q := c.live()
	head, tail := q[0], q[1:]
	switch {
	case c.s.Backfill == "probabilistic":
		c.probabilistic(v, p, head, tail)
		return
	case c.s.Backfill == "greedy":
		c.greedy(v, p, head, tail)
		return
	case c.s.Backfill == "lookahead":
		c.lookahead(v, p, head, tail)
		return
	case c.s.Depth > 1:
		c.selective(v, p, q)
		return
	}
	shadow, extra := c.shadow(now, head, now)
	c.tellShadow(head, shadow)
	var started []*engine.Job
	for _, j := range c.candidates(tail, c.free(now)) {
		pred := c.testPred(j)
		if c.easyStart(v, p, j, pred, shadow, &extra) {
			started = append(started, j)
		}
	}
	c.bypassed(started)
}

func (c *Classic) tellShadow(head *engine.Job, shadow float64) {
	if c.OnShadow != nil && head != c.lastHead {
		c.lastHead = head
		c.OnShadow(head, shadow)
	}
}

// shadow places head at its earliest start no earlier than from in the
// profile of running jobs (occupancy never rises with time there) and
// returns that time and the processors left free then beyond the head's.
func (c *Classic) shadow(now float64, head *engine.Job, from float64) (float64, int) {
	pred := c.pred(head)
	t := c.prof.EarliestFit(from, pred, head.Procs)
	if math.IsInf(t, 1) {
		return t, 0
	}
	return t, c.prof.Value(t) - head.Procs
}

// easyStart is EASY's backfill step with the head reserved at shadow: j
// starts if it fits now and ends by the shadow time or fits in the extra
// processors, which it then takes. The extra processors are taken only
// when the start succeeds: the engine may refuse a start the plan allows
// when the policy is consulted between two events of one instant (an
// estimate extended under OverrunExtend while jobs that end at this
// instant still hold their processors), and the processors of a refused
// start stay for the jobs behind it, as in easy.
func (c *Classic) easyStart(v *engine.View, p *engine.Plan, j *engine.Job, pred, shadow float64, extra *int) bool {
	now := v.Now()
	if c.free(now) < j.Procs {
		return false
	}
	byShadow := slotEnd(now, pred) <= shadow
	if !byShadow && j.Procs > *extra {
		return false
	}
	if !c.launch(v, p, j, pred) {
		return false
	}
	if !byShadow {
		*extra -= j.Procs
	}
	return true
}

// selective (depth k > 1): the first k waiting jobs hold reservations in
// queue order (one that fits now starts); every other job starts now
// if it fits without delaying any of them.
func (c *Classic) selective(v *engine.View, p *engine.Plan, q []*engine.Job) {
	now := v.Now()
	k := min(c.s.Depth, len(q))
	var held []*engine.Job
	for _, j := range q[:k] {
		d := c.d(j)
		t := c.prof.EarliestFit(now, d.pred, j.Procs)
		if t == now && c.launch(v, p, j, d.pred) {
			continue
		}
		if !math.IsInf(t, 1) {
			c.slot(j, t, d.pred)
			held = append(held, j)
		}
	}
	var started []*engine.Job
	for _, j := range c.candidates(q[k:], c.free(now)) {
		pred := c.testPred(j)
		if c.canStartNow(now, pred, j.Procs) && c.launch(v, p, j, pred) {
			started = append(started, j)
		}
	}
	for _, j := range held {
		c.unslot(j)
	}
	c.bypassed(started)
}

// bypassed counts, for maui, every waiting job that arrived before a
// backfilled job.
func (c *Classic) bypassed(started []*engine.Job) {
	if c.s.Order != "maui" || len(started) == 0 {
		return
	}
	for _, j := range c.live() {
		d := c.d(j)
		for _, b := range started {
			if d.arrival < c.d(b).arrival {
				d.bypass++
			}
		}
	}
}

// expHeap holds running jobs by the end of their prediction.
type expHeap struct{ h []expEntry }

type expEntry struct {
	t float64
	j *engine.Job
}

func (h *expHeap) less(a, b int) bool {
	if h.h[a].t != h.h[b].t {
		return h.h[a].t < h.h[b].t
	}
	return h.h[a].j.Index < h.h[b].j.Index
}

func (h *expHeap) push(t float64, j *engine.Job) {
	h.h = append(h.h, expEntry{t, j})
	for i := len(h.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.h[i], h.h[p] = h.h[p], h.h[i]
		i = p
	}
}

func (h *expHeap) pop() expEntry {
	top := h.h[0]
	n := len(h.h) - 1
	h.h[0] = h.h[n]
	h.h[n] = expEntry{}
	h.h = h.h[:n]
	for i := 0; ; {
		l, b := 2*i+1, i
		if l < n && h.less(l, b) {
			b = l
		}
		if l+1 < n && h.less(l+1, b) {
			b = l + 1
		}
		if b == i {
			break
		}
		h.h[i], h.h[b] = h.h[b], h.h[i]
		i = b
	}
	return top
}
