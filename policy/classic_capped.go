package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// cappedIndex holds the waiting jobs of EASY++ with one history for the
// whole system (estimate=epp, common=yes) in shortest-prediction (sjbf)
// backfill order without ever moving one when the history changes.
//
// Every waiting job's prediction there is min(est, m), m the system's
// cap (the mean of the last two run times, rounded down; +Inf before two
// jobs ended), so sjbf's order (prediction, then arrival) is the jobs
// with est < m by (est, arrival), then the capped ones, est >= m, all
// with prediction m, by arrival. An end changes m and, with per-job
// keys, would move every capped job (O(q log q) per end). Here both parts
// are read for the m of the pass from keys that never change:
//
//   - byEst: every waiting job by (est, arrival), with test prediction
//     est: the uncapped part is its prefix below m.
//   - fw: a Fenwick tree over processor counts whose entry i holds, in
//     a treap by arrival with each subtree's largest est, the jobs with
//     i-lowbit(i) < procs <= i: the first capped job after a cursor
//     with at most b processors is the earliest of O(log P) treap
//     descents, O(log P · log q).
//
// Insertion and removal cost O(log P · log q); a pass, O(log P · log q)
// per job it starts or looks at, as with the other indexes.
type cappedIndex struct {
	byEst *oindex
	fw    []int32 // fw[i], 1 <= i <= size: root of the treap of procs in (i-lowbit(i), i]
	size  int     // a power of two: the largest processor count the tree covers
	nd    []cnode // index 0 is the nil node
	free  []int32
	seed  uint64
}

type cnode struct {
	idx         int32 // the job's arrival position (engine.Job.Index): the key
	est, maxEst float64
	prio        uint64
	left, right int32
	j           *engine.Job
}

func newCappedIndex() *cappedIndex {
	return &cappedIndex{byEst: newOindex(), fw: make([]int32, 2), size: 1, nd: make([]cnode, 1, 64), seed: 0x2545F4914F6CDD1D}
}

func procsOf(j *engine.Job) int { return max(j.Procs, 1) }

// insert queues j with request est.
func (x *cappedIndex) insert(j *engine.Job, est float64) {
	x.byEst.insert(j, est, int64(j.Index), est)
	p := procsOf(j)
	for p > x.size {
		x.grow()
	}
	for i := p; i <= x.size; i += i & -i {
		x.fw[i] = x.tins(x.fw[i], x.node(j, est))
	}
}

// grow doubles the processor counts covered: the new last entry covers
// them all (the others above the old size cover only new counts).
func (x *cappedIndex) grow() {
	old := x.size
	x.size *= 2
	x.fw = growTo(x.fw, x.size+1, 0)
	var walk func(i int32)
	walk = func(i int32) {
		if i == 0 {
			return
		}
		walk(x.nd[i].left)
		n := x.nd[i]
		x.fw[x.size] = x.tins(x.fw[x.size], x.node(n.j, n.est))
		walk(n.right)
	}
	walk(x.fw[old])
}

// remove drops j if it is queued.
func (x *cappedIndex) remove(j *engine.Job) {
	if int(j.Index) >= len(x.byEst.at) || x.byEst.at[j.Index] == 0 {
		return
	}
	x.byEst.remove(j)
	for i := procsOf(j); i <= x.size; i += i & -i {
		x.fw[i] = x.tdel(x.fw[i], j.Index)
	}
}

func (x *cappedIndex) node(j *engine.Job, est float64) int32 {
	x.seed ^= x.seed >> 12
	x.seed ^= x.seed << 25
	x.seed ^= x.seed >> 27
	nn := cnode{idx: j.Index, est: est, maxEst: est, prio: x.seed * 2685821657736338717, j: j}
	if k := len(x.free); k > 0 {
		id := x.free[k-1]
		x.free = x.free[:k-1]
		x.nd[id] = nn
		return id
	}
	x.nd = append(x.nd, nn)
	return int32(len(x.nd) - 1)
}

func (x *cappedIndex) pull(i int32) {
	n := &x.nd[i]
	n.maxEst = n.est
	if l := n.left; l != 0 {
		n.maxEst = max(n.maxEst, x.nd[l].maxEst)
	}
	if r := n.right; r != 0 {
		n.maxEst = max(n.maxEst, x.nd[r].maxEst)
	}
}

func (x *cappedIndex) tins(i, id int32) int32 {
	if i == 0 {
		return id
	}
	m := &x.nd[id]
	if m.prio > x.nd[i].prio {
		l, r := x.split(i, m.idx)
		m.left, m.right = l, r
		x.pull(id)
		return id
	}
	if m.idx < x.nd[i].idx {
		x.nd[i].left = x.tins(x.nd[i].left, id)
	} else {
		x.nd[i].right = x.tins(x.nd[i].right, id)
	}
	x.pull(i)
	return i
}

// split divides subtree i into the nodes before idx and the rest.
func (x *cappedIndex) split(i, idx int32) (int32, int32) {
	if i == 0 {
		return 0, 0
	}
	if x.nd[i].idx < idx {
		l, r := x.split(x.nd[i].right, idx)
		x.nd[i].right = l
		x.pull(i)
		return i, r
	}
	l, r := x.split(x.nd[i].left, idx)
	x.nd[i].left = r
	x.pull(i)
	return l, i
}

func (x *cappedIndex) merge(a, b int32) int32 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	if x.nd[a].prio > x.nd[b].prio {
		x.nd[a].right = x.merge(x.nd[a].right, b)
		x.pull(a)
		return a
	}
	x.nd[b].left = x.merge(a, x.nd[b].left)
	x.pull(b)
	return b
}

// tdel removes the node of job idx from subtree i.
func (x *cappedIndex) tdel(i, idx int32) int32 {
	if i == 0 {
		return 0
	}
	n := &x.nd[i]
	switch {
	case idx == n.idx:
		r := x.merge(n.left, n.right)
		x.nd[i] = cnode{}
		x.free = append(x.free, i)
		return r
	case idx < n.idx:
		n.left = x.tdel(n.left, idx)
	default:
		n.right = x.tdel(n.right, idx)
	}
	x.pull(i)
	return i
}

// tfirst is the node of the earliest job after cursor in subtree i with
// est >= m (0 if none).
func (x *cappedIndex) tfirst(i, cursor int32, m float64) int32 {
	for i != 0 {
		n := &x.nd[i]
		if n.maxEst < m {
			return 0
		}
		if n.idx <= cursor {
			i = n.right
			continue
		}
		if r := x.tfirst(n.left, cursor, m); r != 0 {
			return r
		}
		if n.est >= m {
			return i
		}
		i = n.right
		cursor = math.MinInt32 // everything in the right subtree follows
	}
	return 0
}

// firstCapped is the earliest waiting job after cursor (an arrival
// position) with est >= m and at most b processors; nil if none.
func (x *cappedIndex) firstCapped(cursor int32, m float64, b int) *engine.Job {
	best := int32(0)
	for i := min(b, x.size); i > 0; i -= i & -i {
		if r := x.tfirst(x.fw[i], cursor, m); r != 0 && (best == 0 || x.nd[r].idx < x.nd[best].idx) {
			best = r
		}
	}
	if best == 0 {
		return nil
	}
	return x.nd[best].j
}

// cap is the prediction every waiting job's is capped at under
// estimate=epp with common=yes: the mean of the system's last two run
// times rounded down (predict's), +Inf before two jobs ended.
func (h *history) cap() float64 {
	if u := h.users[0]; u != nil && u.n >= 2 {
		return math.Floor((u.last + u.prev) / 2)
	}
	return math.Inf(1)
}

// pred is a job's current prediction; with the capped index a waiting
// job's is computed when asked (min(est, cap), what predict would have
// set at the last end).
func (c *Classic) pred(j *engine.Job) float64 {
	d := c.d(j)
	if c.capx != nil && d.queued {
		return min(d.est, c.hist.cap())
	}
	return d.pred
}

// cappedBackfill starts, in sjbf order, every waiting job but head (nil
// at depth 0) that passes EASY's test against shadow and extra
// (+Inf and the free processors at depth 0), over the capped index.
func (c *Classic) cappedBackfill(v *engine.View, p *engine.Plan, head *engine.Job, shadow float64, extra int) {
	now := v.Now()
	x := c.capx
	m := c.hist.cap()
	depth0 := head == nil
	start := func(j *engine.Job, pred float64) {
		if depth0 {
			if c.free(now) >= j.Procs {
				c.launch(v, p, j, pred)
			}
			return
		}
		c.easyStart(v, p, j, pred, shadow, &extra)
	}
	// The uncapped jobs (est < m), by (est, arrival), predicted at est.
	key, seq := math.Inf(-1), int64(math.MinInt64)
	for {
		free := c.free(now)
		if depth0 {
			extra = free
		}
		j := x.byEst.nextFrom(key, seq, free, extra, now, shadow)
		if j == nil || c.d(j).est >= m {
			break
		}
		key, seq = x.byEst.cursor(j)
		if j != head {
			start(j, c.d(j).est)
		}
	}
	// The capped ones (est >= m), by arrival, all predicted at m.
	cursor := int32(math.MinInt32)
	for {
		b := c.free(now)
		if !depth0 && now+m > shadow {
			b = min(b, extra)
		}
		j := x.firstCapped(cursor, m, b)
		if j == nil {
			return
		}
		cursor = j.Index
		if j != head {
			start(j, m)
		}
	}
}
