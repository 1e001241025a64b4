package policy_test

import (
	"testing"

	. "github.com/gridsched/gridsched/internal/simtest"
)

// sameTimeJobs is issue 12's case. 128 processors are all busy: A and B
// (4 processors each) and C (120) start at 0; A and B end at 100, C at
// 1000. The blocked head H needs 43 processors (shadow time 1000). Behind
// it wait X (8 processors), Y and Z (4 each), all short. At 100 both A and
// B have ended and 8 processors are free: X, first in queue order among
// the jobs that fit, backfills (ends 110 <= shadow 1000); Y and Z follow
// when X ends. Consulting EASY between A's and B's completions would see 4
// free processors and start Y, then Z, overtaking X although X fitted at
// 100 in queue order: a state that never exists in the modelled system.
// aEst and bEst are A's and B's estimates: 100 (the job ends at its
// estimate) or larger (it ends early).
func sameTimeJobs(aEst, bEst float64) scenario {
	return scenario{
		procs: 128,
		jobs: Jobs(
			J(1).At(0).Procs(4).Run(100).Est(aEst),    // A
			J(2).At(0).Procs(4).Run(100).Est(bEst),    // B
			J(3).At(0).Procs(120).Run(1000).Est(1000), // C
			J(4).At(1).Procs(43).Run(50).Est(50),      // H, the head
			J(5).At(2).Procs(8).Run(10).Est(10),       // X
			J(6).At(3).Procs(4).Run(10).Est(10),       // Y
			J(7).At(4).Procs(4).Run(10).Est(10),       // Z
		),
	}
}

// TestEASYSameTimeCompletions: EASY (Lifka 1995; Mu'alem & Feitelson
// 2001 §2.1: "the scheduler … is invoked" at each job termination) decides
// at 100 on the state in which A and B have both released their
// processors, as pyss does for completions at their estimates (its plan
// counts a job with start + estimate <= t as free at t). The per-event
// variant (CQSim's consultation) sees the completions one at a time.
func TestEASYSameTimeCompletions(t *testing.T) {
	settled := map[int64]float64{1: 0, 2: 0, 3: 0, 4: 1000, 5: 100, 6: 110, 7: 110}
	perEvent := map[int64]float64{1: 0, 2: 0, 3: 0, 4: 1000, 5: 110, 6: 100, 7: 100}
	sc := sameTimeJobs(100, 100)
	sc.name = "both-at-estimate"
	sc.want = map[string]map[int64]float64{"easy": settled, "easy-per-event": perEvent}
	runScenario(t, sc)

	// B ends early (estimate 500) at the instant A is expected to end: the
	// decision at 100 still sees both releases.
	sc = sameTimeJobs(100, 500)
	sc.name = "early-and-expected"
	sc.want = map[string]map[int64]float64{"easy": settled, "easy-per-event": perEvent}
	runScenario(t, sc)
}

// TestSameTimeCompletionsOtherPolicies: conservative backfilling is
// consulted on settled instants too. A and B both end early (estimates
// 500) at 100. At their arrival X was reserved at 500, Y and Z at 510.
// Compression at 100 (Mu'alem & Feitelson 2001 §2.2: queued jobs are
// revisited in arrival order) must see both releases: X, first in arrival
// order, moves to 100, and Y and Z to 110. Compressing after A's release
// alone would move Y into A's processors first and push X behind it.
// FCFS starts H at 1000 and X, Y, Z with it.
func TestSameTimeCompletionsOtherPolicies(t *testing.T) {
	sc := sameTimeJobs(500, 500)
	sc.name = "two-early"
	sc.want = map[string]map[int64]float64{
		"conservative": {1: 0, 2: 0, 3: 0, 4: 1000, 5: 100, 6: 110, 7: 110},
		"fcfs":         {1: 0, 2: 0, 3: 0, 4: 1000, 5: 1000, 6: 1000, 7: 1000},
	}
	runScenario(t, sc)
}
