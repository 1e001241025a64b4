package policy

import (
	"fmt"
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
)

// ClassicCheck is an observer that checks, after every event, that c's
// state agrees with the engine's: a job is running in c (in its profile,
// with a prediction-expiry entry) exactly when the engine runs it or it
// waits in c.pend; waiting jobs are in every index c keeps, once, with
// their current key, enqueue count and test prediction; the profile is
// the sum of the slots c records; depth=all's c.wait holds every waiting
// job and as many started ones as all.dead says; the probabilistic c.run
// holds the running jobs. The first disagreement is kept in Err.
type ClassicCheck struct {
	C   *Classic
	E   *engine.Engine
	Err error
	N   int // checks made
}

func (k *ClassicCheck) JobSubmitted(float64, *engine.Job) {}
func (k *ClassicCheck) JobStarted(float64, *engine.Job)   {}
func (k *ClassicCheck) JobStopped(float64, *engine.Job)   {}
func (k *ClassicCheck) Sample(now float64, _, _, _ int) {
	if k.Err == nil {
		k.N++
		if err := k.check(now); err != nil {
			k.Err = fmt.Errorf("at %v: %w", now, err)
		}
	}
}

func (k *ClassicCheck) check(now float64) error {
	c := k.C
	seen := map[*engine.Job]int{}
	for _, j := range c.pend {
		seen[j]++
		if seen[j] > 1 {
			return fmt.Errorf("job %d twice in pend", j.ID)
		}
	}
	inList := map[*engine.Job]int{}
	for _, j := range c.wait {
		inList[j]++
	}
	var runCount int
	type pt struct {
		t float64
		d int
	}
	var slots []pt
	for _, j := range k.E.Jobs() {
		if int(j.Index) >= len(c.jd) {
			continue // not yet known to the policy
		}
		d := &c.jd[j.Index]
		pend := seen[j] > 0
		if !math.IsNaN(d.pstart) {
			slots = append(slots, pt{d.pstart, -j.Procs}, pt{slotEnd(d.pstart, d.ppred), j.Procs})
		}
		switch {
		case j.State == engine.Running || pend:
			if pend && j.State != engine.Queued {
				return fmt.Errorf("job %d pending but %v in the engine", j.ID, j.State)
			}
			if !d.running || d.queued || math.IsNaN(d.pstart) {
				return fmt.Errorf("job %d running (pending %v): running %v queued %v pstart %v", j.ID, pend, d.running, d.queued, d.pstart)
			}
			runCount++
			if end := slotEnd(d.pstart, d.ppred); end > now {
				ok := false
				for _, e := range c.exp.h {
					if e.j == j && e.t == end {
						ok = true
					}
				}
				if !ok {
					return fmt.Errorf("job %d running to %v in the profile has no expiry entry", j.ID, end)
				}
			}
			if c.s.Depth != DepthAll && c.idx == nil && c.kt == nil && inList[j] > 0 {
				return fmt.Errorf("running job %d still in c.wait", j.ID)
			}
			if c.idx != nil && int(j.Index) < len(c.idx.at) && c.idx.at[j.Index] != 0 || c.bidx != nil && int(j.Index) < len(c.bidx.at) && c.bidx.at[j.Index] != 0 {
				return fmt.Errorf("running job %d still indexed", j.ID)
			}
			if c.kt != nil && int(j.Index) < len(c.kt.slot) && c.kt.slot[j.Index] != 0 {
				return fmt.Errorf("running job %d still in the tournament", j.ID)
			}
		case j.State == engine.Queued:
			if !d.queued || d.running {
				return fmt.Errorf("waiting job %d: queued %v running %v", j.ID, d.queued, d.running)
			}
			if c.s.Depth != DepthAll && !math.IsNaN(d.pstart) {
				return fmt.Errorf("waiting job %d has a slot at %v", j.ID, d.pstart)
			}
			if err := k.indexed(j, d); err != nil {
				return err
			}
			if c.idx == nil && c.kt == nil && inList[j] != 1 {
				return fmt.Errorf("waiting job %d %d times in c.wait", j.ID, inList[j])
			}
			if h := &c.hist; h.kind != "" && c.s.Depth != DepthAll && c.capx == nil && !slices.Contains(h.wait[h.key(j)], j) {
				return fmt.Errorf("waiting job %d not in its user's history list", j.ID)
			}
		default:
			if d.queued || d.running {
				return fmt.Errorf("job %d %v in the engine: queued %v running %v", j.ID, j.State, d.queued, d.running)
			}
		}
	}
	if c.s.Depth == DepthAll {
		dead := 0
		for j, n := range inList {
			if n != 1 {
				return fmt.Errorf("job %d %d times in c.wait", j.ID, n)
			}
			if !c.jd[j.Index].inWait {
				return fmt.Errorf("job %d in c.wait without inWait", j.ID)
			}
			if !c.jd[j.Index].queued {
				dead++
			}
		}
		if dead != c.all.dead {
			return fmt.Errorf("c.wait holds %d started jobs, all.dead %d", dead, c.all.dead)
		}
		for i := range c.jd {
			if c.jd[i].inWait && inList[k.E.Jobs()[i]] == 0 {
				return fmt.Errorf("job %d inWait but not in c.wait", k.E.Jobs()[i].ID)
			}
		}
	}
	if c.prob != nil {
		if len(c.run) != runCount {
			return fmt.Errorf("c.run has %d jobs, %d running", len(c.run), runCount)
		}
		for _, j := range c.run {
			if !c.jd[j.Index].running {
				return fmt.Errorf("job %d in c.run not running", j.ID)
			}
		}
	}
	// The profile is the sum of the slots.
	slices.SortFunc(slots, func(a, b pt) int { return cmpF(a.t, b.t) })
	acc := c.prof.Base
	for i := 0; i < len(slots); {
		t := slots[i].t
		for ; i < len(slots) && slots[i].t == t; i++ {
			acc += slots[i].d
		}
		if v := c.prof.Value(t); v != acc {
			return fmt.Errorf("profile at %v: %d free, the slots say %d", t, v, acc)
		}
	}
	if v := c.prof.Value(math.Inf(1)); v != c.prof.Base {
		return fmt.Errorf("profile at +Inf: %d free of %d", v, c.prof.Base)
	}
	return nil
}

// indexed checks that a waiting job is in each of c's indexes with its
// current key, enqueue count and test prediction.
func (k *ClassicCheck) indexed(j *engine.Job, d *jobData) error {
	c := k.C
	node := func(x *oindex, name string, key float64, seq int64, pred float64) error {
		if int(j.Index) >= len(x.at) || x.at[j.Index] == 0 {
			return fmt.Errorf("waiting job %d not in %s", j.ID, name)
		}
		n := &x.nd[x.at[j.Index]]
		if n.j != j || n.key != key || n.seq != seq || n.pred != pred && !(math.IsNaN(n.pred) && math.IsNaN(pred)) {
			return fmt.Errorf("waiting job %d in %s as (%v, %v, pred %v), want (%v, %v, pred %v)", j.ID, name, n.key, n.seq, n.pred, key, seq, pred)
		}
		return nil
	}
	if c.idx != nil {
		pred := c.testPred(j)
		if c.capx != nil {
			// The head loop reads only the order; predictions follow
			// the cap in capx.
			pred = c.idx.nd[c.idx.at[min(int(j.Index), len(c.idx.at)-1)]].pred
		}
		if err := node(c.idx, "idx", c.orderKey(j, 0), d.seq, pred); err != nil {
			return err
		}
	}
	if c.bidx != nil && c.idx != nil {
		if err := node(c.bidx, "bidx", c.backfillKey(j), int64(j.Index), c.testPred(j)); err != nil {
			return err
		}
	}
	if c.capx != nil {
		if err := node(c.capx.byEst, "capx", d.est, int64(j.Index), d.est); err != nil {
			return err
		}
	}
	if c.kt != nil {
		if int(j.Index) >= len(c.kt.slot) || c.kt.slot[j.Index] == 0 {
			return fmt.Errorf("waiting job %d not in the tournament", j.ID)
		}
		s := c.kt.slot[j.Index] - 1
		if c.kt.job[s] != j || c.kt.seq[s] != d.seq {
			return fmt.Errorf("waiting job %d in the tournament with seq %d, want %d", j.ID, c.kt.seq[s], d.seq)
		}
	}
	return nil
}
