package unstable

import "github.com/gridsched/gridsched/engine"

// nodeIndex keeps the nodes in the order a selection takes them — by
// (k, k2, node index), the order of nodeKey.before — so a start costs
// O(m log n) for the m nodes it takes instead of a pass over every idle
// node (issue 30: that pass was 93 % of an LLNL-Atlas run on 27,000
// nodes).
//
// It is a tournament tree over the node indices: every leaf is a node,
// every inner entry the winner (first in the order) of its two children
// among the nodes marked present. The invariant is one-sided: every
// node that is up with an idle processor is present with its current
// keys; a present node may be busy (it went busy since it was last
// looked at) and is dropped when the selection reaches it. So starts
// and failures need no bookkeeping, and a node must be marked (queued
// for re-keying and insertion) only when it may have become idle (a job
// left it, it came up or was added) or when its keys changed (its u).
type nodeIndex struct {
	mode    int // keyU or keyExpected; keyNone: not built
	size    int // nodes covered
	leaves  int // power of two ≥ size
	win     []int32
	k, k2   []float64
	present []bool
	pending []int32 // nodes to re-key and insert before the next selection
	queued  []bool  // node is in pending
	taken   []int32 // nodes the last selection took out
}

const (
	keyNone = iota
	keyU
	keyExpected
)

// mark queues node n for re-keying and insertion.
func (x *nodeIndex) mark(n int) {
	if x.mode == keyNone || n >= x.size {
		// Not built yet (the build reads every node), or a node the
		// next build or growth covers.
		return
	}
	if !x.queued[n] {
		x.queued[n] = true
		x.pending = append(x.pending, int32(n))
	}
}

// markAlloc marks every node of a.
func (x *nodeIndex) markAlloc(a engine.Alloc) {
	for _, sp := range a {
		for n := sp.First; n < sp.First+sp.Count; n++ {
			x.mark(int(n))
		}
	}
}

// key sets node n's keys.
func (x *nodeIndex) key(v *engine.View, s *State, n int) {
	switch x.mode {
	case keyU:
		x.k[n], x.k2[n] = -s.U[n], 0
	default:
		sp := v.Node(n)
		x.k[n], x.k2[n] = (1-sp.Stability)*sp.Delay, -s.U[n]
	}
}

// better returns whichever of nodes a and b (−1: none) comes first among
// the present ones, −1 if neither is present.
func (x *nodeIndex) better(a, b int32) int32 {
	if a < 0 || !x.present[a] {
		if b < 0 || !x.present[b] {
			return -1
		}
		return b
	}
	if b < 0 || !x.present[b] {
		return a
	}
	if ka, kb := x.k[a], x.k[b]; ka != kb {
		if ka < kb {
			return a
		}
		return b
	}
	if ka2, kb2 := x.k2[a], x.k2[b]; ka2 != kb2 {
		if ka2 < kb2 {
			return a
		}
		return b
	}
	return min(a, b)
}

// fix recomputes the winners above node n (after a change of its keys).
func (x *nodeIndex) fix(n int) {
	for i := (x.leaves + n) >> 1; i >= 1; i >>= 1 {
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
}

// insert makes node n present with its current keys. Above the first
// entry that n does not win nothing changes.
func (x *nodeIndex) insert(n int) {
	x.present[n] = true
	for i := (x.leaves + n) >> 1; i >= 1; i >>= 1 {
		w := x.better(x.win[2*i], x.win[2*i+1])
		if w == x.win[i] {
			return
		}
		x.win[i] = w
	}
}

// remove makes node n absent. Above the first entry that n did not win
// nothing changes.
func (x *nodeIndex) remove(n int) {
	x.present[n] = false
	for i := (x.leaves + n) >> 1; i >= 1; i >>= 1 {
		if x.win[i] != int32(n) {
			return
		}
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
}

// build (re)makes the index over every node of v with every node that
// is up and idle present.
func (x *nodeIndex) build(v *engine.View, s *State, mode int) {
	n := v.NumNodes()
	x.mode, x.size = mode, n
	x.leaves = 1
	for x.leaves < n {
		x.leaves *= 2
	}
	x.win = make([]int32, 2*x.leaves)
	x.k, x.k2 = make([]float64, n), make([]float64, n)
	x.present, x.queued = make([]bool, n), make([]bool, n)
	x.pending, x.taken = x.pending[:0], x.taken[:0]
	for i := 0; i < x.leaves; i++ {
		x.win[x.leaves+i] = -1
		if i < n {
			x.win[x.leaves+i] = int32(i)
			x.key(v, s, i)
			x.present[i] = v.NodeFree(i) > 0
		}
	}
	for i := x.leaves - 1; i >= 1; i-- {
		x.win[i] = x.better(x.win[2*i], x.win[2*i+1])
	}
}

// sync brings the index up to date before a selection: the nodes the
// last selection took that are still idle (the job did not start, or
// took part of a node) go back, the marked nodes are re-keyed and
// inserted.
func (x *nodeIndex) sync(v *engine.View, s *State, mode int) {
	if x.mode != mode || x.size != v.NumNodes() {
		x.build(v, s, mode)
		return
	}
	for _, n := range x.taken {
		if !x.present[n] && v.NodeFree(int(n)) > 0 {
			x.insert(int(n))
		}
	}
	x.taken = x.taken[:0]
	for _, n := range x.pending {
		x.queued[n] = false
		x.key(v, s, int(n))
		if x.present[n] {
			x.fix(int(n))
		} else {
			x.insert(int(n))
		}
	}
	x.pending = x.pending[:0]
}

// take gives j the idle processors of the first idle nodes in the order,
// as ordered does. It removes the nodes it takes (the next sync puts
// back those still idle) and the busy nodes it meets.
func (x *nodeIndex) take(v *engine.View, j *engine.Job, dst engine.Alloc, sc *scratch) (engine.Alloc, bool) {
	need := j.Procs
	picked := sc.picked[:0]
	for need > 0 {
		n := x.win[1]
		if n < 0 {
			break
		}
		x.remove(int(n))
		free := v.NodeFree(int(n))
		if free == 0 {
			continue // busy since it was inserted: dropped
		}
		x.taken = append(x.taken, n)
		take := min(need, free)
		picked = append(picked, nodeTake{int(n), take})
		need -= take
	}
	sc.picked = picked
	if need > 0 {
		return dst, false
	}
	return addPicked(dst, picked), true
}

// indexed is the u and expected selections once the instability process
// tracks the nodes (track): the index instead of a pass over every idle
// node.
func (s *State) indexed(v *engine.View, j *engine.Job, dst engine.Alloc, mode int) (engine.Alloc, bool) {
	if j.Procs > v.FreePEs() {
		return dst, false
	}
	s.idx.sync(v, s, mode)
	return s.idx.take(v, j, dst, &s.sc)
}

// track is called by the instability processes (Published, Periods) with
// every notice, before anything else they do. The first call registers
// the state as an observer of the engine, which tells it every job that
// leaves its processors (whatever stopped it: its end, a failure, a
// preemption); from then on the u and expected selections use the index,
// which must hear of every node that may have become idle.
func (s *State) track(e *engine.Engine, n engine.Notice) {
	if !s.tracking && indexSelections {
		s.tracking = true
		e.Observe(tracker{s})
	}
	if n.Kind == engine.NoticeNodeUp {
		s.idx.mark(n.Node)
	}
}

// indexSelections switches the index on (tests switch it off to check
// the pass over every idle node too).
var indexSelections = true

// tracker is the state's engine observer.
type tracker struct{ s *State }

func (tracker) JobSubmitted(float64, *engine.Job)     {}
func (tracker) JobStarted(float64, *engine.Job)       {}
func (t tracker) JobStopped(_ float64, j *engine.Job) { t.s.idx.markAlloc(j.Alloc) }
func (tracker) Sample(float64, int, int, int)         {}
