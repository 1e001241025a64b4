package policy

import "math"

// Profile is an availability profile: the number of free processors as a
// step function of time. It is stored as a base value plus signed deltas
// at time points, free(t) = Base + Σ{delta(k) : k ≤ t}, in a treap keyed by
// time whose nodes carry the sum, minimum prefix and maximum prefix of
// their subtree. Every operation is O(log n) expected in the number of
// distinct time points; points whose delta returns to zero are removed, so
// n stays the number of distinct times with a net change.
//
// A running job contributes +procs at its expected end (its processors
// are already missing from Base); a reservation contributes −procs at its
// start and +procs at its end.
type Profile struct {
	Base  int
	nodes []pnode // index 0 is the nil node
	free  []int32
	root  int32
	seed  uint64
}

type pnode struct {
	key             float64
	d               int
	sum, minP, maxP int
	prio            uint64
	left, right     int32
	_pad            int32
}

// NewProfile returns an empty profile with the given base.
func NewProfile(base int) *Profile {
	return &Profile{Base: base, nodes: make([]pnode, 1, 64), seed: 0x2545F4914F6CDD1D}
}

// Len is the number of time points.
func (p *Profile) Len() int { return len(p.nodes) - 1 - len(p.free) }

func (p *Profile) newNode(key float64, d int) int32 {
	// xorshift64*: deterministic priorities, independent of anything else.
	p.seed ^= p.seed >> 12
	p.seed ^= p.seed << 25
	p.seed ^= p.seed >> 27
	n := pnode{key: key, d: d, sum: d, minP: d, maxP: d, prio: p.seed * 2685821657736338717}
	if k := len(p.free); k > 0 {
		i := p.free[k-1]
		p.free = p.free[:k-1]
		p.nodes[i] = n
		return i
	}
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

func (p *Profile) pull(i int32) {
	n := &p.nodes[i]
	sum, minP, maxP := 0, math.MaxInt, math.MinInt
	if n.left != 0 {
		l := &p.nodes[n.left]
		sum, minP, maxP = l.sum, l.minP, l.maxP
	}
	sum += n.d
	minP, maxP = min(minP, sum), max(maxP, sum)
	if n.right != 0 {
		r := &p.nodes[n.right]
		minP, maxP = min(minP, sum+r.minP), max(maxP, sum+r.maxP)
		sum += r.sum
	}
	n.sum, n.minP, n.maxP = sum, minP, maxP
}

// split divides subtree i into keys < key (or <= key when inclusive) and
// the rest.
func (p *Profile) split(i int32, key float64, inclusive bool) (int32, int32) {
	if i == 0 {
		return 0, 0
	}
	n := &p.nodes[i]
	if n.key < key || (inclusive && n.key == key) {
		l, r := p.split(n.right, key, inclusive)
		p.nodes[i].right = l
		p.pull(i)
		return i, r
	}
	l, r := p.split(n.left, key, inclusive)
	p.nodes[i].left = r
	p.pull(i)
	return l, i
}

func (p *Profile) merge(a, b int32) int32 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	if p.nodes[a].prio > p.nodes[b].prio {
		p.nodes[a].right = p.merge(p.nodes[a].right, b)
		p.pull(a)
		return a
	}
	p.nodes[b].left = p.merge(a, p.nodes[b].left)
	p.pull(b)
	return b
}

// Add adds d to the delta at time t.
func (p *Profile) Add(t float64, d int) {
	if d != 0 {
		p.root = p.add(p.root, t, d)
	}
}

// add is a treap insert-or-update in one descent: the point at key t gets
// d more; a point whose delta becomes zero is removed.
func (p *Profile) add(i int32, t float64, d int) int32 {
	if i == 0 {
		return p.newNode(t, d)
	}
	n := &p.nodes[i]
	switch {
	case t < n.key:
		l := p.add(n.left, t, d)
		p.nodes[i].left = l
		if l != 0 && p.nodes[l].prio > p.nodes[i].prio {
			// rotate right
			p.nodes[i].left = p.nodes[l].right
			p.pull(i)
			p.nodes[l].right = i
			p.pull(l)
			return l
		}
	case t > n.key:
		r := p.add(n.right, t, d)
		p.nodes[i].right = r
		if r != 0 && p.nodes[r].prio > p.nodes[i].prio {
			// rotate left
			p.nodes[i].right = p.nodes[r].left
			p.pull(i)
			p.nodes[r].left = i
			p.pull(r)
			return r
		}
	default:
		n.d += d
		if n.d == 0 {
			p.free = append(p.free, i)
			return p.merge(n.left, n.right)
		}
	}
	p.pull(i)
	return i
}

// slotEnd is the end of a slot of duration d from t: t + d, or the
// largest float64 where the sum overflows. Every policy that plans in a
// profile ends its slots there (running jobs, reservations, the test that
// a candidate ends by a shadow time), so that the catalogue's points and
// the dedicated fcfs, easy and conservative agree on them. A prediction
// of factor × request (estimate=double,factor=1e300), a history's ratio ×
// request, or a reservation far out plus a long prediction can pass the
// largest float64; a slot ending at +Inf never leaves the profile, so at
// depth=all a job that fits the processors up found no earliest fit, was
// left without a reservation, and nothing placed it again (compression
// moves only reserved jobs): it waited for ever
// (TestClassicSlotPastMaxFloat). Ending at the largest float64, every
// slot leaves the profile free beyond it.
func slotEnd(t, d float64) float64 { return min(t+d, math.MaxFloat64) }

// Reserve subtracts procs over [start, end).
func (p *Profile) Reserve(start, end float64, procs int) {
	if end <= start {
		return
	}
	p.Add(start, -procs)
	p.Add(end, procs)
}

// Unreserve undoes Reserve(start, end, procs).
func (p *Profile) Unreserve(start, end float64, procs int) {
	if end <= start {
		return
	}
	p.Add(start, procs)
	p.Add(end, -procs)
}

// Value is free(t).
func (p *Profile) Value(t float64) int {
	acc := p.Base
	for i := p.root; i != 0; {
		n := &p.nodes[i]
		if n.key <= t {
			if n.left != 0 {
				acc += p.nodes[n.left].sum
			}
			acc += n.d
			i = n.right
		} else {
			i = n.left
		}
	}
	return acc
}

// FirstAtLeast returns the smallest time point k > after at which
// free(k) >= need.
func (p *Profile) FirstAtLeast(after float64, need int) (float64, bool) {
	i := p.firstAtLeast(p.root, p.Base, after, need)
	if i == 0 {
		return 0, false
	}
	return p.nodes[i].key, true
}

func (p *Profile) firstAtLeast(i int32, acc int, after float64, need int) int32 {
	for i != 0 {
		n := &p.nodes[i]
		if acc+n.maxP < need {
			return 0
		}
		lsum := 0
		if n.left != 0 {
			lsum = p.nodes[n.left].sum
		}
		if n.key > after {
			if r := p.firstAtLeast(n.left, acc, after, need); r != 0 {
				return r
			}
			if acc+lsum+n.d >= need {
				return i
			}
		}
		acc += lsum + n.d
		i = n.right
	}
	return 0
}

// FirstBelow returns the smallest time point k with after < k < before at
// which free(k) < need.
func (p *Profile) FirstBelow(after, before float64, need int) (float64, bool) {
	i := p.firstBelow(p.root, p.Base, after, before, need)
	if i == 0 {
		return 0, false
	}
	return p.nodes[i].key, true
}

func (p *Profile) firstBelow(i int32, acc int, after, before float64, need int) int32 {
	for i != 0 {
		n := &p.nodes[i]
		if acc+n.minP >= need {
			return 0
		}
		lsum := 0
		if n.left != 0 {
			lsum = p.nodes[n.left].sum
		}
		if n.key >= before {
			i = n.left
			continue
		}
		if n.key > after {
			if r := p.firstBelow(n.left, acc, after, before, need); r != 0 {
				return r
			}
			if acc+lsum+n.d < need {
				return i
			}
		}
		acc += lsum + n.d
		i = n.right
	}
	return 0
}

// LastBelow returns the largest time point k with after < k < before at
// which free(k) < need.
func (p *Profile) LastBelow(after, before float64, need int) (float64, bool) {
	i := p.lastBelow(p.root, p.Base, after, before, need)
	if i == 0 {
		return 0, false
	}
	return p.nodes[i].key, true
}

func (p *Profile) lastBelow(i int32, acc int, after, before float64, need int) int32 {
	for i != 0 {
		n := &p.nodes[i]
		if acc+n.minP >= need {
			return 0
		}
		lsum := 0
		if n.left != 0 {
			lsum = p.nodes[n.left].sum
		}
		if n.key <= after {
			acc += lsum + n.d
			i = n.right
			continue
		}
		if n.key < before {
			if r := p.lastBelow(n.right, acc+lsum+n.d, after, before, need); r != 0 {
				return r
			}
			if acc+lsum+n.d < need {
				return i
			}
		}
		i = n.left
	}
	return 0
}

// MaxOver is the largest value of free(t) for t in [from, to).
func (p *Profile) MaxOver(from, to float64) int {
	best := p.Value(from)
	p.maxOver(p.root, p.Base, from, to, &best)
	return best
}

func (p *Profile) maxOver(i int32, acc int, from, to float64, best *int) {
	for i != 0 {
		n := &p.nodes[i]
		if acc+n.maxP <= *best {
			return
		}
		lsum := 0
		if n.left != 0 {
			lsum = p.nodes[n.left].sum
		}
		if n.key >= to {
			i = n.left
			continue
		}
		if n.key > from {
			p.maxOver(n.left, acc, from, to, best)
			if v := acc + lsum + n.d; v > *best {
				*best = v
			}
		}
		acc += lsum + n.d
		i = n.right
	}
}

// EarliestFit returns the earliest time t >= from such that free >= need
// throughout [t, t+dur) (and at t itself when dur is 0), or +Inf if there
// is none.
func (p *Profile) EarliestFit(from, dur float64, need int) float64 {
	return p.EarliestFitBefore(from, dur, need, math.Inf(1))
}

// EarliestFitBefore returns the earliest t in [from, limit) such that
// free >= need throughout [t, min(t+dur, limit)) and at t, or +Inf if
// there is none. Conservative backfilling uses it with limit = a job's
// current reservation start, with that reservation still in the profile:
// beyond its own start the job's reservation frees what it would need, so
// the test is exact without touching the profile.
func (p *Profile) EarliestFitBefore(from, dur float64, need int, limit float64) float64 {
	return p.EarliestFitIn(from, limit, dur, need, limit)
}

// EarliestFitIn is EarliestFitBefore looking only at starts t in
// [from, to), to <= limit: the earliest such t with free >= need
// throughout [t, min(t+dur, limit)) and at t, or +Inf.
func (p *Profile) EarliestFitIn(from, to, dur float64, need int, limit float64) float64 {
	t := from
	if t >= to {
		return math.Inf(1)
	}
	v := p.Value(t)
	for {
		if v < need {
			k, ok := p.FirstAtLeast(t, need)
			if !ok || k >= to {
				return math.Inf(1)
			}
			t = k
		}
		// Every start in (t, k] holds k, the last point below need in
		// t's window, in its own window (k < t+dur <= s+dur): the next
		// candidate is the first point after k with need free.
		k, ok := p.LastBelow(t, min(t+dur, limit), need)
		if !ok {
			return t
		}
		t, v = k, need-1
	}
}
