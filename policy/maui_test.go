package policy_test

import (
	"strings"
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

// TestLookaheadScore: the look-ahead's dynamic programme maximises
// processors × estimate by default (pyss's score) and the processors
// started now with score=procs (the LOS paper's utilization). On 8
// processors R1 holds 4 until 100 and R2 4 until 5; H (8 processors), A
// (3 processors, 90 s), B and C (2 processors, 10 s each) arrive at 1.
// At 5 H is reserved at 100 with no extra processors and A, B and C all
// fit before it in the 4 free processors: A alone has the larger area
// (270 against 40), B and C together the more processors (4 against 3).
// What is not chosen waits for H (100 to 110): nothing else ends by 100.
func TestLookaheadScore(t *testing.T) {
	mk := func(id int64, sub, run float64, procs int) model.Job {
		j := model.NewJob(id, sub, run, procs)
		j.Estimate = run
		return j
	}
	jobs := []model.Job{mk(1, 0, 100, 4), mk(6, 0, 5, 4), mk(2, 1, 10, 8), mk(3, 1, 90, 3), mk(4, 1, 10, 2), mk(5, 1, 10, 2)}
	for _, c := range []struct {
		spec    string
		a, b, c float64
	}{
		{"easy-lookahead", 5, 110, 110},
		{"easy-lookahead:score=procs", 110, 5, 5},
	} {
		pol, err := policy.New(c.spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := engine.New(model.Uniform("u", 8, 1), jobs, pol, engine.Options{})
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		js := e.Jobs()
		if js[3].Start != c.a || js[4].Start != c.b || js[5].Start != c.c {
			t.Errorf("%s: A, B, C start at %g, %g, %g; want %g, %g, %g", c.spec, js[3].Start, js[4].Start, js[5].Start, c.a, c.b, c.c)
		}
	}
	if _, err := policy.ParseSpec("easy:score=procs"); err == nil || !strings.Contains(err.Error(), "score=procs sets what backfill=lookahead maximises") {
		t.Errorf("score without lookahead: %v", err)
	}
}
