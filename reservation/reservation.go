// Package reservation holds the advance-reservation mechanisms of seed
// 000 (Gao & Luo 2011): the static mechanism SRRM, which binds a request
// to a resource as soon as it is admitted (r_schedule: a random feasible
// resource; m_schedule: the least predicted preemption cost), and the
// dynamic DRRM, which only admits a request (on the resource–reservation
// graph, package rrg) and binds it when its window opens (algorithm 2).
//
// The model of §2: every resource runs one job at a time and has a queue
// of non-reserved tasks; a task interrupted by a reservation restarts from
// the beginning later, at a preemption cost w_j · pt (pt: how long it had
// run). Jobs: a task has SWF queue 0 and its resource in Site; a
// reservation has a window (WindowStart = et, WindowEnd = lt), a duration
// (Runtime) and a capability level (Level).
package reservation

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/rrg"
)

// Mechanism is DRRM, SRRM with r_schedule, or SRRM with m_schedule.
type Mechanism int

const (
	DRRM Mechanism = iota
	SRRMRandom
	SRRMMinCost
)

// variants are the mechanisms as named policies: DRRM, and SRRM with
// r_schedule or m_schedule under the readings the paper leaves open —
// m_schedule's predictor (docs/reservations.md, "SRRM") and where a
// booking goes in its window (the paper inserts an admitted request into
// a candidate's reservation queue and does not say where; the default
// takes the earliest gap, the `-et` policies book only at the window
// start).
var variants = []struct {
	name, desc string
	mech       Mechanism
	pred       Predictor
	atStart    bool
}{
	{"drrm", "dynamic advance reservations on the resource–reservation graph (seed 000): admit now, bind when the window opens", DRRM, PredictQueue, false},
	{"srrm-r", "static advance reservations (seed 000): bind at admission to a random feasible resource", SRRMRandom, PredictQueue, false},
	{"srrm-m", "static advance reservations (seed 000): bind at admission to the resource of least predicted preemption cost (predicted from the resource's whole task queue)", SRRMMinCost, PredictQueue, false},
	{"srrm-m-running", "srrm-m with the plainer predictor: only the task running at admission is looked at", SRRMMinCost, PredictRunning, false},
	{"srrm-m-qlen", "srrm-m predicting from the running task's remaining time and the queue's length (each queued task at the mean expected runtime): no per-task foresight", SRRMMinCost, PredictQueueLength, false},
	{"srrm-r-et", "srrm-r booking only at the window start (no admission-time use of the flexibility)", SRRMRandom, PredictQueue, true},
	{"srrm-m-et", "srrm-m booking only at the window start (no admission-time use of the flexibility)", SRRMMinCost, PredictQueue, true},
	{"srrm-m-slack-et", "srrm-m booking only at the window start, predicting from the task running at admission and the request's slack (no queue foresight)", SRRMMinCost, PredictRunningSlack, true},
}

func init() {
	for _, v := range variants {
		policy.Register(v.name, v.desc, func(policy.NodeSelector) engine.Policy {
			p := New(v.mech, 1)
			p.pred, p.atStart = v.pred, v.atStart
			return p
		})
	}
}

type resv struct {
	job      *engine.Job
	q        *rrg.Reservation // DRRM
	res      int              // bound resource, −1 before binding
	start    float64          // planned start (SRRM: at admission; DRRM: at binding)
	waiting  bool             // bound, waiting for the task on its resource to end (DRRM delay)
	preempts bool             // caused a preemption
	// taskAtOpen: a task ran on the bound resource when the window (SRRM:
	// the booked start) opened; with no preemption the reservation then
	// waited for it to end within the slack.
	taskAtOpen bool
	// waitFrom: an SRRM reservation that opened and waits for the task
	// on its resource to end within the slack holds the resource from
	// its opening (waitFrom) to its put-off end, so that no booking made
	// later lands in between (it would preempt the task waited for and
	// leave the resource idle until the put-off start). NaN otherwise.
	waitFrom float64
	failed   bool
	// booked: an SRRM booking counted in bookedAt at its start, until its
	// window opens or it fails.
	booked bool
	// failedAt: when it failed (meaningful once failed).
	failedAt float64
}

// Predictor is m_schedule's preemption-cost predictor.
type Predictor int

const (
	// PredictQueue lays out the resource's whole task queue (the running
	// task, then the queued ones in order, each for its expected runtime,
	// cut and restarted by the reservations already bound there) and
	// predicts the task running at the reservation's start.
	PredictQueue Predictor = iota
	// PredictRunning looks only at the task running at admission.
	PredictRunning
	// PredictQueueLength knows what [15] of the paper predicts from: the
	// running task's remaining time and the queue's *length*; each queued
	// task is taken at the mean expected runtime of the tasks submitted so
	// far (a prediction model that cannot "准确预测每个作业的期望执行时间",
	// predict each job's expected run time, §1), laid out as in
	// PredictQueue.
	PredictQueueLength
	// PredictRunningSlack looks only at the task running at admission,
	// as PredictRunning, but knows the request's slack: the cost is 0 if
	// by its expected runtime the task ends by the latest start lt − dur
	// (the reservation will wait for it, as it does when it opens), else
	// w · (start − the task's start).
	PredictRunningSlack
)

// PredictorNames are the predictors' names in specs
// (reservation.predictor), in Predictor order.
var PredictorNames = []string{"queue", "running", "queue-length", "running-slack"}

// String names the predictor.
func (p Predictor) String() string { return PredictorNames[p] }

// Policy schedules tasks and reservations.
type Policy struct {
	mech Mechanism
	pred Predictor
	// atStart: SRRM books a request only at its window start et (the
	// `-et` policies), not at the earliest gap in its window.
	atStart bool
	seed    uint64
	g       *rrg.Graph
	tasks   [][]*engine.Job // FIFO of tasks per resource
	held    [][]*resv       // reservations bound to each resource, waiting or running, by start
	srrm    [][]*resv       // SRRM: reservations bound to each resource
	// bookedAt counts, per resource, the SRRM bookings not yet opened by
	// their start time: a resource with a booking starting now is kept
	// for it (no task is started there at that instant).
	bookedAt []map[float64]int
	byJob    map[int32]*resv
	init     bool
	rr       int

	timers  []timerReq    // timers to set at the next Schedule (they need the plan)
	rejects []*engine.Job // refused or failed reservations to drop

	requests, admitted, preempting, failedN int
	// zeroPreempting: reservations whose preemption hit a task that had
	// run 0 s (it started at this very instant): a scheduling artefact,
	// 0 since SRRM keeps a resource whose booking starts now for it.
	zeroPreempting int
	cost           float64
	// idleStarts counts reservations that started on a resource with no
	// non-reserved work left (none running, none queued): the set-up
	// check of §3.1 (a task runs whenever a reservation starts).
	idleStarts int
	// waitedStarts: reservations that found a task running on their
	// resource when they opened and waited for it to end within the slack
	// (no preemption). freeStarts: reservations whose resource ran no task
	// when they opened although tasks were queued there — another
	// reservation had just held it (SRRM's earliest-gap bookings pack
	// reservations back to back) — so they started without preempting.
	// With preempting and idleStarts they split the admitted reservations
	// that started (the start metrics of docs/reservations.md).
	waitedStarts, freeStarts int
	// pendingAtFailure counts the admitted reservations not yet ended
	// when the first resource failed (−1: no failure).
	pendingAtFailure, pendingOnFailed int
	now                               float64 // of the last notice
	// busySum sums, over the requests, the fraction of the resources not
	// running a reservation that run a non-reserved task when the request
	// arrives (Poisson arrivals: the mean is the time-average background
	// load over the request period; 1 when reservations hold them all).
	busySum  float64
	failedAt float64
	// taskEstSum, taskN: the expected runtimes of the tasks submitted so
	// far (PredictQueueLength's mean).
	taskEstSum float64
	taskN      int

	// replan: DRRM's rule for the reservations a failed resource could
	// serve (figure 2, line (4); rrg.Replan).
	replan rrg.Replan
	// requeueBack: a preempted task restarts at the back of its
	// resource's queue, not first (the Requeue reading).
	requeueBack bool
	// victims: per preempted task (job index), how often it was
	// preempted and the cost w · pt of those preemptions; victimEst sums
	// the victims' expected runtimes over the preemptions.
	victims   map[int32]*victim
	victimEst float64
	// bindFailed counts DRRM reservations whose window opened with no
	// candidate able to take them (algorithm 2 found none): never, as
	// long as every admitted reservation keeps a positive free degree.
	bindFailed int
}

// victim is one preempted task's record.
type victim struct {
	n    int
	cost float64
}

// HeavyVictim is the preemption count from which a task counts as a
// heavy victim in the concentration metrics (preempt_heavy_share,
// tpc_heavy_share).
const HeavyVictim = 10

// New returns a reservation policy; seed drives r_schedule's choices.
func New(m Mechanism, seed uint64) *Policy {
	return &Policy{mech: m, seed: seed, g: rrg.New(), byJob: map[int32]*resv{}, pendingAtFailure: -1}
}

// SetSeed sets the seed of r_schedule's random choices.
func (p *Policy) SetSeed(s uint64) { p.seed = s }

func (p *Policy) setup(v *engine.View) {
	if p.init {
		return
	}
	p.init = true
	n := v.NumNodes()
	p.tasks = make([][]*engine.Job, n)
	p.held = make([][]*resv, n)
	p.srrm = make([][]*resv, n)
	p.bookedAt = make([]map[float64]int, n)
	for i := 0; i < n; i++ {
		spec := v.Node(i)
		p.g.AddResource(rrg.Resource{ID: i, Level: spec.Capability, Cost: spec.Cost})
	}
}

// Exact reports whether a reservation needs a resource of exactly its
// level: the quad and dual requests of the trace experiment (a 4-CPU or
// a 2-CPU node); the others need a level at least theirs.
func Exact(j *engine.Job) bool { return j.Queue == gen.TypeQuad || j.Queue == gen.TypeDual }

// IsReservation tells a reservation from a task.
func IsReservation(j *engine.Job) bool { return j.Queue >= 1 && !math.IsNaN(j.WindowStart) }

func (p *Policy) Notify(v *engine.View, n engine.Notice) {
	p.now = v.Now()
	p.setup(v)
	switch n.Kind {
	case engine.NoticeSubmitted:
		j := n.Job
		if !IsReservation(j) {
			r := j.Site
			if r < 0 || r >= len(p.tasks) {
				r = p.rr % len(p.tasks)
				p.rr++
			}
			p.tasks[r] = append(p.tasks[r], j)
			p.taskEstSum += j.Est
			p.taskN++
			return
		}
		p.requests++
		busy, held := 0, 0
		for _, t := range v.Running() {
			if IsReservation(t) {
				held++
			} else {
				busy++
			}
		}
		if free := v.NumNodes() - held; free > 0 {
			p.busySum += float64(busy) / float64(free)
		} else {
			p.busySum++
		}
		p.admit(v, j)
	case engine.NoticeTimer:
		if r, ok := p.byJob[int32(n.Tag)]; ok && r.job.State == engine.Queued && !r.failed {
			p.open(v, r)
		}
	case engine.NoticeEnded:
		if r, ok := p.byJob[n.Job.Index]; ok {
			if n.Job.State == engine.Failed {
				p.fail(r)
			}
			p.unhold(r)
			if r.q != nil {
				p.g.Complete(r.q)
			}
		}
	case engine.NoticeRequeued:
		j := n.Job
		if r, ok := p.byJob[j.Index]; ok {
			p.fail(r) // a reservation lost its resource: it fails
			return
		}
		p.tasks[j.Site] = append([]*engine.Job{j}, p.tasks[j.Site]...)
	case engine.NoticeNodeDown:
		if p.pendingAtFailure < 0 {
			p.pendingAtFailure, p.failedAt = 0, v.Now()
			for _, r := range p.byJob {
				// The reservation running on the failed resource failed a
				// moment ago, at this instant (the engine fails a down
				// node's jobs before it tells the policy the node is
				// down): it was pending at the failure too.
				if !r.failed && !r.job.State.Terminal() || r.failed && r.failedAt == v.Now() {
					p.pendingAtFailure++
					if r.res == n.Node {
						p.pendingOnFailed++
					}
				}
			}
		}
		if p.mech == DRRM {
			for _, q := range p.g.FailResourceBy(n.Node, p.replan) {
				for _, r := range p.byJob {
					if r.q == q {
						p.fail(r)
					}
				}
			}
		} else {
			for _, r := range p.srrm[n.Node] {
				if r.job.State == engine.Queued || r.job.State == engine.Running {
					p.fail(r)
				}
			}
		}
		// Tasks of a failed resource move to the next resource.
		for _, t := range p.tasks[n.Node] {
			p.tasks[(n.Node+1)%len(p.tasks)] = append(p.tasks[(n.Node+1)%len(p.tasks)], t)
		}
		p.tasks[n.Node] = nil
	}
}

func (p *Policy) fail(r *resv) {
	if r.failed {
		return
	}
	r.failed = true
	r.failedAt = p.now
	p.failedN++
	if r.booked {
		p.book(r, -1)
	}
	p.unhold(r)
	p.rejects = append(p.rejects, r.job)
}

func (p *Policy) unhold(r *resv) {
	if r.res < 0 {
		return
	}
	h := p.held[r.res]
	for i, x := range h {
		if x == r {
			p.held[r.res] = append(h[:i], h[i+1:]...)
			return
		}
	}
}

// option tells DeleteEdge what resource res offers reservation r now:
// the wait until r could start there without preempting (after the
// running task, in a gap between the reservations bound to res), and the
// cost of starting now by preempting the task (+Inf when a bound
// reservation needs res during [now, now + dur)).
func (p *Policy) option(v *engine.View, r *resv, res int) rrg.Option {
	now, dur := v.Now(), r.job.Runtime
	lt := r.job.WindowEnd
	free := now
	cost := 0.0
	if t := p.runningTask(v, res); t != nil {
		free = max(now, t.Start+t.Est)
		cost = v.Node(res).Cost * (now - t.Start)
	}
	inf := math.Inf(1)
	o := rrg.Option{Wait: inf, Cost: inf}
	if s, ok := earliestGap(p.held[res], free, lt, dur); ok {
		o.Wait = s - now
	}
	if s, ok := earliestGap(p.held[res], now, lt, dur); ok && s == now {
		o.Cost = cost
	}
	return o
}

// admit runs the admission test of the mechanism.
func (p *Policy) admit(v *engine.View, j *engine.Job) {
	r := &resv{job: j, res: -1, waitFrom: math.NaN()}
	et, lt, dur := j.WindowStart, j.WindowEnd, j.Runtime
	if p.mech == DRRM {
		r.q = &rrg.Reservation{ID: int(j.Index), ET: et, LT: lt, Dur: dur, Level: j.Level, Exact: Exact(j)}
		if !p.g.AddQNode(r.q) {
			p.rejects = append(p.rejects, j)
			return
		}
		r.start = et
	} else {
		res, start, ok := p.srrmChoose(v, j)
		if !ok {
			p.rejects = append(p.rejects, j)
			return
		}
		r.res, r.start = res, start
		p.srrm[res] = append(p.srrm[res], r)
		p.book(r, 1)
	}
	p.admitted++
	p.byJob[j.Index] = r
	at := r.start
	if p.mech == DRRM {
		at = et
	}
	p.timer(v, at, j.Index)
}

func (p *Policy) timer(v *engine.View, at float64, idx int32) {
	p.timers = append(p.timers, timerReq{max(at, v.Now()), int64(idx)})
}

type timerReq struct {
	at  float64
	tag int64
}

// srrmChoose finds the candidate resources with room for the request in
// its window (earliest start, flexibility used), and picks one.
func (p *Policy) srrmChoose(v *engine.View, j *engine.Job) (int, float64, bool) {
	type cand struct {
		res   int
		start float64
		cost  float64
	}
	var cs []cand
	for res := 0; res < v.NumNodes(); res++ {
		spec := v.Node(res)
		if !v.NodeUp(res) || !(&rrg.Resource{Level: spec.Capability}).Serves(&rrg.Reservation{Level: j.Level, Exact: Exact(j)}) {
			continue
		}
		lt := j.WindowEnd
		if p.atStart {
			lt = min(lt, j.WindowStart+j.Runtime)
		}
		start, ok := earliestGap(p.srrm[res], j.WindowStart, lt, j.Runtime)
		if !ok {
			continue
		}
		var c float64
		if p.mech == SRRMMinCost {
			switch p.pred {
			case PredictRunning:
				c = p.predictCost(v, res, start)
			case PredictRunningSlack:
				c = p.predictSlack(v, res, start, j)
			default:
				c = p.predictQueue(v, res, start, j)
			}
		}
		cs = append(cs, cand{res: res, start: start, cost: c})
	}
	if len(cs) == 0 {
		return 0, 0, false
	}
	if p.mech == SRRMRandom {
		c := cs[int(hash(p.seed, uint64(j.ID))%uint64(len(cs)))]
		return c.res, c.start, true
	}
	best := cs[0]
	for _, c := range cs[1:] {
		if c.cost < best.cost {
			best = c
		}
	}
	return best.res, best.start, true
}

// predictCost is m_schedule's prediction at admission: the cost w · pt of
// preempting, at the reservation's start, the task running on the
// resource now, if it will still be running then (by its expected
// runtime); 0 if the resource is idle or the task will have ended. The
// paper leaves the predictor open; this is the plainest one.
func (p *Policy) predictCost(v *engine.View, res int, start float64) float64 {
	for _, t := range v.Running() {
		if t.Alloc.Uses(res) && !IsReservation(t) {
			if t.Start+t.Est > start {
				return v.Node(res).Cost * (start - t.Start)
			}
			return 0
		}
	}
	return 0
}

// predictSlack is PredictRunningSlack: the task running on the resource
// at admission costs w · (start − its start) if, by its expected runtime,
// it still runs at start and ends after the request's latest start
// lt − dur; 0 otherwise (the reservation will wait for it within its
// slack, or it will have ended, or the resource is idle).
func (p *Policy) predictSlack(v *engine.View, res int, start float64, j *engine.Job) float64 {
	t := p.runningTask(v, res)
	if t == nil {
		return 0
	}
	end := t.Start + t.Est
	if end <= start || end <= j.WindowEnd-j.Runtime {
		return 0
	}
	return v.Node(res).Cost * (start - t.Start)
}

// predictQueue is m_schedule's prediction from the resource's whole
// queue (the tasks are known in §3.1's synthetic set-up, and [15] of the
// paper predicts "根据每个资源上当前运行作业的剩余运行时间以及该资源的作业队列
// 长度": from the running job's remaining time and the queue): the running
// task, then the queued tasks in order, each for its expected runtime; a
// reservation already bound to the resource occupies its interval, and a
// task it meets is cut and restarts after it. If a task is predicted to
// run at start, the cost is w · (start − its start), unless it ends within
// the request's slack (by lt − dur: the reservation waits for it, as open
// does), when it is 0; an idle resource costs 0.
func (p *Policy) predictQueue(v *engine.View, res int, start float64, j *engine.Job) float64 {
	type iv struct{ a, b float64 }
	var blocks []iv
	for _, r := range p.srrm[res] {
		if r.failed || r.job.State.Terminal() {
			continue
		}
		// the reservation's own interval (a waiting one's task runs until
		// its put-off start, which the layout below sees as the task)
		a := r.start
		if r.job.State == engine.Running {
			a = r.job.Start
		}
		if a < start {
			blocks = append(blocks, iv{a, a + r.job.Runtime})
		}
	}
	sort.Slice(blocks, func(a, b int) bool { return blocks[a].a < blocks[b].a })
	w := v.Node(res).Cost
	latest := j.WindowEnd - j.Runtime
	now := v.Now()
	t := now
	queue := p.tasks[res]
	// cur: the task on the resource (est and its start), if any.
	var curEst, curStart float64
	have := false
	if rt := p.runningTask(v, res); rt != nil {
		curEst, curStart, have = rt.Est, rt.Start, true
	}
	qi, bi := 0, 0
	var back float64 // a task cut by a bound reservation restarts first
	hasBack := false
	var tail []float64 // or, with requeueBack, after the queue
	for steps := 0; steps < 1<<20; steps++ {
		for bi < len(blocks) && blocks[bi].b <= t {
			bi++
		}
		if bi < len(blocks) && blocks[bi].a <= t {
			if start < blocks[bi].b {
				return 0 // a reservation holds the resource at start
			}
			t = blocks[bi].b
			bi++
			continue
		}
		if !have && hasBack {
			curEst, curStart, have, hasBack = back, t, true, false
		}
		if !have {
			switch {
			case qi < len(queue):
				curEst, curStart, have = queue[qi].Est, t, true
				if p.pred == PredictQueueLength {
					curEst = p.taskEstSum / float64(p.taskN)
				}
				qi++
			case len(tail) > 0:
				curEst, curStart, have = tail[0], t, true
				tail = tail[1:]
			default:
				return 0 // no work left: idle at start
			}
		}
		end := curStart + curEst
		next := math.Inf(1)
		if bi < len(blocks) {
			next = blocks[bi].a
		}
		if start < next && start < end {
			if start < curStart {
				return 0
			}
			if end <= latest {
				return 0
			}
			return w * (start - curStart)
		}
		if next < end {
			// A bound reservation cuts the task: it restarts after it
			// (first, or after the queue with requeueBack).
			t = next
			if p.requeueBack {
				tail = append(tail, curEst)
			} else {
				back, hasBack = curEst, true
			}
			have = false
			continue
		}
		t = end
		have = false
	}
	return 0
}

// hold is the interval [a, b) for which the reservation holds its
// resource: [start, start + duration) (a running one: from when it
// started), and for an SRRM reservation waiting for a task, from its
// opening (waitFrom) to its put-off end.
func (r *resv) hold() (a, b float64) {
	if r.job.State == engine.Running {
		return r.job.Start, r.job.Start + r.job.Runtime
	}
	a, b = r.start, r.start+r.job.Runtime
	if r.waitFrom < a {
		a = r.waitFrom
	}
	return a, b
}

// earliestGap is the earliest start s in [et, lt − dur] such that [s,
// s + dur) overlaps no reservation bound to the resource.
func earliestGap(bound []*resv, et, lt, dur float64) (float64, bool) {
	type iv struct{ a, b float64 }
	var ivs []iv
	for _, r := range bound {
		if r.failed || r.job.State.Terminal() {
			continue
		}
		a, b := r.hold()
		ivs = append(ivs, iv{a, b})
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].a < ivs[j].a })
	s := et
	for _, x := range ivs {
		if x.b <= s {
			continue
		}
		if x.a >= s+dur {
			break
		}
		s = x.b
	}
	return s, s+dur <= lt
}

func hash(seed, k uint64) uint64 {
	x := seed ^ (k * 0x9e3779b97f4a7c15)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// open handles a reservation whose window (DRRM) or reserved start (SRRM)
// has come.
// book counts (d = 1) or uncounts (d = −1) an SRRM booking at its start.
func (p *Policy) book(r *resv, d int) {
	if (d > 0) == r.booked {
		return
	}
	r.booked = d > 0
	m := p.bookedAt[r.res]
	if m == nil {
		m = map[float64]int{}
		p.bookedAt[r.res] = m
	}
	if m[r.start] += d; m[r.start] <= 0 {
		delete(m, r.start)
	}
}

func (p *Policy) open(v *engine.View, r *resv) {
	if p.mech != DRRM {
		p.book(r, -1)
	}
	if p.mech == DRRM {
		b, err := p.g.DeleteEdge(r.q, func(id int) rrg.Option { return p.option(v, r, id) })
		if err != nil {
			p.bindFailed++
			p.fail(r)
			return
		}
		r.res, r.start = b.Resource, b.Start
	} else {
		// SRRM keeps its resource but, like DRRM, uses its slack: if the
		// task running there ends in time and no other booking on the
		// resource is in the way — from now until the put-off end, not
		// only from the task's end (a booking in between would preempt
		// the task waited for and then leave the resource idle until the
		// put-off start: issue 15, task_busy 0.86 on OSC) — it waits
		// instead of preempting.
		var others []*resv
		for _, x := range p.srrm[r.res] {
			if x != r {
				others = append(others, x)
			}
		}
		now := v.Now()
		free := now
		if t := p.runningTask(v, r.res); t != nil {
			free = max(free, t.Start+t.Est)
		}
		span := free + r.job.Runtime - now
		if s, ok := earliestGap(others, now, now+span, span); ok && s == now && free+r.job.Runtime <= r.job.WindowEnd {
			r.start = free
			r.waitFrom = now
		}
	}
	r.taskAtOpen = p.runningTask(v, r.res) != nil
	p.held[r.res] = append(p.held[r.res], r)
	sort.SliceStable(p.held[r.res], func(a, b int) bool { return p.held[r.res][a].start < p.held[r.res][b].start })
	r.waiting = true
	if r.start > v.Now() {
		// Wake up at the deferred start even if nothing else happens
		// then (the task waited for may itself have been preempted).
		p.timers = append(p.timers, timerReq{r.start, -1 - int64(r.job.Index)})
	}
}

func (p *Policy) runningTask(v *engine.View, res int) *engine.Job {
	for _, t := range v.Running() {
		if t.Alloc.Uses(res) && !IsReservation(t) {
			return t
		}
	}
	return nil
}

func (p *Policy) Schedule(v *engine.View, plan *engine.Plan) {
	p.setup(v)
	for _, t := range p.timers {
		plan.Timer(t.at, t.tag)
	}
	p.timers = p.timers[:0]
	for _, j := range p.rejects {
		if j.State == engine.Queued {
			plan.Reject(j)
		}
	}
	p.rejects = p.rejects[:0]
	now := v.Now()
	for res := range p.tasks {
		if !v.NodeUp(res) {
			continue
		}
		if len(p.held[res]) > 0 && p.held[res][0].job.State == engine.Running {
			continue // a reservation runs here
		}
		if len(p.held[res]) > 0 && p.held[res][0].waiting {
			r := p.held[res][0]
			if t := p.runningTask(v, res); t != nil {
				// Wait while the task can end within the slack (the
				// binding put the start off); preempt once it is due.
				if now < r.start {
					continue
				}
				if !r.preempts {
					r.preempts = true
					p.preempting++
					if now == t.Start {
						p.zeroPreempting++
					}
				}
				c := v.Node(res).Cost * (now - t.Start)
				p.cost += c
				p.victim(t, c)
				if plan.Preempt(t, true) == nil {
					// It restarts from the beginning, first in its queue
					// (or last: the Requeue reading).
					if p.requeueBack {
						p.tasks[res] = append(p.tasks[res], t)
					} else {
						p.tasks[res] = append([]*engine.Job{t}, p.tasks[res]...)
					}
				}
			}
			// SRRM bookings fix every reservation's interval on the
			// resource: never start before the planned start (an idle
			// resource now may be booked by another reservation whose
			// timer has not fired yet). DRRM may start early: unbound
			// reservations hold no resource.
			if p.mech != DRRM && now < r.start {
				// Waiting for a task that ended before its estimate: the
				// reservation's hold already covers [waitFrom, start +
				// duration), so it starts now rather than leave the
				// resource idle (review 15b; seed 000's tasks end exactly at
				// their estimates).
				if !(r.waitFrom <= now && p.runningTask(v, res) == nil) {
					continue
				}
				r.start = now
			}
			if v.NodeFree(res) > 0 && r.job.State == engine.Queued && !r.failed {
				idle := p.runningTask(v, res) == nil && len(p.tasks[res]) == 0
				if plan.Start(r.job, engine.Alloc{{First: int32(res), Count: 1, PEs: 1}}) == nil {
					r.waiting = false
					switch {
					case idle:
						p.idleStarts++
					case r.preempts:
					case r.taskAtOpen:
						p.waitedStarts++
					default:
						p.freeStarts++
					}
				}
			}
			continue
		}
		if v.NodeFree(res) == 0 || len(p.tasks[res]) == 0 {
			continue
		}
		if p.bookedAt[res][now] > 0 {
			// An SRRM booking starts here now; its timer comes after the
			// end that freed the resource at this instant. A task started
			// now would be preempted at once, after 0 s: keep the resource.
			continue
		}
		t := p.tasks[res][0]
		if plan.Start(t, engine.Alloc{{First: int32(res), Count: 1, PEs: 1}}) == nil {
			p.tasks[res] = p.tasks[res][1:]
		}
	}
}

// victim records a preemption of task t at cost c.
func (p *Policy) victim(t *engine.Job, c float64) {
	if p.victims == nil {
		p.victims = map[int32]*victim{}
	}
	x := p.victims[t.Index]
	if x == nil {
		x = &victim{}
		p.victims[t.Index] = x
	}
	x.n++
	x.cost += c
	p.victimEst += t.Est
}

// concentration adds the preemption concentration metrics to m: the
// distinct tasks preempted, the share of preemptions and of TPC that fall
// on tasks preempted at least HeavyVictim times, and the mean expected
// runtime of a preempted task (over the preemptions). Without
// preemptions only the count (0) is there.
func (p *Policy) concentration(m map[string]float64) {
	m["preempted_tasks"] = float64(len(p.victims))
	n, heavyN := 0, 0
	heavyCost := 0.0
	// In task order: a float sum over a map's random iteration order
	// differs in its last bits from run to run (determinism).
	for _, k := range slices.Sorted(maps.Keys(p.victims)) {
		x := p.victims[k]
		n += x.n
		if x.n >= HeavyVictim {
			heavyN += x.n
			heavyCost += x.cost
		}
	}
	if n == 0 {
		return
	}
	m["preempt_heavy_share"] = float64(heavyN) / float64(n)
	if p.cost > 0 {
		m["tpc_heavy_share"] = heavyCost / p.cost
	}
	m["victim_runtime"] = p.victimEst / float64(n)
}

// Admitted returns the IDs of the admitted reservation requests.
func (p *Policy) Admitted() map[int64]bool {
	out := map[int64]bool{}
	for _, r := range p.byJob {
		out[r.job.ID] = true
	}
	return out
}

// Extra reports the metrics of §3.1: AP (admitted / requests), PP
// (reservations that preempted a task / admitted), TPC (Σ w · pt), η
// (reservations failed by resource failures / admitted).
func (p *Policy) Extra() map[string]float64 {
	m := map[string]float64{"requests": float64(p.requests), "admitted": float64(p.admitted), "tpc": p.cost}
	p.concentration(m)
	if p.requests > 0 {
		m["ap"] = float64(p.admitted) / float64(p.requests)
		m["task_busy"] = p.busySum / float64(p.requests)
	}
	if p.admitted > 0 {
		m["pp"] = float64(p.preempting) / float64(p.admitted)
		m["pp_zero"] = float64(p.zeroPreempting) / float64(p.admitted)
		m["eta"] = float64(p.failedN) / float64(p.admitted)
		m["idle_start"] = float64(p.idleStarts) / float64(p.admitted)
		m["start_waited"] = float64(p.waitedStarts) / float64(p.admitted)
		m["start_free"] = float64(p.freeStarts) / float64(p.admitted)
	}
	if p.pendingAtFailure >= 0 {
		m["failed"] = float64(p.failedN)
		m["pending_at_failure"] = float64(p.pendingAtFailure)
		m["pending_on_failed"] = float64(p.pendingOnFailed)
		m["failure_time"] = p.failedAt
		m["bind_failed"] = float64(p.bindFailed)
	}
	return m
}

// String names the mechanism.
func (m Mechanism) String() string {
	return [...]string{"DRRM", "SRRM_r", "SRRM_m"}[m]
}
