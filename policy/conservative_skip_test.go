package policy_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
)

// genOverloaded draws a platform and a workload whose arrivals outrun the
// platform, so the queue grows and compression has many jobs to move:
// estimates are the runtime times 1 to 5 (as users over-estimate), with
// some exact ones and, when short is set, some shorter than the runtime.
func genOverloaded(t *rapid.T, short bool) (*model.Platform, []model.Job) {
	var p *model.Platform
	if rapid.Bool().Draw(t, "multi-pe") {
		p = &model.Platform{Name: "mixed"}
		for i, n := 0, rapid.IntRange(1, 8).Draw(t, "nodes"); i < n; i++ {
			p.Nodes = append(p.Nodes, model.NodeSpec{PEs: rapid.IntRange(1, 4).Draw(t, "pes"), Speed: 1})
		}
	} else {
		p = model.Uniform("u", rapid.IntRange(1, 32).Draw(t, "procs"), 1)
	}
	total := p.TotalPEs()
	n := rapid.IntRange(1, 150).Draw(t, "jobs")
	gap := rapid.IntRange(0, 10).Draw(t, "gap") // mean inter-arrival ≈ gap/2
	jobs := make([]model.Job, n)
	submit := 0
	for i := range jobs {
		submit += rapid.IntRange(0, gap).Draw(t, "dt")
		run := float64(rapid.IntRange(0, 50).Draw(t, "run"))
		j := model.NewJob(int64(i+1), float64(submit), run, rapid.IntRange(1, total).Draw(t, "size"))
		switch k := rapid.IntRange(0, 9).Draw(t, "est-kind"); {
		case k == 0:
			j.Estimate = run
			if run == 0 {
				j.Estimate = -1
			}
		case k == 1 && short:
			j.Estimate = float64(rapid.IntRange(1, 50).Draw(t, "est"))
		default:
			j.Estimate = max(1, run*float64(rapid.IntRange(10, 50).Draw(t, "factor10"))/10)
		}
		jobs[i] = j
	}
	return p, jobs
}

// runConservative runs one policy with failures and repairs drawn by the
// caller and records every reservation made or moved, in order.
func runConservative(t *rapid.T, p *model.Platform, jobs []model.Job, pol engine.Policy, o engine.Overrun, fails [][3]int) (*engine.Engine, []string) {
	var log []string
	rec := func(j *engine.Job, s float64) { log = append(log, fmt.Sprintf("%d@%g", j.ID, s)) }
	switch c := pol.(type) {
	case *policy.Conservative:
		c.OnReserve = rec
	default:
		policy.SetRefOnReserve(pol, rec)
	}
	e, err := policytest.Run(p, jobs, pol, o, func(e *engine.Engine) {
		for _, f := range fails {
			node := f[0] % len(p.Nodes)
			e.FailNode(float64(f[1]), node, f[2]%2 == 0)
			e.RepairNode(float64(f[1]+1+f[2]), node)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return e, log
}

// TestPropertyConservativeSkipEqualsAsking: compression that skips the
// jobs that cannot move (issue 19) makes exactly the reservations of
// compression that asks every queued job (the previous Conservative,
// kept as an oracle): the same reservations in the same order, the same
// start times and processors, on overloaded random workloads with
// over-estimates, with and without node failures, requeues and overruns
// (which rebuild the schedule).
func TestPropertyConservativeSkipEqualsAsking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		short := rapid.Bool().Draw(t, "short-estimates")
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		p, jobs := genOverloaded(t, short)
		var fails [][3]int
		if rapid.IntRange(0, 3).Draw(t, "with-failures") == 0 {
			for i, n := 0, rapid.IntRange(1, 3).Draw(t, "failures"); i < n; i++ {
				fails = append(fails, [3]int{rapid.IntRange(0, 100).Draw(t, "node"), rapid.IntRange(0, 300).Draw(t, "at"), rapid.IntRange(0, 50).Draw(t, "down")})
			}
		}
		a, la := runConservative(t, p, jobs, policy.NewConservative(policy.FirstFit{}), o, fails)
		b, lb := runConservative(t, p, jobs, policy.NewRefConservative(policy.FirstFit{}), o, fails)
		for i := range min(len(la), len(lb)) {
			if la[i] != lb[i] {
				t.Fatalf("reservation %d: skipping %s, asking every job %s", i, la[i], lb[i])
			}
		}
		if len(la) != len(lb) {
			t.Fatalf("skipping made %d reservations, asking every job %d", len(la), len(lb))
		}
		for i, j := range a.Jobs() {
			k := b.Jobs()[i]
			if j.Start != k.Start || j.End != k.End || j.Alloc.String() != k.Alloc.String() {
				t.Fatalf("job %d: skipping starts at %g on %s, asking every job at %g on %s", j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
			}
		}
	})
}
