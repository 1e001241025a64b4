package policy

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// naive is the obvious model of a profile: a map of deltas.
type naive struct {
	base int
	d    map[float64]int
}

func (n *naive) value(t float64) int {
	v := n.base
	for k, d := range n.d {
		if k <= t {
			v += d
		}
	}
	return v
}

func (n *naive) keys() []float64 {
	var ks []float64
	for k, d := range n.d {
		if d != 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

func (n *naive) earliestFit(from, dur float64, need int) float64 {
	return n.earliestFitBefore(from, dur, need, math.Inf(1))
}

func (n *naive) earliestFitBefore(from, dur float64, need int, limit float64) float64 {
	return n.earliestFitIn(from, limit, dur, need, limit)
}

func (n *naive) earliestFitIn(from, to, dur float64, need int, limit float64) float64 {
	cands := []float64{from}
	for _, k := range n.keys() {
		if k > from {
			cands = append(cands, k)
		}
	}
	best := math.Inf(1)
	for _, t := range cands {
		if t >= to {
			continue
		}
		ok := n.value(t) >= need
		for _, k := range n.keys() {
			if k > t && k < min(t+dur, limit) && n.value(k) < need {
				ok = false
			}
		}
		if ok && t < best {
			best = t
		}
	}
	return best
}

// TestProfileMatchesNaive drives the treap and the naive model with the
// same random operations and compares every query.
func TestProfileMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.IntRange(0, 20).Draw(t, "base")
		p := NewProfile(base)
		m := &naive{base: base, d: map[float64]int{}}
		for i, n := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < n; i++ {
			k := float64(rapid.IntRange(0, 30).Draw(t, "key"))
			d := rapid.IntRange(-5, 5).Draw(t, "delta")
			p.Add(k, d)
			m.d[k] += d
			if p.Len() != len(m.keys()) {
				t.Fatalf("len %d, want %d", p.Len(), len(m.keys()))
			}
			q := float64(rapid.IntRange(-1, 32).Draw(t, "q"))
			if got, want := p.Value(q), m.value(q); got != want {
				t.Fatalf("Value(%g) = %d, want %d", q, got, want)
			}
			need := rapid.IntRange(-5, 25).Draw(t, "need")
			dur := float64(rapid.IntRange(0, 10).Draw(t, "dur"))
			if got, want := p.EarliestFit(q, dur, need), m.earliestFit(q, dur, need); got != want {
				t.Fatalf("EarliestFit(%g, %g, %d) = %g, want %g", q, dur, need, got, want)
			}
			limit := float64(rapid.IntRange(0, 35).Draw(t, "limit"))
			if got, want := p.EarliestFitBefore(q, dur, need, limit), m.earliestFitBefore(q, dur, need, limit); got != want {
				t.Fatalf("EarliestFitBefore(%g, %g, %d, %g) = %g, want %g", q, dur, need, limit, got, want)
			}
			to := q + dur
			want := m.value(q)
			for _, k := range m.keys() {
				if k > q && k < to {
					want = max(want, m.value(k))
				}
			}
			if got := p.MaxOver(q, to); got != want {
				t.Fatalf("MaxOver(%g, %g) = %d, want %d", q, to, got, want)
			}
			// FirstBelow and LastBelow over (q, to).
			first, last := math.Inf(1), math.Inf(-1)
			for _, k := range m.keys() {
				if k > q && k < to && m.value(k) < need {
					first, last = min(first, k), max(last, k)
				}
			}
			if k, ok := p.FirstBelow(q, to, need); ok != !math.IsInf(first, 1) || ok && k != first {
				t.Fatalf("FirstBelow(%g, %g, %d) = %g %v, want %g", q, to, need, k, ok, first)
			}
			if k, ok := p.LastBelow(q, to, need); ok != !math.IsInf(last, -1) || ok && k != last {
				t.Fatalf("LastBelow(%g, %g, %d) = %g %v, want %g", q, to, need, k, ok, last)
			}
			// EarliestFitIn with the starts cut before the windows' limit
			// (depth=all's plain search below the rises' end).
			if in := float64(rapid.IntRange(-1, 35).Draw(t, "in")); in <= limit {
				if got, want := p.EarliestFitIn(q, in, dur, need, limit), m.earliestFitIn(q, in, dur, need, limit); got != want {
					t.Fatalf("EarliestFitIn(%g, %g, %g, %d, %g) = %g, want %g", q, in, dur, need, limit, got, want)
				}
			}
			if got, want := p.EarliestFitIn(q, limit, dur, need, math.Inf(1)), m.earliestFitIn(q, limit, dur, need, math.Inf(1)); got != want {
				t.Fatalf("EarliestFitIn(%g, %g, %g, %d, +Inf) = %g, want %g", q, limit, dur, need, got, want)
			}
		}
	})
}
