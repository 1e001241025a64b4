package unstable

import (
	"math/bits"
	"slices"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
)

// nodeKey is an idle node's place in a selection order: by k, then by
// k2, then the lower node index, which is what a stable sort of the idle
// nodes (listed in index order) by (k, k2) gives.
type nodeKey struct {
	k, k2 float64
	n     int
}

func (a nodeKey) before(b nodeKey) bool {
	if a.k != b.k {
		return a.k < b.k
	}
	if a.k2 != b.k2 {
		return a.k2 < b.k2
	}
	return a.n < b.n
}

// scratch holds a selection's buffers between starts (one run's engine
// calls its selector from one goroutine); a nil scratch allocates.
type scratch struct {
	keys    []nodeKey
	picked  []nodeTake
	nodeMix []uint64 // Random: mix(node + γ) per node
}

// ordered gives j the idle processors of the idle nodes in key order
// (§2.4, Job.start: machines in list order until RPE is met), listing
// them in increasing node order. It does not sort the idle nodes: one
// pass keeps the keys of the few nodes the job can need (about twice its
// processors' worth, in a bounded heap), and only those are ordered. That
// is exact whenever the kept nodes have the processors the job needs
// (every kept node comes before every other in the order, and the job is
// complete before they run out); otherwise every idle node is ordered.
// (Sorting every idle node at every start was 84 % of
// easy-unstable-fig89's large platforms; issue 19.)
func ordered(v *engine.View, j *engine.Job, dst engine.Alloc, sc *scratch, key func(n int) (float64, float64)) (engine.Alloc, bool) {
	if j.Procs > v.FreePEs() {
		return dst, false
	}
	if sc == nil {
		sc = &scratch{}
	}
	h := sc.keys[:0]
	keep := keepFor(v, j)
	dropped := false
	for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
		k, k2 := key(n)
		x := nodeKey{k, k2, n}
		switch {
		case len(h) < keep:
			h = append(h, x)
			siftUpMax(h, len(h)-1)
		case x.before(h[0]):
			h[0] = x
			siftDownMax(h, 0)
			dropped = true
		default:
			dropped = true
		}
	}
	return orderedFrom(v, j, dst, sc, key, h, dropped)
}

// keepFor is how many nodes ordered keeps for j: twice the nodes it needs
// at the platform's mean processors per node, plus KeepMargin.
func keepFor(v *engine.View, j *engine.Job) int {
	per := max(1, v.AvailPEs()/max(1, v.NumNodes()))
	return 2*((j.Procs+per-1)/per) + KeepMargin
}

// orderedFrom is ordered after its pass: h holds the kept nodes (a
// max-heap), dropped tells whether any idle node was left out.
func orderedFrom(v *engine.View, j *engine.Job, dst engine.Alloc, sc *scratch, key func(n int) (float64, float64), h []nodeKey, dropped bool) (engine.Alloc, bool) {
	need := j.Procs
	if dropped {
		pes := 0
		for _, x := range h {
			pes += v.NodeFree(x.n)
		}
		if pes < need {
			h = h[:0]
			for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
				k, k2 := key(n)
				h = append(h, nodeKey{k, k2, n})
			}
		}
	}
	sc.keys = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	picked := sc.picked[:0]
	for need > 0 && len(h) > 0 {
		n := h[0].n
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		siftDown(h, 0)
		take := min(need, v.NodeFree(n))
		picked = append(picked, nodeTake{n, take})
		need -= take
	}
	sc.picked = picked
	if need > 0 {
		return dst, false
	}
	return addPicked(dst, picked), true
}

// addPicked lists the picked nodes in increasing order (as allocations
// do); each node gives what it gave in list order (the last node taken
// may give part of its idle processors).
func addPicked(dst engine.Alloc, picked []nodeTake) engine.Alloc {
	slices.SortFunc(picked, func(a, b nodeTake) int { return a.n - b.n })
	for _, p := range picked {
		dst = dst.Add(p.n, p.take)
	}
	return dst
}

// KeepMargin is how many nodes ordered keeps beyond twice the nodes the
// job needs at the platform's mean processors per node; any value gives
// the same choice, a small one only makes ordering every node more
// frequent.
var KeepMargin = 16

// siftDown restores the min-heap order (by before) below i.
func siftDown(h []nodeKey, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// siftDownMax and siftUpMax keep a max-heap (the last in the order on
// top): the bounded set of nodes ordered keeps.
func siftDownMax(h []nodeKey, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[l].before(h[r]) {
			m = r
		}
		if !h[i].before(h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func siftUpMax(h []nodeKey, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[p].before(h[i]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

type nodeTake struct{ n, take int }

// Random is the classic algorithm's "unbiased random" choice of idle
// nodes (§2.1). The order comes from a hash of (seed, job, node), so one
// replication gives the same choice whatever else differs.
type Random struct {
	Seed uint64
	sc   *scratch // buffers reused between starts (Selector sets them)
}

var _ policy.NodeSelector = Random{}

func (r Random) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	// The keys are drawn once per node, not per comparison: on a
	// platform of thousands of nodes the sort would otherwise cost two
	// hashes per comparison.
	// The hash is split: draw(seed, salt, job, node) = one mix of the
	// job's prefix and the node's mixed index, kept per node.
	sc := r.sc
	if sc == nil {
		sc = &scratch{}
	}
	prefix := drawPrefix(r.Seed, 0x5e1ec7, uint64(j.ID))
	for len(sc.nodeMix) < v.NumNodes() {
		sc.nodeMix = append(sc.nodeMix, mix(uint64(len(sc.nodeMix))+0x9e3779b97f4a7c15))
	}
	key := func(n int) (float64, float64) { return drawNext(prefix, sc.nodeMix[n]), 0 }
	if j.Procs > v.FreePEs() {
		return dst, false
	}
	// ordered's pass, with the draw's 53 bits compared as integers (the
	// draw is bits/2⁵³, exact and monotone) and a node that cannot enter
	// the kept set rejected by one comparison with the largest kept draw:
	// at 27,000 nodes the pass is the whole cost of a start.
	keep := keepFor(v, j)
	h := sc.keys[:0]
	dropped := false
	limit := uint64(1) << 53 // a draw below it can enter the full set
	for w := v.NextFreeWord(0); w >= 0; w = v.NextFreeWord(w + 1) {
		for m := v.FreeWord(w); m != 0; m &= m - 1 {
			n := w<<6 + bits.TrailingZeros64(m)
			raw := mix(prefix^sc.nodeMix[n]) >> 11
			if len(h) < keep {
				h = append(h, nodeKey{float64(raw) / (1 << 53), 0, n})
				siftUpMax(h, len(h)-1)
				if len(h) == keep {
					limit = uint64(h[0].k * (1 << 53))
				}
				continue
			}
			dropped = true
			// Nodes come in increasing index: one whose draw equals the
			// largest kept one comes after it.
			if raw < limit {
				h[0] = nodeKey{float64(raw) / (1 << 53), 0, n}
				siftDownMax(h, 0)
				limit = uint64(h[0].k * (1 << 53))
			}
		}
	}
	return orderedFrom(v, j, dst, sc, key, h, dropped)
}

// ByU is the improved algorithm's choice (§2.3–2.4): idle nodes by
// observed performance u, best first (ties: lower index).
type ByU struct{ S *State }

var _ policy.NodeSelector = ByU{}

func (s ByU) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	s.S.grow(v.NumNodes())
	if s.S.tracking {
		return s.S.indexed(v, j, dst, keyU)
	}
	return ordered(v, j, dst, &s.S.sc, func(n int) (float64, float64) { return -s.S.U[n], 0 })
}

// ByExpected is our stronger variant: idle nodes by the model's expected
// delay (1 − p)·d, smallest first, then by observed u. It uses what the
// resource monitor knows about a node (p, d) from the start instead of
// learning it from finished jobs, and does not mistake a node that has
// merely not been observed yet (u = 1) for a good one.
type ByExpected struct{ S *State }

var _ policy.NodeSelector = ByExpected{}

func (s ByExpected) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	s.S.grow(v.NumNodes())
	if s.S.tracking {
		return s.S.indexed(v, j, dst, keyExpected)
	}
	return ordered(v, j, dst, &s.S.sc, func(n int) (float64, float64) {
		sp := v.Node(n)
		return (1 - sp.Stability) * sp.Delay, -s.S.U[n] // higher u first
	})
}

// Selector builds the node selection named name: first-fit, random, u
// (the paper's improved EASY) or expected (our variant). s may be nil for
// first-fit and random.
func Selector(name string, s *State, seed uint64) (policy.NodeSelector, error) {
	switch name {
	case "", "first-fit":
		return policy.FirstFit{}, nil
	case "random":
		return Random{Seed: seed, sc: &scratch{}}, nil
	case "u", "expected":
		if s == nil {
			return nil, errNoState(name)
		}
		if name == "u" {
			return ByU{S: s}, nil
		}
		return ByExpected{S: s}, nil
	}
	return nil, errUnknown(name)
}

type errNoState string

func (e errNoState) Error() string {
	return "node selection " + string(e) + " needs an instability model (it learns from delays)"
}

type errUnknown string

func (e errUnknown) Error() string {
	return "unknown node selection " + string(e) + " (known: first-fit, random, u, expected)"
}
