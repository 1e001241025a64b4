package hgrid

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// domainLoad is formula (2) and (3) over the reported node indices rep: a
// leaf's load is the mean of its nodes' loads (formula (1)), an inner
// manager's the mean of its children's loads; the variance is that of
// the same values.
func (p *Policy) domainLoad(d *Domain, rep []Indices) (float64, float64) {
	var loads []float64
	if d.IsLeaf() {
		for n := d.First; n < d.First+d.Count; n++ {
			loads = append(loads, NodeLoad(p.a, rep[n]))
		}
	} else {
		for _, c := range d.Children {
			l, _ := p.domainLoad(c, rep)
			loads = append(loads, l)
		}
	}
	return MeanVar(loads)
}

// canTake reports whether some leaf under d is eligible for j.
func (p *Policy) canTake(d *Domain, j *engine.Job) bool {
	if d.IsLeaf() {
		return p.eligible(d.Leaf, j)
	}
	for _, c := range d.Children {
		if p.canTake(c, j) {
			return true
		}
	}
	return false
}

// statLeaf is the job-distribution algorithm of §2.2.2 on the reported
// tables: from the grid manager down, at each level the child of least
// load (formula (2)), ties to the maximum variance (formula (3)), then to
// the first; the recursion ends at a leaf manager, which places the job
// on its least-loaded nodes (formula (1)) when it starts.
func (p *Policy) statLeaf(_ *engine.View, j *engine.Job) int {
	d := p.t.Root
	for !d.IsLeaf() {
		loads := make([]float64, len(d.Children))
		vars := make([]float64, len(d.Children))
		for i, c := range d.Children {
			if !p.canTake(c, j) {
				loads[i], vars[i] = math.NaN(), math.NaN()
				continue
			}
			loads[i], vars[i] = p.domainLoad(c, p.rep)
		}
		i, how := PickHow(loads, vars)
		if i < 0 {
			return -1
		}
		p.picks[how]++
		d = d.Children[i]
	}
	return d.Leaf
}

// leastLoaded is the plain baseline with fresh information: the eligible
// leaf of least mean node load now (the first of equals).
func (p *Policy) leastLoaded(v *engine.View, j *engine.Job) int {
	idx, _ := p.freshOf(v, -1, false)
	best, bl := -1, math.Inf(1)
	for k, l := range p.t.Leaves {
		if !p.eligible(k, j) {
			continue
		}
		if m, _ := p.domainLoad(l, idx); m < bl-tieEps {
			best, bl = k, m
		}
	}
	return best
}

// ect is job j's expected completion time on leaf k from the reported
// processor free times (its estimate at the leaf's speed, after its
// migration cost), started no earlier than the jobs queued there before
// it (the leaf is FCFS).
func (p *Policy) ect(now float64, j *engine.Job, k int) float64 {
	return p.view.avail[k].start(j.Procs, now+p.MigrationCost(j, k)) + j.SchedEstimate()/p.t.Leaves[k].Speed
}

// fastestLeaf is the eligible leaf of least expected completion time.
func (p *Policy) fastestLeaf(v *engine.View, j *engine.Job) int {
	best, bc := -1, math.Inf(1)
	for k := range p.t.Leaves {
		if p.eligible(k, j) {
			if c := p.ect(v.Now(), j, k); c < bc {
				best, bc = k, c
			}
		}
	}
	return best
}

// mapBatch is MinMin's batch mapping (Ibarra & Kim 1977; Braun et al.
// 2001): among the unmapped jobs of the batch, repeatedly map the one
// whose minimum expected completion time is smallest to the leaf that
// gives it, and update that leaf's free times.
func (p *Policy) mapBatch(v *engine.View) {
	batch := p.pending
	p.pending = nil
	var live []*engine.Job
	for _, j := range batch {
		if j.State == engine.Queued {
			live = append(live, j)
		}
	}
	p.batched += len(live)
	if len(live) > 1 {
		p.shared += len(live)
	}
	MinMin(len(live), len(p.t.Leaves), func(i, k int) float64 {
		if !p.eligible(k, live[i]) {
			return math.Inf(1)
		}
		return p.ect(v.Now(), live[i], k)
	}, func(i, k int) {
		if k < 0 {
			p.gridQ = append(p.gridQ, live[i])
			return
		}
		p.place(v, live[i], k) // books the leaf's free times: the next ECTs see it
	})
}

// Mapping is one MinMin decision: task to leaf (−1: no finite choice).
type Mapping struct{ Task, Leaf int }

// MinMin maps n tasks to m machines: ct(i, k) is task i's completion time
// on machine k given the mappings made so far, which assign(i, k) makes
// (k = −1: no finite choice). Each round computes every unmapped task's
// minimum completion time and maps the task with the smallest (ties: the
// lower task, then the lower machine). It returns the mappings in order.
//
// A mapping to machine k changes only the completion times on k (as in
// Ibarra & Kim's model, where it moves k's ready time), so ct is called
// n·m times at first and then only for the machine just assigned: n·m +
// n² calls in all instead of n²·m.
func MinMin(n, m int, ct func(i, k int) float64, assign func(i, k int)) []Mapping {
	done := make([]bool, n)
	c := make([]float64, n*m)
	for i := range n {
		for k := range m {
			c[i*m+k] = ct(i, k)
		}
	}
	var out []Mapping
	for range n {
		bi, bk, bc := -1, -1, math.Inf(1)
		for i := range n {
			if done[i] {
				continue
			}
			for k := range m {
				if v := c[i*m+k]; v < bc {
					bi, bk, bc = i, k, v
				}
			}
			if bi < 0 {
				bi = i // no finite choice for any so far
			}
		}
		done[bi] = true
		if math.IsInf(bc, 1) {
			bk = -1
		}
		out = append(out, Mapping{bi, bk})
		assign(bi, bk)
		if bk < 0 {
			continue
		}
		for i := range n {
			if !done[i] {
				c[i*m+bk] = ct(i, bk)
			}
		}
	}
	return out
}

// acoLeaf is the ant-colony choice (ACOParams).
func (p *Policy) acoLeaf(v *engine.View, j *engine.Job) int {
	now := v.Now()
	var ks []int
	var w []float64
	total := 0.0
	for k := range p.t.Leaves {
		if !p.eligible(k, j) {
			continue
		}
		eta := 1 / max(p.ect(now, j, k)-now, 1e-9)
		x := math.Pow(p.tau[k], p.p.ACO.Alpha) * math.Pow(eta, p.p.ACO.Beta)
		ks = append(ks, k)
		w = append(w, x)
		total += x
	}
	if len(ks) == 0 {
		return -1
	}
	return acoChoose(ks, w, total, p.rng.Float64(), p.rng.Float64(), p.p.ACO.Q0)
}

// acoChoose is the ACS pseudo-random proportional rule: with u < q0 the
// candidate of largest weight (the first of equals), else the one the
// roulette r ∈ [0, 1) lands on.
func acoChoose(ks []int, w []float64, total, u, r, q0 float64) int {
	if u < q0 || !(total > 0) || math.IsInf(total, 0) {
		b := 0
		for i := range w {
			if w[i] > w[b] {
				b = i
			}
		}
		return ks[b]
	}
	acc := 0.0
	for i := range w {
		acc += w[i] / total
		if r < acc {
			return ks[i]
		}
	}
	return ks[len(ks)-1]
}
