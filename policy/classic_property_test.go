package policy_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// The catalogue's invariants, checked on random platforms and workloads
// for random points of the four axes (and, in TestPropertyEveryPolicy,
// for every registered alias). classicInvariants is the one place that
// states them, so that moving to the shared invariant harness is a change
// of this function's body.

// genSpec draws a runnable point of the four axes.
func genSpec(t *rapid.T) policy.Spec {
	s, _ := policy.ParseSpec("classic")
	s.Order = rapid.SampledFrom(policy.Orders).Draw(t, "order")
	s.Backfill = rapid.SampledFrom(policy.BackfillOrders).Draw(t, "backfill")
	s.Estimate = rapid.SampledFrom(policy.Estimates).Draw(t, "estimate")
	s.Depth = rapid.SampledFrom([]int{0, 1, 2, 3, policy.DepthAll}).Draw(t, "depth")
	s.Compress = rapid.Bool().Draw(t, "compress")
	s.Common = rapid.Bool().Draw(t, "common")
	s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
	s.Window = rapid.IntRange(0, 4).Draw(t, "window")
	s.Factor = float64(rapid.IntRange(1, 3).Draw(t, "factor"))
	s.WSld = float64(rapid.IntRange(-1, 2).Draw(t, "w_sld"))
	s.WBypass = float64(rapid.IntRange(0, 2).Draw(t, "w_bypass"))
	s.WSize = float64(rapid.IntRange(-1, 1).Draw(t, "w_size"))
	switch s.Backfill {
	case "greedy", "lookahead", "probabilistic", "none":
		s.Depth = 1
	}
	if s.Depth == policy.DepthAll {
		s.Order, s.Backfill = "fcfs", "queue"
	}
	if (s.Depth == policy.DepthAll || s.Depth == 0) && (s.Estimate == "head-double" || s.Estimate == "tail-double") {
		s.Estimate = "request"
	}
	if err := s.Check(); err != nil {
		t.Fatalf("genSpec drew %s: %v", s, err)
	}
	return s
}

// classicInvariants runs pol's schedule of jobs twice and checks: no
// oversubscription and no start before submit (the checker observer),
// every job accounted for (each ends, completed or killed, after exactly
// its runtime or its estimate), and determinism (the second run makes
// the same decisions).
func classicInvariants(t *rapid.T, p *model.Platform, jobs []model.Job, mk func() engine.Policy, o engine.Overrun) *engine.Engine {
	a := simulate(t, p, jobs, mk(), o)
	checkEnds(t, a, o)
	b := simulate(t, p, jobs, mk(), o)
	for i, j := range a.Jobs() {
		k := b.Jobs()[i]
		if j.Start != k.Start || j.Alloc.String() != k.Alloc.String() {
			t.Fatalf("not deterministic: job %d starts at %g on %s, then at %g on %s", j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	}
	return a
}

func TestPropertyClassicInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSpec(t)
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		p, jobs := genCase(t, kind)
		for i := range jobs {
			jobs[i].Own()
			if rapid.Bool().Draw(t, "has-deadline") {
				jobs[i].Deadline = jobs[i].Submit + float64(rapid.IntRange(0, 200).Draw(t, "deadline"))
			}
			jobs[i].User = rapid.IntRange(0, 3).Draw(t, "user")
		}
		classicInvariants(t, p, jobs, func() engine.Policy { return policy.NewClassic(s, policy.FirstFit{}) }, o)
	})
}

// TestPropertyClassicHeadGuarantee: with exact estimates, EASY's queue
// head never starts after the shadow time computed when it became the
// head (Mu'alem & Feitelson 2001, §2.1), for every backfill order that
// keeps the head's reservation (queue, SJBF, reverse, look-ahead; greedy
// deliberately may delay it) and every estimate source that never
// under-predicts, under either consultation.
func TestPropertyClassicHeadGuarantee(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, _ := policy.ParseSpec("classic")
		s.Backfill = rapid.SampledFrom([]string{"queue", "sjbf", "reverse", "lookahead"}).Draw(t, "backfill")
		s.Estimate = rapid.SampledFrom([]string{"request", "exact", "double", "perfect-double", "head-double", "tail-double"}).Draw(t, "estimate")
		s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
		p, jobs := genCase(t, exact)
		pol := policy.NewClassic(s, policy.FirstFit{})
		shadow := map[*engine.Job]float64{}
		pol.OnShadow = func(j *engine.Job, sh float64) {
			if _, seen := shadow[j]; !seen {
				shadow[j] = sh
			}
		}
		e := simulate(t, p, jobs, pol, engine.OverrunKill)
		checkEnds(t, e, engine.OverrunKill)
		for j, sh := range shadow {
			if j.Start > sh {
				t.Fatalf("%s: head job %d starts at %g after its shadow time %g", s, j.ID, j.Start, sh)
			}
		}
	})
}

// TestPropertyClassicEqualsDedicated: the catalogue's points of fcfs,
// easy and conservative make exactly the decisions of their dedicated
// implementations (which the registered names use), so the composable
// policy is checked against them on every random workload (conservative
// with jobs killed at their request).
func TestPropertyClassicEqualsDedicated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"fcfs", "easy", "conservative"}).Draw(t, "policy")
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		if name == "conservative" {
			// When a job outlives its request (OverrunExtend) the dedicated
			// conservative re-plans within the same decision; the
			// catalogue's depth=all re-plans at the next one.
			o = engine.OverrunKill
		}
		p, jobs := genCase(t, kind)
		s, _ := policy.ParseSpec(name)
		ded, _ := policy.New(name, nil)
		a := simulate(t, p, jobs, ded, o)
		b := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), o)
		for i, j := range a.Jobs() {
			k := b.Jobs()[i]
			if j.Start != k.Start || j.Alloc.String() != k.Alloc.String() {
				t.Fatalf("%s: job %d starts at %g on %s; the catalogue's point starts it at %g on %s", name, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
			}
		}
	})
}
