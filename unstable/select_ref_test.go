package unstable

import (
	"fmt"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// The node selections as they were before issue 19 (a stable sort of every
// idle node at every start), kept as the oracle of
// TestPropertySelectionsEqualSort.

func refOrdered(v *engine.View, j *engine.Job, dst engine.Alloc, less func(a, b int) bool) (engine.Alloc, bool) {
	need := j.Procs
	if need > v.FreePEs() {
		return dst, false
	}
	var free []int
	for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
		free = append(free, n)
	}
	sort.SliceStable(free, func(a, b int) bool { return less(free[a], free[b]) })
	return refTake(v, j, dst, free)
}

// refTake is the old take with one fix (found by this test): the old
// code chose the nodes in list order but gave each its processors again
// in index order, so when the node that completes the job was a partly
// taken one with a lower index, a later node got 0 processors and the
// plan was invalid (only on platforms of several processors per node
// without whole_nodes; every built-in experiment with these selections
// uses whole nodes, where every idle node gives all its processors).
func refTake(v *engine.View, j *engine.Job, dst engine.Alloc, free []int) (engine.Alloc, bool) {
	need := j.Procs
	takes := map[int]int{}
	var picked []int
	for _, n := range free {
		if need == 0 {
			break
		}
		picked = append(picked, n)
		takes[n] = min(need, v.NodeFree(n))
		need -= takes[n]
	}
	if need > 0 {
		return dst, false
	}
	sort.Ints(picked)
	for _, n := range picked {
		dst = dst.Add(n, takes[n])
	}
	return dst, true
}

func refOrderedBy(v *engine.View, j *engine.Job, dst engine.Alloc, key func(n int) float64) (engine.Alloc, bool) {
	if j.Procs > v.FreePEs() {
		return dst, false
	}
	type nk struct {
		n int
		k float64
	}
	var free []nk
	for n := v.NextFreeNode(0); n >= 0; n = v.NextFreeNode(n + 1) {
		free = append(free, nk{n, key(n)})
	}
	sort.SliceStable(free, func(a, b int) bool { return free[a].k < free[b].k })
	ns := make([]int, len(free))
	for i, x := range free {
		ns[i] = x.n
	}
	return refTake(v, j, dst, ns)
}

type refRandom struct{ Seed uint64 }

func (r refRandom) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	return refOrderedBy(v, j, dst, func(n int) float64 { return draw(r.Seed, 0x5e1ec7, uint64(j.ID), uint64(n)) })
}

type refByU struct{ S *State }

func (s refByU) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	s.S.grow(v.NumNodes())
	return refOrderedBy(v, j, dst, func(n int) float64 { return -s.S.U[n] })
}

type refByExpected struct{ S *State }

func (s refByExpected) Select(v *engine.View, j *engine.Job, dst engine.Alloc) (engine.Alloc, bool) {
	s.S.grow(v.NumNodes())
	exp := func(n int) float64 { sp := v.Node(n); return (1 - sp.Stability) * sp.Delay }
	return refOrdered(v, j, dst, func(a, b int) bool {
		if ea, eb := exp(a), exp(b); ea != eb {
			return ea < eb
		}
		return s.S.U[a] > s.S.U[b]
	})
}

// TestPropertySelectionsEqualSort: the node selections (random, u,
// expected; u and expected through the node index when an instability
// process tracks the nodes, through the bounded heap otherwise) take
// exactly the nodes and processors the stable sort of every idle node
// took, start for start, under EASY and SingleBackfill with the published
// or the periods process (seed 002 §2.1, §2.3–2.4: the machines in list
// order until RPE is met). Platforms of several processors per node so a
// job takes part of a node; few distinct stabilities and delays so keys
// tie and the index order decides; nodes that fail (their jobs requeued
// or failed), come back and are added, so the index must hear of every
// node that becomes idle.
func TestPropertySelectionsEqualSort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nodes := rapid.IntRange(1, 24).Draw(rt, "nodes")
		pes := rapid.IntRange(1, 4).Draw(rt, "pes")
		p := model.Uniform("u", nodes, pes)
		stab := func() float64 { return []float64{0.2, 0.5, 0.8, 1}[rapid.IntRange(0, 3).Draw(rt, "p")] }
		for i := range p.Nodes {
			p.Nodes[i].Stability = stab()
			p.Nodes[i].Delay = float64(rapid.IntRange(1, 3).Draw(rt, "d"))
		}
		var jobs []model.Job
		for i, k := 0, rapid.IntRange(1, 60).Draw(rt, "jobs"); i < k; i++ {
			run := float64(rapid.IntRange(1, 40).Draw(rt, "run"))
			j := model.NewJob(int64(i+1), float64(rapid.IntRange(0, 80).Draw(rt, "at")), run, rapid.IntRange(1, nodes*pes).Draw(rt, "size"))
			j.Estimate = run + float64(rapid.IntRange(0, 10).Draw(rt, "slack"))
			jobs = append(jobs, j)
		}
		type event struct {
			kind    int // 0 fail, 1 repair, 2 add
			at      float64
			node    int
			requeue bool
			spec    model.NodeSpec
		}
		var events []event
		for i, k := 0, rapid.IntRange(0, 6).Draw(rt, "platform_events"); i < k; i++ {
			ev := event{kind: rapid.IntRange(0, 2).Draw(rt, "kind"), at: float64(rapid.IntRange(0, 120).Draw(rt, "when")),
				node: rapid.IntRange(0, nodes-1).Draw(rt, "node"), requeue: rapid.Bool().Draw(rt, "requeue")}
			ev.spec = model.NodeSpec{PEs: pes, Speed: 1, Stability: stab(), Delay: 2}
			events = append(events, ev)
		}
		seed := rapid.Uint64().Draw(rt, "seed")
		params := Params{Model: rapid.SampledFrom([]string{"published", "periods"}).Draw(rt, "model"), Cycle: 60}
		indexed := rapid.Bool().Draw(rt, "indexed")
		// The selections keep only the nodes a job can need: no margin
		// makes them fall back to every node often, the default hardly.
		defer func(m int, ix bool) { KeepMargin, indexSelections = m, ix }(KeepMargin, indexSelections)
		KeepMargin = rapid.SampledFrom([]int{0, 1, 16}).Draw(rt, "keep_margin")
		type mk func(*State) policy.NodeSelector
		sels := []struct {
			name     string
			now, ref mk
		}{
			{"random", func(*State) policy.NodeSelector { sel, _ := Selector("random", nil, seed); return sel },
				func(*State) policy.NodeSelector { return refRandom{Seed: seed} }},
			{"u", func(s *State) policy.NodeSelector { return ByU{S: s} }, func(s *State) policy.NodeSelector { return refByU{S: s} }},
			{"expected", func(s *State) policy.NodeSelector { return ByExpected{S: s} }, func(s *State) policy.NodeSelector { return refByExpected{S: s} }},
		}
		loops := map[string]func(policy.NodeSelector) engine.Policy{
			"easy":        func(s policy.NodeSelector) engine.Policy { return policy.NewEASY(s) },
			"easy-single": func(s policy.NodeSelector) engine.Policy { return NewSingleBackfill(s, "arrival") },
		}
		sim := func(what string, sel mk, loop func(policy.NodeSelector) engine.Policy, ix bool) []string {
			indexSelections = ix
			st := NewState(nodes, params, seed)
			e := engine.New(p, jobs, loop(sel(st)), engine.Options{Overrun: engine.OverrunExtend})
			if params.Model == "periods" {
				e.AddHook(NewPeriods(st))
			} else {
				e.AddHook(Published{State: st})
			}
			for _, ev := range events {
				switch ev.kind {
				case 0:
					e.FailNode(ev.at, ev.node, ev.requeue)
				case 1:
					e.RepairNode(ev.at, ev.node)
				default:
					e.AddNode(ev.at, ev.spec)
				}
			}
			if err := e.Run(); err != nil {
				rt.Fatalf("%s: %v", what, err)
			}
			var out []string
			for _, j := range e.Jobs() {
				out = append(out, fmt.Sprintf("job %d: %s %g–%g on %s", j.ID, j.State, j.Start, j.End, j.Alloc))
			}
			return append(out, fmt.Sprint("mean QoS ", st.MeanQoS()))
		}
		for _, s := range sels {
			for ln, loop := range loops {
				got, want := sim(s.name+"/"+ln, s.now, loop, indexed), sim(s.name+"/"+ln+" (sort)", s.ref, loop, false)
				for i := range want {
					if got[i] != want[i] {
						rt.Fatalf("%s/%s (indexed %v): %s, the sort gave %s", s.name, ln, indexed, got[i], want[i])
					}
				}
			}
		}
	})
}

// TestDrawSplit: the split hash Random uses per node is draw itself.
func TestDrawSplit(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed, job, node := rapid.Uint64().Draw(rt, "seed"), rapid.Uint64().Draw(rt, "job"), rapid.Uint64().Draw(rt, "node")
		if got, want := drawNext(drawPrefix(seed, 0x5e1ec7, job), mix(node+0x9e3779b97f4a7c15)), draw(seed, 0x5e1ec7, job, node); got != want {
			rt.Fatalf("split %v, draw %v", got, want)
		}
	})
}
