package policy

import "github.com/gridsched/gridsched/engine"

// NodeSelector chooses which idle processors a starting job gets. It is a
// separate, pluggable part of every policy because published policies
// differ exactly here (e.g. seed 002 orders nodes by observed
// performance).
type NodeSelector interface {
	// Select returns an allocation of j.Procs idle processors, appending
	// to dst, or false if it cannot place the job now.
	Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool)
}

// FirstFit takes idle processors node by node in increasing node index,
// as many as each node has, until the job has enough.
type FirstFit struct{}

var _ NodeSelector = FirstFit{}

func (FirstFit) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	need := j.Procs
	if need > v.FreePEs() {
		return dst, false
	}
	for n := v.NextFreeNode(0); need > 0 && n >= 0; n = v.NextFreeNode(n + 1) {
		take := min(v.NodeFree(n), need)
		dst = dst.Add(n, take)
		need -= take
	}
	return dst, need == 0
}
