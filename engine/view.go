package engine

import "github.com/gridsched/gridsched/model"

// View is the read-only window a policy has on the simulation.
type View struct{ e *Engine }

// Now is the current simulated time.
func (v *View) Now() float64 { return v.e.now }

// AvailPEs is the number of processors on nodes that are up.
func (v *View) AvailPEs() int { return v.e.availPEs }

// FreePEs is the number of idle processors on nodes that are up.
func (v *View) FreePEs() int { return v.e.freePEs }

// AllocBuffer returns an empty allocation whose storage the engine reuses:
// a node selector may append to it and pass the result to Plan.Start,
// which copies the spans it keeps. It is overwritten by the next use, so
// a policy must not hold on to it.
func (v *View) AllocBuffer() Alloc { return v.e.scratch[:0] }

// NumNodes is the number of node indices ever used (including nodes that
// are down or removed).
func (v *View) NumNodes() int { return len(v.e.specs) }

// Node returns the description of node n.
func (v *View) Node(n int) *model.NodeSpec { return &v.e.specs[n] }

// NodeFree is the number of idle processors of node n (0 if it is down).
func (v *View) NodeFree(n int) int {
	if !v.e.up[n] {
		return 0
	}
	return int(v.e.free[n])
}

// NodeUp reports whether node n is present and up.
func (v *View) NodeUp(n int) bool { return v.e.up[n] }

// NextFreeNode returns the smallest node index >= n that is up and has an
// idle processor, or -1. It costs O(log₆₄ nodes).
func (v *View) NextFreeNode(n int) int { return v.e.freeSet.next(n) }

// NumJobs is the number of jobs the simulation knows so far (the initial
// workload plus jobs submitted since): job indices are below it.
func (v *View) NumJobs() int { return len(v.e.jobs) }

// Running returns the running jobs in no particular order. The slice must
// not be modified or kept.
func (v *View) Running() []*Job { return v.e.running }

// Queued is the number of submitted jobs that are not running and not
// finished.
func (v *View) Queued() int { return v.e.queued }

// FreeWord returns the bit mask of nodes 64·w … 64·w+63 that are up and
// have an idle processor (bit i = node 64·w+i).
func (v *View) FreeWord(w int) uint64 { return v.e.freeSet.word(w) }

// NextFreeWord returns the smallest w' >= w with FreeWord(w') != 0, or -1.
// Together with FreeWord it lets node selection skip 64 busy nodes at a
// time.
func (v *View) NextFreeWord(w int) int { return v.e.freeSet.nextWord(w) }

// UniformPEs is the processor count of every node when all nodes have the
// same count, else 0.
func (v *View) UniformPEs() int { return int(v.e.uniformPEs) }
