package unstable

import (
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
)

// SingleBackfill is the scheduler's main loop of seed 002 §2.4 (GridSim's
// SingleBackFill, which the paper's §3.1 restriction 2 names): "在经典算法
// 中, 每次回填仅考虑队列的第 1 个任务, 即 SingleBackfill 策略. 本算法也沿用
// 此策略" — in the classic algorithm each backfill considers only the
// first job of the queue (the SingleBackfill strategy); this algorithm
// keeps it. Its pseudo-code, at each submission:
//
//	pivotJob = Scheduler.queue.header
//	if (pivot.canStart()) pivotJob.start();
//	if (currentJob.canStart()) currentJob.start(); else currentJob.queue();
//
// Our reading (Mode "arrival", policy easy-single): after every event the
// queue head starts while it fits (the pivot; FCFS); a job that has just
// been submitted and is not the head starts at once if it fits now and
// does not delay the head — it ends by the head's shadow time or uses no
// more than the extra processors (EASY's test, §1.3) — and otherwise
// waits. A job that waits is never looked at again until it is the head:
// jobs behind the head are not scanned when processors free up, as
// standard EASY (policy.EASY) does.
//
// Mode "first" (policy easy-first) is the other reading, of §1.3 step
// 2)③ "符合条件的第一个任务即可用来进行回填" (the first job that qualifies is
// used to backfill): after every event at most one job — the first in
// arrival order that fits now and does not delay the head — is
// backfilled.
type SingleBackfill struct {
	sel  policy.NodeSelector
	mode string
	q    []*engine.Job
	new  []*engine.Job // submitted since the last scheduling pass
	prof *policy.Profile
	key  map[int32]float64 // expected release of running jobs
}

var _ engine.ConsultingPolicy = (*SingleBackfill)(nil)

// Consultation implements engine.ConsultingPolicy. Mode "arrival" decides
// once every job ending at an instant has released its processors (as
// policy.EASY does: same-time completions handled in any order give the
// same schedule). Mode "first" backfills at most one job per event, so it
// is consulted after every event, completions before arrivals (the
// per-event reading, as policy's easy-per-event).
func (s *SingleBackfill) Consultation() engine.Consultation {
	if s.mode == "first" {
		return engine.EveryEventCompletionsFirst
	}
	return engine.SettledInstants
}

// NewSingleBackfill returns the policy of the given mode ("arrival" or
// "first") using sel for node selection.
func NewSingleBackfill(sel policy.NodeSelector, mode string) *SingleBackfill {
	return &SingleBackfill{sel: sel, mode: mode, prof: policy.NewProfile(0), key: map[int32]float64{}}
}

func init() {
	policy.Register("easy-single", "EASY as seed 002 §2.4 runs it (SingleBackfill): the queue head starts when it fits; an arriving job backfills at once or waits until it is the head",
		func(sel policy.NodeSelector) engine.Policy { return NewSingleBackfill(sel, "arrival") })
	policy.Register("easy-first", "EASY with at most one backfill per event, the first job that qualifies (seed 002 §1.3, step 2.3)",
		func(sel policy.NodeSelector) engine.Policy { return NewSingleBackfill(sel, "first") })
}

func (s *SingleBackfill) insert(j *engine.Job) {
	i, _ := slices.BinarySearchFunc(s.q, j.Index, func(a *engine.Job, idx int32) int { return int(a.Index - idx) })
	s.q = slices.Insert(s.q, i, j)
}

func (s *SingleBackfill) stopped(j *engine.Job) {
	if k, ok := s.key[j.Index]; ok {
		s.prof.Add(k, -j.Procs)
		delete(s.key, j.Index)
	}
}

func (s *SingleBackfill) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted:
		s.insert(n.Job)
		s.new = append(s.new, n.Job)
	case engine.NoticeRequeued:
		s.stopped(n.Job)
		s.insert(n.Job)
	case engine.NoticeEnded:
		s.stopped(n.Job)
	case engine.NoticeEstimateExtended:
		s.stopped(n.Job)
		s.started(n.Job)
	}
}

func (s *SingleBackfill) started(j *engine.Job) {
	k := j.ExpectedEnd()
	s.key[j.Index] = k
	s.prof.Add(k, j.Procs)
}

func (s *SingleBackfill) start(v *engine.View, p *engine.Plan, j *engine.Job) bool {
	if j.Procs > v.FreePEs() {
		return false
	}
	a, ok := s.sel.Select(v, j, nil)
	if !ok || p.Start(j, a) != nil {
		return false
	}
	s.started(j)
	return true
}

// shadow is the head's shadow time and extra processors (EASY, §1.3
// step 1); +Inf when it can never fit on the processors that are up.
func (s *SingleBackfill) shadow(v *engine.View) (float64, int) {
	head := s.q[0]
	s.prof.Base = v.FreePEs()
	t, ok := s.prof.FirstAtLeast(math.Inf(-1), head.Procs)
	if !ok {
		return math.Inf(1), 0
	}
	return max(t, v.Now()), s.prof.Value(t) - head.Procs
}

// backfills reports whether queued job j may start now without delaying
// the head (§1.3 step 2②).
func (s *SingleBackfill) backfills(v *engine.View, j *engine.Job) bool {
	if j.Procs > v.FreePEs() {
		return false
	}
	sh, extra := s.shadow(v)
	return v.Now()+j.Est <= sh || j.Procs <= extra
}

func (s *SingleBackfill) Schedule(v *engine.View, p *engine.Plan) {
	arrived := s.new
	s.new = s.new[:0]
	for len(s.q) > 0 && s.start(v, p, s.q[0]) {
		s.q = s.q[1:]
	}
	if len(s.q) < 2 {
		return
	}
	var cands []*engine.Job
	switch s.mode {
	case "first":
		cands = s.q[1:]
	default:
		for _, j := range arrived {
			if j.State == engine.Queued && j != s.q[0] {
				cands = append(cands, j)
			}
		}
	}
	var done []*engine.Job
	for _, j := range cands {
		if v.FreePEs() == 0 {
			break
		}
		if s.backfills(v, j) && s.start(v, p, j) {
			done = append(done, j)
			if s.mode == "first" {
				break
			}
		}
	}
	if len(done) > 0 {
		s.q = slices.DeleteFunc(s.q, func(j *engine.Job) bool { return j.State != engine.Queued })
	}
}
