// Package engine simulates jobs on a platform under a scheduling policy.
//
// The engine owns the clock, the event queue and the platform state. A
// policy is told what happened (Notice) and answers through a Plan: start
// a job on given processors, preempt a running job, reject a queued job,
// set a timer. The engine validates every action against the platform
// state and applies it; an invalid action stops the run with an error, so
// a buggy policy is visible instead of silently wrong.
//
// Same-time convention: a job occupies its processors over [start, end),
// so processors freed at t can be used by a job starting at t; events at
// one instant are handled in class order
//
//	estimate expiry < arrival < completion < platform change < timer
//
// and, within a class, in the order they were created (arrivals in trace
// order). How the policy is consulted at an instant is the policy's choice
// (see Consultation): by default after every event; a policy that asks for
// SettledInstants is not consulted while another completion at the same
// instant is still to be handled, so it never decides on a state in which
// some of the jobs that end at t have released their processors and others
// have not. EveryEventCompletionsFirst handles completions before arrivals
// at an instant and consults the policy after every event (CQSim's order).
package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// State is where a job is in its life.
type State uint8

const (
	Pending   State = iota // not yet submitted
	Queued                 // submitted, waiting
	Running                // holding processors
	Completed              // ran to its end
	Killed                 // killed when it outlived its estimate (OverrunKill)
	Failed                 // lost to a node failure and not requeued
	Dropped                // preempted and dropped, or rejected by the policy
)

var stateNames = [...]string{"pending", "queued", "running", "completed", "killed", "failed", "dropped"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

// Terminal reports whether a job in state s will never run again.
func (s State) Terminal() bool { return s >= Completed }

// Overrun says what happens when a job is still running when its estimate
// (requested time) runs out.
type Overrun uint8

const (
	// OverrunKill kills the job at its estimate, as batch systems enforce
	// a wall-clock limit. Its record has state Killed and success 0.
	OverrunKill Overrun = iota
	// OverrunExtend lets the job run to its actual end; each time it
	// reaches its current estimate the scheduler's estimate grows by the
	// original estimate (so 2×, 3×, ... of the request; by at least
	// model.MinEstimate), and the policy is
	// told (NoticeEstimateExtended). A requeued job's estimate is its
	// request again (its next run starts from scratch).
	OverrunExtend
)

// Job is a job inside a simulation: the workload's description plus its
// simulated state. Policies read it; only the engine writes it, and never
// the description, which New does not copy: a job points at its entry of
// the slice New was given (issue 19: the loaded list and a copy of it
// were both alive, 200 bytes per job each).
type Job struct {
	*model.Job
	Index  int32 // position in the engine's job list (arrival order)
	State  State
	killAt bool    // the scheduled end is a kill at the estimate
	Start  float64 // last start time (NaN if never started)
	End    float64 // end time once terminal; while running, the scheduled end
	Est    float64 // the scheduler's current wall-clock estimate
	Alloc  Alloc   // processors of the last start

	Preemptions int     // times preempted or requeued after a failure
	LostTime    float64 // wall time of runs that were lost (preempted, failed)

	ver      uint32 // bumps when the scheduled end changes; stale events carry old versions
	runIdx   int32
	minSpeed float64
	natEnd   float64 // when the job would end by itself (after stretching)
}

// ExpectedEnd is when the scheduler expects a running job to end: start
// plus its current estimate.
func (j *Job) ExpectedEnd() float64 { return j.Start + j.Est }

// NoticeKind says what a Notice reports.
type NoticeKind uint8

const (
	NoticeSubmitted        NoticeKind = iota // Job arrived and is Queued
	NoticeEnded                              // Job left the processors: Completed, Killed or Failed
	NoticeRequeued                           // Job lost its processors (node failure/removal) and is Queued again
	NoticeEstimateExtended                   // Job outlived its estimate; Job.Est has grown (OverrunExtend)
	NoticeNodeDown                           // Node went down or was removed
	NoticeNodeUp                             // Node came back or was added
	NoticeTimer                              // a timer with Tag fired
)

// Notice tells the policy about one event.
type Notice struct {
	Kind NoticeKind
	Job  *Job
	Node int
	Tag  int64
}

// Policy decides which jobs run where. It must keep its own waiting queue
// (the engine hands it every submitted job exactly once through
// NoticeSubmitted, and every requeued job through NoticeRequeued).
type Policy interface {
	// Notify is called for every event, before Schedule.
	Notify(v *View, n Notice)
	// Schedule is called after every event; it acts through the plan.
	Schedule(v *View, p *Plan)
}

// Consultation says when the engine consults a policy (calls Schedule) at
// an instant where several events happen. A policy chooses by implementing
// ConsultingPolicy; one that does not is consulted after every event.
type Consultation uint8

const (
	// EveryEvent: Schedule after every event, events in class order
	// (arrivals before completions at an instant).
	EveryEvent Consultation = iota
	// SettledInstants: Schedule after every event except while another
	// completion at the same instant is still to be handled. At t the
	// policy therefore decides only once every job that ends at t (by its
	// estimate or earlier) has released its processors; the order in which
	// same-time completions are handled cannot change its decisions.
	// Arrivals at t come before completions at t, so their pass is the one
	// after the last completion at t.
	SettledInstants
	// EveryEventCompletionsFirst: Schedule after every event, with
	// completions at an instant handled before arrivals at that instant
	// (the order and the consultation of CQSim's Cqsim_sim.py).
	EveryEventCompletionsFirst
)

// ConsultingPolicy is a Policy that chooses its Consultation. The engine
// asks once, when it is created.
type ConsultingPolicy interface {
	Policy
	Consultation() Consultation
}

// FinishingPolicy is a Policy that holds resources (an external scheduler
// process) or checks the end of a run. Whoever runs the engine calls
// Finish once, after Run returns (also when it returned an error), with
// Run's error; Finish releases what the policy holds and returns the
// run's error: err, or its own when err is nil (a scheduler that left
// jobs waiting forever).
type FinishingPolicy interface {
	Policy
	Finish(v *View, err error) error
}

// Observer records what happens. Observers must not change the simulation.
type Observer interface {
	JobSubmitted(now float64, j *Job)
	JobStarted(now float64, j *Job)
	// JobStopped is called when a job leaves its processors, for good
	// (j.State terminal) or to be requeued (j.State == Queued).
	JobStopped(now float64, j *Job)
	// Sample is called after every event with the processor and queue
	// counts at that instant.
	Sample(now float64, busyPEs, availPEs, queued int)
}

// Hook is a model process that acts on the simulation as events happen
// (instability that slows jobs down, failures): it is told every notice
// before the policy, and may act on the engine (Stretch, FailNode, Timer).
// Hooks must not start or stop jobs: that is the policy's part.
type Hook interface {
	Before(e *Engine, n Notice)
}

// Options tune the engine.
type Options struct {
	Overrun Overrun
}

const (
	classExpiry   sim.Class = iota
	classEndFirst           // completions under EveryEventCompletionsFirst
	classArrival
	classEnd
	classPlatform
	classTimer
)

const (
	kindArrival uint8 = iota
	kindEnd
	kindExpiry
	kindNodeDown
	kindNodeUp
	kindNodeAdd
	kindNodeRemove
	kindTimer
	kindPeriodic
	kindBackground
)

// Engine is one simulation. It is single-threaded and deterministic.
type Engine struct {
	now    float64
	q      sim.Queue
	policy Policy
	hooks  []Hook
	obs    []Observer
	opts   Options
	view   View
	plan   Plan
	err    error
	quiet  bool // the last event was for hooks only: skip the policy

	settled  bool      // consult the policy only on settled instants
	endClass sim.Class // class of completion events

	// permuteEnds, when set (tests only), shuffles the handling order of
	// the completions that share an instant.
	permuteEnds func(n int, swap func(i, j int))
	permutedAt  float64

	jobs     []*Job
	arrivals []*Job // the initial workload, sorted by submit time
	next     int    // next arrival

	specs    []model.NodeSpec
	free     []int32
	up       []bool // up and present
	present  []bool
	freeSet  *bitset
	addQueue []model.NodeSpec
	periods  map[int64]float64

	availPEs, freePEs int
	uniformPEs        int32   // processors of every node when all have the same count, else 0
	down              int     // nodes that are not up (down or removed)
	uniform           bool    // every node has the same speed
	speed             float64 // that speed (the smallest speed otherwise: a start value for minimums)
	running           []*Job
	queued            int
	liveEvents        int    // events that keep the run going (all but periodic timers)
	spans             []Span // slab the started jobs' allocations are copied into
	scratch           Alloc  // View.AllocBuffer
}

// keepAlloc copies a started job's allocation into the span slab: one
// small slice per job (and its growth while the selector built it) cost
// about 47 bytes per job that stayed alive to the end (issue 19). The
// copy's capacity is its length, so appending to it never writes into
// a neighbour's spans.
func (e *Engine) keepAlloc(a Alloc) Alloc {
	n := len(a)
	if len(e.spans)+n > cap(e.spans) {
		e.spans = make([]Span, 0, max(n, 4096))
	}
	k := len(e.spans)
	e.spans = append(e.spans, a...)
	return Alloc(e.spans[k : k+n : k+n])
}

// New prepares a simulation of jobs on platform p under policy pol. The
// jobs are not copied: each engine job points at its element of jobs,
// which must not change while the engine is in use. The engine's job list
// is stably sorted by submit time (arrival order is the sorted order;
// equal submit times keep their input order).
func New(p *model.Platform, jobs []model.Job, pol Policy, opts Options) *Engine {
	e := &Engine{policy: pol, opts: opts, periods: map[int64]float64{}, endClass: classEnd, permutedAt: math.NaN()}
	if cp, ok := pol.(ConsultingPolicy); ok {
		switch cp.Consultation() {
		case SettledInstants:
			e.settled = true
		case EveryEventCompletionsFirst:
			e.endClass = classEndFirst
		}
	}
	e.view.e = e
	e.plan.e = e
	e.scratch = make(Alloc, 0, 64)
	store := make([]Job, len(jobs))
	e.jobs = make([]*Job, len(jobs))
	for i := range jobs {
		store[i].Job = &jobs[i]
		e.jobs[i] = &store[i]
		e.check(i, &jobs[i])
	}
	if err := model.CheckShared(); err != nil {
		e.fail("engine: %v", err)
	}
	if !slices.IsSortedFunc(e.jobs, func(a, b *Job) int { return cmpFloat(a.Submit, b.Submit) }) {
		slices.SortStableFunc(e.jobs, func(a, b *Job) int { return cmpFloat(a.Submit, b.Submit) })
	}
	for i, j := range e.jobs {
		e.initJob(j, int32(i))
	}
	e.arrivals = e.jobs
	e.freeSet = newBitset(len(p.Nodes))
	// Sized once: appending node by node allocated several times the
	// final size (38 MB for CEA-Curie's 93,312 nodes; issue 19).
	e.specs = make([]model.NodeSpec, 0, len(p.Nodes))
	e.free = make([]int32, 0, len(p.Nodes))
	e.up = make([]bool, 0, len(p.Nodes))
	e.present = make([]bool, 0, len(p.Nodes))
	for _, n := range p.Nodes {
		e.addNode(n)
	}
	return e
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// check fails the run if job i cannot be simulated: without its trace or
// model fields, or with a time that is not finite (the readers reject
// non-finite numbers; a job built in Go could still carry one, and a NaN
// or infinite time corrupts every plan made with it).
func (e *Engine) check(i int, j *model.Job) {
	if j.TraceFields == nil || j.ModelFields == nil {
		e.fail("engine: job %d (ID %d) has no trace or model fields (make jobs with model.NewJob)", i, j.ID)
	}
	if !finite(j.Submit) || !finite(j.Runtime) || !finite(j.Estimate) {
		e.fail("engine: job %d (ID %d): submit %v, runtime %v, estimate %v: every time must be finite", i, j.ID, j.Submit, j.Runtime, j.Estimate)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (e *Engine) initJob(j *Job, idx int32) {
	j.Index = idx
	j.State = Pending
	j.Start = math.NaN()
	j.End = math.NaN()
	j.Est = j.SchedEstimate()
	j.runIdx = -1
}

// AddHook adds a model process (see Hook).
func (e *Engine) AddHook(h Hook) { e.hooks = append(e.hooks, h) }

// Observe adds an observer.
func (e *Engine) Observe(o Observer) { e.obs = append(e.obs, o) }

// View returns the read-only view policies and tests use.
func (e *Engine) View() *View { return &e.view }

// Jobs returns every job of the simulation in arrival order, including
// those submitted while it runs. The slice must not be modified.
func (e *Engine) Jobs() []*Job { return e.jobs }

// Now is the current simulated time.
func (e *Engine) Now() float64 { return e.now }

// --- scheduling external events (tests, fault models, workloads) ---

// Submit adds a job that arrives at time at (>= now). It returns the
// engine's job.
func (e *Engine) Submit(at float64, mj model.Job) *Job {
	j := &Job{Job: &mj}
	j.Submit = at
	e.check(len(e.jobs), j.Job)
	e.initJob(j, int32(len(e.jobs)))
	e.jobs = append(e.jobs, j)
	e.push(sim.Event{Time: at, Class: classArrival, Kind: kindArrival, Ref: j.Index})
	return j
}

// FailNode makes node go down at time at. Jobs running on it lose their
// processors and are requeued (requeue) or fail.
func (e *Engine) FailNode(at float64, node int, requeue bool) {
	e.push(sim.Event{Time: at, Class: classPlatform, Kind: kindNodeDown, Ref: int32(node), Tag: b2i(requeue)})
}

// RepairNode brings node back up at time at.
func (e *Engine) RepairNode(at float64, node int) {
	e.push(sim.Event{Time: at, Class: classPlatform, Kind: kindNodeUp, Ref: int32(node)})
}

// AddNode adds a node at time at; it gets the next free node index.
func (e *Engine) AddNode(at float64, spec model.NodeSpec) {
	e.addQueue = append(e.addQueue, spec)
	e.push(sim.Event{Time: at, Class: classPlatform, Kind: kindNodeAdd, Tag: int64(len(e.addQueue) - 1)})
}

// RemoveNode removes node for good at time at; jobs on it are requeued or
// fail as with FailNode.
func (e *Engine) RemoveNode(at float64, node int, requeue bool) {
	e.push(sim.Event{Time: at, Class: classPlatform, Kind: kindNodeRemove, Ref: int32(node), Tag: b2i(requeue)})
}

// Timer makes the policy receive NoticeTimer with tag at time at.
func (e *Engine) Timer(at float64, tag int64) {
	e.push(sim.Event{Time: at, Class: classTimer, Kind: kindTimer, Tag: tag})
}

// Background is Timer for model processes that never end (node state
// cycles): like a periodic timer, it does not keep the run going, and only
// hooks are told (the policy is neither notified nor consulted).
func (e *Engine) Background(at float64, tag int64) {
	e.q.Push(sim.Event{Time: at, Class: classTimer, Kind: kindBackground, Tag: tag})
}

// Every makes the policy receive NoticeTimer with tag at start, start +
// period, ... for as long as anything else is left to simulate (a
// periodic timer alone does not keep the run going).
func (e *Engine) Every(start, period float64, tag int64) error {
	if !(period > 0) {
		return fmt.Errorf("periodic timer %d: period must be positive, got %g", tag, period)
	}
	e.periods[tag] = period
	e.q.Push(sim.Event{Time: start, Class: classTimer, Kind: kindPeriodic, Tag: tag})
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (e *Engine) push(ev sim.Event) {
	e.liveEvents++
	e.q.Push(ev)
}

// --- the run loop ---

// Run simulates until nothing is left to happen, and returns the first
// invalid plan the policy produced, if any.
func (e *Engine) Run() error { return e.RunUntil(math.Inf(1)) }

// RunUntil handles every event at or before t and stops. It can be called
// again with a later t.
func (e *Engine) RunUntil(t float64) error {
	for e.err == nil {
		// The next event: the initial arrival stream or the queue, which
		// hold no arrival of the same (time, class) before the stream's.
		var arr *Job
		if e.next < len(e.arrivals) {
			arr = e.arrivals[e.next]
		}
		for e.q.Len() > 0 && e.stale(e.q.Peek()) {
			e.pop()
		}
		useQ := false
		switch {
		case e.q.Len() > 0 && arr != nil:
			top := e.q.Peek()
			useQ = top.Time < arr.Submit || (top.Time == arr.Submit && top.Class < classArrival)
		case e.q.Len() > 0:
			if e.liveEvents == 0 {
				return e.err // only periodic timers remain
			}
			useQ = true
		case arr == nil:
			return e.err
		}
		if useQ {
			if e.q.Peek().Time > t {
				return e.err
			}
			if e.permuteEnds != nil {
				e.permuteSameTimeEnds()
			}
			ev := e.pop()
			e.now = ev.Time
			e.handle(&ev)
		} else {
			if arr.Submit > t {
				return e.err
			}
			e.next++
			e.now = arr.Submit
			e.arrive(arr)
		}
		if e.err != nil {
			break
		}
		if e.quiet {
			e.quiet = false
			continue
		}
		if e.settled && e.completionPending() {
			// Another job ends at this instant: decide once it has too.
			for _, o := range e.obs {
				o.Sample(e.now, e.availPEs-e.freePEs, e.availPEs, e.queued)
			}
			continue
		}
		e.policy.Schedule(&e.view, &e.plan)
		for _, o := range e.obs {
			o.Sample(e.now, e.availPEs-e.freePEs, e.availPEs, e.queued)
		}
	}
	return e.err
}

// permuteSameTimeEnds re-pushes the live completions that share the next
// event's instant in an order chosen by permuteEnds (once per instant).
func (e *Engine) permuteSameTimeEnds() {
	top := *e.q.Peek()
	if top.Kind != kindEnd || top.Time == e.permutedAt {
		return
	}
	e.permutedAt = top.Time
	var buf []sim.Event
	for e.q.Len() > 0 && e.q.Peek().Time == top.Time && e.q.Peek().Class == top.Class {
		if e.stale(e.q.Peek()) {
			e.pop()
			continue
		}
		buf = append(buf, e.pop())
	}
	e.permuteEnds(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	for _, ev := range buf {
		e.push(ev)
	}
}

// completionPending reports whether a job's completion at the current
// instant is still to be handled. Completions come after arrivals and
// before platform events and timers at an instant, so it is enough to look
// at the first live event in the queue.
func (e *Engine) completionPending() bool {
	for e.q.Len() > 0 && e.stale(e.q.Peek()) {
		e.pop()
	}
	if e.q.Len() == 0 {
		return false
	}
	top := e.q.Peek()
	return top.Time == e.now && top.Kind == kindEnd
}

func (e *Engine) pop() sim.Event {
	ev := e.q.Pop()
	if ev.Kind != kindPeriodic && ev.Kind != kindBackground {
		e.liveEvents--
	}
	return ev
}

func (e *Engine) stale(ev *sim.Event) bool {
	if ev.Kind != kindEnd && ev.Kind != kindExpiry {
		return false
	}
	j := e.jobs[ev.Ref]
	return j.State != Running || j.ver != ev.Ver
}

func (e *Engine) notify(n Notice) {
	for _, h := range e.hooks {
		h.Before(e, n)
	}
	e.policy.Notify(&e.view, n)
}

func (e *Engine) handle(ev *sim.Event) {
	switch ev.Kind {
	case kindArrival:
		e.arrive(e.jobs[ev.Ref])
	case kindEnd:
		j := e.jobs[ev.Ref]
		st := Completed
		if j.killAt {
			st = Killed
		}
		e.release(j, st)
		j.End = e.now
		e.notify(Notice{Kind: NoticeEnded, Job: j})
	case kindExpiry:
		j := e.jobs[ev.Ref]
		// By the request, and by at least MinEstimate: a request far below
		// a second (1e-9 s) would extend a day-long job 10^14 times, and
		// one below the clock's spacing would not move its end at all (a
		// hang, found by review).
		j.Est += max(j.SchedEstimate(), model.MinEstimate)
		e.scheduleEnd(j)
		e.notify(Notice{Kind: NoticeEstimateExtended, Job: j})
	case kindNodeDown, kindNodeRemove:
		n := int(ev.Ref)
		if n < 0 || n >= len(e.specs) || !e.present[n] {
			e.fail("platform event at %g: node %d does not exist", e.now, n)
			return
		}
		e.nodeDown(n, ev.Tag == 1, ev.Kind == kindNodeRemove)
	case kindNodeUp:
		n := int(ev.Ref)
		if n < 0 || n >= len(e.specs) || !e.present[n] {
			e.fail("platform event at %g: node %d does not exist", e.now, n)
			return
		}
		if !e.up[n] {
			e.up[n] = true
			e.down--
			e.availPEs += e.specs[n].PEs
			e.freePEs += int(e.free[n])
			e.freeSet.set(n)
			e.notify(Notice{Kind: NoticeNodeUp, Node: n})
		}
	case kindNodeAdd:
		n := e.addNode(e.addQueue[ev.Tag])
		e.notify(Notice{Kind: NoticeNodeUp, Node: n})
	case kindTimer:
		e.notify(Notice{Kind: NoticeTimer, Tag: ev.Tag})
	case kindBackground:
		// Model processes only: the policy is not told and not consulted
		// (nothing it sees changes; this keeps node-state cycles cheap).
		for _, h := range e.hooks {
			h.Before(e, Notice{Kind: NoticeTimer, Tag: ev.Tag})
		}
		e.quiet = true
	case kindPeriodic:
		e.q.Push(sim.Event{Time: e.now + e.periods[ev.Tag], Class: classTimer, Kind: kindPeriodic, Tag: ev.Tag})
		e.notify(Notice{Kind: NoticeTimer, Tag: ev.Tag})
	}
}

func (e *Engine) arrive(j *Job) {
	j.State = Queued
	e.queued++
	for _, o := range e.obs {
		o.JobSubmitted(e.now, j)
	}
	e.notify(Notice{Kind: NoticeSubmitted, Job: j})
}

func (e *Engine) addNode(spec model.NodeSpec) int {
	n := len(e.specs)
	if spec.Speed <= 0 {
		spec.Speed = 1
	}
	if len(e.specs) == 0 {
		e.uniformPEs = int32(spec.PEs)
	} else if int32(spec.PEs) != e.uniformPEs {
		e.uniformPEs = 0
	}
	if len(e.specs) == 0 {
		e.uniform, e.speed = true, spec.Speed
	} else if spec.Speed != e.speed {
		e.uniform = false
		e.speed = max(e.speed, spec.Speed)
	}
	e.specs = append(e.specs, spec)
	e.free = append(e.free, int32(spec.PEs))
	e.up = append(e.up, true)
	e.present = append(e.present, true)
	e.freeSet.grow(n + 1)
	if spec.PEs > 0 {
		e.freeSet.set(n)
	}
	e.availPEs += spec.PEs
	e.freePEs += spec.PEs
	return n
}

func (e *Engine) nodeDown(n int, requeue, remove bool) {
	if e.up[n] {
		// Jobs on the node lose all their processors.
		var victims []*Job
		for _, j := range e.running {
			if j.Alloc.Uses(n) {
				victims = append(victims, j)
			}
		}
		for _, j := range victims {
			e.stop(j, requeue, Failed)
			if requeue {
				e.notify(Notice{Kind: NoticeRequeued, Job: j})
			} else {
				e.notify(Notice{Kind: NoticeEnded, Job: j})
			}
		}
		e.up[n] = false
		e.down++
		e.availPEs -= e.specs[n].PEs
		e.freePEs -= int(e.free[n])
		e.freeSet.clear(n)
	}
	if remove {
		e.present[n] = false
	}
	e.notify(Notice{Kind: NoticeNodeDown, Node: n})
}

// Uses reports whether the allocation includes node n.
func (a Alloc) Uses(n int) bool {
	for _, s := range a {
		if n >= int(s.First) && n < int(s.First+s.Count) {
			return true
		}
	}
	return false
}

// stop takes a running job off its processors before its end: requeued
// (back to Queued) or ended in state st.
func (e *Engine) stop(j *Job, requeue bool, st State) {
	j.LostTime += e.now - j.Start
	j.Preemptions++
	if requeue {
		e.release(j, Queued)
		e.queued++
		j.Start, j.End = math.NaN(), math.NaN()
		// The next run starts from scratch with the request again: the
		// extensions of OverrunExtend belonged to the run that was lost.
		j.Est = j.SchedEstimate()
	} else {
		e.release(j, st)
		j.End = e.now
	}
}

// take removes the span's processors from the free pool.
func (e *Engine) take(s Span) {
	if s.PEs == e.uniformPEs {
		// Whole nodes (validated free): clear them 64 at a time.
		clear(e.free[s.First : s.First+s.Count])
		e.freeSet.clearRange(int(s.First), int(s.First+s.Count))
		return
	}
	w, mask := -1, uint64(0)
	for n := int(s.First); n < int(s.First+s.Count); n++ {
		e.free[n] -= s.PEs
		if e.free[n] == 0 {
			if n>>6 != w {
				if mask != 0 {
					e.freeSet.clearMask(w, mask)
				}
				w, mask = n>>6, 0
			}
			mask |= 1 << (uint(n) & 63)
		}
	}
	if mask != 0 {
		e.freeSet.clearMask(w, mask)
	}
}

// release frees a running job's processors and sets its new state.
func (e *Engine) release(j *Job, st State) {
	for _, s := range j.Alloc {
		if s.PEs == e.uniformPEs && e.down == 0 {
			// Whole nodes, all up: they become entirely free.
			fill(e.free[s.First:s.First+s.Count], s.PEs)
			e.freeSet.setRange(int(s.First), int(s.First+s.Count))
			e.freePEs += int(s.Count) * int(s.PEs)
			continue
		}
		w, mask := -1, uint64(0)
		for n := int(s.First); n < int(s.First+s.Count); n++ {
			was := e.free[n]
			e.free[n] = was + s.PEs
			if !e.up[n] {
				continue
			}
			e.freePEs += int(s.PEs)
			if was == 0 {
				if n>>6 != w {
					if mask != 0 {
						e.freeSet.setMask(w, mask)
					}
					w, mask = n>>6, 0
				}
				mask |= 1 << (uint(n) & 63)
			}
		}
		if mask != 0 {
			e.freeSet.setMask(w, mask)
		}
	}
	last := e.running[len(e.running)-1]
	last.runIdx = j.runIdx
	e.running[j.runIdx] = last
	e.running = e.running[:len(e.running)-1]
	j.runIdx = -1
	j.ver++
	j.State = st
	for _, o := range e.obs {
		o.JobStopped(e.now, j)
	}
}

// fill sets every element of dst to v, doubling a filled prefix with copy
// (memmove) instead of storing element by element: a whole-node span of
// a wide job on a large platform is tens of thousands of nodes (issue 30).
func fill(dst []int32, v int32) {
	if len(dst) == 0 {
		return
	}
	dst[0] = v
	for k := 1; k < len(dst); k *= 2 {
		copy(dst[k:], dst[:k])
	}
}

// scheduleEnd (re)schedules the end of a running job from its natural
// end and the overrun option.
func (e *Engine) scheduleEnd(j *Job) {
	j.ver++
	j.killAt = false
	end := j.natEnd
	limit := j.Start + j.Est
	if j.Est >= 0 && end > limit {
		if e.opts.Overrun == OverrunKill {
			end, j.killAt = limit, true
		} else {
			e.push(sim.Event{Time: limit, Class: classExpiry, Kind: kindExpiry, Ref: j.Index, Ver: j.ver})
		}
	}
	j.End = end
	e.push(sim.Event{Time: end, Class: e.endClass, Kind: kindEnd, Ref: j.Index, Ver: j.ver})
}

// Stretch multiplies the remaining run time of a running job by factor
// (> 0): the way slow or unstable nodes act on a job. A stretched job can
// outlive its estimate; the overrun option then applies.
func (e *Engine) Stretch(j *Job, factor float64) error {
	if j.State != Running {
		return fmt.Errorf("stretch job %d: not running (%s)", j.ID, j.State)
	}
	if !(factor > 0) {
		return fmt.Errorf("stretch job %d: factor must be positive, got %g", j.ID, factor)
	}
	j.natEnd = e.now + (j.natEnd-e.now)*factor
	e.scheduleEnd(j)
	return nil
}

// StretchTo moves the natural end of running job j to end (not before
// now): the job now needs until end to finish its work. The overrun
// option still applies.
func (e *Engine) StretchTo(j *Job, end float64) error {
	if j.State != Running {
		return fmt.Errorf("stretch job %d: not running (%s)", j.ID, j.State)
	}
	if end < e.now {
		return fmt.Errorf("stretch job %d: end %g is before now %g", j.ID, end, e.now)
	}
	j.natEnd = end
	e.scheduleEnd(j)
	return nil
}

// NaturalEnd is when running job j would end by itself (its work done),
// whatever the overrun option does at its estimate.
func (j *Job) NaturalEnd() float64 { return j.natEnd }

// StartHook is an optional part of a Hook: told after every job start.
type StartHook interface {
	Started(e *Engine, j *Job)
}

func (e *Engine) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
}

// ErrInvalidPlan is wrapped by every error about a policy's plan.
var ErrInvalidPlan = errors.New("invalid plan")
