package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	setOnReserve(pol, func(j *engine.Job, s float64) { log = append(log, fmt.Sprintf("%d@%g", j.ID, s)) })
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
		cons := policy.NewConservative(policy.FirstFit{})
		if rapid.Bool().Draw(t, "tree") {
			policy.SetConservativeTree(cons, rapid.IntRange(0, 12).Draw(t, "tree-above"), 0, rapid.SampledFrom([]int{4, 7}).Draw(t, "chunk"))
		}
		a, la := runConservative(t, p, jobs, cons, o, fails)
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

// TestConservativeLargeEqualsAsking is TestPropertyConservativeSkipEqualsAsking
// on workloads large enough for the profile to hold hundreds of points
// (on seeds 1–2 the tree from 40 points on, in chunks of 8, and back to
// the flat array under 20; issue 30): thousands of jobs arriving faster than a small platform serves
// them, estimates exact or up to 4× the runtime, with and without a node
// failure (a rebuild). The skipping policy on the tree profile and the
// oracle on the treap, asking every job, make the same reservations in the
// same order and the same starts.
func TestConservativeLargeEqualsAsking(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of jobs under the oracle")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 30))
		p := model.Uniform("u", 64, 1)
		jobs := make([]model.Job, 3000)
		submit := 0.0
		for i := range jobs {
			submit += math.Floor(r.ExpFloat64() * 150)
			run := math.Ceil(math.Exp(r.NormFloat64()*1.2 + 6))
			procs := 1 << r.IntN(7)
			if procs > 64 {
				procs = 64
			}
			j := model.NewJob(int64(i+1), submit, run, procs)
			if seed%2 == 0 {
				j.Estimate = run // exact: no compression, only placements
			} else {
				j.Estimate = math.Ceil(run * (1 + 3*r.Float64()))
			}
			jobs[i] = j
		}
		var logs [2][]string
		var ends [2][]string
		maxPoints := 0
		for k, pol := range []engine.Policy{policy.NewConservative(policy.FirstFit{}), policy.NewRefConservative(policy.FirstFit{})} {
			rec := func(j *engine.Job, s float64) { logs[k] = append(logs[k], fmt.Sprintf("%d@%g", j.ID, s)) }
			if c, ok := pol.(*policy.Conservative); ok {
				if seed <= 2 {
					policy.SetConservativeTree(c, 40, 20, 8) // dozens of chunks, many switches
				}
				c.OnReserve = func(j *engine.Job, s float64) {
					rec(j, s)
					maxPoints = max(maxPoints, policy.ConservativeProfileLen(c))
				}
			} else {
				policy.SetRefOnReserve(pol, rec)
			}
			e := engine.New(p, jobs, pol, engine.Options{})
			if seed == 3 {
				e.FailNode(5000, 7, true)
				e.RepairNode(9000, 7)
			}
			if err := e.Run(); err != nil {
				t.Fatal(err)
			}
			for _, j := range e.Jobs() {
				ends[k] = append(ends[k], fmt.Sprintf("%d %g %g %s", j.ID, j.Start, j.End, j.Alloc))
			}
		}
		t.Logf("seed %d: %d points at most", seed, maxPoints)
		if maxPoints < 4*64 {
			t.Errorf("seed %d: the profile held at most %d points; the test wants several chunks", seed, maxPoints)
		}
		if len(logs[0]) != len(logs[1]) {
			t.Fatalf("seed %d: %d reservations, the oracle %d", seed, len(logs[0]), len(logs[1]))
		}
		for i := range logs[0] {
			if logs[0][i] != logs[1][i] {
				t.Fatalf("seed %d: reservation %d: %s, the oracle %s", seed, i, logs[0][i], logs[1][i])
			}
		}
		for i := range ends[0] {
			if ends[0][i] != ends[1][i] {
				t.Fatalf("seed %d: job %s, the oracle %s", seed, ends[0][i], ends[1][i])
			}
		}
	}
}

// TestPropertyFitClass: the classes of conservative backfilling's bounds
// (issue 30). A pair's corner is at most the pair and in the pair's own
// class; a larger pair never has a smaller class in either dimension; and
// the two classes the bounds read beside a pair's own (one lower in
// processors, one lower in duration) hold only pairs the corner dominates.
func TestPropertyFitClass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.IntRange(1, 1<<20).Draw(t, "procs")
		d := rapid.Float64Range(1, 1e9).Draw(t, "dur")
		k, P, D, ok := policy.FitClass(p, d)
		if !ok {
			t.Fatalf("(%d, %g) has no class", p, d)
		}
		if P > p || D > d || P < 1 || D < 1 || 2*P <= p || 2*D <= d {
			t.Fatalf("(%d, %g): corner (%d, %g) not the class's below it", p, d, P, D)
		}
		if k2, P2, D2, _ := policy.FitClass(P, D); k2 != k || P2 != P || D2 != D {
			t.Fatalf("(%d, %g): corner (%d, %g) in class %d, the pair in %d", p, d, P, D, k2, k)
		}
		p2 := p + rapid.IntRange(0, 1<<20).Draw(t, "more-procs")
		d2 := d * rapid.Float64Range(1, 100).Draw(t, "more-dur")
		k2, _, _, _ := policy.FitClass(p2, d2)
		if k2/policy.FitDC < k/policy.FitDC || k2%policy.FitDC < k%policy.FitDC {
			t.Fatalf("(%d, %g) in class %d, the larger (%d, %g) in %d", p, d, k, p2, d2, k2)
		}
		// The corner of a class one lower in processors or in duration
		// (whose bound the search reads) is dominated by this corner.
		q := max(1, P-rapid.IntRange(0, 3).Draw(t, "fewer-procs"))
		e := max(1, D*rapid.Float64Range(0.8, 1).Draw(t, "shorter"))
		if kq, Q, E, _ := policy.FitClass(q, e); kq == k-policy.FitDC || kq == k-1 {
			if Q > P || E > D {
				t.Fatalf("class %d's corner (%d, %g) beside class %d's (%d, %g), not dominated", kq, Q, E, k, P, D)
			}
		}
	})
	for _, c := range []struct {
		p  int
		d  float64
		ok bool
		P  int
		D  float64
	}{{7, 1, true, 7, 1}, {15, 3.5, true, 15, 3.5}, {17, 17, true, 16, 16}, {19, 19.5, true, 18, 18}, {1000, 1000, true, 960, 960}, {1, 0.5, false, 0, 0}, {0, 5, false, 0, 0}} {
		_, P, D, ok := policy.FitClass(c.p, c.d)
		if ok != c.ok || P != c.P || D != c.D {
			t.Errorf("FitClass(%d, %g) = corner (%d, %g) %v, want (%d, %g) %v", c.p, c.d, P, D, ok, c.P, c.D, c.ok)
		}
	}
}
