package unstable

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

func platform(specs ...[2]float64) *model.Platform {
	p := model.Uniform("u", len(specs), 1)
	for i, s := range specs {
		p.Nodes[i].Stability, p.Nodes[i].Delay = s[0], s[1]
	}
	return p
}

func run(t *testing.T, p *model.Platform, jobs []model.Job, sel func(*State) policy.NodeSelector, seed uint64) (*engine.Engine, *State, []Draw) {
	t.Helper()
	return runWith(t, Params{Model: "published"}, p, jobs, sel, seed)
}

func runWith(t *testing.T, params Params, p *model.Platform, jobs []model.Job, sel func(*State) policy.NodeSelector, seed uint64) (*engine.Engine, *State, []Draw) {
	t.Helper()
	st := NewState(len(p.Nodes), params, seed)
	e := engine.New(p, jobs, policy.NewEASY(sel(st)), engine.Options{Overrun: engine.OverrunExtend})
	var draws []Draw
	e.AddHook(Published{State: st, OnDraw: func(d Draw) { draws = append(draws, d) }})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e, st, draws
}

func byID(e *engine.Engine, id int64) *engine.Job {
	for _, j := range e.Jobs() {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func firstFit(*State) policy.NodeSelector { return policy.FirstFit{} }

// TestDelayAtSubmission pins §3.2's process: at a submission each running
// job is examined on its machines; a machine with p = 0 always delays,
// DL = EL·(1 + d); a job is delayed at most once (§3.1, restriction 4);
// a stable machine (p = 1) never delays. Then §2.4's onFinish: QR =
// EL/AL and u = (u·count + QR)/(count + 1) on the delaying machine.
func TestDelayAtSubmission(t *testing.T) {
	p := platform([2]float64{0, 1}, [2]float64{1, 9})
	jobs := Jobs(
		J(1).At(0).Procs(1).Run(10), // node 0 (unstable, d = 1)
		J(2).At(2).Procs(1).Run(10), // node 1 (stable)
		J(3).At(5).Procs(1).Run(1),  // waits; its submission must not delay J1 again
	)
	e, st, draws := run(t, p, jobs, firstFit, 1)
	j1, j2, j3 := byID(e, 1), byID(e, 2), byID(e, 3)
	// J2's submission at 2 delays J1 to 10·(1+1) = 20.
	if j1.End != 20 || j2.End != 12 {
		t.Fatalf("J1 ends %g (want 20), J2 ends %g (want 12)", j1.End, j2.End)
	}
	// J3 starts at 12 on node 1 and is never delayed (stable node).
	if j3.Start != 12 || j3.End != 13 {
		t.Fatalf("J3 %g–%g", j3.Start, j3.End)
	}
	// J1 is examined once (at J2's submission) and not again at J3's.
	n1 := 0
	for _, d := range draws {
		if d.Job == 1 {
			n1++
		}
	}
	if n1 != 1 {
		t.Errorf("J1 examined %d times, want once", n1)
	}
	// u of node 0: QR(J1) = 10/20 = 0.5 with count 0 → 0.5; node 1 unchanged.
	if st.U[0] != 0.5 || st.U[1] != 1 {
		t.Errorf("u = %v, want [0.5 1]", st.U)
	}
	if q := st.MeanQoS(); math.Abs(q-(0.5+1+1)/3) > 1e-12 {
		t.Errorf("mean QoS %g", q)
	}
	// The pseudo-code's reading QR = AL/EL (§2.4): J1 20/10 = 2, the
	// others 1 → 4/3; it rises with delays where EL/AL falls.
	if q := st.MeanQoSALEL(); math.Abs(q-(2+1+1)/3.0) > 1e-12 {
		t.Errorf("mean QoS (AL/EL) %g, want 4/3", q)
	}
}

// TestLongestDelayWins: a job on two machines that both delay it gets the
// longest delayed length (§3.2: "取 DL 最长的做为实际结果"), and both
// machines' u learn its QR.
func TestLongestDelayWins(t *testing.T) {
	p := platform([2]float64{0, 1}, [2]float64{0, 3}, [2]float64{1, 0})
	jobs := Jobs(J(1).At(0).Procs(2).Run(10), J(2).At(1).Procs(1).Run(5))
	e, st, _ := run(t, p, jobs, firstFit, 1)
	if j := byID(e, 1); j.End != 40 {
		t.Fatalf("J1 ends %g, want 10·(1+3) = 40", j.End)
	}
	if st.U[0] != 0.25 || st.U[1] != 0.25 || st.U[2] != 1 {
		t.Errorf("u = %v, want [0.25 0.25 1]", st.U)
	}
}

// TestUUpdateReadings pins the two readings of where u is updated. §2.2
// defines u as the mean QR over the c_i jobs that ran on Machine_i
// ("假设在 Machine_i 实际运行的任务共有 c_i 个") and §2.3 step 4 updates "所在计算结点的
// 稳定性参数 u" (the u of the nodes the job ran on): u_update all. The
// pseudo-code's loop runs over job.delayMachineList: u_update delaying
// (the default). J1 runs on nodes 0 (p = 0, d = 1) and 1 (stable) and is
// delayed by node 0 at J2's submission (QR 0.5); J2 runs on stable node 2
// undelayed (QR 1).
func TestUUpdateReadings(t *testing.T) {
	p := platform([2]float64{0, 1}, [2]float64{1, 0}, [2]float64{1, 0})
	jobs := Jobs(J(1).At(0).Procs(2).Run(10), J(2).At(2).Procs(1).Run(10))
	for _, c := range []struct {
		update string
		u      []float64
		count  []int
	}{
		{"", []float64{0.5, 1, 1}, []int{1, 0, 0}},
		{"delaying", []float64{0.5, 1, 1}, []int{1, 0, 0}},
		{"all", []float64{0.5, 0.5, 1}, []int{1, 1, 1}},
	} {
		e, st, _ := runWith(t, Params{Model: "published", UUpdate: c.update}, p, jobs, firstFit, 1)
		if j := byID(e, 1); j.End != 20 || j.Alloc.String() != "0-1" {
			t.Fatalf("u_update %q: J1 on %s ends %g, want 0-1 and 20", c.update, j.Alloc, j.End)
		}
		if !slices.Equal(st.U, c.u) || !slices.Equal(st.count, c.count) {
			t.Errorf("u_update %q: u = %v (count %v), want %v (count %v)", c.update, st.U, st.count, c.u, c.count)
		}
	}
}

// TestSumCompletion: the sum of completion times measured from the first
// submission (§3.3's 总完成时间 read as a sum), against the makespan (its
// maximum). TestDelayAtSubmission's schedule: J1 0–20, J2 2–12, J3 12–13,
// first submission at 0 → 20 + 12 + 13 = 45; shifted by 100 s, the same.
func TestSumCompletion(t *testing.T) {
	p := platform([2]float64{0, 1}, [2]float64{1, 9})
	for _, at := range []float64{0, 100} {
		jobs := Jobs(J(1).At(at).Procs(1).Run(10), J(2).At(at+2).Procs(1).Run(10), J(3).At(at+5).Procs(1).Run(1))
		_, st, _ := run(t, p, jobs, firstFit, 1)
		if got := st.SumCompletion(); got != 45 {
			t.Errorf("jobs from %g: sum of completion times %g, want 45", at, got)
		}
	}
	if got := NewState(1, Params{}, 1).SumCompletion(); !math.IsNaN(got) {
		t.Errorf("no job ended: %g, want NaN", got)
	}
}

// TestUAverage: u is the running mean of the QR of the jobs a machine
// delayed (§2.2, §2.4): QRs 0.5 then 0.25 give u = 0.375.
func TestUAverage(t *testing.T) {
	st := NewState(1, Params{Model: "published"}, 1)
	for _, al := range []float64{20, 40} {
		j := &engine.Job{Job: new(model.NewJob(1, 0, 10, 1))}
		j.Index, j.Start, j.End = 7, 0, al
		j.Alloc = engine.Alloc{{First: 0, Count: 1, PEs: 1}}
		st.delay[7] = []int32{0}
		st.finish(j)
	}
	if st.U[0] != 0.375 {
		t.Fatalf("u = %g, want 0.375", st.U[0])
	}
}

// TestImprovedPrefersBetterNodes: by u descending (§2.4, Job.start), a
// job gets the node that delayed less.
func TestImprovedPrefersBetterNodes(t *testing.T) {
	p := platform([2]float64{0, 3}, [2]float64{0, 1})
	st := NewState(2, Params{Model: "published"}, 1)
	st.U[0], st.U[1] = 0.25, 0.5
	e := engine.New(p, Jobs(J(1).Procs(1).Run(5)), policy.NewEASY(ByU{S: st}), engine.Options{})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if a := byID(e, 1).Alloc.String(); a != "1" {
		t.Fatalf("job on node %s, want 1 (u = 0.5 > 0.25)", a)
	}
	// Expected delay: (1−p)·d = 3 vs 1 → node 1 too, even before any u is learnt.
	e = engine.New(p, Jobs(J(1).Procs(1).Run(5)), policy.NewEASY(ByExpected{S: NewState(2, Params{}, 1)}), engine.Options{})
	e.Run()
	if a := byID(e, 1).Alloc.String(); a != "1" {
		t.Fatalf("expected-delay choice: node %s, want 1", a)
	}
}

// TestStableIsFoundationEASY: with every node stable (p = 1) the classic
// (random) and improved (u) variants produce exactly the foundation EASY
// schedule (start and end of every job), on random workloads.
func TestStableIsFoundationEASY(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "nodes")
		specs := make([][2]float64, n)
		for i := range specs {
			specs[i] = [2]float64{1, float64(rapid.IntRange(0, 5).Draw(rt, "d"))}
		}
		p := platform(specs...)
		var jobs []model.Job
		for i, k := 0, rapid.IntRange(1, 30).Draw(rt, "jobs"); i < k; i++ {
			run := float64(rapid.IntRange(1, 30).Draw(rt, "run"))
			j := model.NewJob(int64(i+1), float64(rapid.IntRange(0, 40).Draw(rt, "at")), run, rapid.IntRange(1, n).Draw(rt, "size"))
			j.Estimate = run + float64(rapid.IntRange(0, 10).Draw(rt, "slack"))
			jobs = append(jobs, j)
		}
		ref := engine.New(p, jobs, policy.NewEASY(policy.FirstFit{}), engine.Options{Overrun: engine.OverrunExtend})
		if err := ref.Run(); err != nil {
			rt.Fatal(err)
		}
		for name, sel := range map[string]func(*State) policy.NodeSelector{
			"random": func(*State) policy.NodeSelector { return Random{Seed: 3} },
			"u":      func(s *State) policy.NodeSelector { return ByU{S: s} },
		} {
			e, _, _ := run(t, p, jobs, sel, 3)
			for i, j := range e.Jobs() {
				r := ref.Jobs()[i]
				if j.Start != r.Start || j.End != r.End {
					rt.Fatalf("%s: job %d runs %g–%g, foundation EASY %g–%g", name, j.ID, j.Start, j.End, r.Start, r.End)
				}
			}
		}
	})
}

// TestCommonRandomNumbers: classic and improved runs of one replication
// see the same instability draws: whenever both examine the same job on
// the same machine at the same submission, the draw is the same — and
// the draws do depend on the seed.
func TestCommonRandomNumbers(t *testing.T) {
	specs := make([][2]float64, 16)
	for i := range specs {
		specs[i] = [2]float64{0.5, 2}
	}
	p := platform(specs...)
	var jobs []model.Job
	for i := 0; i < 200; i++ {
		jobs = append(jobs, model.NewJob(int64(i+1), float64(i*3), float64(5+i%40), 1+i%6))
	}
	type key struct {
		s, j int64
		n    int
	}
	collect := func(sel func(*State) policy.NodeSelector, seed uint64) map[key]float64 {
		_, _, draws := run(t, p, jobs, sel, seed)
		m := map[key]float64{}
		for _, d := range draws {
			m[key{d.Submission, d.Job, d.Node}] = d.U
		}
		return m
	}
	classic := collect(func(*State) policy.NodeSelector { return Random{Seed: 9} }, 9)
	improved := collect(func(s *State) policy.NodeSelector { return ByU{S: s} }, 9)
	common, same := 0, 0
	for k, u := range classic {
		if v, ok := improved[k]; ok {
			common++
			if u == v {
				same++
			}
		}
	}
	if common < 20 || same != common {
		t.Fatalf("%d draws in common, %d equal", common, same)
	}
	other := collect(func(*State) policy.NodeSelector { return Random{Seed: 9} }, 10)
	diff := 0
	for k, u := range classic {
		if v, ok := other[k]; ok && v != u {
			diff++
		}
	}
	if diff == 0 {
		t.Fatal("draws do not depend on the seed")
	}
}

// TestPeriodsModel: a node with p = 0.5 is unstable about half the time;
// jobs on it run slower on average; p = 1 never slows.
func TestPeriodsModel(t *testing.T) {
	for _, c := range []struct {
		p      float64
		slowed bool
	}{{1, false}, {0.5, true}} {
		pl := platform([2]float64{c.p, 1})
		var jobs []model.Job
		for i := 0; i < 100; i++ {
			jobs = append(jobs, model.NewJob(int64(i+1), float64(i*100), 50, 1))
		}
		st := NewState(1, Params{Model: "periods", Cycle: 200}, 4)
		e := engine.New(pl, jobs, policy.NewEASY(policy.FirstFit{}), engine.Options{Overrun: engine.OverrunExtend})
		e.AddHook(NewPeriods(st))
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		q := st.MeanQoS()
		if c.slowed && !(q < 0.95 && q > 0.5) || !c.slowed && q != 1 {
			t.Errorf("p = %g: mean QoS %g", c.p, q)
		}
		for _, j := range e.Jobs() {
			if al := j.End - j.Start; al < 50-1e-9 || al > 100+1e-9 {
				t.Fatalf("job %d ran %g; with d = 1 it takes between 50 and 100", j.ID, al)
			}
		}
	}
}

// TestDeterministic: both instability models give identical schedules on
// the same inputs and seed (determinism contract).
func TestDeterministic(t *testing.T) {
	specs := make([][2]float64, 8)
	for i := range specs {
		specs[i] = [2]float64{0.3 + 0.1*float64(i%5), float64(1 + i%3)}
	}
	var jobs []model.Job
	for i := 0; i < 300; i++ {
		jobs = append(jobs, model.NewJob(int64(i+1), float64(i*7), float64(20+i%90), 1+i%4))
	}
	for _, m := range []string{"published", "periods"} {
		var ends [2][]float64
		for k := range ends {
			st := NewState(8, Params{Model: m, Cycle: 300}, 5)
			e := engine.New(platform(specs...), jobs, policy.NewEASY(ByU{S: st}), engine.Options{Overrun: engine.OverrunExtend})
			if m == "periods" {
				e.AddHook(NewPeriods(st))
			} else {
				e.AddHook(Published{State: st})
			}
			if err := e.Run(); err != nil {
				t.Fatal(err)
			}
			for _, j := range e.Jobs() {
				ends[k] = append(ends[k], j.End)
			}
			ends[k] = append(ends[k], st.MeanQoS())
		}
		for i := range ends[0] {
			if ends[0][i] != ends[1][i] {
				t.Fatalf("%s: run differs at %d: %g vs %g", m, i, ends[0][i], ends[1][i])
			}
		}
		if ends[0][len(ends[0])-1] >= 1 {
			t.Errorf("%s: no job was slowed", m)
		}
	}
}
