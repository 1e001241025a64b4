package engine

import "fmt"

// Plan is how a policy acts. Every action is validated against the current
// state and applied at once, so later actions of the same Schedule call see
// its effect. An invalid action returns an error wrapping ErrInvalidPlan
// and also stops the run: Run returns that error.
type Plan struct{ e *Engine }

func (p *Plan) invalid(format string, args ...any) error {
	err := fmt.Errorf("%w at t=%g: %s", ErrInvalidPlan, p.e.now, fmt.Sprintf(format, args...))
	if p.e.err == nil {
		p.e.err = err
	}
	return err
}

// Start runs queued job j now on the processors of a. The allocation must
// hold exactly j.Procs processors on distinct, up nodes with that many
// free processors.
func (p *Plan) Start(j *Job, a Alloc) error {
	e := p.e
	if j.State != Queued {
		return p.invalid("start job %d: it is %s, not queued", j.ID, j.State)
	}
	if j.Submit > e.now {
		return p.invalid("start job %d: submitted at %g, after now", j.ID, j.Submit)
	}
	if got := a.PEs(); got != j.Procs {
		return p.invalid("start job %d: allocation has %d processors, job needs %d", j.ID, got, j.Procs)
	}
	prev := int32(-1)
	minSpeed := e.speed
	for _, s := range a {
		if s.First <= prev || s.Count <= 0 || s.PEs <= 0 || int(s.First)+int(s.Count) > len(e.specs) {
			return p.invalid("start job %d: malformed allocation %v (spans must be non-empty, in range and increasing)", j.ID, a)
		}
		// Single-processor nodes: a node is up with its processor free
		// exactly when its bit of the free set is, so the span is checked
		// 64 nodes at a time (issue 30); the loop below then only runs to
		// name the node that is not.
		wholeFree := s.PEs == 1 && e.uniformPEs == 1 && e.freeSet.allSet(int(s.First), int(s.First+s.Count))
		free := e.free[s.First : s.First+s.Count]
		up := e.up[s.First : s.First+s.Count]
		for k := range free {
			if wholeFree {
				break
			}
			if free[k] < s.PEs || !up[k] {
				n := int(s.First) + k
				if !up[k] {
					return p.invalid("start job %d: node %d is down", j.ID, n)
				}
				return p.invalid("start job %d: node %d has %d free processors, plan takes %d", j.ID, n, free[k], s.PEs)
			}
		}
		if !e.uniform {
			for n := s.First; n < s.First+s.Count; n++ {
				minSpeed = min(minSpeed, e.specs[n].Speed)
			}
		}
		prev = s.First + s.Count - 1
	}
	for _, s := range a {
		e.take(s)
	}
	e.freePEs -= j.Procs
	e.queued--
	j.State = Running
	j.Start = e.now
	j.Alloc = e.keepAlloc(a)
	j.minSpeed = minSpeed
	j.runIdx = int32(len(e.running))
	e.running = append(e.running, j)
	j.natEnd = e.now + j.Runtime/minSpeed
	e.scheduleEnd(j)
	for _, h := range e.hooks {
		if sh, ok := h.(StartHook); ok {
			sh.Started(e, j)
		}
	}
	for _, o := range e.obs {
		o.JobStarted(e.now, j)
	}
	return nil
}

// Preempt takes running job j off its processors now. With requeue the job
// is Queued again and will restart from the beginning (its run so far is
// lost); the policy must put it back in its own queue. Without requeue it
// is Dropped.
func (p *Plan) Preempt(j *Job, requeue bool) error {
	if j.State != Running {
		return p.invalid("preempt job %d: it is %s, not running", j.ID, j.State)
	}
	p.e.stop(j, requeue, Dropped)
	return nil
}

// Reject drops queued job j: it will never run.
func (p *Plan) Reject(j *Job) error {
	if j.State != Queued {
		return p.invalid("reject job %d: it is %s, not queued", j.ID, j.State)
	}
	j.State = Dropped
	j.End = p.e.now
	p.e.queued--
	for _, o := range p.e.obs {
		o.JobStopped(p.e.now, j)
	}
	return nil
}

// Timer asks for NoticeTimer with tag at time at (not before now).
func (p *Plan) Timer(at float64, tag int64) error {
	if at < p.e.now {
		return p.invalid("timer %d at %g is in the past", tag, at)
	}
	p.e.Timer(at, tag)
	return nil
}

// Fail stops the run with err: for a policy that cannot go on (an
// external scheduler that crashed or broke its protocol). The engine's
// state stays as the last valid action left it; Run returns err (the
// first error of the run wins).
func (p *Plan) Fail(err error) {
	if p.e.err == nil {
		p.e.err = err
	}
}

// Failed reports whether the run has stopped with an error (an invalid
// action or Fail): the engine returns from Run after this Schedule call,
// so a policy should stop proposing.
func (p *Plan) Failed() bool { return p.e.err != nil }
