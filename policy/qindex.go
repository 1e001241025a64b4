package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// qindex is a waiting queue in arrival order (engine job index order)
// kept as a segment tree over job indices. Each node holds the smallest
// processor count and the smallest estimate of the queued jobs below it,
// so a backfill pass can jump to the next job that may start now instead
// of scanning every waiting job: on an overloaded platform the queue grows
// without bound while only a few jobs can fit at any instant.
type qindex struct {
	n     int       // leaves (a power of two)
	procs []int32   // 2n: minimum processors in the subtree (math.MaxInt32: none)
	est   []float64 // 2n: minimum estimate in the subtree (+Inf: none)
	jobs  []*engine.Job
	count int
	lo    int // no job is queued below this index
}

const noProcs = math.MaxInt32

// reserve sizes the index for job indices below n (the engine's job
// count), so that it does not grow by doubling during the run.
func (x *qindex) reserve(n int) {
	if x.n == 0 && n > 0 {
		x.grow(n - 1)
	}
}

func (x *qindex) grow(i int) {
	if i < x.n {
		return
	}
	n := max(x.n, 64)
	for n <= i {
		n *= 2
	}
	old := x.jobs
	x.n = n
	x.procs = make([]int32, 2*n)
	x.est = make([]float64, 2*n)
	x.jobs = make([]*engine.Job, n)
	for k := range x.procs {
		x.procs[k] = noProcs
		x.est[k] = math.Inf(1)
	}
	for k, j := range old {
		if j != nil {
			x.jobs[k] = j
			x.procs[n+k] = int32(j.Procs)
			x.est[n+k] = j.Est
		}
	}
	for k := n - 1; k >= 1; k-- {
		x.pull(k)
	}
}

func (x *qindex) pull(k int) {
	x.procs[k] = min(x.procs[2*k], x.procs[2*k+1])
	x.est[k] = min(x.est[2*k], x.est[2*k+1])
}

// fix updates the minima above leaf i, stopping where they no longer
// change.
func (x *qindex) fix(i int) {
	for k := (x.n + i) / 2; k >= 1; k /= 2 {
		p := min(x.procs[2*k], x.procs[2*k+1])
		e := min(x.est[2*k], x.est[2*k+1])
		if p == x.procs[k] && e == x.est[k] {
			return
		}
		x.procs[k], x.est[k] = p, e
	}
}

// add queues j at its arrival position.
func (x *qindex) add(j *engine.Job) {
	i := int(j.Index)
	x.grow(i)
	if x.jobs[i] == nil {
		x.count++
	}
	x.lo = min(x.lo, i)
	x.jobs[i] = j
	x.procs[x.n+i] = int32(j.Procs)
	x.est[x.n+i] = j.Est
	x.fix(i)
}

// del removes the job at index i.
func (x *qindex) del(i int) {
	if x.jobs[i] == nil {
		return
	}
	x.count--
	x.jobs[i] = nil
	x.procs[x.n+i] = noProcs
	x.est[x.n+i] = math.Inf(1)
	x.fix(i)
}

// first returns the smallest queued index, or -1. The queue head rarely
// moves back (only a requeued job does), so a lower bound kept from call
// to call makes this amortized O(1).
func (x *qindex) first() int {
	if x.count == 0 {
		return -1
	}
	for x.jobs[x.lo] == nil {
		x.lo++
	}
	return x.lo
}

// next returns the smallest queued index >= from whose job may backfill:
// procs <= free and (now + est <= shadow or procs <= extra); -1 if none.
// A subtree is skipped when its smallest processor count exceeds free, or
// when it exceeds extra as well and its smallest estimate ends after the
// shadow time (floating-point addition is monotone, so no job below can
// pass the exact test). Leaves are tested exactly as EASY tests a job.
func (x *qindex) next(from, free, extra int, now, shadow float64) int {
	if from >= x.n || x.count == 0 {
		return -1
	}
	f, b := int32(free), int32(min(free, extra))
	// Climb from the leaf: each time the path is a left child, the right
	// sibling covers the indices that come next, in order.
	k := x.n + from
	if x.may(k, f, b, now, shadow) {
		return from
	}
	for ; k > 1; k /= 2 {
		if k&1 == 0 {
			if i := x.leftmost(k+1, f, b, now, shadow); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// may reports whether subtree k may hold a job that can backfill (exact
// at a leaf).
func (x *qindex) may(k int, free, both int32, now, shadow float64) bool {
	return x.procs[k] <= free && (x.procs[k] <= both || now+x.est[k] <= shadow)
}

// leftmost returns the smallest index in subtree k whose job can
// backfill, or -1.
func (x *qindex) leftmost(k int, free, both int32, now, shadow float64) int {
	if !x.may(k, free, both, now, shadow) {
		return -1
	}
	if k >= x.n {
		return k - x.n
	}
	if i := x.leftmost(2*k, free, both, now, shadow); i >= 0 {
		return i
	}
	return x.leftmost(2*k+1, free, both, now, shadow)
}
