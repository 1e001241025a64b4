package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// oindex is a waiting queue in a static order, (key, seq) increasing,
// kept as a treap whose nodes carry the smallest processor count and the
// smallest test prediction of their subtree. Like qindex for arrival
// order, it lets a pass jump to the next job that may start now instead
// of scanning every waiting job, whatever the static key: when a policy
// leaves the machine idle and its queue grows without bound (SJF without
// backfilling on an overloaded machine), a pass still costs O(log n) per
// job it starts or looks at, not O(queue).
type oindex struct {
	nd   []onode // index 0 is the nil node
	free []int32
	root int32
	at   []int32 // per job index: its node, 0 if not queued
	n    int
	seed uint64
}

type onode struct {
	key         float64
	seq         int64
	pred        float64 // the job's test prediction
	minPred     float64
	procs       int32
	minProcs    int32
	prio        uint64
	left, right int32
	j           *engine.Job
}

func newOindex() *oindex {
	return &oindex{nd: make([]onode, 1, 64), seed: 0x9E3779B97F4A7C15}
}

func (x *oindex) less(a *onode, key float64, seq int64) bool {
	return a.key < key || (a.key == key && a.seq < seq)
}

func (x *oindex) pull(i int32) {
	n := &x.nd[i]
	n.minProcs, n.minPred = n.procs, n.pred
	if l := n.left; l != 0 {
		n.minProcs = min(n.minProcs, x.nd[l].minProcs)
		n.minPred = min(n.minPred, x.nd[l].minPred)
	}
	if r := n.right; r != 0 {
		n.minProcs = min(n.minProcs, x.nd[r].minProcs)
		n.minPred = min(n.minPred, x.nd[r].minPred)
	}
}

// insert queues j at (key, seq) with test prediction pred.
func (x *oindex) insert(j *engine.Job, key float64, seq int64, pred float64) {
	x.seed ^= x.seed >> 12
	x.seed ^= x.seed << 25
	x.seed ^= x.seed >> 27
	nn := onode{key: key, seq: seq, pred: pred, minPred: pred, procs: int32(j.Procs), minProcs: int32(j.Procs), prio: x.seed * 2685821657736338717, j: j}
	var id int32
	if k := len(x.free); k > 0 {
		id = x.free[k-1]
		x.free = x.free[:k-1]
		x.nd[id] = nn
	} else {
		x.nd = append(x.nd, nn)
		id = int32(len(x.nd) - 1)
	}
	if int(j.Index) >= len(x.at) {
		x.at = growTo(x.at, int(j.Index)+1, 0)
	}
	x.at[j.Index] = id
	x.root = x.ins(x.root, id)
	x.n++
}

func (x *oindex) ins(i, id int32) int32 {
	if i == 0 {
		return id
	}
	m := &x.nd[id]
	if m.prio > x.nd[i].prio {
		l, r := x.split(i, m.key, m.seq)
		m.left, m.right = l, r
		x.pull(id)
		return id
	}
	if x.less(m, x.nd[i].key, x.nd[i].seq) {
		x.nd[i].left = x.ins(x.nd[i].left, id)
	} else {
		x.nd[i].right = x.ins(x.nd[i].right, id)
	}
	x.pull(i)
	return i
}

// split divides subtree i into the nodes before (key, seq) and the rest.
func (x *oindex) split(i int32, key float64, seq int64) (int32, int32) {
	if i == 0 {
		return 0, 0
	}
	if x.less(&x.nd[i], key, seq) {
		l, r := x.split(x.nd[i].right, key, seq)
		x.nd[i].right = l
		x.pull(i)
		return i, r
	}
	l, r := x.split(x.nd[i].left, key, seq)
	x.nd[i].left = r
	x.pull(i)
	return l, i
}

func (x *oindex) merge(a, b int32) int32 {
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

// remove drops j if it is queued.
func (x *oindex) remove(j *engine.Job) {
	if int(j.Index) >= len(x.at) || x.at[j.Index] == 0 {
		return
	}
	id := x.at[j.Index]
	x.root = x.del(x.root, id)
	x.at[j.Index] = 0
	x.nd[id] = onode{}
	x.free = append(x.free, id)
	x.n--
}

func (x *oindex) del(i, id int32) int32 {
	if i == id {
		return x.merge(x.nd[i].left, x.nd[i].right)
	}
	m := &x.nd[id]
	if x.less(m, x.nd[i].key, x.nd[i].seq) {
		x.nd[i].left = x.del(x.nd[i].left, id)
	} else {
		x.nd[i].right = x.del(x.nd[i].right, id)
	}
	x.pull(i)
	return i
}

// setPred changes a queued job's test prediction.
func (x *oindex) setPred(j *engine.Job, pred float64) {
	if int(j.Index) >= len(x.at) || x.at[j.Index] == 0 {
		return
	}
	id := x.at[j.Index]
	if x.nd[id].pred == pred {
		return
	}
	// The job keeps its place: only the minima on its path change.
	x.nd[id].pred = pred
	x.repull(x.root, id)
}

// repull recomputes the subtree minima on the path from i down to id.
func (x *oindex) repull(i, id int32) {
	if i == 0 {
		return
	}
	if i != id {
		m := &x.nd[id]
		if x.less(m, x.nd[i].key, x.nd[i].seq) {
			x.repull(x.nd[i].left, id)
		} else {
			x.repull(x.nd[i].right, id)
		}
	}
	x.pull(i)
}

// rekey moves a queued job to key (keeping its seq) with prediction pred.
func (x *oindex) rekey(j *engine.Job, key, pred float64) {
	if int(j.Index) >= len(x.at) || x.at[j.Index] == 0 {
		return
	}
	n := &x.nd[x.at[j.Index]]
	if n.key == key {
		x.setPred(j, pred)
		return
	}
	seq := n.seq
	x.remove(j)
	x.insert(j, key, seq, pred)
}

// first is the queue head (nil if empty).
func (x *oindex) first() *engine.Job {
	i := x.root
	if i == 0 {
		return nil
	}
	for x.nd[i].left != 0 {
		i = x.nd[i].left
	}
	return x.nd[i].j
}

// nextFrom returns the first job strictly after the cursor (key, seq)
// (which need not be queued) that may start now: procs <= free and
// (procs <= min(free, extra) or now + its test prediction <= shadow); nil
// if none. Subtrees whose minima rule every job out are skipped, and
// floating-point addition is monotone, so a skipped job fails the exact
// test too.
func (x *oindex) nextFrom(key float64, seq int64, free, extra int, now, shadow float64) *engine.Job {
	r := x.find(x.root, key, seq, int32(free), int32(min(free, extra)), now, shadow)
	if r == 0 {
		return nil
	}
	return x.nd[r].j
}

// cursor is a job's position, valid after it leaves the queue.
func (x *oindex) cursor(j *engine.Job) (float64, int64) {
	n := &x.nd[x.at[j.Index]]
	return n.key, n.seq
}

func (x *oindex) may(procs, free, both int32, now, pred, shadow float64) bool {
	return procs <= free && (procs <= both || slotEnd(now, pred) <= shadow)
}

func (x *oindex) find(i int32, key float64, seq int64, free, both int32, now, shadow float64) int32 {
	for i != 0 {
		n := &x.nd[i]
		if !x.may(n.minProcs, free, both, now, n.minPred, shadow) {
			return 0
		}
		if !x.less(&onode{key: key, seq: seq}, n.key, n.seq) {
			// n is at or before the cursor: only its right subtree follows.
			i = n.right
			continue
		}
		if r := x.find(n.left, key, seq, free, both, now, shadow); r != 0 {
			return r
		}
		if x.may(n.procs, free, both, now, n.pred, shadow) {
			return i
		}
		i = n.right
		key, seq = math.Inf(-1), math.MinInt64 // everything in the right subtree follows
	}
	return 0
}

// headPred is the prediction a job starts with as the queue head.
func (c *Classic) headPred(j *engine.Job) float64 {
	if c.s.Estimate == "head-double" {
		return c.s.Factor * c.d(j).est
	}
	return c.pred(j)
}

// scheduleIndexed is the pass of headLoop, backfill (queue order, depth
// 1) and filler (depth 0) over the index: the same decisions, each
// candidate found in O(log n).
func (c *Classic) scheduleIndexed(v *engine.View, p *engine.Plan) {
	now := v.Now()
	if c.kt != nil {
		for j := c.kt.head(now); j != nil; j = c.kt.head(now) {
			if c.free(now) < j.Procs || !c.launch(v, p, j, c.headPred(j)) {
				return
			}
		}
		return
	}
	x := c.idx
	if x.n == 0 {
		return
	}
	// Candidates come in backfill order: the queue's, or sjbf's or
	// reverse's (bidx).
	bx := x
	if c.bidx != nil {
		bx = c.bidx
	}
	if c.s.Depth == 0 && c.capx != nil {
		c.cappedBackfill(v, p, nil, math.Inf(1), 0)
		return
	}
	if c.s.Depth == 0 {
		key, seq := math.Inf(-1), int64(math.MinInt64)
		for {
			free := c.free(now)
			j := bx.nextFrom(key, seq, free, free, now, math.Inf(1))
			if j == nil {
				return
			}
			key, seq = bx.cursor(j)
			c.launch(v, p, j, c.testPred(j))
		}
	}
	for j := x.first(); j != nil; j = x.first() {
		if c.free(now) < j.Procs || !c.launch(v, p, j, c.headPred(j)) {
			break
		}
	}
	if c.s.Backfill == "none" || x.n < 2 {
		return
	}
	head := x.first()
	shadow, extra := c.shadow(now, head, now)
	c.tellShadow(head, shadow)
	if c.capx != nil {
		c.cappedBackfill(v, p, head, shadow, extra)
		return
	}
	key, seq := x.cursor(head)
	if bx != x {
		key, seq = math.Inf(-1), int64(math.MinInt64)
	}
	for {
		j := bx.nextFrom(key, seq, c.free(now), extra, now, shadow)
		if j == nil {
			return
		}
		key, seq = bx.cursor(j)
		if j == head {
			continue // the candidates are the jobs behind the head
		}
		pred := c.testPred(j)
		c.easyStart(v, p, j, pred, shadow, &extra)
	}
}
