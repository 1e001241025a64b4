package policy

import (
	"math"
	"slices"
)

// treeProfile is the large form of conservative backfilling's
// availability profile (resProfile): the same step function as Profile (free(t) = Base + Σ{delta(k) : k ≤ t},
// points whose delta returns to zero removed), kept as a B-tree of height
// two (issue 30):
//
//   - the time points, in order, are cut into chunks of at most chunkMax
//     points; a chunk holds its times and the running sum of its deltas
//     (relative to the chunk's start), with the smallest and largest of
//     those sums;
//   - a segment tree over the chunks holds, per node, the sum of its
//     chunks' deltas and the smallest and largest running sum at any of
//     their points (relative to the node's start).
//
// An update rewrites one chunk (at most chunkMax points) and the path of
// its leaf: O(chunkMax + log n). A search scans the chunk it starts in
// and then descends the segment tree to the next chunk holding a point on
// the other side of the threshold ("free drops below need", "free comes
// back to need"), skipping every chunk in between in O(log n): walking a
// hole, or a long run of points that are all too full or all free enough,
// costs O(chunkMax + log n) instead of the points it crosses. Splitting,
// merging and removing chunks rebuild the segment tree (O(n/chunkMax)),
// once per chunkMax/2 or more point insertions or removals.
//
// The flat sorted array (flatProfile) pays O(points) for every insertion
// and removal and for every point a walk crosses, but each is a step
// through contiguous memory: on profiles of a few hundred points it is the
// faster one, so resProfile holds small profiles in it.
// TestPropertyTreeProfileEqualsFlat checks that both answer every query
// alike; TestPropertyConservativeSkipEqualsAsking and
// TestConservativeLargeEqualsAsking that conservative backfilling makes the
// oracle's reservations with either.
type treeProfile struct {
	Base  int
	ch    []pchunk  // chunks in time order, none empty
	first []float64 // first[c] is ch[c].p[0].t
	seg   []segNode // segment tree over ch: root 1, leaves size..size+len(ch)-1
	size  int       // leaves (a power of two, ≥ len(ch))
	n     int       // points
	max   int       // most points in a chunk (chunkMax unless set smaller)

	// The cursor of the last walk's start, valid while ver is unchanged:
	// compression walks from now for every queued job it asks.
	ver   uint64
	hint  cursor
	hintX float64
	hintV int
	hintN uint64 // ver+1 of the hint; 0 = none
}

// chunkMax is the most points a chunk holds; a full chunk splits in two.
// A chunk that falls under chunkMax/4 points merges with a neighbour when
// the two fit in 3/4 of chunkMax. 64 was a little faster than 256 on the
// overloaded workloads of BenchmarkConservativeScaling.
const chunkMax = 64

type pchunk struct {
	p      []fpoint // times increasing; p[k].s: sum of the chunk's deltas at p[0..k] (relative to the chunk's start)
	lo, hi int      // smallest and largest p[k].s
}

// segNode summarizes a range of chunks: the sum of their deltas and the
// smallest and largest running sum at their points, relative to the
// range's start. An empty range has lo > hi.
type segNode struct{ sum, lo, hi int }

var emptySeg = segNode{lo: math.MaxInt, hi: math.MinInt}

func (a segNode) then(b segNode) segNode {
	if b.lo > b.hi {
		return a
	}
	if a.lo > a.hi {
		return b
	}
	return segNode{sum: a.sum + b.sum, lo: min(a.lo, a.sum+b.lo), hi: max(a.hi, a.sum+b.hi)}
}

func newTreeProfile(max int) *treeProfile { return &treeProfile{max: max} }

// Len is the number of time points.
func (p *treeProfile) Len() int { return p.n }

func (c *pchunk) sum() int { return c.p[len(c.p)-1].s }

func (c *pchunk) node() segNode { return segNode{sum: c.sum(), lo: c.lo, hi: c.hi} }

func (c *pchunk) bounds() {
	lo, hi := math.MaxInt, math.MinInt
	for _, q := range c.p {
		lo, hi = min(lo, q.s), max(hi, q.s)
	}
	c.lo, c.hi = lo, hi
}

// rebuild recomputes first and the segment tree after chunks were added,
// removed or merged.
func (p *treeProfile) rebuild() {
	p.first = p.first[:0]
	for i := range p.ch {
		p.first = append(p.first, p.ch[i].p[0].t)
	}
	size := 1
	for size < len(p.ch) {
		size *= 2
	}
	p.size = size
	if cap(p.seg) >= 2*size {
		p.seg = p.seg[:2*size]
	} else {
		p.seg = make([]segNode, 2*size)
	}
	for k := range size {
		if k < len(p.ch) {
			p.seg[size+k] = p.ch[k].node()
		} else {
			p.seg[size+k] = emptySeg
		}
	}
	for k := size - 1; k >= 1; k-- {
		p.seg[k] = p.seg[2*k].then(p.seg[2*k+1])
	}
}

// refresh updates chunk c's leaf and its ancestors.
func (p *treeProfile) refresh(c int) {
	k := p.size + c
	p.seg[k] = p.ch[c].node()
	p.first[c] = p.ch[c].p[0].t
	for k >>= 1; k >= 1; k >>= 1 {
		p.seg[k] = p.seg[2*k].then(p.seg[2*k+1])
	}
}

// offset is the sum of the deltas of the chunks before c.
func (p *treeProfile) offset(c int) int {
	acc := 0
	for k := p.size + c; k > 1; k >>= 1 {
		if k&1 == 1 {
			acc += p.seg[k-1].sum
		}
	}
	return acc
}

// chunkOf is the last chunk whose first point is at or before x, or -1.
func (p *treeProfile) chunkOf(x float64) int {
	lo, hi := 0, len(p.first)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.first[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// upto is the number of points of ps at or before x.
func upto(ps []fpoint, x float64) int {
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].t <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Value is free(x).
func (p *treeProfile) Value(x float64) int {
	c := p.chunkOf(x)
	if c < 0 {
		return p.Base
	}
	ch := &p.ch[c]
	return p.Base + p.offset(c) + ch.p[upto(ch.p, x)-1].s
}

// Add adds d to the delta at time x.
func (p *treeProfile) Add(x float64, d int) {
	if d == 0 {
		return
	}
	p.ver++
	if len(p.ch) == 0 {
		p.ch = append(p.ch, pchunk{p: []fpoint{{t: x, s: d}}, lo: d, hi: d})
		p.n = 1
		p.rebuild()
		return
	}
	c := max(p.chunkOf(x), 0)
	ch := &p.ch[c]
	i := upto(ch.p, x)
	if i == 0 || ch.p[i-1].t != x {
		// A new point at index i.
		if len(ch.p) >= p.max {
			p.split(c)
			if h := len(p.ch[c].p); i > h {
				c, i = c+1, i-h
			}
			ch = &p.ch[c]
		}
		prev := 0
		if i > 0 {
			prev = ch.p[i-1].s
		}
		ch.p = slices.Insert(ch.p, i, fpoint{t: x, s: prev})
		p.n++
	} else {
		i--
	}
	prev := 0
	if i > 0 {
		prev = ch.p[i-1].s
	}
	if ch.p[i].s+d == prev {
		// The delta at x is back to zero.
		if p.drop(c, i) {
			return
		}
		for k := i; k < len(ch.p); k++ {
			ch.p[k].s += d
		}
		ch.bounds()
		if len(ch.p) < p.max/4 && p.merge(c) {
			return
		}
		p.refresh(c)
		return
	}
	ch.shift(i, len(ch.p), d)
	p.refresh(c)
}

// shift adds d to the running sums of points [i, j) and updates the
// bounds: the one the change moves towards is the old one or the range's
// new one; the other needs the points outside the range only where the
// range held it (they were all there before; a new point inside the range
// whose value was outside the bounds makes the test rescan).
func (ch *pchunk) shift(i, j, d int) {
	rlo, rhi := math.MaxInt, math.MinInt
	for k := i; k < j; k++ {
		v := ch.p[k].s + d
		ch.p[k].s = v
		rlo, rhi = min(rlo, v), max(rhi, v)
	}
	if d > 0 {
		ch.hi = max(ch.hi, rhi)
		if rlo-d <= ch.lo {
			ch.lo = min(prefixLo(ch.p[:i]), prefixLo(ch.p[j:]), rlo)
		}
	} else {
		ch.lo = min(ch.lo, rlo)
		if rhi-d >= ch.hi {
			ch.hi = max(prefixHi(ch.p[:i]), prefixHi(ch.p[j:]), rhi)
		}
	}
}

func prefixLo(ps []fpoint) int {
	lo := math.MaxInt
	for _, q := range ps {
		lo = min(lo, q.s)
	}
	return lo
}

func prefixHi(ps []fpoint) int {
	hi := math.MinInt
	for _, q := range ps {
		hi = max(hi, q.s)
	}
	return hi
}

// drop removes point i of chunk c and reports whether that emptied the
// chunk (it is then removed and the tree rebuilt).
func (p *treeProfile) drop(c, i int) bool {
	ch := &p.ch[c]
	ch.p = slices.Delete(ch.p, i, i+1)
	p.n--
	if len(ch.p) > 0 {
		return false
	}
	p.ch = slices.Delete(p.ch, c, c+1)
	p.rebuild()
	return true
}

// split cuts full chunk c in two halves and rebuilds the tree.
func (p *treeProfile) split(c int) {
	a := &p.ch[c]
	h := len(a.p) / 2
	base := a.p[h-1].s
	b := pchunk{p: make([]fpoint, len(a.p)-h, p.max)}
	for k, q := range a.p[h:] {
		b.p[k] = fpoint{t: q.t, s: q.s - base}
	}
	a.p = a.p[:h]
	a.bounds()
	b.bounds()
	p.ch = slices.Insert(p.ch, c+1, b)
	p.rebuild()
}

// merge joins small chunk c with a neighbour when both fit in 3/4 of a
// chunk, and reports whether it did (the tree is then rebuilt).
func (p *treeProfile) merge(c int) bool {
	for _, l := range []int{c, c - 1} { // c with the next, or the previous with c
		if l < 0 || l+1 >= len(p.ch) || len(p.ch[l].p)+len(p.ch[l+1].p) > p.max*3/4 {
			continue
		}
		a, b := &p.ch[l], &p.ch[l+1]
		base := a.sum()
		for _, q := range b.p {
			a.p = append(a.p, fpoint{t: q.t, s: q.s + base})
		}
		a.bounds()
		p.ch = slices.Delete(p.ch, l+1, l+2)
		p.rebuild()
		return true
	}
	return false
}

// Reserve subtracts procs over [start, end).
func (p *treeProfile) Reserve(start, end float64, procs int) {
	if end > start {
		p.addRange(start, end, -procs)
	}
}

// Unreserve undoes Reserve(start, end, procs).
func (p *treeProfile) Unreserve(start, end float64, procs int) {
	if end > start {
		p.addRange(start, end, procs)
	}
}

// addRange adds d to free over [a, b), a < b. Within one chunk only the
// points in [a, b) change (as in the flat array); across chunks it is a
// delta at a and one at b.
func (p *treeProfile) addRange(a, b float64, d int) {
	c := p.chunkOf(a)
	if c < 0 || d == 0 || p.chunkOf(b) != c || len(p.ch[c].p)+2 > p.max {
		p.Add(a, d)
		p.Add(b, -d)
		return
	}
	p.ver++
	ch := &p.ch[c]
	i := p.point(ch, a)
	j := p.point(ch, b) // after i: b > a
	ch.shift(i, j, d)
	// Points whose delta is zero go (j first: removing it leaves i in
	// place). A point after another with the same sum takes no value
	// away from the bounds; the first point of the chunk does (its sum
	// is its delta).
	if ch.p[j].s == ch.p[j-1].s {
		ch.p = slices.Delete(ch.p, j, j+1)
		p.n--
	}
	if prev := 0; i > 0 && ch.p[i].s == ch.p[i-1].s || i == 0 && ch.p[0].s == prev {
		if p.drop(c, i) {
			return
		}
		if i == 0 {
			ch.bounds()
		}
	}
	if len(ch.p) < p.max/4 && p.merge(c) {
		return
	}
	p.refresh(c)
}

// point returns the index of the point at x in chunk ch (whose first
// point is at or before x, and which has room), adding one with no delta
// if there is none.
func (p *treeProfile) point(ch *pchunk, x float64) int {
	i := upto(ch.p, x)
	if i > 0 && ch.p[i-1].t == x {
		return i - 1
	}
	ch.p = slices.Insert(ch.p, i, fpoint{t: x, s: ch.p[i-1].s})
	p.n++
	return i
}

// cursor is a position in the profile: the point ch[c].t[i], with acc the
// sum of the deltas of the chunks before c. c == len(ch) is past the end.
type cursor struct {
	c, i, acc int
}

// after returns the cursor at the first point after x and the sum of the
// deltas at x and before (free(x) − Base).
func (p *treeProfile) after(x float64) (cursor, int) {
	if p.hintN == p.ver+1 && p.hintX == x {
		return p.hint, p.hintV
	}
	q, v := p.locate(x)
	p.hint, p.hintX, p.hintV, p.hintN = q, x, v, p.ver+1
	return q, v
}

func (p *treeProfile) locate(x float64) (cursor, int) {
	c := p.chunkOf(x)
	if c < 0 {
		return cursor{}, 0
	}
	acc := p.offset(c)
	ch := &p.ch[c]
	i := upto(ch.p, x)
	v := acc + ch.p[i-1].s
	if i == len(ch.p) {
		return cursor{c: c + 1, acc: v}, v
	}
	return cursor{c: c, i: i, acc: acc}, v
}

// seek moves the cursor to the first point at or after it, and before
// limit, whose running sum is below need (below) or at least need
// (!below), and reports whether there is one. Points in the cursor's chunk
// are scanned; the chunks after it are skipped through the segment tree.
func (p *treeProfile) seek(q *cursor, need int, below bool, limit float64) bool {
	if q.c < len(p.ch) {
		ch := &p.ch[q.c]
		acc := q.acc
		ps := ch.p
		need := need - acc
		if below {
			if ch.lo < need {
				for i := q.i; i < len(ps); i++ {
					if ps[i].t >= limit {
						return false
					}
					if ps[i].s < need {
						q.i = i
						return true
					}
				}
			}
		} else if ch.hi >= need {
			for i := q.i; i < len(ps); i++ {
				if ps[i].t >= limit {
					return false
				}
				if ps[i].s >= need {
					q.i = i
					return true
				}
			}
		}
		q.acc += ch.sum()
		q.c, q.i = q.c+1, 0
	}
	if q.c >= len(p.ch) || p.first[q.c] >= limit {
		return false
	}
	// Find the first chunk at or after q.c holding such a point: climb
	// while the subtrees to the right hold none, then descend.
	k, acc := p.size+q.c, q.acc
	for !p.seg[k].holds(acc, need, below) {
		acc += p.seg[k].sum
		for k&1 == 1 {
			k >>= 1
			if k <= 1 {
				q.c = len(p.ch)
				return false
			}
		}
		k++
	}
	for k < p.size {
		if l := &p.seg[2*k]; l.holds(acc, need, below) {
			k = 2 * k
		} else {
			acc += l.sum
			k = 2*k + 1
		}
	}
	q.c, q.acc = k-p.size, acc
	for i, pt := range p.ch[q.c].p {
		if acc+pt.s < need == below {
			q.i = i
			return pt.t < limit
		}
	}
	panic("policy: treeProfile segment tree out of step with its chunks")
}

// holds reports whether a point of the node's range has a running sum,
// offset by acc, below need (below) or at least need (!below).
func (n *segNode) holds(acc, need int, below bool) bool {
	if n.lo > n.hi {
		return false // no chunk
	}
	if below {
		return acc+n.lo < need
	}
	return acc+n.hi >= need
}

// at is the time of the cursor's point and the cursor moved past it.
func (p *treeProfile) at(q *cursor) float64 {
	ch := &p.ch[q.c]
	t := ch.p[q.i].t
	if q.i++; q.i == len(ch.p) {
		q.acc += ch.sum()
		q.c, q.i = q.c+1, 0
	}
	return t
}

// MaxOver is the largest value of free(t) for t in [from, to).
func (p *treeProfile) MaxOver(from, to float64) int {
	q, best := p.locate(from)
	// Points in (from, to): the rest of the first chunk, whole chunks,
	// then part of the last one.
	if q.c < len(p.ch) && q.i > 0 {
		ch := &p.ch[q.c]
		for ; q.i < len(ch.p) && ch.p[q.i].t < to; q.i++ {
			best = max(best, q.acc+ch.p[q.i].s)
		}
		if q.i < len(ch.p) {
			return p.Base + best
		}
		q.acc += ch.sum()
		q.c, q.i = q.c+1, 0
	}
	last := p.chunkOf(math.Nextafter(to, math.Inf(-1))) // the chunk holding the last point before to
	if last >= q.c+1 {
		// Whole chunks q.c .. last-1.
		n := p.span(1, 0, p.size, q.c, last)
		if n.lo <= n.hi {
			best = max(best, q.acc+n.hi)
		}
		q.acc += n.sum
		q.c = last
	}
	if q.c < len(p.ch) {
		for _, pt := range p.ch[q.c].p {
			if pt.t >= to {
				break
			}
			best = max(best, q.acc+pt.s)
		}
	}
	return p.Base + best
}

// span summarizes chunks [l, r) within node k, which covers [lo, hi).
func (p *treeProfile) span(k, lo, hi, l, r int) segNode {
	if r <= lo || hi <= l {
		return emptySeg
	}
	if l <= lo && hi <= r {
		return p.seg[k]
	}
	m := (lo + hi) / 2
	return p.span(2*k, lo, m, l, r).then(p.span(2*k+1, m, hi, l, r))
}

// EarliestFit is Profile.EarliestFit.
func (p *treeProfile) EarliestFit(from, dur float64, need int) float64 {
	inf := math.Inf(1)
	return p.EarliestFitIn(from, inf, dur, need, inf)
}

// EarliestFitBefore is Profile.EarliestFitBefore.
func (p *treeProfile) EarliestFitBefore(from, dur float64, need int, limit float64) float64 {
	return p.EarliestFitIn(from, limit, dur, need, limit)
}

// EarliestFitIn is Profile.EarliestFitIn: the earliest t in [from, to),
// to <= limit, such that free >= need at t and throughout
// [t, min(t+dur, limit)), or +Inf if there is none. It alternates two
// seeks: to the next point where free comes back to need (a candidate
// start) and to the next point where it drops below need (the end of that
// hole); each costs O(chunkMax + log n) however many points it passes.
func (p *treeProfile) EarliestFitIn(from, to, dur float64, need int, limit float64) float64 {
	if from >= to {
		return math.Inf(1)
	}
	need -= p.Base // compare with the running sums
	q, v := p.after(from)
	t := from
	ok := v >= need
	for {
		if !ok {
			if !p.seek(&q, need, false, to) {
				return math.Inf(1)
			}
			t = p.at(&q)
		}
		end := min(t+dur, limit)
		if !p.lastBelow(&q, need, end) {
			return t
		}
		// Free is below need at the last point of t's window where it is:
		// every start from t up to that point holds it in its window, so
		// the next candidate comes after it (issue 30: one step over
		// every hole inside the window instead of one per hole).
		p.at(&q)
		ok = false
	}
}

// lastBelow moves the cursor to the last point at or after it and before
// end whose running sum is below need, and reports whether there is one
// (the cursor is left as it was if not).
func (p *treeProfile) lastBelow(q *cursor, need int, end float64) bool {
	if q.c >= len(p.ch) || p.ch[q.c].p[q.i].t >= end {
		return false
	}
	e := q.c // the chunk of the last point before end
	if q.c+1 < len(p.ch) && p.first[q.c+1] < end {
		e = p.chunkBefore(end)
		// Chunk e from its last point before end back.
		acc := p.offset(e)
		ch := &p.ch[e]
		if acc+ch.lo < need {
			for i := before(ch.p, end) - 1; i >= 0; i-- {
				if acc+ch.p[i].s < need {
					*q = cursor{c: e, i: i, acc: acc}
					return true
				}
			}
		}
		// Whole chunks q.c+1 .. e-1, last first, through the segment tree.
		if e > q.c+1 {
			if c, acc := p.lastHolding(1, 0, p.size, q.c+1, e, 0, need); c >= 0 {
				ps := p.ch[c].p
				for i := len(ps) - 1; i >= 0; i-- {
					if acc+ps[i].s < need {
						*q = cursor{c: c, i: i, acc: acc}
						return true
					}
				}
				panic("policy: treeProfile segment tree out of step with its chunks")
			}
		}
	}
	// q's chunk from its last point before end back to q.
	ch := &p.ch[q.c]
	if q.acc+ch.lo >= need {
		return false
	}
	last := len(ch.p) - 1
	if e == q.c {
		last = before(ch.p, end) - 1
	}
	for i := last; i >= q.i; i-- {
		if q.acc+ch.p[i].s < need {
			q.i = i
			return true
		}
	}
	return false
}

// chunkBefore is the last chunk whose first point is before x, or -1.
func (p *treeProfile) chunkBefore(x float64) int {
	i, _ := slices.BinarySearch(p.first, x)
	return i - 1
}

// before is the number of points of ps before x: those at or before the
// float just below x.
func before(ps []fpoint, x float64) int {
	return upto(ps, math.Nextafter(x, math.Inf(-1)))
}

// lastHolding is the last chunk in [l, r) within node k (covering chunks
// [lo, hi), acc the sum of the deltas before lo) holding a point whose
// running sum is below need, and the sum of the deltas before it; -1 if
// none.
func (p *treeProfile) lastHolding(k, lo, hi, l, r, acc, need int) (int, int) {
	n := &p.seg[k]
	if r <= lo || hi <= l || n.lo > n.hi || (l <= lo && hi <= r && acc+n.lo >= need) {
		return -1, 0
	}
	if hi-lo == 1 {
		return lo, acc
	}
	m := (lo + hi) / 2
	if c, a := p.lastHolding(2*k+1, m, hi, l, r, acc+p.seg[2*k].sum, need); c >= 0 {
		return c, a
	}
	return p.lastHolding(2*k, lo, m, l, r, acc, need)
}
