package policy_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestPropertyClassicPendPlatformEvents: every point of the axes, mostly
// under consult=pyss (jobs a decision started wait in Classic.pend for
// processors still held in the engine), with node failures, repairs,
// removals and additions, nodes of several speeds and a model process that
// moves running jobs' ends and submits jobs: the run ends without error
// (a job started twice is an invalid plan; a platform event on a removed
// node is the generator's error, the same for every run), every job that
// fits the processors up at the end ends (but behind a head that does not,
// without backfilling), a second run decides the same, and the
// indexed queue (idx, bidx, capx, kt) decides as the sorted list.
func TestPropertyClassicPendPlatformEvents(t *testing.T) {
	withdrawn := 0
	defer func() { t.Logf("platform notices with pending jobs: %d", withdrawn) }()
	checkClassic = true
	defer func() { checkClassic = false }()
	rapid.Check(t, func(t *rapid.T) { checkPendCase(t, false, &withdrawn) })
}

// TestPropertyClassicPendWithdrawn is TestPropertyClassicPendPlatformEvents
// drawn so that platform changes often find jobs pending: consult=pyss,
// whole-second workloads and events, slow nodes (a job runs past its
// prediction, so the jobs started behind it wait) and predictions below
// the run time.
func TestPropertyClassicPendWithdrawn(t *testing.T) {
	withdrawn, cases := 0, 0
	checkClassic = true
	defer func() { checkClassic = false }()
	rapid.Check(t, func(t *rapid.T) {
		before := withdrawn
		checkPendCase(t, true, &withdrawn)
		if withdrawn > before {
			cases++
		}
	})
	t.Logf("cases with pending jobs at a platform change: %d", cases)
}

func checkPendCase(t *rapid.T, focus bool, withdrawn *int) {
	{
		s := genSpec(t)
		if focus || rapid.IntRange(0, 3).Draw(t, "settled") != 0 {
			s.Consult = "pyss"
		}
		if focus || rapid.Bool().Draw(t, "under-predict") {
			// Predictions below the run time (a history's, or half the
			// request) keep started jobs pending past their instant.
			u := s
			ests := []string{"epp", "last", "average", "alpha", "walltime-pct", "shrink"}
			if focus {
				ests = []string{"epp", "epp", "epp", "shrink", "request", "exact"}
			}
			u.Estimate = rapid.SampledFrom(ests).Draw(t, "under-estimate")
			if u.Check() == nil {
				s = u
			}
		}
		var p *model.Platform
		var jobs []model.Job
		if focus {
			p, jobs = genPendCase(t)
		} else if rapid.Bool().Draw(t, "corner") {
			p, jobs = genCorner(t)
		} else {
			p, jobs = genCase(t, estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates")))
		}
		speeds := []float64{1, 1, 0.5, 0.8, 1.5, 3}
		if focus {
			speeds = []float64{1, 0.5, 0.25}
		}
		if focus || rapid.Bool().Draw(t, "speeds") {
			for i := range p.Nodes {
				p.Nodes[i].Speed = rapid.SampledFrom(speeds).Draw(t, "speed")
			}
		}
		maxUser := 3
		if focus {
			maxUser = 1
		}
		jobs, extra, seed := drawUsersProcess(t, jobs, maxUser)
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		until := 60
		if !focus {
			until = rapid.SampledFrom([]int{60, 120}).Draw(t, "events-until")
		}
		evs := genEvents(t, 8, until, 0, 6)
		pol := policy.NewClassic(s, policy.FirstFit{})
		countPend = func(n engine.Notice) {
			if (n.Kind == engine.NoticeNodeDown || n.Kind == engine.NoticeNodeUp) && policy.PendLen(pol) > 0 {
				*withdrawn++
			}
		}
		var chk fataler = t
		if s.Backfill == "none" || s.Backfill == "lookahead" && s.Window > 0 {
			chk = nil // a queue head that no longer fits the processors up blocks every job behind it, as in fcfs (lookahead with a window looks at its first jobs only)
		}
		var rowErr string
		if s.Backfill == "probabilistic" {
			// Jobs leaving c.run at a platform change keep the rows
			// probabilistic backfilling carries from pass to pass exact.
			policy.VerifyProbRows(func(row, fresh []float64) {
				if rowErr == "" && fmt.Sprint(row) != fmt.Sprint(fresh) {
					rowErr = fmt.Sprintf("row %v, afresh %v", row, fresh)
				}
			})
		}
		a, ea := runClassicEvents(chk, p, jobs, extra, pol, o, evs, seed)
		policy.VerifyProbRows(nil)
		countPend = nil
		if rowErr != "" {
			t.Fatalf("%s: %s", s, rowErr)
		}
		if checkErr != nil {
			t.Fatalf("%s: %v", s, checkErr)
		}
		if errors.Is(ea, engine.ErrInvalidPlan) {
			t.Fatalf("%s: %v", s, ea)
		}
		b, _ := runClassicEvents(chk, p, jobs, extra, policy.NewClassic(s, policy.FirstFit{}), o, evs, seed)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s: not deterministic:\n%v\n%v", s, a, b)
		}
		l, el := runClassicEvents(chk, p, jobs, extra, policy.NewClassicListed(s, policy.FirstFit{}), o, evs, seed)
		if checkErr != nil {
			t.Fatalf("%s, listed: %v", s, checkErr)
		}
		if fmt.Sprint(ea) != fmt.Sprint(el) {
			t.Fatalf("%s: error %v, listed %v", s, ea, el)
		}
		for i := range a {
			if a[i] != l[i] {
				t.Fatalf("%s: job %s, listed %s", s, a[i], l[i])
			}
		}
	}
}

// checkClassic: runClassicEvents checks a Classic's state after every
// event (policy.ClassicCheck); the first disagreement of the last run is
// checkErr.
var (
	checkClassic bool
	checkErr     error
)

// countPend, if set, is handed every notice before the policy (runClassicEvents).
var countPend func(engine.Notice)

type noticeTap struct{}

func (noticeTap) Before(e *engine.Engine, n engine.Notice) {
	if countPend != nil {
		countPend(n)
	}
}

// genPendCase draws a small platform and a workload of whole seconds with
// many zero-length runs (EASY++ then predicts 0: a job started on
// processors free in the plan waits past its instant for a job running
// past its prediction).
func genPendCase(t *rapid.T) (*model.Platform, []model.Job) {
	p := &model.Platform{Name: "pend"}
	for i, n := 0, rapid.IntRange(1, 4).Draw(t, "nodes"); i < n; i++ {
		p.Nodes = append(p.Nodes, model.NodeSpec{PEs: rapid.IntRange(1, 3).Draw(t, "pes"), Speed: 1})
	}
	total := p.TotalPEs()
	jobs := make([]model.Job, rapid.IntRange(1, 30).Draw(t, "jobs"))
	for i := range jobs {
		run := float64(rapid.SampledFrom([]int{0, 0, 0, 1, 2, 5, 10, 20}).Draw(t, "run"))
		j := model.NewJob(int64(i+1), float64(rapid.IntRange(0, 40).Draw(t, "submit")), run, rapid.IntRange(1, total).Draw(t, "size"))
		j.Estimate = run + float64(rapid.IntRange(1, 10).Draw(t, "slack"))
		jobs[i] = j
	}
	return p, jobs
}

// TestPendingWithdrawnKeepsItsPlace: a job withdrawn from Classic.pend
// returns to the queue with its old enqueue count, so it stays ahead of
// a job of the same order key that arrived after it. Shortest-first,
// consult=pyss, EASY++: at 11 job 4 (predicted 0, runs 3) starts, then
// job 5, the whole machine, which waits for job 4's processor. Job 7
// (the same request as job 5) arrives at 12. A node is removed at 13:
// job 5 returns to the queue; job 6 starts at 13; jobs 5 and 7 wait for the
// node added at 100, where job 5 starts first (with a new enqueue count,
// job 7 would).
func TestPendingWithdrawnKeepsItsPlace(t *testing.T) {
	for _, spec := range []string{"easy:order=sjf,consult=pyss,estimate=epp", "classic:order=sjf,consult=pyss,estimate=epp,depth=2"} {
		job := userJob
		jobs := []model.Job{
			job(1, 0, 0, 0, 5, 1), job(2, 0, 0, 0, 5, 1), // user 0's history: two runs of 0 s
			job(3, 1, 1, 10, 10, 4), // the whole machine until 11
			job(4, 0, 2, 3, 4, 1),   // predicted 0, runs 3
			job(5, 2, 3, 5, 5, 4),
			job(6, 3, 12, 1, 1, 1),
			job(7, 4, 12, 5, 5, 4),
		}
		js := runNodeRemovedAt13(t, spec, jobs, false)
		got := fmt.Sprintf("job 4 [%v, %v], job 5 [%v, %v], job 6 [%v, %v], job 7 [%v, %v]", js[3].Start, js[3].End, js[4].Start, js[4].End, js[5].Start, js[5].End, js[6].Start, js[6].End)
		if want := "job 4 [11, 14], job 5 [100, 105], job 6 [13, 14], job 7 [105, 110]"; got != want {
			t.Errorf("%s: %s; want %s", spec, got, want)
		}
	}
}

// userJob is job id of user, submitted at submit, running run s on procs
// processors with request req.
func userJob(id int64, user int, submit, run, req float64, procs int) model.Job {
	j := model.NewJob(id, submit, run, procs)
	j.Own()
	j.Estimate, j.User = req, user
	return j
}

// runNodeRemovedAt13 runs jobs under spec on 4 processors, node 3 removed
// at 13 and a 1-processor node added at 100.
func runNodeRemovedAt13(t *testing.T, spec string, jobs []model.Job, requeue bool) []*engine.Job {
	s, err := policy.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(model.Uniform("u", 4, 1), jobs, policy.NewClassic(s, policy.FirstFit{}), engine.Options{})
	e.RemoveNode(13, 3, requeue)
	e.AddNode(100, model.NodeSpec{PEs: 1, Speed: 1})
	if err := e.Run(); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return e.Jobs()
}

// TestEasyExtraSpentByPendingStart: under consult=pyss a backfilled job
// that the plan starts on processors a job ending at this instant still
// holds (it waits in Classic.pend) takes EASY's extra processors as a
// start does (pyss starts it). Jobs 1 and 2 (2 processors each) run to
// 10 and 5; the head, job 3 (3 processors), is reserved at 10 with 1
// extra processor; jobs 4 and 5 (1 processor, past 10) wait from 4.
// Job 6 arrives at 5, before job 2's end is handled: the pass starts job 4
// in the extra processor, pending until job 2 ends, and job 5 may not
// start (it would delay the head to 25). The pass after job 2's end
// under the default consultation decides the same.
func TestEasyExtraSpentByPendingStart(t *testing.T) {
	job := func(id int64, submit, run float64, procs int) model.Job {
		j := model.NewJob(id, submit, run, procs)
		j.Estimate = run
		return j
	}
	jobs := []model.Job{job(1, 0, 10, 2), job(2, 0, 5, 2), job(3, 3, 10, 3), job(4, 4, 20, 1), job(5, 4, 20, 1), job(6, 5, 1, 4)}
	for _, spec := range []string{"easy:consult=pyss", "easy", "easy:consult=pyss,backfill=sjbf", "easy:consult=pyss,backfill=greedy"} {
		s, err := policy.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		e := engine.New(model.Uniform("u", 4, 1), jobs, policy.NewClassic(s, policy.FirstFit{}), engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var got []string
		for _, j := range e.Jobs()[2:] {
			got = append(got, fmt.Sprint(j.ID, "@", j.Start))
		}
		if want := "[3@10 4@5 5@20 6@40]"; fmt.Sprint(got) != want {
			t.Errorf("%s: %v, want %s", spec, got, want)
		}
	}
}
