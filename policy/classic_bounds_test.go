package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// genAllSpec draws a depth=all point of the axes: compression on or
// off, every estimate source depth=all accepts, one history or one per
// user, either consultation.
func genAllSpec(t *rapid.T) policy.Spec {
	s, _ := policy.ParseSpec("conservative")
	s.Compress = rapid.Bool().Draw(t, "compress")
	var ests []string
	for _, e := range policy.Estimates {
		if e != "head-double" && e != "tail-double" {
			ests = append(ests, e)
		}
	}
	s.Estimate = rapid.SampledFrom(ests).Draw(t, "estimate")
	s.Common = rapid.Bool().Draw(t, "common")
	s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
	s.Window = rapid.IntRange(0, 4).Draw(t, "window")
	s.Factor = float64(rapid.IntRange(1, 3).Draw(t, "factor"))
	if err := s.Check(); err != nil {
		t.Fatalf("genAllSpec drew %s: %v", s, err)
	}
	return s
}

// runClassicEvents runs pol on jobs with platform events and, when seed
// is not 0, a model process that moves running jobs' ends and submits
// extra jobs; it returns one line per job and the run's error. A run
// without error must end every job that fits the processors up at its
// end (a requeued job that never re-entered the queue would wait for
// ever on both sides of a comparison); t nil skips that check.
//
// Under consult=pyss this check found jobs a decision had started but the
// engine could not place yet (Classic.pend) waiting for ever after a
// platform change left too few processors for the first of them; they now
// return to the queue (Classic.withdrawPending, TestPendingWithdrawnOnPlatformChange).
func runClassicEvents(t fataler, p *model.Platform, jobs, extra []model.Job, pol engine.Policy, o engine.Overrun, evs []platformEvent, seed uint64) ([]string, error) {
	e := engine.New(p, jobs, pol, engine.Options{Overrun: o})
	applyEvents(e, p, evs)
	e.AddHook(noticeTap{})
	var chk *policy.ClassicCheck
	if c, ok := pol.(*policy.Classic); ok && checkClassic {
		chk = &policy.ClassicCheck{C: c, E: e}
		e.Observe(chk)
	}
	if seed != 0 {
		e.AddHook(&stretcher{r: rand.New(rand.NewPCG(seed, 1)), submit: extra})
	}
	err := e.Run()
	if chk != nil {
		checkErr = chk.Err
	}
	var out []string
	up := e.View().AvailPEs()
	for _, j := range e.Jobs() {
		if t != nil && err == nil && !j.State.Terminal() && j.Procs <= up {
			t.Fatalf("job %d (%d processors of %d up) never ended (state %v, start %v)", j.ID, j.Procs, up, j.State, j.Start)
		}
		out = append(out, fmt.Sprint(j.ID, j.Start, j.End, j.State, j.Alloc))
	}
	return out, err
}

type fataler interface{ Fatalf(string, ...interface{}) }

// drawUsersProcess gives jobs owners 0 to maxUser and, half the time,
// keeps half of them for a model process that moves running jobs' ends
// and submits them (runClassicEvents's extra and seed).
func drawUsersProcess(t *rapid.T, jobs []model.Job, maxUser int) (own, extra []model.Job, seed uint64) {
	for i := range jobs {
		jobs[i].Own()
		jobs[i].User = rapid.IntRange(0, maxUser).Draw(t, "user")
	}
	if rapid.Bool().Draw(t, "process") {
		extra, jobs = jobs[len(jobs)/2:], jobs[:len(jobs)/2]
		seed = rapid.Uint64Range(1, 1<<62).Draw(t, "seed")
	}
	return jobs, extra, seed
}

// TestPropertyClassicBoundsEqualPlain: depth=all's bounds on the earliest
// fit (allState: a plain search below the end of the generation's rises,
// the class corners' bounds from there on) answer every placement as the
// plain search from now does, and the schedules equal those of plain
// searches, on the corner-case workloads of the conservative attack
// tests, with node failures, repairs, removals and additions (the
// processors up change: a new generation), requeues, kills and
// extensions, nodes of several speeds, and a model process that moves
// running jobs' ends and submits jobs at other events' instants.
func TestPropertyClassicBoundsEqualPlain(t *testing.T) {
	var bad []string
	policy.VerifyClassicFit(func(now, dur float64, procs int, bounded, plain float64) {
		if bounded != plain && len(bad) < 3 {
			bad = append(bad, fmt.Sprintf("at %v, %d processors for %v: %v, plain search %v", now, procs, dur, bounded, plain))
		}
	})
	defer policy.VerifyClassicFit(nil)
	placed := 0
	rapid.Check(t, func(t *rapid.T) {
		bad = bad[:0]
		s := genAllSpec(t)
		p, jobs := genCorner(t)
		if rapid.Bool().Draw(t, "speeds") {
			for i := range p.Nodes {
				p.Nodes[i].Speed = rapid.SampledFrom([]float64{1, 1, 0.5, 0.8, 1.5, 3}).Draw(t, "speed")
			}
		}
		jobs, extra, seed := drawUsersProcess(t, jobs, 3)
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		var evs []platformEvent
		if rapid.IntRange(0, 2).Draw(t, "with-events") == 0 {
			evs = genEvents(t, 4, 300, 0, 8)
		}
		a, ea := runClassicEvents(t, p, jobs, extra, policy.NewClassic(s, policy.FirstFit{}), o, evs, seed)
		if len(bad) > 0 {
			t.Fatalf("%s: %v", s, bad)
		}
		placed += len(a)
		b, eb := runClassicEvents(t, p, jobs, extra, policy.NewClassicPlain(s, policy.FirstFit{}), o, evs, seed)
		if fmt.Sprint(ea) != fmt.Sprint(eb) {
			t.Fatalf("%s: error %v, plain %v", s, ea, eb)
		}
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s: job %s, plain %s", s, a[i], b[i])
			}
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d jobs, plain %d", s, len(a), len(b))
		}
	})
	if placed == 0 {
		t.Fatal("no job ran")
	}
}

// TestClassicBoundsNonFiniteRefused: an estimate of +Inf (possible through
// the Go API; the workload readers reject it) made walltime-pct predict NaN,
// whose slot corrupted the profile (a placement differed from the plain
// search: found by the independent review of the bounds). The engine now
// refuses a job with a non-finite submit time, runtime or estimate before
// any policy sees it.
func TestClassicBoundsNonFiniteRefused(t *testing.T) {
	for _, bad := range []struct {
		field string
		v     float64
	}{{"estimate", math.Inf(1)}, {"estimate", math.NaN()}, {"runtime", math.Inf(1)}, {"submit", math.NaN()}, {"runtime", math.Inf(-1)}} {
		// id, submit, run, estimate, processors on 3 processors.
		spec := [][5]float64{{1, 1, 0, 2, 1}, {2, 3, 2, 0, 2}, {3, 4, 3, 5, 2}, {4, 4, 2, 2, 2}, {5, 4, 3, 5, 2}}
		var jobs []model.Job
		for _, x := range spec {
			j := model.NewJob(int64(x[0]), x[1], x[2], int(x[4]))
			j.Estimate = x[3]
			jobs = append(jobs, j)
		}
		switch bad.field {
		case "estimate":
			jobs[3].Estimate = bad.v
		case "runtime":
			jobs[3].Runtime = bad.v
		default:
			jobs[3].Submit = bad.v
		}
		s, _ := policy.ParseSpec("conservative-no-compress")
		s.Estimate = "walltime-pct"
		placed := 0
		policy.VerifyClassicFit(func(now, dur float64, procs int, bounded, plain float64) { placed++ })
		e := engine.New(model.Uniform("u", 3, 1), jobs, policy.NewClassic(s, policy.FirstFit{}), engine.Options{})
		err := e.Run()
		policy.VerifyClassicFit(nil)
		if err == nil || !strings.Contains(err.Error(), "ID 4") || !strings.Contains(err.Error(), "finite") || placed != 0 {
			t.Fatalf("%s %v: error %v after %d placements; want job 4's non-finite time refused before any", bad.field, bad.v, err, placed)
		}
	}
}

// TestPropertyClassicEqualsDedicatedEvents is TestPropertyClassicEqualsDedicated
// with node failures, repairs, removals and additions, with and without
// requeues: the catalogue's easy and conservative decide as the dedicated
// policies. It found that a requeued job kept the extensions its lost run
// had under OverrunExtend (the dedicated policies planned its next run
// with them, the catalogue with its request); the engine now gives a
// requeued job its request back (TestRequeueResetsEstimate).
//
// Compared: every job's start, end, state and processors. This check also
// found the catalogue's EASY spending its extra processors on a backfill
// start the engine refused (TestEasyExtraKeptOnRefusedStart).
func TestPropertyClassicEqualsDedicatedEvents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"easy", "conservative"}).Draw(t, "policy")
		p, jobs := genCase(t, estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates")))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		evs := genEvents(t, 3, 100, 1, 4)
		s, _ := policy.ParseSpec(name)
		ded, _ := policy.New(name, nil)
		a, ea := runClassicEvents(t, p, jobs, nil, ded, o, evs, 0)
		b, eb := runClassicEvents(t, p, jobs, nil, policy.NewClassic(s, policy.FirstFit{}), o, evs, 0)
		if fmt.Sprint(ea) != fmt.Sprint(eb) {
			t.Fatalf("%s: error %v, catalogue %v", name, ea, eb)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: job %s, catalogue's point %s", name, a[i], b[i])
			}
		}
	})
}

// estAtRequeue records a job's estimate when the engine requeues it.
type estAtRequeue struct{ est []float64 }

func (h *estAtRequeue) Before(e *engine.Engine, n engine.Notice) {
	if n.Kind == engine.NoticeRequeued {
		h.est = append(h.est, n.Job.Est)
	}
}

// TestRequeueResetsEstimate: under OverrunExtend a job that outlives its
// request (3 s) is extended by another request at 3 and 6; its node fails
// at 7 and the job is requeued with its request (3), not the 9 its lost
// run had reached; repaired at 8 it runs again from scratch, is extended
// at 11, 14 and 17, and ends at 18.
func TestRequeueResetsEstimate(t *testing.T) {
	j := model.NewJob(1, 0, 10, 1)
	j.Estimate = 3
	e := engine.New(model.Uniform("u", 1, 1), []model.Job{j}, policy.NewFCFS(policy.FirstFit{}), engine.Options{Overrun: engine.OverrunExtend})
	h := &estAtRequeue{}
	e.AddHook(h)
	e.FailNode(7, 0, true)
	e.RepairNode(8, 0)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	got := e.Jobs()[0]
	if fmt.Sprint(h.est) != "[3]" || got.Start != 8 || got.End != 18 || got.State != engine.Completed || got.Est != 12 {
		t.Fatalf("estimate at requeue %v; start %v, end %v, %v, estimate %v; want [3], 8, 18, completed, 12", h.est, got.Start, got.End, got.State, got.Est)
	}
}

// TestTinyRequestExtends: under OverrunExtend a request far below a second
// (1e-9 s, or one below the clock's spacing) used to extend a 100-s job
// once per request, 10^11 times, until the simulator ran out of memory
// (found by review); an extension now adds at least MinEstimate (1 s), so
// the job ends at its runtime after at most 100 extensions. A job a hook
// submits with a time that is not finite fails the run, as in engine.New.
func TestTinyRequestExtends(t *testing.T) {
	for _, req := range []float64{1e-9, 1e-300, 0.5} {
		j := model.NewJob(1, 1e9, 100, 1) // a late clock: 1e-9 is below its spacing
		j.Estimate = req
		e := engine.New(model.Uniform("u", 4, 1), []model.Job{j}, policy.NewFCFS(policy.FirstFit{}), engine.Options{Overrun: engine.OverrunExtend})
		ext := &countExtended{}
		e.AddHook(ext)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		got := e.Jobs()[0]
		if got.State != engine.Completed || got.End != 1e9+100 || ext.n > 100 || ext.n < 99 {
			t.Fatalf("request %v: %v at %v after %d extensions; want completed at 1e9+100 after 99-100", req, got.State, got.End, ext.n)
		}
	}
	late := &submitAt{at: math.NaN()}
	j := model.NewJob(1, 0, 10, 1)
	e := engine.New(model.Uniform("u", 4, 1), []model.Job{j}, policy.NewFCFS(policy.FirstFit{}), engine.Options{})
	e.AddHook(late)
	if err := e.Run(); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Fatalf("a hook submitting at NaN: error %v, want one about finite times", err)
	}
}

type countExtended struct{ n int }

func (c *countExtended) Before(e *engine.Engine, n engine.Notice) {
	if n.Kind == engine.NoticeEstimateExtended {
		c.n++
	}
}

// submitAt submits one job at its first notice.
type submitAt struct {
	at   float64
	done bool
}

func (s *submitAt) Before(e *engine.Engine, n engine.Notice) {
	if !s.done {
		s.done = true
		e.Submit(s.at, model.NewJob(99, 0, 1, 1))
	}
}

// TestPendingWithdrawnOnPlatformChange: under consult=pyss a job a pass
// starts on processors that are free in the plan but still held in the
// engine waits for them, and every later start queues behind it. With
// EASY++'s prediction (the floor of the mean of the user's last two runs:
// 0 for job 4) the pass at 11, when job 3 ends, starts job 4 (which runs
// 5 s in an empty slot) and then job 5, the whole machine, which has to
// wait for job 4's processor past the instant; job 6 (1 processor) arrives
// at 12 and waits behind it. A node is removed at 13: job 5 can never
// start on the 3 processors left, until a node is added at 100. Job 5
// used to stay pending, and job 6 with it, until then (for ever without
// the added node: found by TestPropertyClassicBoundsEqualPlain's check that
// every job that fits ends); the platform change now returns both to the
// queue and the pass that follows starts job 6 at 13.
func TestPendingWithdrawnOnPlatformChange(t *testing.T) {
	for _, spec := range []string{"conservative:consult=pyss,estimate=epp", "conservative:consult=pyss,estimate=epp,compress=no", "easy:consult=pyss,estimate=epp"} {
		job := userJob
		jobs := []model.Job{
			job(1, 0, 0, 0, 5, 1), job(2, 0, 0, 0, 5, 1), // user 0's history: two runs of 0 s
			job(3, 1, 1, 10, 10, 4), // the whole machine until 11
			job(4, 0, 2, 5, 10, 1),  // predicted 0, runs 5
			job(5, 2, 3, 5, 5, 4),
			job(6, 3, 12, 1, 1, 1),
		}
		for _, requeue := range []bool{false, true} {
			js := runNodeRemovedAt13(t, spec, jobs, requeue)
			got := fmt.Sprintf("job 4 [%v, %v], job 5 [%v, %v], job 6 [%v, %v]", js[3].Start, js[3].End, js[4].Start, js[4].End, js[5].Start, js[5].End)
			if want := "job 4 [11, 16], job 5 [100, 105], job 6 [13, 14]"; got != want {
				t.Fatalf("%s, requeue %v: %s; want %s", spec, requeue, got, want)
			}
		}
	}
}

// TestEasyExtraKeptOnRefusedStart: EASY's extra processors are taken by a
// backfilled job only when it starts. Node 0 fails at 0; under
// OverrunExtend jobs 8 and 11 outlive their 1-s requests at 1, so the
// policy is consulted between the two extensions, while jobs 6 and 9, which
// end at 1, still hold their processors: the plan counts 3 processors free,
// the engine 1. Head 7 (4 processors) is reserved at 2 with 2 extra
// processors; job 10 (2 processors, ending after 2) passes EASY's test in
// the plan but the engine refuses it; job 12 (1 processor, 2-s request,
// zero-length) then fits in the extra processors and starts at 1, as in
// easy. The catalogue's EASY used to spend the extra processors on the
// refused job 10 and start job 12 at 2 (found by
// TestPropertyClassicEqualsDedicatedEvents; the same slip made the two pick
// different nodes for zero-length jobs on platforms with an added
// multi-processor node).
func TestEasyExtraKeptOnRefusedStart(t *testing.T) {
	p := &model.Platform{Name: "p"}
	for _, pes := range []int{1, 1, 1, 1, 3} {
		p.Nodes = append(p.Nodes, model.NodeSpec{PEs: pes, Speed: 1})
	}
	var jobs []model.Job
	add := func(procs int, run, est float64) {
		j := model.NewJob(int64(len(jobs)+1), 0, run, procs)
		j.Estimate = est
		jobs = append(jobs, j)
	}
	for range 5 {
		add(1, 0, 1)
	}
	add(1, 1, 1) // 6
	add(4, 1, 1) // 7
	add(1, 2, 1) // 8
	add(2, 1, 2) // 9
	add(2, 0, 2) // 10
	add(1, 2, 1) // 11
	add(1, 0, 2) // 12
	evs := []platformEvent{{kind: 0, node: 0, at: 0, down: 50, requeue: true}}
	for _, spec := range []string{"easy", "easy:backfill=sjbf", "easy:backfill=greedy"} {
		s, err := policy.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		ded, _ := policy.New("easy", nil)
		a, _ := runClassicEvents(t, p, jobs, nil, ded, engine.OverrunExtend, evs, 0)
		b, _ := runClassicEvents(t, p, jobs, nil, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunExtend, evs, 0)
		if got := b[11]; got != "12 1 1 completed 3" {
			t.Errorf("%s: job 12 %q, want it started and ended at 1 on node 3", spec, got)
		}
		if spec == "easy" && fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("easy %v\ncatalogue %v", a, b)
		}
	}
}
