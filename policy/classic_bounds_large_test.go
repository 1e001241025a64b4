package policy_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestClassicBoundsLargeEqualPlain is TestPropertyClassicBoundsEqualPlain
// on overloaded backlogs of thousands of jobs (the shape the bounds are
// for: most reservations lie far beyond the latest rise), with history
// predictions, early ends, kills and extensions, and node failures that
// requeue running jobs (new generations, requeues of started jobs still
// in the lazy queue). Every placement is checked against the plain
// search and the schedule against the plain searches'.
func TestClassicBoundsLargeEqualPlain(t *testing.T) {
	placed, future := 0, 0
	count := func(now, plain float64) {
		placed++
		if plain > now {
			future++
		}
	}
	specs := []string{
		"conservative-no-compress",
		"classic:depth=all,compress=no,estimate=epp",
		"classic:depth=all,compress=yes,estimate=alpha,common=yes",
		"classic:depth=all,compress=no,estimate=last,consult=pyss",
		"classic:depth=all,compress=no,estimate=average,window=3",
		"conservative-double",
	}
	for seed := uint64(1); seed <= uint64(len(specs)); seed++ {
		name := specs[seed-1]
		pol, err := policy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := pol.(*policy.Classic).Spec()
		r := rand.New(rand.NewPCG(seed, 32))
		procs := []int{64, 200, 1000}[seed%3]
		p := model.Uniform("u", procs, 1)
		jobs := make([]model.Job, 1200)
		submit := 0.0
		for i := range jobs {
			if r.IntN(4) != 0 {
				submit += math.Floor(r.ExpFloat64() * 20)
			}
			run := math.Round(math.Exp(r.NormFloat64()*1.5+5)*4) / 4
			n := max(1, min(procs, int(math.Exp(r.Float64()*math.Log(float64(procs))))))
			j := model.NewJob(int64(i+1), submit, run, n)
			switch r.IntN(4) {
			case 0:
				j.Estimate = run
			case 1:
				j.Estimate = -1
			case 2:
				j.Estimate = math.Ceil(run * (1 + 3*r.Float64()))
			default:
				j.Estimate = max(1, math.Floor(run*0.8))
			}
			j.Own()
			j.User = r.IntN(8)
			jobs[i] = j
		}
		var evs []platformEvent
		for range 6 {
			evs = append(evs, platformEvent{kind: r.IntN(3), node: r.IntN(procs), at: submit * r.Float64(), down: float64(r.IntN(3000)), requeue: r.IntN(4) != 0, pes: 1 + r.IntN(4)})
		}
		if d := boundedEqualsPlain(t, s, p, jobs, engine.Overrun(seed%2), evs, seed, count); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
	}
	// The backlogs are real: most placements are reservations in the future.
	t.Logf("%d placements, %d in the future", placed, future)
	if placed == 0 || 2*future < placed {
		t.Fatalf("%d of %d placements in the future", future, placed)
	}
}

// TestPropertyClassicBoundsExtremeEstimates: estimates outside
// fitClass's classes (below 1, at or above 2^63) and processors counts
// at a class's edge mixed with ordinary jobs leave every depth=all
// placement equal to the plain search (such a job is searched plainly;
// its slot's end, however far, bounds the generation's rises). An
// estimate of +Inf (no reader accepts one) is left out: alpha and
// walltime-pct predict NaN from it (0·Inf), a slot ending at NaN, whose
// rise rose(NaN) does not record.
func TestPropertyClassicBoundsExtremeEstimates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genAllSpec(t)
		procs := rapid.SampledFrom([]int{7, 8, 9, 15, 16, 17, 64}).Draw(t, "procs")
		p := model.Uniform("u", procs, 1)
		n := rapid.IntRange(1, 60).Draw(t, "jobs")
		jobs := make([]model.Job, n)
		submit := 0.0
		for i := range jobs {
			submit += float64(rapid.IntRange(0, 5).Draw(t, "dt"))
			run := float64(rapid.IntRange(0, 40).Draw(t, "run"))
			j := model.NewJob(int64(i+1), submit, run, rapid.IntRange(1, procs).Draw(t, "size"))
			j.Estimate = rapid.SampledFrom([]float64{run, run + 7, math.Max(1, run-3), 0.5, math.Nextafter(1, 0), 1, 1 << 62, math.Nextafter(1<<63, 0), 1 << 63, 1e300}).Draw(t, "estimate")
			j.Own()
			j.User = rapid.IntRange(0, 2).Draw(t, "user")
			jobs[i] = j
		}
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		if d := boundedEqualsPlain(t, s, p, jobs, o, nil, 0, nil); d != "" {
			t.Fatalf("%s: %s", s, d)
		}
	})
}

// boundedEqualsPlain runs jobs under s's depth=all policy with bounds and
// with plain searches (runClassicEvents) and returns the first
// difference, "" if none: a placement whose answer is not the plain
// search's, an error, a job's start, end, state or processors. Every
// placement's time and plain answer go to onFit (if not nil).
func boundedEqualsPlain(t fataler, s policy.Spec, p *model.Platform, jobs []model.Job, o engine.Overrun, evs []platformEvent, seed uint64, onFit func(now, plain float64)) string {
	var bad string
	policy.VerifyClassicFit(func(now, dur float64, procs int, bounded, plain float64) {
		if onFit != nil {
			onFit(now, plain)
		}
		if bounded != plain && bad == "" {
			bad = fmt.Sprintf("at %v, %d processors for %v: %v, plain search %v", now, procs, dur, bounded, plain)
		}
	})
	defer policy.VerifyClassicFit(nil)
	a, ea := runClassicEvents(t, p, jobs, nil, policy.NewClassic(s, policy.FirstFit{}), o, evs, seed)
	if bad != "" {
		return bad
	}
	policy.VerifyClassicFit(nil)
	b, eb := runClassicEvents(t, p, jobs, nil, policy.NewClassicPlain(s, policy.FirstFit{}), o, evs, seed)
	if fmt.Sprint(ea) != fmt.Sprint(eb) {
		return fmt.Sprintf("error %v, plain %v", ea, eb)
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("job %s, plain %s", a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d jobs, plain %d", len(a), len(b))
	}
	return ""
}
