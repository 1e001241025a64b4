package reservation

import (
	"math"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/model"
)

// TestInvariants (seed 000, §2–§3.1) on random workloads: no two jobs on
// a resource at once; every admitted reservation runs inside its window
// (et ≤ start, end ≤ lt) — none fails without resource failures; the
// total preemption cost equals Σ w·pt over the interrupted tasks.
func TestInvariants(t *testing.T) {
	admitted, preempting, refused := 0, 0, 0
	defer func() {
		// The cases must exercise admission, refusal and preemption.
		if admitted < 100 || preempting < 20 || refused < 20 {
			t.Errorf("weak test: %d admitted, %d preempting, %d refused", admitted, preempting, refused)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		nres := rapid.IntRange(1, 8).Draw(rt, "resources")
		p := model.Uniform("r", nres, 1)
		for i := range p.Nodes {
			p.Nodes[i].Capability = rapid.IntRange(1, 5).Draw(rt, "level")
			p.Nodes[i].Cost = float64(rapid.IntRange(1, 3).Draw(rt, "w"))
		}
		params := gen.DefaultReservationParams()
		params.Lambda = float64(rapid.IntRange(1, 10).Draw(rt, "lambda"))
		params.Flexibility = float64(rapid.IntRange(0, 9).Draw(rt, "flex")) / 10
		params.Background = nres * rapid.IntRange(0, 6).Draw(rt, "tasks-per-resource")
		params.Resources = nres
		g, err := gen.NewReservations(params, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		jobs := gen.Take(g, params.Background+rapid.IntRange(1, 40).Draw(rt, "requests"))
		for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
			c := checkRun(rt, m, p, jobs)
			admitted += c[0]
			refused += c[1]
			preempting += c[2]
		}
	})
}

// TestInvariantsTrace: the same invariants on trace-derived workloads
// (seed 000 §3.1, OSC): random small traces on a few 4-CPU and 2-CPU
// nodes; besides, quad requests run on 4-CPU nodes only and dual
// requests on 2-CPU nodes only.
func TestInvariantsTrace(t *testing.T) {
	admitted, preempting, refused := 0, 0, 0
	defer func() {
		if admitted < 100 || preempting < 20 || refused < 20 {
			t.Errorf("weak test: %d admitted, %d preempting, %d refused", admitted, preempting, refused)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		tp := gen.TraceReservationParams{
			Fraction:    float64(rapid.IntRange(1, 10).Draw(rt, "fraction")) / 10,
			Lambda:      float64(rapid.IntRange(10, 600).Draw(rt, "lambda")),
			Flexibility: float64(rapid.IntRange(0, 9).Draw(rt, "flex")) / 10,
			QuadNodes:   rapid.IntRange(0, 4).Draw(rt, "quad"),
			DualNodes:   rapid.IntRange(1, 4).Draw(rt, "dual"),
		}
		var trace []model.Job
		at := 0.0
		for i := range rapid.IntRange(1, 60).Draw(rt, "jobs") {
			at += float64(rapid.IntRange(0, 300).Draw(rt, "gap"))
			trace = append(trace, model.NewJob(int64(i+1), at, float64(rapid.IntRange(1, 2000).Draw(rt, "t")), rapid.IntRange(1, 8).Draw(rt, "n")))
		}
		jobs, err := gen.FromTrace(trace, tp, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
		p := tp.Platform()
		for _, m := range []Mechanism{DRRM, SRRMRandom, SRRMMinCost} {
			c := checkRun(rt, m, p, jobs)
			admitted += c[0]
			refused += c[1]
			preempting += c[2]
		}
	})
}

// checkRun runs mechanism m and checks the invariants; it returns the
// admitted, refused and preempting counts.
func checkRun(rt *rapid.T, m Mechanism, p *model.Platform, jobs []model.Job) [3]int {
	pol := New(m, 7)
	e := engine.New(p, jobs, pol, engine.Options{})
	if err := e.Run(); err != nil {
		rt.Fatalf("%s: %v", m, err)
	}
	type iv struct{ a, b float64 }
	busy := map[int][]iv{}
	lost := 0.0
	for _, j := range e.Jobs() {
		if IsReservation(j) {
			admitted := pol.byJob[j.Index] != nil
			if !admitted {
				if j.State != engine.Dropped {
					rt.Fatalf("%s: refused request %d ended %s", m, j.ID, j.State)
				}
				continue
			}
			if j.State != engine.Completed {
				rt.Fatalf("%s: admitted reservation %d ended %s (no resource failed)", m, j.ID, j.State)
			}
			if j.Start < j.WindowStart-1e-9 || j.End > j.WindowEnd+1e-9 {
				rt.Fatalf("%s: reservation %d ran %g–%g outside its window %g–%g", m, j.ID, j.Start, j.End, j.WindowStart, j.WindowEnd)
			}
			lv := p.Nodes[j.Alloc[0].First].Capability
			if exact := j.Queue == gen.TypeQuad || j.Queue == gen.TypeDual; lv < j.Level || (exact && lv != j.Level) {
				rt.Fatalf("%s: reservation %d (type %d, level %d) ran on a node of level %d", m, j.ID, j.Queue, j.Level, lv)
			}
		} else {
			lost += j.LostTime * p.Nodes[j.Alloc[0].First].Cost
			if j.State != engine.Completed {
				rt.Fatalf("%s: task %d ended %s", m, j.ID, j.State)
			}
		}
		if !math.IsNaN(j.Start) {
			r := int(j.Alloc[0].First)
			busy[r] = append(busy[r], iv{j.Start, j.End})
		}
	}
	for r, ivs := range busy {
		sort.Slice(ivs, func(a, b int) bool { return ivs[a].a < ivs[b].a })
		for k := 1; k < len(ivs); k++ {
			if ivs[k].a < ivs[k-1].b-1e-9 && ivs[k-1].b > ivs[k-1].a {
				rt.Fatalf("%s: resource %d runs two jobs at once: %v and %v", m, r, ivs[k-1], ivs[k])
			}
		}
	}
	ex := pol.Extra()
	if tpc := ex["tpc"]; math.Abs(tpc-lost) > 1e-6*max(1, lost) {
		rt.Fatalf("%s: TPC %g, Σ w·pt over interrupted tasks %g", m, tpc, lost)
	}
	return [3]int{int(ex["admitted"]), int(ex["requests"] - ex["admitted"]), pol.preempting}
}

// TestFailureReplanning (seed 000 §2.5, figure 2 and figure 13's point):
// two resources; a request admitted at 0 for the window [50, 70] is bound
// at once by SRRM (to resource 0 here, the least predicted cost: both idle,
// first wins) and fails when resource 0 fails at 20; DRRM has not bound it
// yet and re-plans it onto resource 1: η = 1 against 0.
func TestFailureReplanning(t *testing.T) {
	p := model.Uniform("r", 2, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability, p.Nodes[i].Cost = 1, 1
	}
	r := model.NewJob(1, 0, 10, 1)
	r.Queue, r.WindowStart, r.WindowEnd, r.Level, r.Estimate = 1, 50, 70, 1, 10
	for _, c := range []struct {
		m   Mechanism
		eta float64
	}{{SRRMMinCost, 1}, {DRRM, 0}} {
		pol := New(c.m, 1)
		e := engine.New(p, []model.Job{r}, pol, engine.Options{})
		e.FailNode(20, 0, true)
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		ex := pol.Extra()
		if ex["admitted"] != 1 || ex["eta"] != c.eta {
			t.Errorf("%s: %v, want η = %g", c.m, ex, c.eta)
		}
		j := e.Jobs()[0]
		if c.eta == 0 && (j.State != engine.Completed || j.Alloc.String() != "1" || j.Start != 50) {
			t.Errorf("%s: reservation %s on %q at %g, want completed on resource 1 at 50", c.m, j.State, j.Alloc, j.Start)
		}
	}
}
