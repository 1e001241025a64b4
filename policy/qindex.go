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
}

const noProcs = math.MaxInt32

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

func (x *qindex) fix(i int) {
	for k := (x.n + i) / 2; k >= 1; k /= 2 {
		x.pull(k)
	}
}

// add queues j at its arrival position.
func (x *qindex) add(j *engine.Job) {
	i := int(j.Index)
	x.grow(i)
	if x.jobs[i] == nil {
		x.count++
	}
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

// first returns the smallest queued index, or -1.
func (x *qindex) first() int {
	if x.count == 0 {
		return -1
	}
	k := 1
	for k < x.n {
		if x.procs[2*k] != noProcs {
			k = 2 * k
		} else {
			k = 2*k + 1
		}
	}
	return k - x.n
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
	return x.find(1, 0, x.n, from, int32(free), int32(min(free, extra)), now, shadow)
}

func (x *qindex) find(k, lo, hi, from int, free, both int32, now, shadow float64) int {
	if hi <= from || x.procs[k] > free || (x.procs[k] > both && now+x.est[k] > shadow) {
		return -1
	}
	if k >= x.n {
		return k - x.n
	}
	mid := (lo + hi) / 2
	if i := x.find(2*k, lo, mid, from, free, both, now, shadow); i >= 0 {
		return i
	}
	return x.find(2*k+1, mid, hi, from, free, both, now, shadow)
}
