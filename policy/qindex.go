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
// without bound while only a few jobs can fit at any instant. The leaves'
// values are read from the queued jobs themselves (a queued job's
// processors and estimate do not change), so only the n−1 inner nodes are
// stored, their estimates as float32 lower bounds: 16 bytes less per leaf
// (issue 30, target 5).
type qindex struct {
	n     int       // leaves (a power of two)
	procs []int32   // n: minimum processors in inner node k's subtree (math.MaxInt32: none)
	est   []float32 // n: minimum estimate in inner node k's subtree rounded down (+Inf: none)
	jobs  []*engine.Job
	count int
	lo    int // no job is queued below this index
}

const noProcs = math.MaxInt32

// reserve sizes the index for job indices below n (the engine's job
// count), so that it does not grow by doubling during the run; the jobs
// list holds exactly n (only the inner nodes are rounded up to a power
// of two).
func (x *qindex) reserve(n int) {
	if x.n == 0 && n > 0 {
		x.jobs = make([]*engine.Job, n)
		x.grow(n - 1)
	}
}

func (x *qindex) grow(i int) {
	if i >= len(x.jobs) {
		x.jobs = append(x.jobs, make([]*engine.Job, i+1-len(x.jobs))...)
	}
	if i < x.n {
		return
	}
	n := max(x.n, 64)
	for n <= i {
		n *= 2
	}
	x.n = n
	x.procs = make([]int32, n)
	x.est = make([]float32, n)
	for k := n - 1; k >= 1; k-- {
		x.pull(k)
	}
}

// at is node k's minima (a leaf's: its job's, or none).
func (x *qindex) at(k int) (int32, float64) {
	if k < x.n {
		return x.procs[k], float64(x.est[k])
	}
	if i := k - x.n; i < len(x.jobs) && x.jobs[i] != nil {
		j := x.jobs[i]
		return int32(j.Procs), j.Est
	}
	return noProcs, math.Inf(1)
}

func (x *qindex) pull(k int) {
	lp, le := x.at(2 * k)
	rp, re := x.at(2*k + 1)
	x.procs[k], x.est[k] = min(lp, rp), down32(min(le, re))
}

// down32 is the largest float32 at most e. An inner node's estimate is
// a lower bound that only prunes (now + e > shadow for the bound implies
// it for every job below: addition is monotone); leaves test the job's
// own estimate exactly.
func down32(e float64) float32 {
	f := float32(e)
	if float64(f) > e {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// fix updates the minima above leaf i, stopping where they no longer
// change.
func (x *qindex) fix(i int) {
	for k := (x.n + i) / 2; k >= 1; k /= 2 {
		lp, le := x.at(2 * k)
		rp, re := x.at(2*k + 1)
		p, e := min(lp, rp), down32(min(le, re))
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
	x.fix(i)
}

// del removes the job at index i.
func (x *qindex) del(i int) {
	if x.jobs[i] == nil {
		return
	}
	x.count--
	x.jobs[i] = nil
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
// procs <= free and (slotEnd(now, est) <= shadow or procs <= extra); -1
// if none. A subtree is skipped when its smallest processor count exceeds
// free, or when it exceeds extra as well and its smallest estimate ends
// after the shadow time (floating-point addition and slotEnd's clamp are
// monotone, so no job below can pass the exact test). Leaves are tested exactly as EASY tests a job.
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
	p, e := x.at(k)
	return p <= free && (p <= both || slotEnd(now, e) <= shadow)
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
