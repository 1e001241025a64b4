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
	if s.Backfill == "lookahead" {
		s.Score = rapid.SampledFrom([]string{"area", "procs"}).Draw(t, "score")
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
	if j, k := firstDifference(a, b); j != nil {
		t.Fatalf("not deterministic: job %d starts at %g on %s, then at %g on %s", j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
	}
	return a
}

// firstDifference returns the first job that two runs of one workload
// start at different times or on different processors (nil if none).
func firstDifference(a, b *engine.Engine) (*engine.Job, *engine.Job) {
	for i, j := range a.Jobs() {
		if k := b.Jobs()[i]; j.Start != k.Start || j.Alloc.String() != k.Alloc.String() {
			return j, k
		}
	}
	return nil, nil
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
// policy is checked against them on every random workload, with jobs
// killed at their request or extended.
func TestPropertyClassicEqualsDedicated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"fcfs", "easy", "conservative"}).Draw(t, "policy")
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		p, jobs := genCase(t, kind)
		s, _ := policy.ParseSpec(name)
		ded, _ := policy.New(name, nil)
		a := simulate(t, p, jobs, ded, o)
		b := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), o)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s; the catalogue's point starts it at %g on %s", name, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
}

// TestPropertyClassicIndexEqualsList: the indexed queue (static orders,
// depth 0 or 1, backfill none or queue; fcfs with sjbf or reverse
// candidates from a second index) and the kinetic tournament (wfp3,
// unicep, slowdown without backfilling) make exactly the decisions of the
// list sorted at every pass, for every estimate source (history
// predictions change a waiting job's test prediction in the index),
// consultation and overrun mode.
func TestPropertyClassicIndexEqualsList(t *testing.T) {
	var static []string
	for _, o := range policy.Orders {
		switch o {
		case "wfp3", "unicep", "slowdown", "maui":
		default:
			static = append(static, o)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := genSpec(t)
		s.Order = rapid.SampledFrom(static).Draw(t, "static-order")
		s.Depth = rapid.IntRange(0, 1).Draw(t, "depth01")
		s.Backfill, s.Score = "queue", "area"
		if s.Depth == 1 && rapid.Bool().Draw(t, "none") {
			s.Backfill = "none"
		}
		if rapid.IntRange(0, 2).Draw(t, "backfill-index") == 0 {
			s.Order, s.Backfill = "fcfs", rapid.SampledFrom([]string{"sjbf", "reverse"}).Draw(t, "sjbf-reverse")
		}
		if rapid.IntRange(0, 2).Draw(t, "kinetic") == 0 {
			s.Order = rapid.SampledFrom([]string{"wfp3", "unicep", "slowdown"}).Draw(t, "dynamic-order")
			s.Depth, s.Backfill = 1, "none"
		}
		if s.Depth == 0 && s.Estimate == "head-double" {
			s.Estimate = "request"
		}
		if err := s.Check(); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
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
		a := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), o)
		b := simulate(t, p, jobs, policy.NewClassicListed(s, policy.FirstFit{}), o)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with the index, at %g on %s with the list", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
}

// TestPropertyProbabilisticRowsIncremental: probabilistic backfilling
// keeps its bottleneck rows from pass to pass, cut back to the first
// running job whose step changed and recomputed from a stored copy; every
// row it reads equals, bit for bit, the row computed afresh from all
// running jobs. Its memo of refused candidates changes no decision.
func TestPropertyProbabilisticRowsIncremental(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, _ := policy.ParseSpec("easy-probabilistic")
		s.Common = rapid.Bool().Draw(t, "common")
		s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
		s.Threshold = rapid.SampledFrom([]float64{0, 0.05, 0.2, 0.5, 1}).Draw(t, "threshold")
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		p, jobs := genCase(t, kind)
		for i := range jobs {
			jobs[i].Own()
			jobs[i].User = rapid.IntRange(0, 3).Draw(t, "user")
		}
		// Copies few enough that the steps between them grow with the
		// running jobs (fitCopies, coarseUpdate's strides).
		defer policy.SetProbCopyFloats(rapid.SampledFrom([]int{1 << 16, 16, 32, 48, 64, 96, 128, 200, 400}).Draw(t, "copyfloats"))()
		reads := 0
		policy.VerifyProbRows(func(row, fresh []float64) {
			reads++
			for i := range row {
				if row[i] != fresh[i] {
					t.Fatalf("%s: row[%d] = %v, afresh %v", s, i, row[i], fresh[i])
				}
			}
		})
		defer policy.VerifyProbRows(nil)
		a := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunKill)
		policy.SetProbMemo(false)
		defer policy.SetProbMemo(true)
		b := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunKill)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with the memo, at %g on %s without", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
}

// TestPropertyCappedEqualsList: EASY++ with one history for all users
// (estimate=epp, common=yes, sjbf backfilling, depth 0 or 1), whose
// waiting jobs' predictions follow the system's cap when asked and are
// read from the capped index, makes exactly the decisions of the list
// re-predicted at every end and sorted at every pass, with jobs large
// enough to make the index's Fenwick tree grow.
func TestPropertyCappedEqualsList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, _ := policy.ParseSpec("easy-plus-plus-common")
		s.Depth = rapid.IntRange(0, 1).Draw(t, "depth")
		s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		p, jobs := genCase(t, kind)
		for i := range jobs {
			jobs[i].Own()
			jobs[i].User = rapid.IntRange(0, 3).Draw(t, "user")
		}
		a := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), o)
		b := simulate(t, p, jobs, policy.NewClassicListed(s, policy.FirstFit{}), o)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with the capped index, at %g on %s with the list", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
}

// TestPropertyProbabilisticBoundsEqualSum: probabilistic backfilling's
// decisions from bounds on the bottlenecks (rows computed only where the
// bounds leave the answer open) are pyss's sum's, candidate by candidate,
// and the schedule is the one of the sum computed bin after bin.
func TestPropertyProbabilisticBoundsEqualSum(t *testing.T) {
	coarse := 0 // coarse bounds checked, over every case
	kinds := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		s, _ := policy.ParseSpec("easy-probabilistic")
		s.Common = rapid.Bool().Draw(t, "common")
		s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
		s.Threshold = rapid.SampledFrom([]float64{0, 0.01, 0.05, 0.2, 0.5, 1}).Draw(t, "threshold")
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		p, jobs := genCase(t, kind)
		for i := range jobs {
			jobs[i].Own()
			jobs[i].User = rapid.IntRange(0, 3).Draw(t, "user")
		}
		// Coarse rows of 4 or 8 columns reach the small platforms
		// here (64, the default, only rows of 128 columns or more).
		cols := rapid.SampledFrom([]int{0, 4, 8, 64}).Draw(t, "coarse")
		defer policy.SetProbCoarse(cols, rapid.Bool().Draw(t, "always"))()
		decisions := 0
		policy.VerifyProbChance(func(bounded, sum bool) {
			decisions++
			if bounded != sum {
				t.Fatalf("%s: decision %d from bounds %v, pyss's sum %v", s, decisions, bounded, sum)
			}
		})
		policy.VerifyProbBound(func(kind string, lo, hi, fresh float64) {
			kinds[kind]++
			if kind == "coarse" {
				coarse++
			}
			if fresh < lo || fresh > hi {
				t.Fatalf("%s: %s bounds [%v, %v] miss the bottleneck %v", s, kind, lo, hi, fresh)
			}
		})
		a := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunKill)
		policy.VerifyProbChance(nil)
		policy.VerifyProbBound(nil)
		// Unverified (the verification computes rows of its own, but
		// keeps none): the same schedule.
		a2 := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunKill)
		if j, k := firstDifference(a, a2); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s verified, at %g on %s not", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
		policy.SetProbBounds(false)
		defer policy.SetProbBounds(true)
		b := simulate(t, p, jobs, policy.NewClassic(s, policy.FirstFit{}), engine.OverrunKill)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with bounds, at %g on %s with the sum", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
	if coarse == 0 || kinds["earlier"] == 0 || kinds["left"] == 0 {
		t.Fatalf("bounds checked: %v; want every kind", kinds)
	}
	t.Logf("bounds checked: %v", kinds)
}
