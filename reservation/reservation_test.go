package reservation

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/rrg"
)

// TestInvariants (seed 000, §2–§3.1) on random workloads: no two jobs on
// a resource at once; every admitted reservation runs inside its window
// (et ≤ start, end ≤ lt) — none fails without resource failures; the
// total preemption cost equals Σ w·pt over the interrupted tasks. Then
// the same workload with one resource failing at a random time (§2.5,
// figure 2), DRRM under both re-planning rules (rrg.Replan) and SRRM:
// every reservation that fails, fails at the failure (a survivor of
// figure 2's rule is always bound when its window opens), no job runs on
// the failed resource after it, and the rest of the invariants hold.
func TestInvariants(t *testing.T) {
	admitted, preempting, refused, failed := 0, 0, 0, 0
	defer func() {
		// The cases must exercise admission, refusal, preemption and
		// failures.
		if admitted < 100 || preempting < 20 || refused < 20 || failed < 20 {
			t.Errorf("weak test: %d admitted, %d preempting, %d refused, %d failed by a resource failure", admitted, preempting, refused, failed)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		nres := rapid.IntRange(1, 8).Draw(rt, "resources")
		p := model.Uniform("r", nres, 1)
		for i := range p.Nodes {
			p.Nodes[i].Capability = rapid.IntRange(1, 5).Draw(rt, "level")
			p.Nodes[i].Cost = float64(rapid.IntRange(1, 3).Draw(rt, "w"))
		}
		params := gen.DefaultReservationParams()
		params.Lambda = float64(rapid.IntRange(1, 10).Draw(rt, "lambda"))
		params.Flexibility = float64(rapid.IntRange(0, 9).Draw(rt, "flex")) / 10
		params.Background = nres * rapid.IntRange(0, 6).Draw(rt, "tasks-per-resource")
		params.Resources = nres
		g, err := gen.NewReservations(params, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		jobs := gen.Take(g, params.Background+rapid.IntRange(1, 40).Draw(rt, "requests"))
		for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
			c := checkRun(rt, m, p, jobs)
			admitted += c[0]
			refused += c[1]
			preempting += c[2]
		}
		old := New(SRRMMinCost, 7)
		old.pred = PredictRunning
		checkPolicy(rt, old, p, jobs)
		slack := New(SRRMMinCost, 7)
		slack.pred, slack.atStart = PredictRunningSlack, true
		checkPolicy(rt, slack, p, jobs)
		back := New(DRRM, 7)
		back.requeueBack = true
		checkPolicy(rt, back, p, jobs)

		horizon := 0.0
		for _, j := range jobs {
			if !math.IsNaN(j.WindowEnd) {
				horizon = max(horizon, j.WindowEnd)
			}
		}
		f := &nodeFailure{node: rapid.IntRange(0, nres-1).Draw(rt, "failed node"), at: float64(rapid.IntRange(0, 100).Draw(rt, "failure at (% of horizon)")) / 100 * horizon}
		for _, c := range []struct {
			m      Mechanism
			replan rrg.Replan
		}{{DRRM, rrg.ReplanLiteral}, {DRRM, rrg.ReplanOwnDegree}, {SRRMRandom, 0}, {SRRMMinCost, 0}} {
			pol := New(c.m, 7)
			pol.replan = c.replan
			checkFailure(rt, pol, p, jobs, f)
			failed += pol.failedN
		}
	})
}

// nodeFailure is one resource failing for good at a time.
type nodeFailure struct {
	node int
	at   float64
}

// checkFailure runs pol with resource f.node failing at f.at and checks
// that no job runs on it afterwards, that every admitted reservation
// either completes inside its window on a capable resource or fails at
// the failure instant (never later: a reservation kept by figure 2's rule
// is bound when its window opens), that no two jobs share a resource and
// that every task completes.
func checkFailure(rt *rapid.T, pol *Policy, p *model.Platform, jobs []model.Job, f *nodeFailure) {
	m := pol.mech
	e := engine.New(p, jobs, pol, engine.Options{})
	e.FailNode(f.at, f.node, true)
	if err := e.Run(); err != nil {
		rt.Fatalf("%s: %v", m, err)
	}
	what := fmt.Sprintf("%s (replan %s), resource %d failing at %g", m, pol.replan, f.node, f.at)
	busy := busyLog{}
	for _, j := range e.Jobs() {
		if IsReservation(j) {
			r := pol.byJob[j.Index]
			if r == nil {
				continue
			}
			if j.State != engine.Completed {
				if !r.failed || r.failedAt != f.at {
					rt.Fatalf("%s: admitted reservation %d ended %s (failed %v at %g), not at the failure", what, j.ID, j.State, r.failed, r.failedAt)
				}
				continue
			}
			if j.Start < j.WindowStart-1e-9 || j.End > j.WindowEnd+1e-9 {
				rt.Fatalf("%s: reservation %d ran %g–%g outside its window %g–%g", what, j.ID, j.Start, j.End, j.WindowStart, j.WindowEnd)
			}
			if lv := p.Nodes[j.Alloc[0].First].Capability; lv < j.Level {
				rt.Fatalf("%s: reservation %d (level %d) ran on a node of level %d", what, j.ID, j.Level, lv)
			}
		} else if j.State != engine.Completed && len(p.Nodes) > 1 {
			// (With one resource, its failure leaves the tasks nowhere.)
			rt.Fatalf("%s: task %d ended %s", what, j.ID, j.State)
		}
		if !math.IsNaN(j.Start) && int(j.Alloc[0].First) == f.node && j.End > f.at && j.State == engine.Completed {
			rt.Fatalf("%s: job %d ran %g–%g on the failed resource", what, j.ID, j.Start, j.End)
		}
		busy.add(j)
	}
	busy.check(rt, what)
	if pol.bindFailed != 0 {
		rt.Fatalf("%s: %d reservations kept after the failure found no resource when their window opened", what, pol.bindFailed)
	}
	if x := pol.Extra(); pol.failedN > 0 && x["failed"] != float64(pol.failedN) || x["bind_failed"] != 0 {
		rt.Fatalf("%s: failed metric %g, %d failed, bind_failed %g", what, x["failed"], pol.failedN, x["bind_failed"])
	}
}

// TestInvariantsTrace: the same invariants on trace-derived workloads
// (seed 000 §3.1, OSC): random small traces on a few 4-CPU and 2-CPU
// nodes; besides, quad requests run on 4-CPU nodes only and dual
// requests on 2-CPU nodes only.
func TestInvariantsTrace(t *testing.T) {
	admitted, preempting, refused := 0, 0, 0
	defer func() {
		if admitted < 100 || preempting < 20 || refused < 20 {
			t.Errorf("weak test: %d admitted, %d preempting, %d refused", admitted, preempting, refused)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		tp := gen.TraceReservationParams{
			Fraction:    float64(rapid.IntRange(1, 10).Draw(rt, "fraction")) / 10,
			Lambda:      float64(rapid.IntRange(10, 600).Draw(rt, "lambda")),
			Flexibility: float64(rapid.IntRange(0, 9).Draw(rt, "flex")) / 10,
			QuadNodes:   rapid.IntRange(0, 4).Draw(rt, "quad"),
			DualNodes:   rapid.IntRange(1, 4).Draw(rt, "dual"),
		}
		var trace []model.Job
		at := 0.0
		for i := range rapid.IntRange(1, 60).Draw(rt, "jobs") {
			at += float64(rapid.IntRange(0, 300).Draw(rt, "gap"))
			trace = append(trace, model.NewJob(int64(i+1), at, float64(rapid.IntRange(1, 2000).Draw(rt, "t")), rapid.IntRange(1, 8).Draw(rt, "n")))
		}
		jobs, err := gen.FromTrace(trace, tp, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
		p := tp.Platform()
		for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
			c := checkRun(rt, m, p, jobs)
			admitted += c[0]
			refused += c[1]
			preempting += c[2]
		}
	})
}

// checkRun runs mechanism m and checks the invariants; it returns the
// admitted, refused and preempting counts.
func checkRun(rt *rapid.T, m Mechanism, p *model.Platform, jobs []model.Job) [3]int {
	return checkPolicy(rt, New(m, 7), p, jobs)
}

func checkPolicy(rt *rapid.T, pol *Policy, p *model.Platform, jobs []model.Job) [3]int {
	m := pol.mech
	e := engine.New(p, jobs, pol, engine.Options{})
	if err := e.Run(); err != nil {
		rt.Fatalf("%s: %v", m, err)
	}
	busy := busyLog{}
	lost := 0.0
	for _, j := range e.Jobs() {
		if IsReservation(j) {
			admitted := pol.byJob[j.Index] != nil
			if !admitted {
				if j.State != engine.Dropped {
					rt.Fatalf("%s: refused request %d ended %s", m, j.ID, j.State)
				}
				continue
			}
			if j.State != engine.Completed {
				rt.Fatalf("%s: admitted reservation %d ended %s (no resource failed)", m, j.ID, j.State)
			}
			if j.Start < j.WindowStart-1e-9 || j.End > j.WindowEnd+1e-9 {
				rt.Fatalf("%s: reservation %d ran %g–%g outside its window %g–%g", m, j.ID, j.Start, j.End, j.WindowStart, j.WindowEnd)
			}
			lv := p.Nodes[j.Alloc[0].First].Capability
			if exact := j.Queue == gen.TypeQuad || j.Queue == gen.TypeDual; lv < j.Level || (exact && lv != j.Level) {
				rt.Fatalf("%s: reservation %d (type %d, level %d) ran on a node of level %d", m, j.ID, j.Queue, j.Level, lv)
			}
		} else {
			lost += j.LostTime * p.Nodes[j.Alloc[0].First].Cost
			if j.State != engine.Completed {
				rt.Fatalf("%s: task %d ended %s", m, j.ID, j.State)
			}
		}
		busy.add(j)
	}
	busy.check(rt, m.String())
	ex := pol.Extra()
	if tpc := ex["tpc"]; math.Abs(tpc-lost) > 1e-6*max(1, lost) {
		rt.Fatalf("%s: TPC %g, Σ w·pt over interrupted tasks %g", m, tpc, lost)
	}
	return [3]int{int(ex["admitted"]), int(ex["requests"] - ex["admitted"]), pol.preempting}
}

// TestFailureReplanning (seed 000 §2.5, figure 2 and figure 13's point):
// two resources; a request admitted at 0 for the window [50, 70] is bound
// at once by SRRM (to resource 0 here, the least predicted cost: both idle,
// first wins) and fails when resource 0 fails at 20; DRRM has not bound it
// yet and re-plans it onto resource 1: η = 1 against 0.
func TestFailureReplanning(t *testing.T) {
	p := model.Uniform("r", 2, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability, p.Nodes[i].Cost = 1, 1
	}
	r := model.NewJob(1, 0, 10, 1)
	r.Own() // its own trace and model fields, set below
	r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = 1, 50, 70, 1, 10
	for _, c := range []struct {
		m   Mechanism
		eta float64
	}{{SRRMMinCost, 1}, {DRRM, 0}} {
		pol := New(c.m, 1)
		e := engine.New(p, []model.Job{r}, pol, engine.Options{})
		e.FailNode(20, 0, true)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		ex := pol.Extra()
		if ex["admitted"] != 1 || ex["eta"] != c.eta {
			t.Errorf("%s: %v, want η = %g", c.m, ex, c.eta)
		}
		j := e.Jobs()[0]
		if c.eta == 0 && (j.State != engine.Completed || j.Alloc.String() != "1" || j.Start != 50) {
			t.Errorf("%s: reservation %s on %q at %g, want completed on resource 1 at 50", c.m, j.State, j.Alloc, j.Start)
		}
	}
}

// TestPredictQueue (seed 000 §3.1: m_schedule binds a request to "将会导致
// 最小抢占代价的候选资源", the candidate that will cause the least
// preemption cost; the paper's [15] predicts a resource's availability
// from the running job's remaining time and its queue). Two resources,
// both busy from 0: resource 0 runs a 10 s task, then a 100 s one;
// resource 1 an 18 s task, then a 100 s one. A request made at 1 for
// the window [20, 25] (duration 5, no slack). Looking at the running
// tasks only, resource 0 is free at 20 (its task ends at 10) and resource
// 1 is not (cost 19 predicted): the plain predictor binds to resource 0,
// where the 100 s task started at 10 is preempted at 20 (cost 10). The
// whole queue shows that resource 0 will run that task (cost 10) and
// resource 1 a task started at 18 (cost 2): the queue-aware predictor
// binds to resource 1, cost 2.
func TestPredictQueue(t *testing.T) {
	p := model.Uniform("r", 2, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability, p.Nodes[i].Cost = 1, 1
	}
	task := func(id int64, site int, rt float64) model.Job {
		j := model.NewJob(id, 0, rt, 1)
		j.Own() // its own trace and model fields, set below
		j.Estimate, j.Queue, j.Site = rt, gen.TypeTask, site
		return j
	}
	r := model.NewJob(5, 1, 5, 1)
	r.Own() // its own trace and model fields, set below
	r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = gen.TypeReservation, 20, 25, 1, 5
	jobs := []model.Job{task(1, 0, 10), task(2, 1, 18), task(3, 0, 100), task(4, 1, 100), r}
	for _, c := range []struct {
		pred Predictor
		res  string
		tpc  float64
	}{{PredictQueue, "1", 2}, {PredictRunning, "0", 10}} {
		pol := New(SRRMMinCost, 1)
		pol.pred = c.pred
		e := engine.New(p, jobs, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		j := e.Jobs()[4]
		ex := pol.Extra()
		if j.State != engine.Completed || j.Alloc.String() != c.res || j.Start != 20 || ex["tpc"] != c.tpc || ex["pp"] != 1 {
			t.Errorf("predictor %d: reservation %s on %q at %g, %v; want resource %s at 20, TPC %g", c.pred, j.State, j.Alloc, j.Start, ex, c.res, c.tpc)
		}
		if ex["idle_start"] != 0 {
			t.Errorf("predictor %d: idle_start %g, want 0 (a task runs on both resources at 20)", c.pred, ex["idle_start"])
		}
	}
}

// TestIdleStart: a reservation on a resource whose queue is empty counts
// as an idle start (the set-up check of §3.1: a task should run whenever
// a reservation starts).
func TestIdleStart(t *testing.T) {
	p := model.Uniform("r", 1, 1)
	p.Nodes[0].Capability, p.Nodes[0].Cost = 1, 1
	tk := model.NewJob(1, 0, 10, 1)
	tk.Own() // its own trace and model fields, set below
	tk.Estimate, tk.Queue, tk.Site = 10, gen.TypeTask, 0
	mk := func(id int64, et float64) model.Job {
		r := model.NewJob(id, 0, 5, 1)
		r.Own() // its own trace and model fields, set below
		r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = gen.TypeReservation, et, et+5, 1, 5
		return r
	}
	for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
		pol := New(m, 1)
		e := engine.New(p, []model.Job{tk, mk(2, 5), mk(3, 30)}, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		// The first preempts the task (not idle); the second starts at 30
		// with the task done: idle. 1 of 2.
		if ex := pol.Extra(); ex["idle_start"] != 0.5 || ex["admitted"] != 2 {
			t.Errorf("%s: %v, want idle_start 0.5 of 2 admitted", m, ex)
		}
	}
}

// TestIdleStartCatchesShortBackground: the former experiment 2 set-up
// (600 background tasks on 10 resources, λ = 20, 200 requests: about
// 1,650–2,750 s of work per resource while requests arrive until about
// t = 4,000) lets reservations start on resources with no task left —
// idle_start sees it — and background_cover = 1.25 does not.
func TestIdleStartCatchesShortBackground(t *testing.T) {
	p := model.Uniform("r", 10, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability, p.Nodes[i].Cost = 1+i%5, 1
	}
	for _, c := range []struct {
		cover  float64
		lo, hi float64
	}{{0, 0.2, 1}, {1.25, 0, 0}} {
		params := gen.DefaultReservationParams()
		params.Lambda, params.Background, params.Resources, params.Requests, params.BackgroundCover = 20, 600, 10, 200, c.cover
		g, err := gen.NewReservations(params, 3)
		if err != nil {
			t.Fatal(err)
		}
		jobs := gen.Take(g, 1<<20)
		pol := New(DRRM, 1)
		if err := engine.New(p, jobs, pol, engine.Options{}).Run(); err != nil {
			t.Fatal(err)
		}
		if v := pol.Extra()["idle_start"]; v < c.lo || v > c.hi {
			t.Errorf("background_cover %g (%d jobs): idle_start %g, want in [%g, %g]", c.cover, len(jobs), v, c.lo, c.hi)
		}
	}
}

// TestNoZeroAgePreemptions: SRRM books reservations back to back (a
// booking's start is often the previous one's end, earliestGap). At that
// instant the end comes before the next booking's timer; the policy must
// not start a background task there that the booking would preempt 0 s
// later — that counted as a preemption (PP) although nothing was lost
// (found by the issue 15 review: up to 33% of admitted SRRM_m
// reservations). Experiment 1's set-up (§3.2), 5 and 10 resources.
func TestNoZeroAgePreemptions(t *testing.T) {
	for _, n := range []int{5, 10} {
		p := model.Uniform("r", n, 1)
		for i := range p.Nodes {
			p.Nodes[i].Capability, p.Nodes[i].Cost = 1+i%5, 1
		}
		for _, mech := range []Mechanism{SRRMRandom, SRRMMinCost, DRRM} {
			for seed := uint64(1); seed <= 3; seed++ {
				params := gen.DefaultReservationParams()
				params.Resources, params.Requests, params.BackgroundCover = n, 200, 1.25
				g, err := gen.NewReservations(params, seed)
				if err != nil {
					t.Fatal(err)
				}
				pol := New(mech, seed)
				if err := engine.New(p, gen.Take(g, 1<<20), pol, engine.Options{}).Run(); err != nil {
					t.Fatal(err)
				}
				x := pol.Extra()
				if x["pp_zero"] != 0 {
					t.Errorf("%d resources, %v, seed %d: %.3f of admitted reservations preempted a task that ran 0 s (pp %.3f)", n, mech, seed, x["pp_zero"], x["pp"])
				}
				if sum := x["pp"] + x["start_free"] + x["start_waited"] + x["idle_start"]; math.Abs(sum-1) > 1e-9 {
					t.Errorf("%d resources, %v, seed %d: the four start kinds sum to %g of the admitted, want 1 (%v)", n, mech, seed, sum, x)
				}
				if !(x["pp"] > 0) || !(x["admitted"] > 0) {
					t.Errorf("%d resources, %v, seed %d: no preemption at all (%v): the case tests nothing", n, mech, seed, x)
				}
			}
		}
	}
}

// TestFailureCountsRunningVictim (seed 000 §3.4, figure 13; found by the
// issue 15 review): a reservation running on a resource when it fails is
// pending at the failure. The engine fails the node's jobs before it
// tells the policy the node is down; pending_at_failure and
// pending_on_failed must still count it. One resource, a reservation in
// [0, 10] running from 0, the resource failing at 5.
func TestFailureCountsRunningVictim(t *testing.T) {
	p := model.Uniform("r", 1, 1)
	p.Nodes[0].Capability, p.Nodes[0].Cost = 1, 1
	r := model.NewJob(1, 0, 10, 1)
	r.Own() // its own trace and model fields, set below
	r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = 1, 0, 10, 1, 10
	for _, m := range []Mechanism{SRRMRandom, DRRM} {
		pol := New(m, 1)
		e := engine.New(p, []model.Job{r}, pol, engine.Options{})
		e.FailNode(5, 0, true)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		ex := pol.Extra()
		if ex["failed"] != 1 || ex["pending_at_failure"] != 1 || ex["pending_on_failed"] != 1 || ex["failure_time"] != 5 {
			t.Errorf("%s: %v, want 1 failed, 1 pending at the failure, on the failed resource, at 5", m, ex)
		}
	}
}

// TestStartClassification (seed 000 §3.1; the start metrics of
// docs/reservations.md): every admitted reservation that starts is
// counted once, as a preemption (pp), a wait for a task that ends within
// the slack (start_waited), a start on a resource another reservation kept
// free (start_free) or an idle start. One resource; tasks of 3 s and
// 100 s queued at 0; requests submitted at 0 for [2, 7], [7, 12], [13, 20]
// and [30, 35], each lasting 5 s. SRRM books them at 2, 7 (back to back:
// the earliest gap), 13 and 30: the first preempts the 3 s task (it would
// end at 3, after the slack), the second starts at 7 as the first ends
// (free), the third finds the restarted 3 s task ending at 15 = lt − dur
// and waits for it, the fourth preempts the 100 s task.
func TestStartClassification(t *testing.T) {
	p := resources(1)
	jobs := []model.Job{taskJob(1, 0, 3, 3), taskJob(2, 0, 100, 100), resvJob(3, 0, 2, 7, 5), resvJob(4, 0, 7, 12, 5), resvJob(5, 0, 13, 20, 5), resvJob(6, 0, 30, 35, 5)}
	for _, m := range []Mechanism{SRRMRandom, SRRMMinCost, DRRM} {
		pol := New(m, 1)
		e := engine.New(p, jobs, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		ex := pol.Extra()
		t.Logf("%s: %v", m, ex)
		starts := []float64{}
		for _, j := range e.Jobs()[2:] {
			starts = append(starts, j.Start)
		}
		if sum := ex["pp"] + ex["start_free"] + ex["start_waited"] + ex["idle_start"]; sum != 1 {
			t.Errorf("%s: the four start kinds sum to %g of the admitted reservations, want 1 (%v)", m, sum, ex)
		}
		if m == DRRM {
			continue
		}
		if ex["admitted"] != 4 || ex["pp"] != 0.5 || ex["start_free"] != 0.25 || ex["start_waited"] != 0.25 || ex["idle_start"] != 0 || ex["pp_zero"] != 0 {
			t.Errorf("%s: %v (starts %v), want 4 admitted: pp 0.5, start_free 0.25, start_waited 0.25, idle_start 0", m, ex, starts)
		}
		if want := []float64{2, 7, 15, 30}; fmt.Sprint(starts) != fmt.Sprint(want) {
			t.Errorf("%s: starts %v, want %v", m, starts, want)
		}
	}
}

// TestPredictQueueLength (seed 000 §3.1 m_schedule; [15]'s predictor
// from the running task's remaining time and the queue's length): on
// resource 0 a task of 12 s runs, then tasks of 3, 3, 3 and 100 s are
// queued; on resource 1 a 15 s task, then 100 s. A request for [20, 26]
// lasting 5 s. Knowing every runtime (srrm-m) sees the 3 s task started
// at 18 end at 21 = lt − dur on resource 0 (cost 0: the reservation
// waits for it); knowing only the queue's length, each queued task is
// the mean of the submitted tasks (236/7 ≈ 33.7 s), so resource 0's next
// task is predicted to run from 12 past 20 (cost 8) and resource 1 (cost
// 5) is chosen, where the 100 s task started at 15 is preempted.
func TestPredictQueueLength(t *testing.T) {
	p := resources(2)
	task := func(id int64, site int, rt float64) model.Job { return taskJob(id, site, rt, rt) }
	jobs := []model.Job{task(1, 0, 12), task(2, 1, 15), task(3, 0, 3), task(4, 0, 3), task(5, 0, 3), task(6, 0, 100), task(7, 1, 100), resvJob(8, 1, 20, 26, 5)}
	for _, c := range []struct {
		pred  Predictor
		res   string
		start float64
		tpc   float64
	}{{PredictQueue, "0", 21, 0}, {PredictQueueLength, "1", 20, 5}} {
		pol := New(SRRMMinCost, 1)
		pol.pred = c.pred
		e := engine.New(p, jobs, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		j := e.Jobs()[7]
		ex := pol.Extra()
		if j.State != engine.Completed || j.Alloc.String() != c.res || j.Start != c.start || ex["tpc"] != c.tpc {
			t.Errorf("predictor %d: reservation %s on %q at %g, %v; want resource %s at %g, TPC %g", c.pred, j.State, j.Alloc, j.Start, ex, c.res, c.start, c.tpc)
		}
	}
}

// TestSRRMWaitLeavesNoIdleGap (seed 000 §3.1; found for issue 15: SRRM_r's
// task_busy 0.86 on OSC at flexibility 0.9): an SRRM reservation may wait
// for the running task to end within its slack only if no other booking
// on the resource lies between now and its put-off end. One resource, a
// 100 s task; A booked at [10, 15) of its window [10, 200], B at [50, 55).
// When A opens at 10 the task would end at 100, but B's booking comes
// first and would preempt the task A waits for, and the resource would
// then idle from 55 to 100 with the task queued. A must preempt at 10
// instead; the task restarts at 15, is preempted by B at 50, restarts at
// 55 and ends at 155: no idle time while it is queued.
func TestSRRMWaitLeavesNoIdleGap(t *testing.T) {
	p := resources(1)
	tk := taskJob(1, 0, 100, 100)
	resv := func(id int64, submit, et, lt float64) model.Job { return resvJob(id, submit, et, lt, 5) }
	for _, m := range []Mechanism{SRRMRandom, SRRMMinCost} {
		pol := New(m, 1)
		e := engine.New(p, []model.Job{tk, resv(2, 0, 10, 200), resv(3, 1, 50, 55)}, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		js := e.Jobs()
		ex := pol.Extra()
		if js[1].Start != 10 || js[2].Start != 50 || js[0].Start != 55 || js[0].End != 155 || ex["tpc"] != 45 || ex["pp"] != 1 {
			t.Errorf("%s: A at %g, B at %g, the task's last run [%g, %g], %v; want A at 10, B at 50, the task [55, 155], TPC 10 + 35, PP 1",
				m, js[1].Start, js[2].Start, js[0].Start, js[0].End, ex)
		}
	}
}

// TestSRRMWaitHoldsTheResource (seed 000 §3.1; issue 15, the second half
// of the OSC idle gaps): once an SRRM reservation waits for the running
// task, it holds its resource until its put-off end, so a request made
// later cannot be booked in between. One resource, a 100 s task; A for
// [10, 200] (5 s) opens at 10 and waits for the task to end at 100; B,
// submitted at 20 for [50, 60] (5 s), finds no gap and is refused.
// Before, B was booked at 50, preempted the task A waited for, and the
// resource idled from 55 to 100.
func TestSRRMWaitHoldsTheResource(t *testing.T) {
	p := resources(1)
	tk := taskJob(1, 0, 100, 100)
	resv := func(id int64, submit, et, lt float64) model.Job { return resvJob(id, submit, et, lt, 5) }
	for _, m := range []Mechanism{SRRMRandom, SRRMMinCost} {
		pol := New(m, 1)
		e := engine.New(p, []model.Job{tk, resv(2, 0, 10, 200), resv(3, 20, 50, 60)}, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		js := e.Jobs()
		ex := pol.Extra()
		if js[1].Start != 100 || js[2].State != engine.Dropped || js[0].Start != 0 || js[0].End != 100 || ex["tpc"] != 0 || ex["admitted"] != 1 || ex["task_busy"] != 1 {
			t.Errorf("%s: A at %g, B %s, the task [%g, %g], %v; want A at 100 (it waited), B refused, the task [0, 100], TPC 0, task_busy 1",
				m, js[1].Start, js[2].State, js[0].Start, js[0].End, ex)
		}
	}
}

// TestSRRMWaitEndsWithTheTask (review 15b): a task that ends before its
// estimate ends the wait — the reservation starts then, not at the
// put-off start, so the resource does not idle with a task queued. One
// resource: a task running 60 s with an estimate of 100 s, a 50 s task
// queued, a reservation for [10, 200] lasting 5 s. It waits (the task is
// expected to end at 100, within the slack), starts at 60 when the task
// ends, and the queued task runs from 65.
func TestSRRMWaitEndsWithTheTask(t *testing.T) {
	p := resources(1)
	t1, t2, r := taskJob(1, 0, 60, 100), taskJob(2, 0, 50, 50), resvJob(3, 0, 10, 200, 5)
	for _, m := range []Mechanism{SRRMRandom, SRRMMinCost} {
		pol := New(m, 1)
		e := engine.New(p, []model.Job{t1, t2, r}, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		js := e.Jobs()
		if js[2].Start != 60 || js[1].Start != 65 || pol.Extra()["start_waited"] != 1 {
			t.Errorf("%s: reservation at %g, the queued task at %g (%v); want 60 and 65, a wait", m, js[2].Start, js[1].Start, pol.Extra())
		}
	}
}

// resources is n single-job resources of capability 1 and unit cost, for
// the hand-made cases.
func resources(n int) *model.Platform {
	p := model.Uniform("r", n, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability, p.Nodes[i].Cost = 1, 1
	}
	return p
}

// taskJob is a non-reserved task queued at 0 on resource site, running rt
// seconds with expected runtime est.
func taskJob(id int64, site int, rt, est float64) model.Job {
	j := model.NewJob(id, 0, rt, 1)
	j.Own() // its own trace and model fields, set below
	j.Estimate, j.Queue, j.Site = est, gen.TypeTask, site
	return j
}

// resvJob is a reservation request of level 1 submitted at submit for the
// window [et, lt], lasting dur.
func resvJob(id int64, submit, et, lt, dur float64) model.Job {
	r := model.NewJob(id, submit, dur, 1)
	r.Own() // its own trace and model fields, set below
	r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = gen.TypeReservation, et, lt, 1, dur
	return r
}

// TestRequeueReading (seed 000 §2: an interrupted task restarts "在合适的
// 时间", at a suitable time — the paper does not say where it goes in its
// queue). One resource; a 100 s task A, then a 10 s task B queued at 0; a
// reservation for [5, 10] lasting 5 (no slack) preempts A at 5. Restarted
// first in its queue (front), A runs 10–110 and B 110–120; sent to the
// back, B runs 10–20 and A 20–120. TPC is 5 either way.
func TestRequeueReading(t *testing.T) {
	jobs := []model.Job{taskJob(1, 0, 100, 100), taskJob(2, 0, 10, 10), resvJob(3, 0, 5, 10, 5)}
	for _, c := range []struct {
		back       bool
		aAt, bAt   float64
		aEnd, bEnd float64
	}{{false, 10, 110, 110, 120}, {true, 20, 10, 120, 20}} {
		for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
			pol := New(m, 1)
			pol.requeueBack = c.back
			js := runPolicy(t, pol, resources(1), jobs)
			if js[0].Start != c.aAt || js[0].End != c.aEnd || js[1].Start != c.bAt || js[1].End != c.bEnd || pol.Extra()["tpc"] != 5 {
				t.Errorf("%s, back %v: A %g–%g, B %g–%g, %v; want A %g–%g, B %g–%g, TPC 5", m, c.back, js[0].Start, js[0].End, js[1].Start, js[1].End, pol.Extra(), c.aAt, c.aEnd, c.bAt, c.bEnd)
			}
		}
	}
}

// TestPredictRunningSlack (seed 000 §3.1, m_schedule; the predictor that
// sees only the task running at admission, and the request's slack).
// Resource 0 (w = 2) runs a 14 s task, resource 1 (w = 1) a 30 s task,
// each followed by a 100 s task. A request made at 1 for [10, 20] lasting
// 5 (latest start 15), booked at its window start 10. Looking at the
// running tasks alone, resource 0 costs 2 · 10 and resource 1 costs 10:
// resource 1, where the 30 s task is preempted at 10 (TPC 10). Knowing the
// slack, resource 0's task ends at 14 ≤ 15 (cost 0): the reservation
// waits for it and starts at 14 on resource 0, preempting nothing.
func TestPredictRunningSlack(t *testing.T) {
	p := resources(2)
	p.Nodes[0].Cost = 2
	jobs := []model.Job{taskJob(1, 0, 14, 14), taskJob(2, 1, 30, 30), taskJob(3, 0, 100, 100), taskJob(4, 1, 100, 100), resvJob(5, 1, 10, 20, 5)}
	for _, c := range []struct {
		pred  Predictor
		res   string
		start float64
		tpc   float64
	}{{PredictRunning, "1", 10, 10}, {PredictRunningSlack, "0", 14, 0}} {
		pol := New(SRRMMinCost, 1)
		pol.pred, pol.atStart = c.pred, true
		j := runPolicy(t, pol, p, jobs)[4]
		if ex := pol.Extra(); j.State != engine.Completed || j.Alloc.String() != c.res || j.Start != c.start || ex["tpc"] != c.tpc {
			t.Errorf("predictor %s: reservation %s on %q at %g, %v; want resource %s at %g, TPC %g", c.pred, j.State, j.Alloc, j.Start, ex, c.res, c.start, c.tpc)
		}
	}
}

// TestPreemptionConcentration: the concentration metrics. Resource 0
// (4 CPUs) runs a 1,000 s task L, resource 1 (2 CPUs) a task S of
// expected runtime 500 s; twelve quad reservations (exactly a 4-CPU node)
// for [10i, 10i + 2], lasting 2 (no slack), preempt L twelve times (at
// 10 after 10 s, then each time after 8 s: cost 10 + 11 · 8 = 98); one
// dual reservation for [50, 52] preempts S once (cost 50). So 2 tasks
// preempted, 12 of 13 preemptions and 98 of 148 of the TPC on a task
// preempted at least 10 times, and a preempted task's expected runtime
// (12 · 1,000 + 500) / 13 on average.
func TestPreemptionConcentration(t *testing.T) {
	p := resources(2)
	p.Nodes[0].Capability, p.Nodes[1].Capability = 4, 2
	jobs := []model.Job{taskJob(1, 0, 1000, 1000), taskJob(2, 1, 500, 500)}
	typed := func(id int64, et float64, typ, level int) model.Job {
		j := resvJob(id, 0, et, et+2, 2)
		j.Queue, j.Level = typ, level
		return j
	}
	for i := 1; i <= 12; i++ {
		jobs = append(jobs, typed(int64(2+i), float64(10*i), gen.TypeQuad, 4))
	}
	jobs = append(jobs, typed(15, 50, gen.TypeDual, 2))
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
		pol := New(m, 1)
		runPolicy(t, pol, p, jobs)
		x := pol.Extra()
		want := map[string]float64{"tpc": 148, "preempted_tasks": 2, "preempt_heavy_share": 12.0 / 13, "tpc_heavy_share": 98.0 / 148, "victim_runtime": 12500.0 / 13}
		for k, v := range want {
			if math.Abs(x[k]-v) > 1e-9 {
				t.Errorf("%s: %s = %g, want %g (%v)", m, k, x[k], v, x)
			}
		}
	}
	// No preemption: the count only.
	pol := New(DRRM, 1)
	if err := engine.New(p, jobs[:2], pol, engine.Options{}).Run(); err != nil {
		t.Fatal(err)
	}
	if x := pol.Extra(); x["preempted_tasks"] != 0 || !math.IsNaN(nanIfAbsent(x, "preempt_heavy_share")) {
		t.Errorf("no preemption: %v", x)
	}
}

func nanIfAbsent(m map[string]float64, k string) float64 {
	if v, ok := m[k]; ok {
		return v
	}
	return math.NaN()
}

// TestReplanReading (seed 000 §2.5, figure 2, through the policy): two
// resources, requests submitted at 0 for A [10, 16], B [12, 17] and
// C [17, 22], each lasting 3; resource 0 fails at 1. With inequality (1)
// read literally DRRM drops A (β(A) = {B} has no free resource) and then
// B: η = 2/3; checking each reservation's own free degree drops B only:
// η = 1/3, and A and C run on resource 1.
func TestReplanReading(t *testing.T) {
	jobs := []model.Job{resvJob(1, 0, 10, 16, 3), resvJob(2, 0, 12, 17, 3), resvJob(3, 0, 17, 22, 3)}
	for _, c := range []struct {
		rule rrg.Replan
		eta  float64
		ran  string
	}{{rrg.ReplanLiteral, 2.0 / 3, "C"}, {rrg.ReplanOwnDegree, 1.0 / 3, "AC"}} {
		pol := New(DRRM, 1)
		pol.replan = c.rule
		e := engine.New(resources(2), jobs, pol, engine.Options{})
		e.FailNode(1, 0, true)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		ran := ""
		for i, j := range e.Jobs() {
			if j.State == engine.Completed && j.Alloc.String() == "1" {
				ran += string(rune('A' + i))
			}
		}
		if x := pol.Extra(); math.Abs(x["eta"]-c.eta) > 1e-12 || ran != c.ran {
			t.Errorf("%s: η %g, ran %q on resource 1; want η %g, %q", c.rule, x["eta"], ran, c.eta, c.ran)
		}
	}
}

// TestPredictQueueRequeue: the queue-aware predictor lays a task cut by a
// bound reservation where the requeue reading puts it. Resource 0 (level
// 2) runs task A (10 s), then B (0.5 s); X (level 2, only resource 0) is
// booked for [5, 7] and cuts A at 5. Resource 1 (level 1) runs C1
// (7.25 s), then C2 (100 s). Y (level 1), made at 1 for [8, 9] lasting 1
// (no slack). Restarted first, A runs again from 7: Y on resource 0
// would cost 1, on resource 1 (C2 from 7.25) 0.75 — resource 1. Sent to
// the back, B runs 7–7.5 and A restarts at 7.5: 0.5 on resource 0 —
// resource 0. TPC: X's 5 plus Y's.
func TestPredictQueueRequeue(t *testing.T) {
	p := resources(2)
	p.Nodes[0].Capability = 2
	x := resvJob(5, 0, 5, 7, 2)
	x.Level = 2
	jobs := []model.Job{taskJob(1, 0, 10, 10), taskJob(2, 1, 7.25, 7.25), taskJob(3, 0, 0.5, 0.5), taskJob(4, 1, 100, 100), x, resvJob(6, 1, 8, 9, 1)}
	for _, c := range []struct {
		back bool
		res  string
		tpc  float64
	}{{false, "1", 5.75}, {true, "0", 5.5}} {
		pol := New(SRRMMinCost, 1)
		pol.requeueBack = c.back
		y := runPolicy(t, pol, p, jobs)[5]
		if ex := pol.Extra(); y.State != engine.Completed || y.Alloc.String() != c.res || y.Start != 8 || ex["tpc"] != c.tpc {
			t.Errorf("back %v: Y %s on %q at %g, %v; want resource %s at 8, TPC %g", c.back, y.State, y.Alloc, y.Start, ex, c.res, c.tpc)
		}
	}
}

// runPolicy runs pol on jobs and platform p and returns the engine's jobs.
func runPolicy(t *testing.T, pol *Policy, p *model.Platform, jobs []model.Job) []*engine.Job {
	t.Helper()
	e := engine.New(p, jobs, pol, engine.Options{})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e.Jobs()
}

// busyLog holds every run of a job, [start, end), on each resource.
type busyLog map[int][][2]float64

func (b busyLog) add(j *engine.Job) {
	if !math.IsNaN(j.Start) {
		r := int(j.Alloc[0].First)
		b[r] = append(b[r], [2]float64{j.Start, j.End})
	}
}

// check fails if a resource runs two jobs at once.
func (b busyLog) check(rt *rapid.T, what string) {
	for r, ivs := range b {
		sort.Slice(ivs, func(i, k int) bool { return ivs[i][0] < ivs[k][0] })
		for k := 1; k < len(ivs); k++ {
			if ivs[k][0] < ivs[k-1][1]-1e-9 && ivs[k-1][1] > ivs[k-1][0] {
				rt.Fatalf("%s: resource %d runs two jobs at once: %v and %v", what, r, ivs[k-1], ivs[k])
			}
		}
	}
}
