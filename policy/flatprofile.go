package policy

import (
	"math"
	"slices"
)

// flatProfile is the availability profile of conservative backfilling:
// the same step function as Profile (free(t) = Base + Σ{delta(k) : k ≤ t},
// points whose delta returns to zero removed) kept as two sorted slices,
// the time points with the running sum of deltas up to each point.
//
// A query walks the points in order and an update rewrites the sums over
// the updated range, so both cost the number of points they cross, not
// O(log n) like Profile's treap; but a step is a comparison in a
// contiguous array instead of a descent through a tree, and conservative
// backfilling's questions ("the earliest slot for this job", "can this job
// move earlier?") walk the profile from now anyway, hole after hole. On
// an overloaded queue (hundreds of reservations, a fragmented profile)
// that is several times faster than the treap (issue 19; BENCHMARKS.md).
// TestPropertyFlatProfileEqualsTreap checks it against Profile.
type flatProfile struct {
	Base int
	p    []fpoint // increasing times
	// The last start time a walk began at and upto of it, kept current
	// across insertions and removals: compression walks from now for
	// every queued job.
	hintX  float64
	hintI  int
	hintOK bool
}

type fpoint struct {
	t float64 // time
	s int     // sum of the deltas at this point and every earlier one
}

func newFlatProfile() *flatProfile { return &flatProfile{} }

// Len is the number of time points.
func (p *flatProfile) Len() int { return len(p.p) }

// upto is the number of points at or before x.
func (p *flatProfile) upto(x float64) int {
	lo, hi := 0, len(p.p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.p[m].t <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// before is the sum of the deltas at the points before index i.
func (p *flatProfile) before(i int) int {
	if i == 0 {
		return 0
	}
	return p.p[i-1].s
}

// Value is free(x).
func (p *flatProfile) Value(x float64) int { return p.Base + p.before(p.upto(x)) }

// point returns the index of the point at x, adding one with no delta if
// there is none.
func (p *flatProfile) point(x float64) int {
	i := p.upto(x)
	if i > 0 && p.p[i-1].t == x {
		return i - 1
	}
	p.p = slices.Insert(p.p, i, fpoint{t: x, s: p.before(i)})
	if x <= p.hintX {
		p.hintI++
	}
	return i
}

// tidy removes the point at index i if its delta is zero.
func (p *flatProfile) tidy(i int) {
	if q := p.p[i]; q.s == p.before(i) {
		p.p = slices.Delete(p.p, i, i+1)
		if q.t <= p.hintX {
			p.hintI--
		}
	}
}

// Add adds d to the delta at time x.
func (p *flatProfile) Add(x float64, d int) {
	if d == 0 {
		return
	}
	i := p.point(x)
	for k := i; k < len(p.p); k++ {
		p.p[k].s += d
	}
	p.tidy(i)
}

// addRange adds d to free over [a, b), a < b.
func (p *flatProfile) addRange(a, b float64, d int) {
	i := p.point(a)
	j := p.point(b) // after i: b > a
	s := p.p[i:j]
	for k := range s {
		s[k].s += d
	}
	p.tidy(j) // j first: removing it leaves i in place
	p.tidy(i)
}

// Reserve subtracts procs over [start, end).
func (p *flatProfile) Reserve(start, end float64, procs int) {
	if end > start {
		p.addRange(start, end, -procs)
	}
}

// Unreserve undoes Reserve(start, end, procs).
func (p *flatProfile) Unreserve(start, end float64, procs int) {
	if end > start {
		p.addRange(start, end, procs)
	}
}

// MaxOver is the largest value of free(t) for t in [from, to).
func (p *flatProfile) MaxOver(from, to float64) int {
	i := p.upto(from)
	best := p.before(i)
	for ; i < len(p.p) && p.p[i].t < to; i++ {
		best = max(best, p.p[i].s)
	}
	return p.Base + best
}

// EarliestFit is Profile.EarliestFit.
func (p *flatProfile) EarliestFit(from, dur float64, need int) float64 {
	inf := math.Inf(1)
	return p.EarliestFitIn(from, inf, dur, need, inf)
}

// EarliestFitBefore is Profile.EarliestFitBefore.
func (p *flatProfile) EarliestFitBefore(from, dur float64, need int, limit float64) float64 {
	return p.EarliestFitIn(from, limit, dur, need, limit)
}

// EarliestFitIn is Profile.EarliestFitIn: the earliest t in [from, to),
// to <= limit, such that free >= need at t and throughout
// [t, min(t+dur, limit)), or +Inf if there is none.
func (p *flatProfile) EarliestFitIn(from, to, dur float64, need int, limit float64) float64 {
	if from >= to {
		return math.Inf(1)
	}
	need -= p.Base // compare with the sums
	ps := p.p
	n := len(ps)
	t := from
	if !p.hintOK || p.hintX != from {
		p.hintX, p.hintI, p.hintOK = from, p.upto(from), true
	}
	i := p.hintI // ps[i] is the first point after t
	ok := p.before(i) >= need
	for {
		if !ok {
			for i < n && ps[i].s < need && ps[i].t < to { // no start at or after to
				i++
			}
			if i == n || ps[i].t >= to {
				return math.Inf(1)
			}
			t = ps[i].t
			i++
		}
		end := min(t+dur, limit)
		for i < n && ps[i].t < end && ps[i].s >= need {
			i++
		}
		if i == n || ps[i].t >= end {
			return t
		}
		t, ok = ps[i].t, false // free drops below need at ps[i].t
		i++
	}
}
