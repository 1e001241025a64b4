// Package rrg is the resource–reservation graph of seed 000 (Gao & Luo,
// "Dynamic grid resource reservation mechanism based on
// resource-reservation graph", Journal of Software 22(10), 2011, §2): a
// bipartite graph of resources and admitted reservations, with the
// admission test (inequality (1), algorithm 1 addQNode), the binding of a
// reservation when its window opens (algorithm 2 deleteEdge), and the
// rules for reservation completion, resource arrival and resource failure
// (§2.3–2.5, figure 2). It is a data structure only: the dynamic
// reservation policy (DRRM) drives it.
package rrg

import (
	"fmt"
	"math"
	"sort"
)

// Resource is a resource node r_j: one job at a time, a capability level
// and a unit-time cost w_j.
type Resource struct {
	ID    int
	Level int
	Cost  float64
}

// Reservation is a reservation node q_i: earliest start ET, latest end
// LT, duration Dur and the capability level it needs.
type Reservation struct {
	ID     int
	ET, LT float64
	Dur    float64
	Level  int
	// Exact: only resources of exactly Level serve it (seed 000's OSC
	// experiment: quad and dual requests need a node of that CPU count).
	Exact   bool
	Bound   int // resource it is bound to, −1 if not yet
	Running bool
}

// Serves reports whether resource r can serve q: its level meets q's
// demand (at least, or exactly for an Exact request).
func (r *Resource) Serves(q *Reservation) bool {
	if q.Exact {
		return r.Level == q.Level
	}
	return r.Level >= q.Level
}

// Slack is how long the reservation's start may be put off:
// LT − ET − Dur.
func (q *Reservation) Slack() float64 { return q.LT - q.ET - q.Dur }

// Graph is an RRG (definition 1): resources R, reservations Q kept in
// non-decreasing ET order (ties: admission order), and edges E between a
// reservation and the resources that can serve it.
type Graph struct {
	res   []*Resource // by ID order
	byID  map[int]*Resource
	q     []*Reservation
	edges map[*Reservation]map[int]bool
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{byID: map[int]*Resource{}, edges: map[*Reservation]map[int]bool{}}
}

// Reservations returns Q in order. The slice must not be modified.
func (g *Graph) Reservations() []*Reservation { return g.q }

// Resources returns R in ID order.
func (g *Graph) Resources() []*Resource { return g.res }

// Edge reports c_ij: whether q and resource id are connected.
func (g *Graph) Edge(q *Reservation, id int) bool { return g.edges[q][id] }

// Deg is deg(q): the number of q's edges.
func (g *Graph) Deg(q *Reservation) int { return len(g.edges[q]) }

// Lambda is λ(q), q's candidate resources, in ID order.
func (g *Graph) Lambda(q *Reservation) []int {
	var ids []int
	for id := range g.edges[q] {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// Eta is η(r), the reservations that resource id can serve, in Q order.
func (g *Graph) Eta(id int) []*Reservation {
	var out []*Reservation
	for _, q := range g.q {
		if g.edges[q][id] {
			out = append(out, q)
		}
	}
	return out
}

func (g *Graph) index(q *Reservation) int {
	for i, x := range g.q {
		if x == q {
			return i
		}
	}
	return -1
}

// Alpha is α(q): the reservations before q whose window reaches q's
// (q_j.lt ≥ q.et, j < i).
func (g *Graph) Alpha(q *Reservation) []*Reservation {
	var out []*Reservation
	for _, x := range g.q[:g.index(q)] {
		if x.LT >= q.ET {
			out = append(out, x)
		}
	}
	return out
}

// Beta is β(q): the reservations after q whose window starts by q's end
// (q_j.et ≤ q.lt, j > i).
func (g *Graph) Beta(q *Reservation) []*Reservation {
	var out []*Reservation
	for _, x := range g.q[g.index(q)+1:] {
		if x.ET <= q.LT {
			out = append(out, x)
		}
	}
	return out
}

// FreeDeg is q's free degree (§2.1): its degree minus the smaller of
// (a) the number of its candidate resources that some reservation of
// α(q) can also use, and (b) the number of reservations of α(q) sharing a
// candidate with q — the most conflicts that can actually take resources
// from q, since each conflicting reservation takes at most one resource
// and each resource is taken at most once.
func (g *Graph) FreeDeg(q *Reservation) int {
	alpha := g.Alpha(q)
	a := 0
	for id := range g.edges[q] {
		for _, x := range alpha {
			if g.edges[x][id] {
				a++
				break
			}
		}
	}
	b := 0
	for _, x := range alpha {
		for id := range g.edges[q] {
			if g.edges[x][id] {
				b++
				break
			}
		}
	}
	return g.Deg(q) - min(a, b)
}

// Feasible is inequality (1): freeDeg(q) · Π_{m ∈ β(q)} freeDeg(m) > 0.
func (g *Graph) Feasible(q *Reservation) bool {
	if g.FreeDeg(q) <= 0 {
		return false
	}
	for _, m := range g.Beta(q) {
		if g.FreeDeg(m) <= 0 {
			return false
		}
	}
	return true
}

// AddResource adds resource r (§2.4): it is connected to every
// reservation that is neither running nor bound whose level it meets.
func (g *Graph) AddResource(r Resource) error {
	if _, dup := g.byID[r.ID]; dup {
		return fmt.Errorf("rrg: resource %d already in the graph", r.ID)
	}
	rr := &r
	g.byID[r.ID] = rr
	i := sort.Search(len(g.res), func(i int) bool { return g.res[i].ID >= r.ID })
	g.res = append(g.res, nil)
	copy(g.res[i+1:], g.res[i:])
	g.res[i] = rr
	for _, q := range g.q {
		if !q.Running && q.Bound < 0 && r.Serves(q) {
			g.edges[q][r.ID] = true
		}
	}
	return nil
}

// insert places q in Q by ET (after equal ETs) and connects it to every
// resource whose level meets its demand.
func (g *Graph) insert(q *Reservation) {
	i := sort.Search(len(g.q), func(i int) bool { return g.q[i].ET > q.ET })
	g.q = append(g.q, nil)
	copy(g.q[i+1:], g.q[i:])
	g.q[i] = q
	g.edges[q] = map[int]bool{}
	for _, r := range g.res {
		if r.Serves(q) {
			g.edges[q][r.ID] = true
		}
	}
}

func (g *Graph) remove(q *Reservation) {
	if i := g.index(q); i >= 0 {
		g.q = append(g.q[:i], g.q[i+1:]...)
	}
	delete(g.edges, q)
}

// AddQNode is algorithm 1: insert the request in ET order and admit it
// only if inequality (1) holds for it and for every reservation of its
// back intersecting set; otherwise it is removed and false returned.
func (g *Graph) AddQNode(q *Reservation) bool {
	if !(q.Dur >= 0 && q.ET+q.Dur <= q.LT) {
		return false
	}
	q.Bound = -1
	g.insert(q)
	if g.FreeDeg(q) == 0 {
		g.remove(q)
		return false
	}
	for _, m := range g.Beta(q) {
		if g.FreeDeg(m) == 0 {
			g.remove(q)
			return false
		}
	}
	return true
}

// Option is what a candidate resource offers a reservation whose window
// opens: Wait, how long until it could start there without preempting
// anything (the running task's remaining time et_kj − pt_kj, or longer
// if other reservations are bound to it; +Inf if never within the
// window), and Cost, the cost of starting now by preempting the running
// task (w_j · pt_kj; +Inf if it cannot start now, e.g. another
// reservation holds it). For a resource with only a task, this is
// exactly algorithm 2's information.
type Option struct {
	Wait, Cost float64
}

// Binding is the outcome of DeleteEdge.
type Binding struct {
	Resource int
	Start    float64 // the reservation's (possibly delayed) start
	Preempt  bool    // the running task is interrupted
	Cost     float64 // w_j · pt_kj of the interrupted task (0 without preemption)
}

// DeleteEdge is algorithm 2, run when q's window opens: in resource
// order, the first candidate where q can start within its slack without
// preempting (Wait ≤ LT − ET − Dur) takes q, whose start is put off by
// Wait, at no cost; otherwise q takes the candidate of least preemption
// cost (ties: lower ID) and preempts its task. Then q keeps only its edge
// to that resource, and the reservations of β(q) lose their edge to it.
func (g *Graph) DeleteEdge(q *Reservation, option func(id int) Option) (Binding, error) {
	lambda := g.Lambda(q)
	if len(lambda) == 0 {
		return Binding{}, fmt.Errorf("rrg: reservation %d has no candidate resource", q.ID)
	}
	best, bestCost := -1, math.Inf(1)
	var b Binding
	found := false
	for _, id := range lambda {
		o := option(id)
		if o.Wait <= q.Slack() {
			b = Binding{Resource: id, Start: q.ET + o.Wait}
			found = true
			break
		}
		if o.Cost < bestCost {
			best, bestCost = id, o.Cost
		}
	}
	if !found {
		if best < 0 {
			return Binding{}, fmt.Errorf("rrg: reservation %d: no candidate resource can take it in its window", q.ID)
		}
		b = Binding{Resource: best, Start: q.ET, Preempt: true, Cost: bestCost}
	}
	for id := range g.edges[q] {
		if id != b.Resource {
			delete(g.edges[q], id)
		}
	}
	for _, m := range g.Beta(q) {
		delete(g.edges[m], b.Resource)
	}
	q.Bound = b.Resource
	// Line 5 (q.et := q.et + et_kj − pt_kj) is not applied to the graph:
	// the put-off start is b.Start, kept by the mechanism. Moving q.et
	// (and q in Q) makes q leave α(x) of every request x whose et lies
	// between q's old et and its new start, so inequality (1) for x no
	// longer counts q while q holds its resource in x's window; the
	// property test of package reservation then finds admitted
	// reservations that no resource can take (docs/reservations.md).
	return b, nil
}

// Complete deletes a finished reservation and its edges (§2.3).
func (g *Graph) Complete(q *Reservation) { g.remove(q) }

// Replan is the test figure 2's line (4) applies, when a resource fails,
// to the reservations the failed resource could serve: those that pass it
// stay admitted.
//
// The paper: "在第(4)行中,当资源出现故障后仍然能够使不等式(1)成立的预留任务
// 不会发生预留失效,因此应该在图 G 中保留其对应的预留节点" (in line (4),
// the reservations for which inequality (1) still holds after the failure
// do not fail, so their nodes are kept in G). Inequality (1) is
// freeDeg(q) · Π_{m ∈ β(q)} freeDeg(m) > 0: read literally, it keeps q
// only if every later reservation overlapping it also has a free resource.
type Replan int

const (
	// ReplanLiteral applies inequality (1) as printed: q is dropped when q
	// or any reservation of β(q) has free degree 0, so one reservation
	// left without a free resource makes the earliest of the reservations
	// merely overlapping it fail first.
	ReplanLiteral Replan = iota
	// ReplanOwnDegree keeps q when its own free degree is positive. It
	// restores the invariant algorithm 1 maintains — every admitted
	// reservation has a positive free degree (inequality (1) for every
	// reservation, over the whole graph, says no more) — and drops, the
	// earliest first, only reservations left without a free resource.
	ReplanOwnDegree
)

// ReplanNames are the rules' names in specs (failure.replan).
var ReplanNames = []string{"literal", "own-degree"}

// String names the rule.
func (r Replan) String() string { return ReplanNames[r] }

// ParseReplan returns the rule of a name of ReplanNames.
func ParseReplan(s string) (Replan, error) {
	for i, n := range ReplanNames {
		if n == s {
			return Replan(i), nil
		}
	}
	return 0, fmt.Errorf("want one of %v, got %q", ReplanNames, s)
}

// FailResource applies figure 2's rule with inequality (1) read literally
// (ReplanLiteral); see FailResourceBy.
func (g *Graph) FailResource(id int) []*Reservation { return g.FailResourceBy(id, ReplanLiteral) }

// FailResourceBy applies figure 2's rule when resource id fails and
// returns the reservations that fail: the one running on or bound to it,
// and then, repeatedly, among the reservations it could serve, those that
// pass rule's test are kept (line (4)) and, of those that do not, the
// earliest is dropped (line (5)), until the rest pass.
func (g *Graph) FailResourceBy(id int, rule Replan) []*Reservation {
	s := g.Eta(id)
	if r, ok := g.byID[id]; ok {
		delete(g.byID, id)
		for i, x := range g.res {
			if x == r {
				g.res = append(g.res[:i], g.res[i+1:]...)
				break
			}
		}
	}
	for _, q := range g.q {
		delete(g.edges[q], id)
	}
	var failed []*Reservation
	rest := s[:0]
	for _, q := range s {
		if q.Bound == id {
			failed = append(failed, q)
			g.remove(q)
			continue
		}
		rest = append(rest, q)
	}
	s = rest
	keep := g.Feasible
	if rule == ReplanOwnDegree {
		keep = func(q *Reservation) bool { return g.FreeDeg(q) > 0 }
	}
	for len(s) > 0 {
		var next []*Reservation
		for _, q := range s {
			if !keep(q) {
				next = append(next, q)
			}
		}
		if len(next) == 0 {
			break
		}
		// Drop the earliest of the failing ones, then look again.
		q := next[0]
		failed = append(failed, q)
		g.remove(q)
		s = next[1:]
	}
	return failed
}
