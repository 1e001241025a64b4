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
type runningSet struct {
	prof *Profile
	key  []float64 // release time point per job index; NaN when not running
}

func newRunningSet() runningSet { return runningSet{prof: NewProfile(0)} }

func (r *runningSet) slot(j *engine.Job) *float64 {
	for int(j.Index) >= len(r.key) {
		r.key = append(r.key, math.NaN())
	}
	return &r.key[j.Index]
}

func (r *runningSet) started(j *engine.Job) {
	k := j.ExpectedEnd()
	*r.slot(j) = k
	r.prof.Add(k, j.Procs)
}

// stopped forgets j and reports the time it was expected to end.
func (r *runningSet) stopped(j *engine.Job) float64 {
	s := r.slot(j)
	k := *s
	if !math.IsNaN(k) {
		r.prof.Add(k, -j.Procs)
		*s = math.NaN()
	}
	return k
}

func (r *runningSet) extended(j *engine.Job) {
	r.stopped(j)
	r.started(j)
}
