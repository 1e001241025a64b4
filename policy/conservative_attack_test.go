package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// genCorner draws workloads aimed at the corner cases of conservative
// backfilling's shortcuts (issue 30): bursts of same-time arrivals, runs
// of zero, estimates exactly the runtime, unknown or zero estimates
// (MinEstimate), fractional times and durations (the corner durations of
// fitClass come from bit masking; t+dur rounds, and on a clock started
// late enough t+dur is t for the shortest), estimates below 1 (no
// class), wide platforms (processor classes above 8, whose corner is
// below the job), multi-processor nodes.
func genCorner(t *rapid.T) (*model.Platform, []model.Job) {
	var p *model.Platform
	switch rapid.IntRange(0, 2).Draw(t, "platform") {
	case 0:
		p = &model.Platform{Name: "mixed"}
		for i, n := 0, rapid.IntRange(1, 10).Draw(t, "nodes"); i < n; i++ {
			p.Nodes = append(p.Nodes, model.NodeSpec{PEs: rapid.IntRange(1, 16).Draw(t, "pes"), Speed: 1})
		}
	case 1:
		p = model.Uniform("u", rapid.IntRange(1, 40).Draw(t, "procs"), 1)
	default:
		p = model.Uniform("w", rapid.IntRange(16, 300).Draw(t, "wide"), 1)
	}
	total := p.TotalPEs()
	n := rapid.IntRange(1, 250).Draw(t, "jobs")
	gap := rapid.IntRange(0, 12).Draw(t, "gap")
	unit := rapid.SampledFrom([]float64{1, 0.5, 0.1, 1.0 / 3, 7.25}).Draw(t, "unit")
	jobs := make([]model.Job, n)
	// Late clocks: where a time's last bit is 0.5 or 1, t+dur rounds.
	submit := rapid.SampledFrom([]float64{0, 0, 0, 1e9 + 1.0/3, 1 << 52, 3e15}).Draw(t, "clock")
	for i := range jobs {
		if rapid.IntRange(0, 3).Draw(t, "burst") != 0 { // often the same instant
			submit += unit * float64(rapid.IntRange(0, gap).Draw(t, "dt"))
		}
		var run float64
		switch rapid.IntRange(0, 5).Draw(t, "run-kind") {
		case 0:
			run = 0
		case 1:
			run = unit * float64(rapid.IntRange(1, 8).Draw(t, "short-run"))
		case 2:
			run = float64(rapid.IntRange(1, 60).Draw(t, "run")) + rapid.SampledFrom([]float64{0, 0.5, 0.25, 0.1}).Draw(t, "frac")
		default:
			run = unit * float64(rapid.IntRange(0, 60).Draw(t, "run-units"))
		}
		procs := rapid.IntRange(1, total).Draw(t, "size")
		if rapid.IntRange(0, 3).Draw(t, "wide-job") == 0 {
			procs = max(1, total-rapid.IntRange(0, 3).Draw(t, "below-total"))
		}
		j := model.NewJob(int64(i+1), submit, run, procs)
		switch rapid.IntRange(0, 7).Draw(t, "est-kind") {
		case 0, 1, 2: // exact: ends at its estimate
			j.Estimate = run
			if run == 0 {
				j.Estimate = -1
			}
		case 3: // unknown: the runtime, or MinEstimate for a run of zero
			j.Estimate = -1
		case 4: // below the runtime (killed or extended)
			j.Estimate = max(0.5, run*rapid.Float64Range(0.2, 1).Draw(t, "under"))
		case 5: // below 1: no class
			j.Estimate = rapid.SampledFrom([]float64{0.25, 0.5, 0.75, 0.999}).Draw(t, "tiny")
		default: // over, fractional factor
			j.Estimate = max(1, run*rapid.Float64Range(1, 5).Draw(t, "over"))
		}
		jobs[i] = j
	}
	return p, jobs
}

// setOnReserve gives rec every reservation pol (Conservative or the
// oracle) makes or moves.
func setOnReserve(pol engine.Policy, rec func(j *engine.Job, start float64)) {
	if c, ok := pol.(*policy.Conservative); ok {
		c.OnReserve = rec
	} else {
		policy.SetRefOnReserve(pol, rec)
	}
}

// platformEvent is a node failure with repair, a removal, or an added node.
type platformEvent struct {
	kind, node int
	at, down   float64
	requeue    bool
	pes        int
}

func runCorner(p *model.Platform, jobs []model.Job, pol engine.Policy, o engine.Overrun, evs []platformEvent) (*engine.Engine, []string, error) {
	var log []string
	setOnReserve(pol, func(j *engine.Job, s float64) { log = append(log, fmt.Sprintf("%d@%v", j.ID, s)) })
	e := engine.New(p, jobs, pol, engine.Options{Overrun: o})
	applyEvents(e, p, evs)
	err := e.Run()
	return e, log, err
}

// applyEvents schedules evs on e (nodes taken modulo p's).
func applyEvents(e *engine.Engine, p *model.Platform, evs []platformEvent) {
	for _, ev := range evs {
		node := ev.node % len(p.Nodes)
		switch ev.kind {
		case 0:
			e.FailNode(ev.at, node, ev.requeue)
			e.RepairNode(ev.at+ev.down, node)
		case 1:
			e.RemoveNode(ev.at, node, ev.requeue)
			e.AddNode(ev.at+ev.down, model.NodeSpec{PEs: ev.pes, Speed: 1})
		default:
			e.AddNode(ev.at, model.NodeSpec{PEs: ev.pes, Speed: 1})
		}
	}
}

// genEvents draws 1 to n platform events at times up to maxAt, each
// lasting minDown to 50, an added node of up to maxPes processors.
func genEvents(t *rapid.T, n, maxAt, minDown, maxPes int) []platformEvent {
	var evs []platformEvent
	for i, k := 0, rapid.IntRange(1, n).Draw(t, "events"); i < k; i++ {
		evs = append(evs, platformEvent{
			kind:    rapid.IntRange(0, 2).Draw(t, "ev-kind"),
			node:    rapid.IntRange(0, 100).Draw(t, "node"),
			at:      float64(rapid.IntRange(0, maxAt).Draw(t, "at")),
			down:    float64(rapid.IntRange(minDown, 50).Draw(t, "down")),
			requeue: rapid.Bool().Draw(t, "requeue"),
			pes:     rapid.IntRange(1, maxPes).Draw(t, "add-pes"),
		})
	}
	return evs
}

// TestPropertyConservativeCornersEqualAsking: the shortcuts of issue 30
// (bounds per class, jumps over holes, compression cut at the rises'
// end, dominating failures, lazy queue removal) make the oracle's
// reservations, in the same order, and the same starts, on workloads
// built for their corner cases, with the tree profile switched on at tiny
// sizes in tiny chunks.
func TestPropertyConservativeCornersEqualAsking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, jobs := genCorner(t)
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		var evs []platformEvent
		if rapid.IntRange(0, 2).Draw(t, "with-events") == 0 {
			evs = genEvents(t, 4, 300, 0, 8)
		}
		cons := policy.NewConservative(policy.FirstFit{})
		if rapid.IntRange(0, 3).Draw(t, "tree") != 0 {
			above := rapid.IntRange(0, 10).Draw(t, "tree-above")
			policy.SetConservativeTree(cons, above, rapid.IntRange(0, above).Draw(t, "flat-below"), rapid.SampledFrom([]int{2, 3, 4, 5, 7, 8}).Draw(t, "chunk"))
		}
		a, la, ea := runCorner(p, jobs, cons, o, evs)
		b, lb, eb := runCorner(p, jobs, policy.NewRefConservative(policy.FirstFit{}), o, evs)
		if fmt.Sprint(ea) != fmt.Sprint(eb) {
			t.Fatalf("error %v, oracle %v", ea, eb)
		}
		for i := range min(len(la), len(lb)) {
			if la[i] != lb[i] {
				t.Fatalf("reservation %d: %s, oracle %s (of %d, %d)", i, la[i], lb[i], len(la), len(lb))
			}
		}
		if len(la) != len(lb) {
			t.Fatalf("%d reservations, oracle %d", len(la), len(lb))
		}
		for i, j := range a.Jobs() {
			k := b.Jobs()[i]
			if fmt.Sprint(j.Start, j.End, j.State, j.Alloc) != fmt.Sprint(k.Start, k.End, k.State, k.Alloc) {
				t.Fatalf("job %d: %v %v %v on %s, oracle %v %v %v on %s", j.ID, j.Start, j.End, j.State, j.Alloc, k.Start, k.End, k.State, k.Alloc)
			}
		}
	})
}

// stretcher is a model process (as seed 002's instability is): told of
// every notice, it moves the natural end of a running job (earlier, to
// now, or beyond its estimate), and submits a job at the current instant.
type stretcher struct {
	r      *rand.Rand
	submit []model.Job
}

func (s *stretcher) Before(e *engine.Engine, n engine.Notice) {
	run := e.View().Running()
	if len(run) > 0 && s.r.IntN(3) == 0 {
		j := run[s.r.IntN(len(run))]
		now := e.Now()
		var end float64
		switch s.r.IntN(4) {
		case 0:
			end = now
		case 1:
			end = now + (j.ExpectedEnd()-now)*s.r.Float64()
		case 2:
			end = j.ExpectedEnd()
		default:
			end = now + (j.NaturalEnd()-now)*(1+2*s.r.Float64())
		}
		if err := e.StretchTo(j, max(end, now)); err != nil {
			panic(err)
		}
	}
	if len(s.submit) > 0 && s.r.IntN(4) == 0 {
		e.Submit(e.Now(), s.submit[0])
		s.submit = s.submit[1:]
	}
}

// TestPropertyConservativeHooksEqualAsking is
// TestPropertyConservativeCornersEqualAsking with nodes of several speeds
// (runs end before or after their estimate by the node's speed) and a
// model process that moves running jobs' ends and submits jobs at the
// instant of another event.
func TestPropertyConservativeHooksEqualAsking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, jobs := genCorner(t)
		for i := range p.Nodes {
			p.Nodes[i].Speed = rapid.SampledFrom([]float64{1, 1, 0.5, 0.8, 1.5, 3}).Draw(t, "speed")
		}
		extra := jobs[len(jobs)/2:]
		jobs = jobs[:len(jobs)/2]
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		seed := rapid.Uint64().Draw(t, "seed")
		cons := policy.NewConservative(policy.FirstFit{})
		if rapid.IntRange(0, 3).Draw(t, "tree") != 0 {
			above := rapid.IntRange(0, 10).Draw(t, "tree-above")
			policy.SetConservativeTree(cons, above, rapid.IntRange(0, above).Draw(t, "flat-below"), rapid.SampledFrom([]int{2, 3, 4, 5, 7, 8}).Draw(t, "chunk"))
		}
		var out [2][]string
		var errs [2]error
		for k, pol := range []engine.Policy{cons, policy.NewRefConservative(policy.FirstFit{})} {
			setOnReserve(pol, func(j *engine.Job, s float64) { out[k] = append(out[k], fmt.Sprintf("%d@%v", j.ID, s)) })
			e := engine.New(p, jobs, pol, engine.Options{Overrun: o})
			e.AddHook(&stretcher{r: rand.New(rand.NewPCG(seed, 1)), submit: extra})
			errs[k] = e.Run()
			for _, j := range e.Jobs() {
				out[k] = append(out[k], fmt.Sprint(j.ID, j.Start, j.End, j.State, j.Alloc))
			}
		}
		if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
			t.Fatalf("error %v, oracle %v", errs[0], errs[1])
		}
		for i := range min(len(out[0]), len(out[1])) {
			if out[0][i] != out[1][i] {
				t.Fatalf("line %d: %s, oracle %s", i, out[0][i], out[1][i])
			}
		}
		if len(out[0]) != len(out[1]) {
			t.Fatalf("%d lines, oracle %d", len(out[0]), len(out[1]))
		}
	})
}

// TestConservativeLargeCornersEqualAsking is
// TestConservativeLargeEqualsAsking on other shapes: a wider platform
// (processor classes far above 8, so a corner is well below its jobs),
// durations of few distinct values (many jobs share a class and its
// bound) or fractional ones, bursts of same-time arrivals, exact, unknown
// and over-estimates mixed, kills and extensions, node failures and
// repairs; the tree from 30 points on in chunks of 4 to 16.
func TestConservativeLargeCornersEqualAsking(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of jobs under the oracle")
	}
	seeds := uint64(6)
	if n, err := strconv.ParseUint(os.Getenv("GRIDSCHED_CONSERVATIVE_SEEDS"), 10, 64); err == nil {
		seeds = n // a longer search, by hand
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		procs := []int{64, 256, 1000}[seed%3]
		p := model.Uniform("u", procs, 1)
		jobs := make([]model.Job, 2500)
		submit := 0.0
		for i := range jobs {
			if r.IntN(3) != 0 {
				submit += math.Floor(r.ExpFloat64() * 60)
			}
			var run float64
			switch seed % 2 {
			case 0:
				run = []float64{0, 1, 60, 600, 3600, 7}[r.IntN(6)]
			default:
				run = math.Round(math.Exp(r.NormFloat64()*1.5+5)*4) / 4
			}
			n := max(1, min(procs, int(math.Exp(r.Float64()*math.Log(float64(procs))))))
			j := model.NewJob(int64(i+1), submit, run, n)
			switch r.IntN(5) {
			case 0, 1:
				j.Estimate = run
			case 2:
				j.Estimate = -1
			case 3:
				j.Estimate = math.Ceil(run * (1 + 3*r.Float64()))
			default:
				j.Estimate = max(1, math.Floor(run*0.8))
			}
			jobs[i] = j
		}
		var logs [2][]string
		maxPoints := 0
		for k, pol := range []engine.Policy{policy.NewConservative(policy.FirstFit{}), policy.NewRefConservative(policy.FirstFit{})} {
			rec := func(j *engine.Job, s float64) { logs[k] = append(logs[k], fmt.Sprintf("%d@%v", j.ID, s)) }
			if c, ok := pol.(*policy.Conservative); ok {
				policy.SetConservativeTree(c, 30, 10, []int{4, 8, 16}[seed%3])
				c.OnReserve = func(j *engine.Job, s float64) {
					rec(j, s)
					maxPoints = max(maxPoints, policy.ConservativeProfileLen(c))
				}
			} else {
				policy.SetRefOnReserve(pol, rec)
			}
			e := engine.New(p, jobs, pol, engine.Options{Overrun: engine.Overrun(seed / 4 % 2)})
			if seed%3 == 1 {
				e.FailNode(20000, 3, seed%2 == 0)
				e.RepairNode(30000, 3)
			}
			if err := e.Run(); err != nil {
				t.Fatal(err)
			}
			for _, j := range e.Jobs() {
				logs[k] = append(logs[k], fmt.Sprint(j.ID, j.Start, j.End, j.State, j.Alloc))
			}
		}
		t.Logf("seed %d: %d points at most, %d reservations", seed, maxPoints, len(logs[0])-len(jobs))
		if maxPoints < 200 {
			t.Errorf("seed %d: the profile held at most %d points; the test wants dozens of chunks", seed, maxPoints)
		}
		for i := range min(len(logs[0]), len(logs[1])) {
			if logs[0][i] != logs[1][i] {
				t.Fatalf("seed %d: line %d: %s, the oracle %s", seed, i, logs[0][i], logs[1][i])
			}
		}
		if len(logs[0]) != len(logs[1]) {
			t.Fatalf("seed %d: %d lines, the oracle %d", seed, len(logs[0]), len(logs[1]))
		}
	}
}
