package unstable

import (
	"sort"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
)

// ordered takes idle processors node by node in the order less gives,
// until the job has enough (§2.4, Job.start: machines in list order until
// RPE is met).
func ordered(v *engine.View, j *engine.Job, dst engine.Alloc, less func(a, b int) bool) (engine.Alloc, bool) {
	need := j.Procs
	if need > v.FreePEs() {
		return dst, false
	}
	var free []int
	for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
		free = append(free, n)
	}
	sort.SliceStable(free, func(a, b int) bool { return less(free[a], free[b]) })
	return take(v, j, dst, free)
}

// take gives j the idle processors of the nodes in order until it has
// enough, listing them in increasing node order.
func take(v *engine.View, j *engine.Job, dst engine.Alloc, free []int) (engine.Alloc, bool) {
	need := j.Procs
	var picked []int
	for _, n := range free {
		if need == 0 {
			break
		}
		picked = append(picked, n)
		need -= min(need, v.NodeFree(n))
	}
	if need > 0 {
		return dst, false
	}
	sort.Ints(picked) // allocations list nodes in increasing order
	need = j.Procs
	for _, n := range picked {
		take := min(need, v.NodeFree(n))
		dst = dst.Add(n, take)
		need -= take
	}
	return dst, true
}

// orderedBy is ordered by ascending key(node) (ties: lower index), each
// key computed once.
func orderedBy(v *engine.View, j *engine.Job, dst engine.Alloc, key func(n int) float64) (engine.Alloc, bool) {
	if j.Procs > v.FreePEs() {
		return dst, false
	}
	type nk struct {
		n int
		k float64
	}
	var free []nk
	for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
		free = append(free, nk{n, key(n)})
	}
	sort.SliceStable(free, func(a, b int) bool { return free[a].k < free[b].k })
	ns := make([]int, len(free))
	for i, x := range free {
		ns[i] = x.n
	}
	return take(v, j, dst, ns)
}

// Random is the classic algorithm's "unbiased random" choice of idle
// nodes (§2.1). The order comes from a hash of (seed, job, node), so one
// replication gives the same choice whatever else differs.
type Random struct{ Seed uint64 }

var _ policy.NodeSelector = Random{}

func (r Random) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	// The keys are drawn once per node, not per comparison: on a
	// platform of thousands of nodes the sort would otherwise cost two
	// hashes per comparison.
	return orderedBy(v, j, dst, func(n int) float64 { return draw(r.Seed, 0x5e1ec7, uint64(j.ID), uint64(n)) })
}

// ByU is the improved algorithm's choice (§2.3–2.4): idle nodes by
// observed performance u, best first (ties: lower index).
type ByU struct{ S *State }

var _ policy.NodeSelector = ByU{}

func (s ByU) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	s.S.grow(v.NumNodes())
	return orderedBy(v, j, dst, func(n int) float64 { return -s.S.U[n] })
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
	exp := func(n int) float64 { sp := v.Node(n); return (1 - sp.Stability) * sp.Delay }
	return ordered(v, j, dst, func(a, b int) bool {
		if ea, eb := exp(a), exp(b); ea != eb {
			return ea < eb
		}
		return s.S.U[a] > s.S.U[b]
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
		return Random{Seed: seed}, nil
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
