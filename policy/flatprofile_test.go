package policy

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestPropertyFlatProfileEqualsTreap drives the flat profile, the treap
// and the naive model with the same random operations (single deltas as
// running jobs add them, reservations and their removal, base changes)
// and compares every query: the flat profile must answer exactly what the
// treap answers, so conservative backfilling's schedule does not depend
// on which one holds it.
func TestPropertyFlatProfileEqualsTreap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.IntRange(0, 20).Draw(t, "base")
		f := newFlatProfile()
		f.Base = base
		p := NewProfile(base)
		m := &naive{base: base, d: map[float64]int{}}
		type res struct {
			a, b float64
			n    int
		}
		var held []res
		for i, n := 0, rapid.IntRange(1, 80).Draw(t, "ops"); i < n; i++ {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				k := float64(rapid.IntRange(0, 30).Draw(t, "key"))
				d := rapid.IntRange(-5, 5).Draw(t, "delta")
				f.Add(k, d)
				p.Add(k, d)
				m.d[k] += d
			case 1:
				a := float64(rapid.IntRange(0, 30).Draw(t, "start"))
				r := res{a, a + float64(rapid.IntRange(0, 8).Draw(t, "len")), rapid.IntRange(1, 6).Draw(t, "procs")}
				f.Reserve(r.a, r.b, r.n)
				p.Reserve(r.a, r.b, r.n)
				if r.b > r.a {
					m.d[r.a] -= r.n
					m.d[r.b] += r.n
				}
				held = append(held, r)
			case 2:
				if len(held) > 0 {
					k := rapid.IntRange(0, len(held)-1).Draw(t, "which")
					r := held[k]
					held = append(held[:k], held[k+1:]...)
					f.Unreserve(r.a, r.b, r.n)
					p.Unreserve(r.a, r.b, r.n)
					if r.b > r.a {
						m.d[r.a] += r.n
						m.d[r.b] -= r.n
					}
				}
			case 3:
				b := rapid.IntRange(0, 20).Draw(t, "new-base")
				f.Base, p.Base, m.base = b, b, b
			}
			if f.Len() != len(m.keys()) || f.Len() != p.Len() {
				t.Fatalf("len %d, treap %d, want %d", f.Len(), p.Len(), len(m.keys()))
			}
			for k := 1; k < len(f.p); k++ {
				if !(f.p[k-1].t < f.p[k].t) {
					t.Fatalf("points out of order: %v", f.p)
				}
			}
			q := float64(rapid.IntRange(-1, 32).Draw(t, "q"))
			if got, want := f.Value(q), m.value(q); got != want {
				t.Fatalf("Value(%g) = %d, want %d", q, got, want)
			}
			need := rapid.IntRange(-5, 25).Draw(t, "need")
			dur := float64(rapid.IntRange(0, 10).Draw(t, "dur"))
			if got, want := f.EarliestFit(q, dur, need), m.earliestFit(q, dur, need); got != want {
				t.Fatalf("EarliestFit(%g, %g, %d) = %g, want %g", q, dur, need, got, want)
			}
			limit := float64(rapid.IntRange(0, 35).Draw(t, "limit"))
			if got, want := f.EarliestFitBefore(q, dur, need, limit), p.EarliestFitBefore(q, dur, need, limit); got != want {
				t.Fatalf("EarliestFitBefore(%g, %g, %d, %g) = %g, treap %g", q, dur, need, limit, got, want)
			}
			to := float64(rapid.IntRange(-1, 36).Draw(t, "to"))
			if to > limit {
				to = limit
			}
			if got, want := f.EarliestFitIn(q, to, dur, need, limit), p.EarliestFitIn(q, to, dur, need, limit); got != want {
				t.Fatalf("EarliestFitIn(%g, %g, %g, %d, %g) = %g, treap %g", q, to, dur, need, limit, got, want)
			}
			if got, want := f.EarliestFitIn(q, to, dur, need, limit), m.earliestFitBefore(q, dur, need, limit); want < to && got != want || want >= to && !math.IsInf(got, 1) {
				t.Fatalf("EarliestFitIn(%g, %g, %g, %d, %g) = %g, naive earliest %g", q, to, dur, need, limit, got, want)
			}
			hi := q + dur
			if got, want := f.MaxOver(q, hi), p.MaxOver(q, hi); got != want {
				t.Fatalf("MaxOver(%g, %g) = %d, treap %d", q, hi, got, want)
			}
		}
	})
}
