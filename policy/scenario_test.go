package policy_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

type scenario struct {
	name  string
	procs int
	jobs  []model.Job
	opts  engine.Options
	// want start times by policy name (job id → start)
	want map[string]map[int64]float64
	// optional: final states by policy
	states map[string]map[int64]engine.State
}

func runScenario(t *testing.T, sc scenario) {
	for pol, want := range sc.want {
		t.Run(sc.name+"/"+pol, func(t *testing.T) {
			p, err := policy.New(pol, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := Run(t, model.Uniform("t", sc.procs, 1), sc.jobs, p, sc.opts)
			if diff := cmp.Diff(want, Starts(e)); diff != "" {
				t.Errorf("start times (-want +got):\n%s\nschedule:\n%s", diff, Gantt(e, 1))
			}
			for id, st := range sc.states[pol] {
				for _, j := range e.Jobs() {
					if j.ID == id && j.State != st {
						t.Errorf("job %d ended %s, want %s", id, j.State, st)
					}
				}
			}
		})
	}
}

// TestClassicBackfill is the textbook case (Lifka 1995; Mu'alem &
// Feitelson 2001, §2): a wide job J2 is blocked until J1 ends at 10; the
// small later job J3 fits in the 2 idle processors and ends (at 7) before
// J2's shadow time (10), so both backfilling policies start it at once
// without delaying J2. FCFS makes J3 wait behind J2.
//
//	EASY / conservative        FCFS
//	p0  1111111111222225       1111111111222223333  (J3 on p0-1 at 15)
//	p1  1111111111222225
//	p2  ..33333...22222
//	p3  ..33333...22222
func TestClassicBackfill(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10),
		J(2).At(1).Procs(4).Run(5).Est(5),
		J(3).At(2).Procs(2).Run(5).Est(5),
	)
	runScenario(t, scenario{
		name: "classic", procs: 4, jobs: jobs,
		want: map[string]map[int64]float64{
			"fcfs":         {1: 0, 2: 10, 3: 15},
			"easy":         {1: 0, 2: 10, 3: 2},
			"conservative": {1: 0, 2: 10, 3: 2},
		},
	})
}

// TestEASYDelaysNonHead shows the one difference between EASY and
// conservative backfilling (Mu'alem & Feitelson 2001, §2.1–2.2): EASY
// protects only the queue head. On 4 processors J1 (3 procs, 0–10) runs;
// J2 (3 procs) is the blocked head with shadow time 10 and one extra
// processor; J3 (4 procs) waits behind it. J4 (1 proc, 30 s) arrives at 3:
// EASY backfills it on the extra processor — J2 still starts at 10, but J4
// now holds a processor until 33 and J3, which needs all 4, slips from 20
// to 33. Conservative had already given J3 the slot [20, 30), so J4 may
// not start before 30.
func TestEASYDelaysNonHead(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(3).Run(10).Est(10),
		J(2).At(1).Procs(3).Run(10).Est(10),
		J(3).At(2).Procs(4).Run(10).Est(10),
		J(4).At(3).Procs(1).Run(30).Est(30),
	)
	runScenario(t, scenario{
		name: "delay", procs: 4, jobs: jobs,
		want: map[string]map[int64]float64{
			"fcfs":         {1: 0, 2: 10, 3: 20, 4: 30},
			"easy":         {1: 0, 2: 10, 3: 33, 4: 3},
			"conservative": {1: 0, 2: 10, 3: 20, 4: 30},
		},
	})
}

// TestOverrun checks both documented overrun options on a job that
// outlives its estimate (facts §2c, "Estimate handling"): J1 asks for 10 s
// but needs 20. Killed at its estimate, it frees both processors at 10
// and J2 starts then. Extended, it runs to 20; at 10 the scheduler's
// estimate grows to 20 and J2 waits until 20.
func TestOverrun(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(20).Est(10),
		J(2).At(1).Procs(2).Run(5).Est(5),
		J(3).At(2).Procs(1).Run(3).Est(3),
	)
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		runScenario(t, scenario{
			name: "kill", procs: 2, jobs: jobs, opts: engine.Options{Overrun: engine.OverrunKill},
			want:   map[string]map[int64]float64{pol: {1: 0, 2: 10, 3: 15}},
			states: map[string]map[int64]engine.State{pol: {1: engine.Killed, 2: engine.Completed}},
		})
		runScenario(t, scenario{
			name: "extend", procs: 2, jobs: jobs, opts: engine.Options{Overrun: engine.OverrunExtend},
			want:   map[string]map[int64]float64{pol: {1: 0, 2: 20, 3: 25}},
			states: map[string]map[int64]engine.State{pol: {1: engine.Completed, 2: engine.Completed}},
		})
	}
}

// TestCompression checks conservative backfilling's schedule compression
// (Mu'alem & Feitelson 2001, §2.2): J1 asks for 20 s but ends at 5; J2's
// reservation at 20 moves to 5. J3, reserved behind J2 at 25, moves to 10.
func TestCompression(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(5).Est(20),
		J(2).At(1).Procs(2).Run(5).Est(5),
		J(3).At(2).Procs(2).Run(5).Est(5),
	)
	runScenario(t, scenario{
		name: "compress", procs: 2, jobs: jobs,
		want: map[string]map[int64]float64{
			"conservative": {1: 0, 2: 5, 3: 10},
			"easy":         {1: 0, 2: 5, 3: 10},
		},
	})
}

// TestSameTimeConvention pins the pyss convention: processors freed at t
// are usable by a job starting at t, and an arrival at t is seen before a
// completion at t (both handled before anything later).
func TestSameTimeConvention(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10),
		J(2).At(10).Procs(2).Run(1).Est(1),
	)
	runScenario(t, scenario{
		name: "same-time", procs: 2, jobs: jobs,
		want: map[string]map[int64]float64{
			"fcfs": {1: 0, 2: 10}, "easy": {1: 0, 2: 10}, "conservative": {1: 0, 2: 10},
		},
	})
}

// TestZeroRuntime: jobs of runtime 0 (CEA-Curie has 17,286) start and end
// at one instant and do not block anyone.
func TestZeroRuntime(t *testing.T) {
	jobs := Jobs(
		J(1).At(0).Procs(2).Run(0),
		J(2).At(0).Procs(2).Run(0),
		J(3).At(0).Procs(2).Run(4),
	)
	runScenario(t, scenario{
		name: "zero", procs: 2, jobs: jobs,
		want: map[string]map[int64]float64{
			"fcfs": {1: 0, 2: 0, 3: 0}, "easy": {1: 0, 2: 0, 3: 0}, "conservative": {1: 0, 2: 0, 3: 0},
		},
	})
}

func TestUnknownPolicy(t *testing.T) {
	_, err := policy.New("eazy", nil)
	if err == nil || !strings.Contains(err.Error(), "eazy") || !strings.Contains(err.Error(), "easy") {
		t.Fatalf("err = %v, want it to name the typo and the known policies", err)
	}
}
