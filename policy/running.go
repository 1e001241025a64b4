package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// runningSet tracks, in a profile, when each running job is expected to
// release its processors (start + current estimate). The profile's Base
// is set to the free processor count before each query, so Value(t) is
// the number of processors expected to be free at t counting running jobs
// only.
type runningSet[P adder] struct {
	prof P
	key  []float64 // release time point per job index; NaN when not running
}

// adder is the part of a profile the running set updates: Profile (EASY),
// resProfile (conservative) or flatProfile.
type adder interface{ Add(t float64, d int) }

func newRunningSet() runningSet[*Profile] { return runningSet[*Profile]{prof: NewProfile(0)} }

func newFlatRunningSet() runningSet[*flatProfile] {
	return runningSet[*flatProfile]{prof: newFlatProfile()}
}

func newResRunningSet() runningSet[*resProfile] {
	return runningSet[*resProfile]{prof: newResProfile()}
}

func (r *runningSet[P]) slot(j *engine.Job) *float64 {
	if int(j.Index) >= len(r.key) {
		r.key = growTo(r.key, int(j.Index)+1, math.NaN())
	}
	return &r.key[j.Index]
}

func (r *runningSet[P]) started(j *engine.Job) {
	k := slotEnd(j.Start, j.Est)
	*r.slot(j) = k
	r.prof.Add(k, j.Procs)
}

// stopped forgets j and reports the time it was expected to end.
func (r *runningSet[P]) stopped(j *engine.Job) float64 {
	s := r.slot(j)
	k := *s
	if !math.IsNaN(k) {
		r.prof.Add(k, -j.Procs)
		*s = math.NaN()
	}
	return k
}

func (r *runningSet[P]) extended(j *engine.Job) {
	r.stopped(j)
	r.started(j)
}

// growTo extends s to length n with fill, at least doubling its capacity
// when it must grow (append grows a large slice by a quarter, so a
// per-job array grown one job at a time allocated about five times its
// final size).
func growTo[T any](s []T, n int, fill T) []T {
	if n > cap(s) {
		t := make([]T, len(s), max(n, 2*cap(s), 64))
		copy(t, s)
		s = t
	}
	for len(s) < n {
		s = append(s, fill)
	}
	return s
}
