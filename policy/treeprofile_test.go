package policy

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// check verifies treeProfile's invariants: chunks non-empty, at most
// chunkMax points, times increasing across chunks, first and bounds
// current, the segment tree the combination of its leaves, and n the
// number of points.
func (p *treeProfile) check(t *rapid.T) {
	n, last := 0, math.Inf(-1)
	for c := range p.ch {
		ch := &p.ch[c]
		if len(ch.p) == 0 || len(ch.p) > p.max {
			t.Fatalf("chunk %d has %d points (at most %d)", c, len(ch.p), p.max)
		}
		if p.first[c] != ch.p[0].t {
			t.Fatalf("first[%d] = %g, chunk starts at %g", c, p.first[c], ch.p[0].t)
		}
		prev := 0
		for k, q := range ch.p {
			if !(q.t > last) {
				t.Fatalf("chunk %d point %d at %g after %g", c, k, q.t, last)
			}
			if q.s == prev {
				t.Fatalf("chunk %d point %d at %g has no delta", c, k, q.t)
			}
			last, prev = q.t, q.s
		}
		lo, hi := ch.lo, ch.hi
		ch.bounds()
		if lo != ch.lo || hi != ch.hi {
			t.Fatalf("chunk %d bounds %d..%d, want %d..%d", c, lo, hi, ch.lo, ch.hi)
		}
		if p.seg[p.size+c] != ch.node() {
			t.Fatalf("leaf %d is %+v, chunk says %+v", c, p.seg[p.size+c], ch.node())
		}
		n += len(ch.p)
	}
	if n != p.n || len(p.first) != len(p.ch) {
		t.Fatalf("%d points counted, n = %d; %d chunks, %d firsts", n, p.n, len(p.ch), len(p.first))
	}
	if len(p.ch) == 0 {
		return
	}
	for k := p.size - 1; k >= 1; k-- {
		if want := p.seg[2*k].then(p.seg[2*k+1]); p.seg[k] != want {
			t.Fatalf("node %d is %+v, children say %+v", k, p.seg[k], want)
		}
	}
}

// profileOps is what conservative backfilling asks of a profile.
type profileOps interface {
	adder
	Len() int
	Value(x float64) int
	Reserve(start, end float64, procs int)
	Unreserve(start, end float64, procs int)
	MaxOver(from, to float64) int
	EarliestFit(from, dur float64, need int) float64
	EarliestFitIn(from, to, dur float64, need int, limit float64) float64
}

// TestPropertyTreeProfileEqualsFlat drives the tree profile and the flat
// array (the oracle) with the same random operations over enough time
// points to split, merge and remove many chunks (chunks of 4 to 16 points
// here, and the real size) — reservations and their removal, running
// jobs' single deltas, base changes — and compares every query, after
// every operation, at random places.
func TestPropertyTreeProfileEqualsFlat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := newTreeProfile(rapid.SampledFrom([]int{4, 5, 8, 16, chunkMax}).Draw(t, "chunk"))
		driveProfiles(t, r, func(b int) { r.Base = b }, func() { r.check(t) })
	})
}

// TestPropertyResProfileSwitches drives conservative backfilling's
// profile with small switch points, so that it moves between the flat
// array and the tree many times, against the flat array alone.
func TestPropertyResProfileSwitches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := newResProfile()
		r.flatBelow = rapid.IntRange(0, 20).Draw(t, "flat-below")
		r.treeAbove = r.flatBelow + rapid.IntRange(0, 30).Draw(t, "tree-above")
		r.chunk = rapid.SampledFrom([]int{4, 7, 16}).Draw(t, "chunk")
		switches, wasFlat := 0, true
		driveProfiles(t, r, func(b int) { r.Base = b }, func() {
			if (r.flat != nil) == (r.tree != nil) {
				t.Fatalf("flat %v, tree %v", r.flat != nil, r.tree != nil)
			}
			if r.tree != nil {
				r.tree.check(t)
			}
			if isFlat := r.flat != nil; isFlat != wasFlat {
				switches++
				wasFlat = isFlat
			}
		})
		t.Log("switches:", switches)
	})
}

// driveProfiles runs random operations on r and on a flat array, and
// compares every query after every operation; check verifies r's
// invariants, setBase sets its base.
func driveProfiles(t *rapid.T, r profileOps, setBase func(int), check func()) {
	base := rapid.IntRange(0, 64).Draw(t, "base")
	keys := rapid.IntRange(10, 3000).Draw(t, "keys") // time points range over [0, keys)
	a := newFlatProfile()
	setBase(base)
	a.Base = base
	type res struct {
		a, b float64
		n    int
	}
	var held []res
	key := func(label string) float64 { return float64(rapid.IntRange(0, keys).Draw(t, label)) }
	for i, n := 0, rapid.IntRange(1, 1500).Draw(t, "ops"); i < n; i++ {
		switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
		case op < 4: // a reservation, usually
			s := key("start")
			x := res{s, s + float64(rapid.IntRange(0, keys/4+1).Draw(t, "len")), rapid.IntRange(1, 16).Draw(t, "procs")}
			r.Reserve(x.a, x.b, x.n)
			a.Reserve(x.a, x.b, x.n)
			held = append(held, x)
		case op < 7: // removed, as reservations are when jobs start or move
			if len(held) > 0 {
				k := rapid.IntRange(0, len(held)-1).Draw(t, "which")
				x := held[k]
				held[k] = held[len(held)-1]
				held = held[:len(held)-1]
				r.Unreserve(x.a, x.b, x.n)
				a.Unreserve(x.a, x.b, x.n)
			}
		case op < 9: // a running job's end
			k, d := key("key"), rapid.IntRange(-8, 8).Draw(t, "delta")
			r.Add(k, d)
			a.Add(k, d)
		default:
			b := rapid.IntRange(0, 64).Draw(t, "new-base")
			setBase(b)
			a.Base = b
		}
		check()
		if r.Len() != a.Len() {
			t.Fatalf("op %d: %d points, flat %d", i, r.Len(), a.Len())
		}
		q := key("q") - 1
		if got, want := r.Value(q), a.Value(q); got != want {
			t.Fatalf("op %d: Value(%g) = %d, flat %d", i, q, got, want)
		}
		need := rapid.IntRange(-8, 80).Draw(t, "need")
		dur := float64(rapid.IntRange(0, keys/2+1).Draw(t, "dur"))
		if got, want := r.EarliestFit(q, dur, need), a.EarliestFit(q, dur, need); got != want {
			t.Fatalf("op %d: EarliestFit(%g, %g, %d) = %g, flat %g", i, q, dur, need, got, want)
		}
		limit := key("limit")
		to := min(key("to"), limit)
		if got, want := r.EarliestFitIn(q, to, dur, need, limit), a.EarliestFitIn(q, to, dur, need, limit); got != want {
			t.Fatalf("op %d: EarliestFitIn(%g, %g, %g, %d, %g) = %g, flat %g", i, q, to, dur, need, limit, got, want)
		}
		hi := q + float64(rapid.IntRange(-1, keys).Draw(t, "span"))
		if got, want := r.MaxOver(q, hi), a.MaxOver(q, hi); got != want {
			t.Fatalf("op %d: MaxOver(%g, %g) = %d, flat %d", i, q, hi, got, want)
		}
	}
	// Emptied, the profile is flat at Base again.
	for _, x := range held {
		r.Unreserve(x.a, x.b, x.n)
		a.Unreserve(x.a, x.b, x.n)
	}
	check()
	if r.Len() != a.Len() {
		t.Fatalf("at the end %d points, flat %d", r.Len(), a.Len())
	}
}
