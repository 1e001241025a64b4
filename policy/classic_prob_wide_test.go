package policy_test

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
)

// TestPropertyProbabilisticWideEqualsSum is
// TestPropertyProbabilisticBoundsEqualSum on cases its generator does not
// reach: platforms of up to 160 processors (rows longer than the coarse
// rows' 64 columns), nodes that fail (the running jobs requeued or not)
// and come back (P changes between passes), OverrunExtend, histograms of
// small windows, run times and requests below 1, equal to powers of two
// or far above the others (many bins), bursts of ends at one instant
// (more histogram changes between two passes than the change log keeps),
// many narrow running jobs, queue orders other than arrival (the head
// changes while the rows do not), and few stored copies (the steps
// between them grow during the run). Every decision from bounds is pyss's sum
// over rows computed afresh, every bound holds the bottleneck afresh,
// every row read is the row afresh, and the schedule is the one of the
// sum computed bin after bin and the one without the memo of refusals.
func TestPropertyProbabilisticWideEqualsSum(t *testing.T) {
	kinds := map[string]int{}
	decisions := 0
	rapid.Check(t, func(t *rapid.T) {
		s, _ := policy.ParseSpec("easy-probabilistic")
		s.Common = rapid.Bool().Draw(t, "common")
		s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
		s.Threshold = rapid.SampledFrom([]float64{0, 0.01, 0.05, 0.2, 0.5, 1}).Draw(t, "threshold")
		s.Window = rapid.SampledFrom([]int{0, 1, 2, 5}).Draw(t, "window")
		// A queue order other than arrival: a job that arrives may become
		// the head while no running job's step changed (the same ver).
		s.Order = rapid.SampledFrom([]string{"fcfs", "fcfs", "sjf", "lcfs", "largest", "wfp3"}).Draw(t, "order")
		ov := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		nodes := rapid.IntRange(1, 40).Draw(t, "nodes")
		pes := rapid.SampledFrom([]int{1, 2, 4}).Draw(t, "pes")
		p := model.Uniform("u", nodes, pes)
		total := nodes * pes
		n := rapid.IntRange(1, 50).Draw(t, "jobs")
		jobs := make([]model.Job, n)
		at := 0.0
		for i := range jobs {
			if !rapid.Bool().Draw(t, "burst") {
				at += float64(rapid.IntRange(0, 30).Draw(t, "gap"))
			}
			var run float64
			switch rapid.IntRange(0, 4).Draw(t, "runkind") {
			case 0:
				run = math.Ldexp(1, rapid.IntRange(0, 12).Draw(t, "runexp"))
			case 1:
				run = rapid.SampledFrom([]float64{0, 0.25, 0.5, 0.75}).Draw(t, "runfrac")
			case 2:
				run = 1e5 * float64(rapid.IntRange(1, 3).Draw(t, "runbig"))
			default:
				run = float64(rapid.IntRange(1, 60).Draw(t, "run"))
			}
			procs := rapid.IntRange(1, max(1, total/8)).Draw(t, "narrow")
			if rapid.IntRange(0, 3).Draw(t, "wide") == 0 {
				procs = rapid.IntRange(1, total).Draw(t, "size")
			}
			j := model.NewJob(int64(i+1), at, run, procs)
			j.Own()
			j.User = rapid.IntRange(0, 3).Draw(t, "user")
			switch rapid.IntRange(0, 4).Draw(t, "estkind") {
			case 0:
				j.Estimate = run
				if run == 0 {
					j.Estimate = -1
				}
			case 1:
				j.Estimate = math.Ldexp(1, rapid.IntRange(-2, 14).Draw(t, "estexp"))
			case 2:
				j.Estimate = rapid.SampledFrom([]float64{0.3, 1, 1e9}).Draw(t, "estodd")
			default:
				j.Estimate = run + float64(rapid.IntRange(0, 100).Draw(t, "slack"))
				if j.Estimate == 0 {
					j.Estimate = -1
				}
			}
			if ov == engine.OverrunExtend && j.Estimate > 0 && j.Estimate < run/64 {
				j.Estimate = run / 64 // a few extensions each, not thousands
			}
			jobs[i] = j
		}
		type fail struct {
			at, back float64
			node     int
			requeue  bool
		}
		var fails []fail
		for range rapid.IntRange(0, 3).Draw(t, "fails") {
			f := fail{at: float64(rapid.IntRange(0, 300).Draw(t, "failat")), node: rapid.IntRange(0, nodes-1).Draw(t, "failnode"), requeue: rapid.Bool().Draw(t, "requeue")}
			f.back = f.at + float64(rapid.IntRange(1, 200).Draw(t, "down"))
			fails = append(fails, f)
		}
		setup := func(e *engine.Engine) {
			for _, f := range fails {
				e.FailNode(f.at, f.node, f.requeue)
				e.RepairNode(f.back, f.node)
			}
		}
		cols := rapid.SampledFrom([]int{0, 4, 8, 64}).Draw(t, "coarse")
		defer policy.SetProbCoarse(cols, rapid.Bool().Draw(t, "always"))()
		// Copies few enough that the steps between two of them grow as
		// more jobs run (fitCopies and the coarse rows' strides cut back).
		defer policy.SetProbCopyFloats(rapid.SampledFrom([]int{1 << 16, 64, 256, 1024}).Draw(t, "copyfloats"))()
		run := func() *engine.Engine {
			e, err := policytest.Run(p, jobs, policy.NewClassic(s, policy.FirstFit{}), ov, setup)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		policy.VerifyProbChance(func(bounded, sum bool) {
			decisions++
			if bounded != sum {
				t.Fatalf("%s: decision %d from bounds %v, pyss's sum %v", s, decisions, bounded, sum)
			}
		})
		defer policy.VerifyProbChance(nil)
		policy.VerifyProbBound(func(kind string, lo, hi, fresh float64) {
			kinds[kind]++
			if fresh < lo || fresh > hi || math.IsNaN(lo) || math.IsNaN(hi) {
				t.Fatalf("%s: %s bounds [%v, %v] miss the bottleneck %v", s, kind, lo, hi, fresh)
			}
		})
		defer policy.VerifyProbBound(nil)
		policy.VerifyProbRows(func(row, fresh []float64) {
			for i := range row {
				if math.Float64bits(row[i]) != math.Float64bits(fresh[i]) {
					t.Fatalf("%s: row[%d] = %v, afresh %v", s, i, row[i], fresh[i])
				}
			}
		})
		defer policy.VerifyProbRows(nil)
		a := run()
		policy.VerifyProbChance(nil)
		policy.VerifyProbBound(nil)
		policy.VerifyProbRows(nil)
		a2 := run()
		if j, k := firstDifference(a, a2); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s verified, at %g on %s not", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
		policy.SetProbMemo(false)
		b := run()
		policy.SetProbMemo(true)
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with the memo, at %g on %s without", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
		policy.SetProbBounds(false)
		defer policy.SetProbBounds(true)
		b = run()
		if j, k := firstDifference(a, b); j != nil {
			t.Fatalf("%s: job %d starts at %g on %s with bounds, at %g on %s with the sum", s, j.ID, j.Start, j.Alloc, k.Start, k.Alloc)
		}
	})
	if kinds["coarse"] == 0 || kinds["earlier"] == 0 || kinds["left"] == 0 {
		t.Fatalf("bounds checked: %v; want every kind", kinds)
	}
	t.Logf("%d decisions; bounds checked: %v", decisions, kinds)
}
