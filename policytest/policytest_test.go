package policytest_test

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
)

// lazy is FCFS that never starts the job with trace id 3.
type lazy struct{ q []*engine.Job }

func (l *lazy) Notify(_ *engine.View, n engine.Notice) {
	if n.Kind == engine.NoticeSubmitted && n.Job.ID != 3 {
		l.q = append(l.q, n.Job)
	}
}

func (l *lazy) Schedule(v *engine.View, p *engine.Plan) {
	for len(l.q) > 0 && l.q[0].Procs <= v.FreePEs() {
		a, _ := policy.FirstFit{}.Select(v, l.q[0], v.AllocBuffer())
		p.Start(l.q[0], a)
		l.q = l.q[1:]
	}
}

// runs counts the policies built: each run of flaky starts its jobs in
// another order.
var runs int

type flaky struct {
	lazy
	odd bool
}

func (f *flaky) Notify(_ *engine.View, n engine.Notice) {
	if n.Kind == engine.NoticeSubmitted {
		if f.odd {
			f.q = append([]*engine.Job{n.Job}, f.q...)
		} else {
			f.q = append(f.q, n.Job)
		}
	}
}

func TestHarnessFindsBrokenPolicies(t *testing.T) {
	c := policytest.Fixtures()[1] // wide-behind-narrow
	err := policytest.CheckCase(c, func() engine.Policy { return &lazy{} }, engine.OverrunKill, false)
	if err == nil || !strings.Contains(err.Error(), "job 3 ") || !strings.Contains(err.Error(), "ended the run queued") {
		t.Errorf("a policy that never starts job 3: got %v", err)
	}
	if err := policytest.CheckCase(c, func() engine.Policy { return &lazy{} }, engine.OverrunKill, true); err != nil {
		t.Errorf("with AllowUnfinished the lazy policy passes: %v", err)
	}
	err = policytest.CheckCase(c, func() engine.Policy { runs++; return &flaky{odd: runs%2 == 0} }, engine.OverrunKill, false)
	if err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Errorf("a policy whose second run differs: got %v", err)
	}
	if err := policytest.CheckCase(c, func() engine.Policy { return policy.NewEASY(policy.FirstFit{}) }, engine.OverrunKill, false); err != nil {
		t.Errorf("easy: %v", err)
	}
}

// TestRandomCasesVary: the random cases are drawn (not one case
// repeated) and reproducible from their seed.
func TestRandomCasesVary(t *testing.T) {
	a, b := policytest.Random(1, 0), policytest.Random(1, 1)
	if a.String() == b.String() {
		t.Error("cases 0 and 1 of seed 1 are the same")
	}
	if again := policytest.Random(1, 0); again.String() != a.String() {
		t.Error("case 0 of seed 1 differs between two draws")
	}
}
