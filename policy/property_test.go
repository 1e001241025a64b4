package policy_test

import (
	"flag"
	"math"
	"os"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
)

// TestMain raises rapid's default of 100 cases to 300 random workloads
// per property unless -rapid.checks is given.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		flag.Set("rapid.checks", "300")
	}
	os.Exit(m.Run())
}

type estimateKind int

const (
	exact estimateKind = iota // estimate = runtime
	over                      // estimate >= runtime
	any                       // estimate may be shorter (jobs get killed)
)

// genCase draws a platform and a workload.
func genCase(t *rapid.T, est estimateKind) (*model.Platform, []model.Job) {
	var p *model.Platform
	if rapid.Bool().Draw(t, "multi-pe") {
		p = &model.Platform{Name: "mixed"}
		for i, n := 0, rapid.IntRange(1, 6).Draw(t, "nodes"); i < n; i++ {
			p.Nodes = append(p.Nodes, model.NodeSpec{PEs: rapid.IntRange(1, 4).Draw(t, "pes"), Speed: 1})
		}
	} else {
		p = model.Uniform("u", rapid.IntRange(1, 16).Draw(t, "procs"), 1)
	}
	total := p.TotalPEs()
	n := rapid.IntRange(1, 40).Draw(t, "jobs")
	jobs := make([]model.Job, n)
	for i := range jobs {
		run := float64(rapid.IntRange(0, 40).Draw(t, "run"))
		j := model.NewJob(int64(i+1), float64(rapid.IntRange(0, 60).Draw(t, "submit")), run, rapid.IntRange(1, total).Draw(t, "size"))
		switch est {
		case exact:
			j.Estimate = run
			if run == 0 {
				j.Estimate = -1 // no estimate: the runtime is used
			}
		case over:
			j.Estimate = run + float64(rapid.IntRange(0, 40).Draw(t, "slack"))
		case any:
			j.Estimate = float64(rapid.IntRange(1, 60).Draw(t, "est"))
		}
		jobs[i] = j
	}
	return p, jobs
}

// simulate runs a case under the harness of package policytest, which
// checks the engine-level invariants on every event.
func simulate(t *rapid.T, p *model.Platform, jobs []model.Job, pol engine.Policy, o engine.Overrun) *engine.Engine {
	e, err := policytest.Run(p, jobs, pol, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkEnds: every job ran, and ended exactly its runtime after its start
// — or its estimate, when it was killed at the estimate.
func checkEnds(t *rapid.T, e *engine.Engine, o engine.Overrun) {
	if err := policytest.Verify(e, o, false); err != nil {
		t.Fatal(err)
	}
}

// Every registered policy is checked on random cases by package
// policytest (TestEveryBuiltinPolicy); the properties below are those of
// one policy each.

// TestPropertyFCFSOrder: FCFS starts jobs in submit order.
func TestPropertyFCFSOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, jobs := genCase(t, any)
		e := simulate(t, p, jobs, policy.NewFCFS(policy.FirstFit{}), engine.OverrunKill)
		last := math.Inf(-1)
		for _, j := range e.Jobs() { // arrival order
			if j.Start < last {
				t.Fatalf("job %d starts at %g, before an earlier arrival's start %g", j.ID, j.Start, last)
			}
			last = j.Start
		}
	})
}

// TestPropertyEASYShadow: with exact estimates the queue head never starts
// later than the shadow time computed when it became the head (Lifka
// 1995; Mu'alem & Feitelson 2001, §2.1: "the first job is guaranteed").
func TestPropertyEASYShadow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, jobs := genCase(t, exact)
		pol := policy.NewEASY(policy.FirstFit{})
		shadow := map[*engine.Job]float64{}
		pol.OnShadow = func(j *engine.Job, s float64) {
			if _, seen := shadow[j]; !seen {
				shadow[j] = s
			}
		}
		e := simulate(t, p, jobs, pol, engine.OverrunKill)
		if len(shadow) == 0 && len(jobs) > 1 {
			// Not a failure: every job may have started at once.
		}
		for j, s := range shadow {
			if j.Start > s {
				t.Fatalf("head job %d starts at %g after its shadow time %g", j.ID, j.Start, s)
			}
		}
		checkEnds(t, e, engine.OverrunKill)
	})
}

// TestPropertyConservativeReservation: with estimates that are upper
// bounds, no job starts later than its first reservation (Mu'alem &
// Feitelson 2001, §2.2: reservations are never delayed, compression only
// moves jobs earlier).
func TestPropertyConservativeReservation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, jobs := genCase(t, estimateKind(rapid.IntRange(0, 1).Draw(t, "kind")))
		pol := policy.NewConservative(policy.FirstFit{})
		first := map[*engine.Job]float64{}
		pol.OnReserve = func(j *engine.Job, s float64) {
			if old, seen := first[j]; !seen {
				first[j] = s
			} else if s > old {
				t.Fatalf("job %d's reservation moved later: %g → %g", j.ID, old, s)
			}
		}
		e := simulate(t, p, jobs, pol, engine.OverrunKill)
		for _, j := range e.Jobs() {
			s, ok := first[j]
			if !ok {
				t.Fatalf("job %d got no reservation", j.ID)
			}
			if j.Start > s {
				t.Fatalf("job %d starts at %g after its first reservation %g", j.ID, j.Start, s)
			}
		}
	})
}

// TestPropertyEASYIndexEqualsScan: the indexed backfill pass makes the
// same decisions as a scan of the whole queue (the pre-index EASY, kept
// as an oracle): same start times and same processors for every job, on
// random platforms (multi-processor nodes included, where a job that
// fits in the free count may still not be placeable) with every kind of
// estimate and both overrun options.
func TestPropertyEASYIndexEqualsScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := estimateKind(rapid.IntRange(0, 2).Draw(t, "estimates"))
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		p, jobs := genCase(t, kind)
		a := simulate(t, p, jobs, policy.NewEASY(policy.FirstFit{}), o)
		b := simulate(t, p, jobs, policy.NewLinearEASY(policy.FirstFit{}), o)
		for i, j := range a.Jobs() {
			k := b.Jobs()[i]
			if j.Start != k.Start || j.Alloc.String() != k.Alloc.String() {
				t.Fatalf("job %d: indexed EASY starts at %g on %s, the scan at %g on %s", j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
			}
		}
	})
}
