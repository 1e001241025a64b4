package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
)

// extremeEstimates are estimates at the edges of the index's float32
// inner nodes: subnormal, below one, at and past float32's largest
// value, and float64's largest.
var extremeEstimates = []float64{
	1e-310, 5e-324, 0.5, 1, 3, 16777217, 16777219,
	math.MaxFloat32, float64(math.Nextafter32(math.MaxFloat32, 0)), math.Nextafter(math.MaxFloat32, math.Inf(1)),
	1e39, 1e300, math.MaxFloat64,
}

// TestQindexNextEqualsScanExtreme: with the estimates above, jobs added
// past the reserved count and indices freed and refilled (a requeued
// job), next finds exactly the index a scan of the queued jobs finds,
// for any shadow (+Inf included) and extra.
func TestQindexNextEqualsScanExtreme(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 99))
	for round := range 300 {
		var x qindex
		reserved := 1 + r.IntN(20)
		x.reserve(reserved)
		all := make([]*engine.Job, reserved+r.IntN(60)) // indices past the reservation too
		for i := range all {
			mj := model.NewJob(int64(i+1), 0, 1, 1+r.IntN(8))
			j := &engine.Job{Job: &mj, Index: int32(i)}
			j.Est = extremeEstimates[r.IntN(len(extremeEstimates))]
			if r.IntN(3) == 0 {
				j.Est = math.Ldexp(r.Float64(), r.IntN(2100)-1074)
			}
			all[i] = j
		}
		queued := make([]bool, len(all))
		for step := range 200 {
			i := r.IntN(len(all))
			if queued[i] {
				x.del(i)
			} else {
				x.add(all[i])
			}
			queued[i] = !queued[i]
			now := []float64{0, 1, 1e6, 1e38, 1e300}[r.IntN(5)]
			shadow := now + extremeEstimates[r.IntN(len(extremeEstimates))]
			if r.IntN(5) == 0 {
				shadow = math.Inf(1)
			}
			free, extra := r.IntN(10), r.IntN(10)
			from := r.IntN(len(all) + 2)
			want := -1
			for k := from; k < len(all); k++ {
				j := all[k]
				if queued[k] && j.Procs <= free && (j.Procs <= min(free, extra) || now+j.Est <= shadow) {
					want = k
					break
				}
			}
			if got := x.next(from, free, extra, now, shadow); got != want {
				t.Fatalf("round %d step %d: next(%d, free %d, extra %d, now %g, shadow %g) = %d, the scan finds %d", round, step, from, free, extra, now, shadow, got, want)
			}
		}
	}
}

// submitter is a hook that submits a copy of some arriving jobs later,
// so that the engine's job list outgrows the count EASY reserved.
type submitter struct{ est func(i int) float64 }

func (s *submitter) Before(e *engine.Engine, n engine.Notice) {
	if n.Kind != engine.NoticeSubmitted || n.Job.ID >= 1000 || n.Job.ID%3 != 0 {
		return
	}
	mj := model.NewJob(1000+n.Job.ID, 0, n.Job.Runtime, n.Job.Procs)
	mj.Estimate = s.est(int(n.Job.ID))
	e.Submit(e.Now()+float64(n.Job.ID%7), mj)
}

// TestEASYIndexEqualsScanRequeuesHooks: indexed EASY and the scanning
// oracle make the same decisions with node failures that requeue jobs
// (OverrunExtend: the requeued job's estimate falls back to its
// request), jobs submitted by a hook past the reserved count, and
// estimates at float32's edges.
func TestEASYIndexEqualsScanRequeuesHooks(t *testing.T) {
	requeues := 0
	for seed := range uint64(150) {
		r := rand.New(rand.NewPCG(seed, 30))
		p := model.Uniform("u", 2+r.IntN(6), 1+r.IntN(2))
		ests := make([]float64, 200)
		for i := range ests {
			// Not the subnormal ones: under OverrunExtend a job whose
			// estimate is far below its start's spacing grows it by
			// nothing at each expiry (an endless loop, reported apart).
			ests[i] = extremeEstimates[2+r.IntN(len(extremeEstimates)-2)]
			if r.IntN(2) == 0 {
				ests[i] = float64(1 + r.IntN(30))
			}
		}
		jobs := make([]model.Job, 5+r.IntN(30))
		for i := range jobs {
			j := model.NewJob(int64(i+1), float64(r.IntN(40)), float64(r.IntN(30)), 1+r.IntN(p.TotalPEs()))
			j.Estimate = ests[i]
			jobs[i] = j
		}
		type fail struct {
			at, up float64
			node   int
		}
		var fails []fail
		for range r.IntN(6) {
			at := float64(r.IntN(80))
			fails = append(fails, fail{at, at + float64(1+r.IntN(20)), r.IntN(len(p.Nodes))})
		}
		over := engine.Overrun(r.IntN(2))
		run := func(pol engine.Policy) *engine.Engine {
			js := append([]model.Job(nil), jobs...)
			e := engine.New(p, js, pol, engine.Options{Overrun: over})
			e.AddHook(&submitter{est: func(i int) float64 { return ests[100+i%100] }})
			for _, f := range fails {
				e.FailNode(f.at, f.node, true)
				e.RepairNode(f.up, f.node)
			}
			if err := e.Run(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return e
		}
		a, b := run(NewEASY(FirstFit{})), run(NewLinearEASY(FirstFit{}))
		if len(a.Jobs()) != len(b.Jobs()) || len(a.Jobs()) <= len(jobs) && len(jobs) >= 3 {
			t.Fatalf("seed %d: %d and %d jobs, %d submitted at load", seed, len(a.Jobs()), len(b.Jobs()), len(jobs))
		}
		for i, j := range a.Jobs() {
			k := b.Jobs()[i]
			requeues += j.Preemptions
			if j.Start != k.Start && !(math.IsNaN(j.Start) && math.IsNaN(k.Start)) || j.Alloc.String() != k.Alloc.String() || j.State != k.State {
				t.Fatalf("seed %d job %d: indexed EASY %s at %g on %s, the scan %s at %g on %s", seed, j.ID, j.State, j.Start, j.Alloc, k.State, k.Start, k.Alloc)
			}
		}
	}
	if requeues < 20 {
		t.Fatalf("only %d requeues over all seeds: the failures do not exercise requeueing", requeues)
	}
}
