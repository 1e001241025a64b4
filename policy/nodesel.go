package policy

import (
	"math/bits"

	"github.com/gridsched/gridsched/engine"
)

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
	if v.UniformPEs() == 1 {
		// Every free node has exactly one idle processor: take runs of
		// set bits whole.
		for w := v.NextFreeWord(0); need > 0 && w >= 0; w = v.NextFreeWord(w + 1) {
			m := v.FreeWord(w)
			for m != 0 && need > 0 {
				i := bits.TrailingZeros64(m)
				run := min(bits.TrailingZeros64(^(m >> uint(i))), need)
				if i+run == 64 {
					m = 0
				} else {
					m &^= (uint64(1)<<uint(run) - 1) << uint(i)
				}
				dst = dst.AddRun(w<<6+i, run, 1)
				need -= run
			}
		}
		return dst, need == 0
	}
	for w := v.NextFreeWord(0); need > 0 && w >= 0; w = v.NextFreeWord(w + 1) {
		for m := v.FreeWord(w); m != 0 && need > 0; m &= m - 1 {
			n := w<<6 + bits.TrailingZeros64(m)
			take := min(v.NodeFree(n), need)
			dst = dst.Add(n, take)
			need -= take
		}
	}
	return dst, need == 0
}
