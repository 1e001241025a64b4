package rrg

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// graph builds a graph with resources 1..nres (level 1, cost 1) and
// reservations with explicit edges (figure 1's graphs arise from earlier
// bindings, which level-based edges alone cannot produce).
func graph(nres int, reqs []*Reservation, edges map[int][]int) *Graph {
	g := New()
	for id := 1; id <= nres; id++ {
		g.AddResource(Resource{ID: id, Level: 1, Cost: 1})
	}
	for _, q := range reqs {
		q.Bound = -1
		g.insert(q)
		g.edges[q] = map[int]bool{}
		for _, id := range edges[q.ID] {
			g.edges[q][id] = true
		}
	}
	return g
}

func req(id int, et, lt, dur float64) *Reservation {
	return &Reservation{ID: id, ET: et, LT: lt, Dur: dur, Level: 1, Bound: -1}
}

// TestFigure1b: α(q_k) = {q_{k−2}, q_{k−1}} both conflict with q_k on
// the same resource r_j; only one of them can actually take r_j, so the
// maximum conflict count on it is one (§2.1): freeDeg(q_k) = 2 − 1.
func TestFigure1b(t *testing.T) {
	q1, q2, q3 := req(1, 0, 10, 5), req(2, 1, 11, 5), req(3, 2, 12, 5)
	g := graph(4, []*Reservation{q1, q2, q3}, map[int][]int{1: {1, 2}, 2: {1, 3}, 3: {1, 4}})
	if a := g.Alpha(q3); len(a) != 2 {
		t.Fatalf("α(q3) = %d reservations, want 2", len(a))
	}
	if d := g.FreeDeg(q3); d != 1 {
		t.Fatalf("freeDeg(q3) = %d, want deg 2 − min(1 shared resource, 2 conflicting) = 1", d)
	}
}

// TestFigure1c: q_k conflicts with the single q_{k−1} on two resources
// r_j, r_{j−1}; q_{k−1} takes only one of them, so the maximum conflict
// count between them is one: freeDeg(q_k) = 3 − min(2, 1) = 2.
func TestFigure1c(t *testing.T) {
	q1, q2 := req(1, 0, 10, 5), req(2, 2, 12, 5)
	g := graph(3, []*Reservation{q1, q2}, map[int][]int{1: {1, 2}, 2: {1, 2, 3}})
	if d := g.FreeDeg(q2); d != 2 {
		t.Fatalf("freeDeg(q2) = %d, want 2", d)
	}
	// Sets of definition 1.
	if l := g.Lambda(q2); len(l) != 3 || l[0] != 1 {
		t.Errorf("λ(q2) = %v", l)
	}
	if e := g.Eta(3); len(e) != 1 || e[0] != q2 {
		t.Errorf("η(r3) = %v", e)
	}
	if b := g.Beta(q1); len(b) != 1 || b[0] != q2 {
		t.Errorf("β(q1) = %v", b)
	}
}

// TestAdmission pins inequality (1) and algorithm 1 on one resource:
// two overlapping requests cannot both be admitted; disjoint ones can; a
// request that would leave an admitted later one with free degree 0 is
// refused (the check over β(q_k)).
func TestAdmission(t *testing.T) {
	g := New()
	g.AddResource(Resource{ID: 1, Level: 1, Cost: 1})
	a := req(1, 10, 20, 5)
	if !g.AddQNode(a) {
		t.Fatal("first request refused")
	}
	if g.AddQNode(req(2, 12, 25, 5)) {
		t.Error("overlapping request admitted on a single resource (freeDeg would be 1 − min(1,1) = 0)")
	}
	if !g.AddQNode(req(3, 21, 30, 5)) {
		t.Error("disjoint request refused")
	}
	// Earlier than a, overlapping it: a's free degree would drop to 0.
	if g.AddQNode(req(4, 5, 15, 5)) {
		t.Error("request that makes an admitted one infeasible was admitted")
	}
	if n := len(g.Reservations()); n != 2 {
		t.Fatalf("%d reservations kept, want 2 (refused ones are removed)", n)
	}
	// Levels: a level-3 request has no candidate among level-1 resources.
	hi := req(5, 100, 200, 5)
	hi.Level = 3
	if g.AddQNode(hi) {
		t.Error("request with no capable resource admitted")
	}
	// Two resources: two overlapping requests fit.
	g.AddResource(Resource{ID: 2, Level: 2, Cost: 1})
	if !g.AddQNode(req(6, 12, 25, 5)) {
		t.Error("second overlapping request refused with two resources")
	}
}

// TestExactLevels: the OSC experiment's request types (seed 000 §3.1):
// dual and quad requests need a node of exactly 2 or 4 CPUs, careless
// ones any node. Resources 0 and 2 have level 4, resource 1 level 2.
// q1 (dual, [0,10]) has the one edge r1; q2 (careless, [0,10]) three,
// α(q2) = {q1} shares r1: freeDeg = 3 − min(1, 1) = 2. q3 (dual, [5,15])
// has only r1, which q1 needs: freeDeg = 1 − min(1, 2) = 0, refused.
// q4 (quad, [5,15]) has r0 and r2; q2 shares both, q1 neither:
// freeDeg = 2 − min(2, 1) = 1, admitted.
func TestExactLevels(t *testing.T) {
	g := New()
	for id, lv := range []int{4, 2, 4} {
		g.AddResource(Resource{ID: id, Level: lv, Cost: 1})
	}
	typed := func(id int, et, lt float64, level int, exact bool) *Reservation {
		q := req(id, et, lt, lt-et)
		q.Level, q.Exact = level, exact
		return q
	}
	q1, q2 := typed(1, 0, 10, 2, true), typed(2, 0, 10, 1, false)
	if !g.AddQNode(q1) || !g.AddQNode(q2) {
		t.Fatal("q1 or q2 refused")
	}
	if l := g.Lambda(q1); len(l) != 1 || l[0] != 1 {
		t.Errorf("λ(dual q1) = %v, want [1]", l)
	}
	if d := g.FreeDeg(q2); d != 2 {
		t.Errorf("freeDeg(q2) = %d, want 2", d)
	}
	if g.AddQNode(typed(3, 5, 15, 2, true)) {
		t.Error("second overlapping dual request admitted with one 2-CPU node")
	}
	q4 := typed(4, 5, 15, 4, true)
	if !g.AddQNode(q4) {
		t.Error("quad request refused")
	}
	if l := g.Lambda(q4); len(l) != 2 || l[0] != 0 || l[1] != 2 {
		t.Errorf("λ(quad q4) = %v, want [0 2]", l)
	}
	if d := g.FreeDeg(q4); d != 1 {
		t.Errorf("freeDeg(q4) = %d, want 1", d)
	}
	// A new 2-CPU resource connects to the waiting dual request, not to
	// the quad one.
	g.AddResource(Resource{ID: 3, Level: 2, Cost: 1})
	if !g.Edge(q1, 3) || g.Edge(q4, 3) || !g.Edge(q2, 3) {
		t.Error("resource 3 (level 2) must serve q1 and q2, not the quad q4")
	}
}

// TestDeleteEdge pins algorithm 2: a task that can finish within the
// slack delays the reservation at no cost; otherwise the resource of
// least preemption cost w·pt is taken; then edges are cut.
func TestDeleteEdge(t *testing.T) {
	g := New()
	g.AddResource(Resource{ID: 1, Level: 1, Cost: 2})
	g.AddResource(Resource{ID: 2, Level: 1, Cost: 1})
	q := req(1, 10, 30, 10) // slack 10
	later := req(2, 15, 40, 10)
	if !g.AddQNode(q) || !g.AddQNode(later) {
		t.Fatal("admission")
	}
	// r1's task needs 4 more (≤ slack): delay to 14, no preemption.
	b, err := g.DeleteEdge(q, func(id int) Option {
		if id == 1 {
			return task(g, id, 10, 6)
		}
		return task(g, id, 100, 50)
	})
	if err != nil || b.Resource != 1 || b.Start != 14 || b.Preempt || b.Cost != 0 {
		t.Fatalf("binding %+v %v, want r1 at 14 without preemption", b, err)
	}
	if g.Deg(q) != 1 || g.Edge(later, 1) {
		t.Errorf("edges not cut: deg(q) %d, later–r1 %v", g.Deg(q), g.Edge(later, 1))
	}
	// Line 5 (q.et := q.et + et_kj − pt_kj) is kept in the binding's
	// Start, not in the graph (see DeleteEdge): q.ET stays 10.
	if q.ET != 10 || g.Reservations()[0] != q {
		t.Errorf("after the delay: q.ET %g, Q %v", q.ET, g.Reservations())
	}
	// Both tasks too long: least cost w·pt: r1 2·3 = 6 vs r2 1·8 = 8.
	g2 := New()
	g2.AddResource(Resource{ID: 1, Level: 1, Cost: 2})
	g2.AddResource(Resource{ID: 2, Level: 1, Cost: 1})
	q2 := req(1, 10, 22, 10) // slack 2
	g2.AddQNode(q2)
	b, _ = g2.DeleteEdge(q2, func(id int) Option {
		if id == 1 {
			return task(g2, id, 50, 3)
		}
		return task(g2, id, 50, 8)
	})
	if b.Resource != 1 || !b.Preempt || b.Cost != 6 || b.Start != 10 {
		t.Fatalf("binding %+v, want r1 preempted at cost 6", b)
	}
	// An idle resource takes the reservation at once.
	g3 := New()
	g3.AddResource(Resource{ID: 1, Level: 1, Cost: 1})
	q3 := req(1, 10, 12, 2) // slack 0
	g3.AddQNode(q3)
	b, _ = g3.DeleteEdge(q3, idle)
	if b.Resource != 1 || b.Start != 10 || b.Preempt {
		t.Fatalf("idle resource: %+v", b)
	}
}

// TestFailResource pins figure 2: the reservation bound to the failed
// resource fails; then, while some reservation it could serve violates
// inequality (1), the earliest of them is dropped.
func TestFailResource(t *testing.T) {
	g := New()
	g.AddResource(Resource{ID: 1, Level: 1, Cost: 1})
	g.AddResource(Resource{ID: 2, Level: 1, Cost: 1})
	q1, q2 := req(1, 10, 30, 10), req(2, 12, 40, 10)
	if !g.AddQNode(q1) || !g.AddQNode(q2) {
		t.Fatal("admission")
	}
	failed := g.FailResource(1)
	if len(failed) != 1 || failed[0] != q1 {
		t.Fatalf("failed %v, want only q1 (the earliest), q2 then fits on r2", failed)
	}
	if !g.Feasible(q2) || len(g.Reservations()) != 1 {
		t.Fatal("q2 should remain, feasible")
	}
	// A reservation bound to the failed resource fails, even if feasible elsewhere.
	g.AddResource(Resource{ID: 3, Level: 1, Cost: 1})
	g.DeleteEdge(q2, idle)
	if failed := g.FailResource(q2.Bound); len(failed) != 1 || failed[0] != q2 {
		t.Fatalf("bound reservation: failed %v", failed)
	}
	// A new resource connects only to unbound, not running reservations (§2.4).
	q3 := req(3, 100, 120, 5)
	g.AddQNode(q3)
	g.DeleteEdge(q3, idle)
	q4 := req(4, 200, 220, 5)
	g.AddQNode(q4)
	g.AddResource(Resource{ID: 9, Level: 1, Cost: 1})
	if g.Edge(q3, 9) || !g.Edge(q4, 9) {
		t.Errorf("new resource edges: bound q3 %v, unbound q4 %v", g.Edge(q3, 9), g.Edge(q4, 9))
	}
	g.Complete(q3)
	if len(g.Reservations()) != 1 {
		t.Error("completed reservation not removed")
	}
}

// task is algorithm 2's option for a resource running a non-reserved task
// of expected time et that has run pt: wait et − pt, or preempt at w·pt.
func task(g *Graph, id int, et, pt float64) Option {
	return Option{Wait: et - pt, Cost: g.byID[id].Cost * pt}
}

func idle(int) Option { return Option{} }

// TestDeleteEdgeHeld: a resource another reservation holds during the
// window cannot be preempted; the reservation waits for it if it can.
func TestDeleteEdgeHeld(t *testing.T) {
	g := New()
	g.AddResource(Resource{ID: 1, Level: 1, Cost: 1})
	q := req(1, 10, 30, 10)
	g.AddQNode(q)
	inf := math.Inf(1)
	if _, err := g.DeleteEdge(q, func(int) Option { return Option{Wait: 15, Cost: inf} }); err == nil {
		t.Fatal("bound to a resource it can neither wait for nor preempt")
	}
	q2 := req(2, 100, 130, 10)
	g.AddQNode(q2)
	b, err := g.DeleteEdge(q2, func(int) Option { return Option{Wait: 12, Cost: inf} })
	if err != nil || b.Start != 112 || b.Preempt {
		t.Fatalf("%+v %v, want a wait until 112", b, err)
	}
}

// TestFailResourceReplan pins the two readings of figure 2's line (4)
// ("仍然能够使不等式(1)成立的预留任务不会发生预留失效": the reservations
// for which inequality (1) still holds do not fail). Two resources;
// A [0, 6], B [2, 7], C [7, 12], each lasting 3 (all admitted: freeDeg
// 2, 1, 1). Resource 1 fails: A keeps one resource (freeDeg 1), B and C
// none (A and B compete for resource 2, B and C too). Literally, A fails
// inequality (1) too, through β(A) = {B}: the earliest, A, is dropped;
// then B, through β(B) = {C}; C survives — two failures. Checking each
// reservation's own free degree drops B only (then C's α is empty): one.
func TestFailResourceReplan(t *testing.T) {
	for _, c := range []struct {
		rule Replan
		want []int
	}{{ReplanLiteral, []int{1, 2}}, {ReplanOwnDegree, []int{2}}} {
		g := New()
		g.AddResource(Resource{ID: 1, Level: 1, Cost: 1})
		g.AddResource(Resource{ID: 2, Level: 1, Cost: 1})
		for _, q := range []*Reservation{req(1, 0, 6, 3), req(2, 2, 7, 3), req(3, 7, 12, 3)} {
			if !g.AddQNode(q) {
				t.Fatalf("reservation %d refused", q.ID)
			}
		}
		var got []int
		for _, q := range g.FailResourceBy(1, c.rule) {
			got = append(got, q.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: failed %v, want %v", c.rule, got, c.want)
		}
		for _, q := range g.Reservations() {
			if g.FreeDeg(q) <= 0 || g.Edge(q, 1) {
				t.Errorf("%s: survivor %d has free degree %d, edge to the failed resource %v", c.rule, q.ID, g.FreeDeg(q), g.Edge(q, 1))
			}
		}
	}
	if r, err := ParseReplan("own-degree"); err != nil || r != ReplanOwnDegree {
		t.Errorf("ParseReplan(own-degree) = %v, %v", r, err)
	}
	if _, err := ParseReplan("own"); err == nil {
		t.Error("ParseReplan accepted an unknown rule")
	}
}

// TestPropertyFailResource: on random graphs built by admission
// (algorithm 1), some reservations bound by algorithm 2, a random
// resource failing, under either rule: the reservation bound to it fails;
// no reservation the failed resource could not serve fails; every
// survivor keeps a positive free degree (the invariant algorithm 1
// maintains, which lets every one be bound) and no edge to the failed
// resource; survivors and failures partition the reservations.
func TestPropertyFailResource(t *testing.T) {
	differ := 0
	defer func() {
		if differ == 0 {
			t.Error("weak test: the two rules never failed different reservations")
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		nres := rapid.IntRange(1, 6).Draw(rt, "resources")
		levels := make([]int, nres)
		for i := range levels {
			levels[i] = rapid.IntRange(1, 3).Draw(rt, "resource level")
		}
		build := func() *Graph {
			g := New()
			for id := 1; id <= nres; id++ {
				g.AddResource(Resource{ID: id, Level: levels[id-1], Cost: 1})
			}
			return g
		}
		type spec struct {
			et, w, dur float64
			level      int
		}
		n := rapid.IntRange(1, 25).Draw(rt, "requests")
		specs := make([]spec, n)
		for i := range specs {
			et := float64(rapid.IntRange(0, 60).Draw(rt, "et"))
			w := float64(rapid.IntRange(1, 20).Draw(rt, "window"))
			specs[i] = spec{et, w, w * float64(rapid.IntRange(1, 10).Draw(rt, "tenths")) / 10, rapid.IntRange(1, 3).Draw(rt, "level")}
		}
		fail := rapid.IntRange(1, nres).Draw(rt, "failed")
		bound := rapid.IntRange(0, n).Draw(rt, "bound")
		var outcome [2][]int
		for ri, rule := range []Replan{ReplanLiteral, ReplanOwnDegree} {
			g := build()
			var all []*Reservation
			for i, s := range specs {
				q := &Reservation{ID: i, ET: s.et, LT: s.et + s.w, Dur: s.dur, Level: s.level}
				if g.AddQNode(q) {
					all = append(all, q)
				}
			}
			// Windows open in ET order: when a reservation is bound, every
			// earlier one is bound (or done). Bind a prefix of Q.
			for i, q := range slices.Clone(g.Reservations()) {
				if i < bound {
					if _, err := g.DeleteEdge(q, idle); err != nil {
						rt.Fatal(err)
					}
				}
			}
			for _, q := range g.Reservations() {
				if g.FreeDeg(q) <= 0 {
					rt.Fatalf("before the failure: reservation %d has free degree %d", q.ID, g.FreeDeg(q))
				}
			}
			served := map[*Reservation]bool{}
			for _, q := range g.Eta(fail) {
				served[q] = true
			}
			failed := g.FailResourceBy(fail, rule)
			gone := map[*Reservation]bool{}
			for _, q := range failed {
				gone[q] = true
				outcome[ri] = append(outcome[ri], q.ID)
				if !served[q] {
					rt.Fatalf("%s: reservation %d failed though the failed resource could not serve it", rule, q.ID)
				}
			}
			left := map[*Reservation]bool{}
			for _, q := range g.Reservations() {
				left[q] = true
				if gone[q] {
					rt.Fatalf("%s: reservation %d failed and kept", rule, q.ID)
				}
				if q.Bound == fail {
					rt.Fatalf("%s: reservation %d bound to the failed resource survived", rule, q.ID)
				}
				if g.FreeDeg(q) <= 0 || g.Edge(q, fail) {
					rt.Fatalf("%s: survivor %d: free degree %d, edge to the failed resource %v", rule, q.ID, g.FreeDeg(q), g.Edge(q, fail))
				}
			}
			for _, q := range all {
				if left[q] == gone[q] {
					rt.Fatalf("%s: reservation %d neither kept nor failed (or both)", rule, q.ID)
				}
			}
		}
		if fmt.Sprint(outcome[0]) != fmt.Sprint(outcome[1]) {
			differ++
		}
	})
}
