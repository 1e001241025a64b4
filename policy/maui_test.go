package policy_test

import (
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestMauiWeights: pyss's Maui orders the queue by w_wait·wait +
// w_sld·(wait+est)/est + w_bypass·bypassed + w_size·processors at every
// decision (its default, wait only, is EASY). On 4 processors A holds all
// of them over [0, 10); B (2 processors, 5 s) arrives at 1, C (3
// processors, 5 s) at 2. At 10 only one of B and C fits. By wait, B
// (waited 9) comes first and C starts at 15; with w_size = 100, C
// (8 + 300) outranks B (9 + 200) and B starts at 15; with w_sld = 100 and
// C's estimate 1 s, C's expected slowdown (8+1)/1 = 9 outranks B's
// (9+5)/5 = 2.8 and C (done at 11) lets B start at 11.
func TestMauiWeights(t *testing.T) {
	for _, c := range []struct {
		spec   string
		cEst   float64
		bStart float64
		cStart float64
	}{
		{"maui", 5, 10, 15},
		{"maui:w_size=100", 5, 15, 10},
		{"maui:w_wait=1,w_sld=100", 1, 11, 10},
		{"maui:w_wait=1,w_sld=0", 1, 10, 15},
	} {
		mk := func(id int64, sub, run float64, procs int, est float64) model.Job {
			j := model.NewJob(id, sub, run, procs)
			j.Estimate = est
			return j
		}
		jobs := []model.Job{mk(1, 0, 10, 4, 10), mk(2, 1, 5, 2, 5), mk(3, 2, c.cEst, 3, c.cEst)}
		pol, err := policy.New(c.spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := engine.New(model.Uniform("u", 4, 1), jobs, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		js := e.Jobs()
		if js[1].Start != c.bStart || js[2].Start != c.cStart {
			t.Errorf("%s: B starts at %g, C at %g; want %g and %g", c.spec, js[1].Start, js[2].Start, c.bStart, c.cStart)
		}
	}
}
