// Package policytest checks a scheduling policy for the engine's
// invariants: use it in the tests of any policy, built in or your own.
//
//	func TestMyPolicy(t *testing.T) {
//		policytest.Check(t, func() engine.Policy { return mypolicy.New(policy.FirstFit{}) })
//	}
//
// Check runs the policy on hand-made fixtures (same-instant arrivals and
// completions, a wide job behind narrow ones, zero run times, jobs killed
// at their estimate, nodes of several sizes, a generated workload) and on
// random platforms and workloads, under both overrun options, and fails
// the test when a run breaks one of these invariants:
//
//   - no oversubscription: a node never gives more processors than it
//     has, a started job gets exactly the processors it asks for, and the
//     busy processors never exceed those available;
//   - no start before submission;
//   - every job accounted for: the engine's counts agree with the jobs'
//     states, and at the end every job has ended (completed, or killed at
//     its estimate) — unless AllowUnfinished — with a run time exactly its
//     own (or its estimate, when killed), and nothing is left running;
//   - determinism: a second run of the same case gives the same schedule,
//     job for job (start times and processors).
//
// Every built-in policy is checked with it (policytest's own tests run
// every registered policy), and so is the external scheduler protocol
// with the Python examples.
package policytest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/workload"
)

// Factory builds a fresh policy for one run.
type Factory func() engine.Policy

// Options tune Check.
type Options struct {
	// Random is the number of random cases (0: 200; negative: none, the
	// fixtures only).
	Random int
	// Seed varies the random cases (default 1).
	Seed uint64
	// AllowUnfinished accepts jobs that never end (a policy that rejects
	// or drops jobs, or leaves some waiting).
	AllowUnfinished bool
	// Adapt, if set, turns every case into one the policy's model can run
	// (the reservation policies of seed 000 run one processor per job on
	// single-processor nodes).
	Adapt func(Case) Case
}

// Case is one platform and workload.
type Case struct {
	Name     string
	Platform *model.Platform
	Jobs     []model.Job
}

// Check runs f's policies on the fixtures and on random cases under both
// overrun options and fails t at the first broken invariant, naming the
// case (random cases by seed, with the case printed).
func Check(t *testing.T, f Factory, o ...Options) {
	t.Helper()
	var opt Options
	if len(o) > 0 {
		opt = o[0]
	}
	if opt.Random == 0 {
		opt.Random = 200
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	cases := Fixtures()
	for i := 0; i < opt.Random; i++ {
		cases = append(cases, Random(opt.Seed, uint64(i)))
	}
	for _, c := range cases {
		if opt.Adapt != nil {
			c = opt.Adapt(c)
		}
		for _, ov := range []engine.Overrun{engine.OverrunKill, engine.OverrunExtend} {
			if err := CheckCase(c, f, ov, opt.AllowUnfinished); err != nil {
				t.Fatalf("%s, overrun %s: %v\n%s", c.Name, overrunName(ov), err, c)
			}
		}
	}
}

func overrunName(o engine.Overrun) string {
	if o == engine.OverrunExtend {
		return "extend"
	}
	return "kill"
}

// CheckCase runs one case twice under a fresh policy each time, checks
// every invariant and that both runs give the same schedule.
func CheckCase(c Case, f Factory, ov engine.Overrun, allowUnfinished bool) error {
	var first string
	for run := 0; run < 2; run++ {
		e, err := Run(c.Platform, c.Jobs, f(), ov)
		if err != nil {
			return err
		}
		if err := Verify(e, ov, allowUnfinished); err != nil {
			return err
		}
		if run == 0 {
			first = Schedule(e)
		} else if s := Schedule(e); s != first {
			return fmt.Errorf("not deterministic: a second run of the same case gave another schedule:\n%s", diff(first, s))
		}
	}
	return nil
}

// Run simulates jobs on p under pol with an observer that checks, at
// every event, that no node is oversubscribed (nodes added while it runs
// too) or given to a job while it is down, that a started job has
// exactly its processors, that no job starts before its submission and
// that busy processors never exceed the available ones. It returns the
// engine and the first broken invariant or the run's error (a policy
// that implements engine.FinishingPolicy is finished). setup, if given,
// acts on the engine before it runs (node failures, timers).
func Run(p *model.Platform, jobs []model.Job, pol engine.Policy, ov engine.Overrun, setup ...func(*engine.Engine)) (*engine.Engine, error) {
	e := engine.New(p, jobs, pol, engine.Options{Overrun: ov})
	for _, f := range setup {
		f(e)
	}
	c := &observer{v: e.View()}
	e.Observe(c)
	err := e.Run()
	if f, ok := pol.(engine.FinishingPolicy); ok {
		err = f.Finish(e.View(), err)
	}
	if c.err != nil {
		return e, c.err
	}
	return e, err
}

type observer struct {
	v    *engine.View
	used []int // per node, as the engine numbers them (added nodes too)
	err  error
}

func (c *observer) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *observer) JobSubmitted(now float64, j *engine.Job) {
	if now != j.Submit {
		c.fail("job %d submitted at %g, its submit time is %g", j.ID, now, j.Submit)
	}
}

func (c *observer) JobStarted(now float64, j *engine.Job) {
	if now < j.Submit {
		c.fail("job %d starts at %g, before its submission at %g", j.ID, now, j.Submit)
	}
	if j.Start != now {
		c.fail("job %d started at %g but records start %g", j.ID, now, j.Start)
	}
	if got := j.Alloc.PEs(); got != j.Procs {
		c.fail("job %d started on %d processors, it needs %d", j.ID, got, j.Procs)
	}
	if k := c.v.NumNodes(); len(c.used) < k {
		c.used = append(c.used, make([]int, k-len(c.used))...) // nodes added since
	}
	for _, s := range j.Alloc {
		for n := int(s.First); n < int(s.First+s.Count); n++ {
			if n >= len(c.used) || !c.v.NodeUp(n) {
				c.fail("job %d started at %g on node %d, which is down or not one of the %d nodes", j.ID, now, n, len(c.used))
				return
			}
			c.used[n] += int(s.PEs)
			if pes := c.v.Node(n).PEs; c.used[n] > pes {
				c.fail("node %d oversubscribed at %g: %d processors in use of %d (job %d)", n, now, c.used[n], pes, j.ID)
			}
		}
	}
}

func (c *observer) JobStopped(now float64, j *engine.Job) {
	if math.IsNaN(j.Start) && j.State == engine.Dropped {
		return // rejected while waiting: it held nothing
	}
	for _, s := range j.Alloc {
		for n := s.First; n < s.First+s.Count && int(n) < len(c.used); n++ {
			c.used[n] -= int(s.PEs)
			if c.used[n] < 0 {
				c.fail("node %d released more processors than it gave (job %d at %g)", n, j.ID, now)
			}
		}
	}
}

func (c *observer) Sample(now float64, busy, avail, queued int) {
	if busy < 0 || busy > avail {
		c.fail("%d processors busy of %d available at %g", busy, avail, now)
	}
	if queued < 0 {
		c.fail("%d jobs queued at %g", queued, now)
	}
}

// Verify checks a finished run: the engine's state (CheckState); every
// job ended — unless allowUnfinished — completed after exactly its run
// time or killed after exactly its estimate (OverrunKill, when its run
// time is longer), with nothing left running.
func Verify(e *engine.Engine, ov engine.Overrun, allowUnfinished bool) error {
	if err := CheckState(e); err != nil {
		return err
	}
	v := e.View()
	if n := len(v.Running()); n > 0 {
		return fmt.Errorf("%d jobs still running after the run", n)
	}
	for _, j := range e.Jobs() {
		switch j.State {
		case engine.Completed:
			if j.End-j.Start != j.Runtime {
				return fmt.Errorf("job %d completed after %g, its run time is %g", j.ID, j.End-j.Start, j.Runtime)
			}
		case engine.Killed:
			if ov != engine.OverrunKill || j.End-j.Start != j.Est || j.Runtime <= j.Est {
				return fmt.Errorf("job %d killed after %g (estimate %g, run time %g, overrun %s)", j.ID, j.End-j.Start, j.Est, j.Runtime, overrunName(ov))
			}
		default:
			if !allowUnfinished {
				return fmt.Errorf("job %d (submitted at %g, %d processors) ended the run %s", j.ID, j.Submit, j.Procs, j.State)
			}
		}
	}
	return nil
}

// CheckState checks the engine's state at any moment (also after a run
// that stopped with an error): the free processors of every node are its
// processors less those of the running jobs on it, the free and queued
// counts agree with the nodes and the jobs, and every running job holds
// exactly its processors.
func CheckState(e *engine.Engine) error {
	v := e.View()
	used := make([]int, v.NumNodes())
	for _, j := range v.Running() {
		if j.State != engine.Running {
			return fmt.Errorf("job %d is in the running list but %s", j.ID, j.State)
		}
		if j.Alloc.PEs() != j.Procs {
			return fmt.Errorf("running job %d holds %d processors, needs %d", j.ID, j.Alloc.PEs(), j.Procs)
		}
		for _, s := range j.Alloc {
			for n := s.First; n < s.First+s.Count; n++ {
				used[n] += int(s.PEs)
			}
		}
	}
	free, avail, running, queued := 0, 0, 0, 0
	for n := 0; n < v.NumNodes(); n++ {
		if !v.NodeUp(n) {
			continue
		}
		pes := v.Node(n).PEs
		if used[n] > pes {
			return fmt.Errorf("node %d: running jobs hold %d processors of %d", n, used[n], pes)
		}
		if v.NodeFree(n) != pes-used[n] {
			return fmt.Errorf("node %d: %d free processors, but %d of %d are held", n, v.NodeFree(n), used[n], pes)
		}
		free += pes - used[n]
		avail += pes
	}
	for _, j := range e.Jobs() {
		switch j.State {
		case engine.Running:
			running++
		case engine.Queued:
			queued++
		}
	}
	switch {
	case free != v.FreePEs():
		return fmt.Errorf("the engine counts %d free processors, the nodes %d", v.FreePEs(), free)
	case avail != v.AvailPEs():
		return fmt.Errorf("the engine counts %d available processors, the nodes %d", v.AvailPEs(), avail)
	case running != len(v.Running()):
		return fmt.Errorf("%d jobs are running, the running list has %d", running, len(v.Running()))
	case queued != v.Queued():
		return fmt.Errorf("%d jobs are queued, the engine counts %d", queued, v.Queued())
	}
	return nil
}

// Schedule writes a run's schedule, one job per line in arrival order
// (id, state, start, end, processors): two runs with the same text made
// the same decisions.
func Schedule(e *engine.Engine) string {
	var b strings.Builder
	for _, j := range e.Jobs() {
		fmt.Fprintf(&b, "job %d %s start %g end %g on %s\n", j.ID, j.State, j.Start, j.End, j.Alloc)
	}
	return b.String()
}

func diff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("  first: %s\n  again: %s", la[i], lb[i])
		}
	}
	return "  (one schedule is longer)"
}

// String prints a case (its platform and jobs) so that a failure can be
// reproduced by hand.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s: platform", c.Name)
	for _, n := range c.Platform.Nodes {
		fmt.Fprintf(&b, " %d", n.PEs)
	}
	b.WriteString(" (processors per node)\n")
	if len(c.Jobs) > 60 {
		fmt.Fprintf(&b, "%d jobs (first 60):\n", len(c.Jobs))
	}
	for i, j := range c.Jobs {
		if i == 60 {
			break
		}
		fmt.Fprintf(&b, "  job %d submit %g run %g procs %d estimate %g\n", j.ID, j.Submit, j.Runtime, j.Procs, j.Estimate)
	}
	return b.String()
}

func job(id int64, submit, run float64, procs int, est float64) model.Job {
	j := model.NewJob(id, submit, run, procs)
	j.Estimate = est
	return j
}

// SingleProcessor adapts a case to a model in which every job runs on
// one single-processor node: every node has one processor (as many nodes
// as the case had processors) and every job asks for one.
func SingleProcessor(c Case) Case {
	out := Case{Name: c.Name + " (single-processor)", Platform: model.Uniform("single", c.Platform.TotalPEs(), 1)}
	out.Jobs = make([]model.Job, len(c.Jobs))
	for i, j := range c.Jobs {
		j.Procs = 1
		out.Jobs[i] = j
	}
	return out
}

// Fixtures are the hand-made cases every policy runs.
func Fixtures() []Case {
	four := model.Uniform("4 nodes", 4, 1)
	mixed := &model.Platform{Name: "mixed", Nodes: []model.NodeSpec{{PEs: 4, Speed: 1}, {PEs: 1, Speed: 1}, {PEs: 2, Speed: 1}, {PEs: 4, Speed: 1}}}
	gen, err := workload.Builtin(7, 400, 32, 0.9)
	if err != nil {
		panic(err) // the built-in workload's parameters are constants
	}
	return []Case{
		{"same-instant", four, []model.Job{
			job(1, 0, 10, 2, 10), job(2, 0, 10, 2, 10), job(3, 0, 5, 4, 5),
			job(4, 10, 5, 1, 5), job(5, 10, 5, 3, 5), job(6, 15, 0, 1, 1),
		}},
		{"wide-behind-narrow", four, []model.Job{
			job(1, 0, 20, 3, 20), job(2, 1, 10, 4, 10), job(3, 2, 5, 1, 5),
			job(4, 3, 50, 1, 60), job(5, 4, 2, 1, 2),
		}},
		{"zero-run-time", four, []model.Job{
			job(1, 0, 0, 4, -1), job(2, 0, 0, 1, 1), job(3, 5, 3, 4, 3), job(4, 5, 0, 2, -1),
		}},
		{"killed-at-estimate", four, []model.Job{
			job(1, 0, 30, 2, 10), job(2, 0, 5, 2, 20), job(3, 1, 8, 4, 4), job(4, 2, 3, 1, 1),
		}},
		{"nodes-of-several-sizes", mixed, []model.Job{
			job(1, 0, 10, 5, 10), job(2, 0, 7, 3, 8), job(3, 1, 4, 11, 4), job(4, 2, 6, 2, 9),
			job(5, 2, 1, 1, 1), job(6, 3, 12, 4, 12),
		}},
		{"builtin-400-jobs", model.Uniform("32 nodes", 32, 1), gen},
	}
}

// Random draws case i of a seed: a platform of 1–16 single-processor
// nodes or 1–6 nodes of 1–4 processors, and 1–40 jobs with estimates
// exact, over or under their run times.
func Random(seed, i uint64) Case {
	r := rand.New(rand.NewPCG(seed, i))
	var p *model.Platform
	if r.IntN(2) == 0 {
		p = &model.Platform{Name: "mixed"}
		for k, n := 0, 1+r.IntN(6); k < n; k++ {
			p.Nodes = append(p.Nodes, model.NodeSpec{PEs: 1 + r.IntN(4), Speed: 1})
		}
	} else {
		p = model.Uniform("uniform", 1+r.IntN(16), 1)
	}
	total := p.TotalPEs()
	kind := r.IntN(3)
	jobs := make([]model.Job, 1+r.IntN(40))
	for k := range jobs {
		run := float64(r.IntN(41))
		j := model.NewJob(int64(k+1), float64(r.IntN(61)), run, 1+r.IntN(total))
		switch kind {
		case 0: // exact
			j.Estimate = run
			if run == 0 {
				j.Estimate = -1
			}
		case 1: // upper bounds
			j.Estimate = run + float64(r.IntN(41))
		default: // anything: some jobs outlive their estimate
			j.Estimate = float64(1 + r.IntN(60))
		}
		jobs[k] = j
	}
	return Case{Name: fmt.Sprintf("random case %d of seed %d", i, seed), Platform: p, Jobs: jobs}
}
