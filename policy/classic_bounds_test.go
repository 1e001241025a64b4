package policy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// genAllSpec draws a depth=all point of the axes: compression on or
// off, every estimate source depth=all accepts, one history or one per
// user, either consultation.
func genAllSpec(t *rapid.T) policy.Spec {
	s, _ := policy.ParseSpec("conservative")
	s.Compress = rapid.Bool().Draw(t, "compress")
	var ests []string
	for _, e := range policy.Estimates {
		if e != "head-double" && e != "tail-double" {
			ests = append(ests, e)
		}
	}
	s.Estimate = rapid.SampledFrom(ests).Draw(t, "estimate")
	s.Common = rapid.Bool().Draw(t, "common")
	s.Consult = rapid.SampledFrom([]string{"settled", "pyss"}).Draw(t, "consult")
	s.Window = rapid.IntRange(0, 4).Draw(t, "window")
	s.Factor = float64(rapid.IntRange(1, 3).Draw(t, "factor"))
	if err := s.Check(); err != nil {
		t.Fatalf("genAllSpec drew %s: %v", s, err)
	}
	return s
}

// runClassicEvents runs pol on jobs with platform events and, when seed
// is not 0, a model process that moves running jobs' ends and submits
// extra jobs; it returns one line per job and the run's error.
func runClassicEvents(p *model.Platform, jobs, extra []model.Job, pol engine.Policy, o engine.Overrun, evs []platformEvent, seed uint64) ([]string, error) {
	e := engine.New(p, jobs, pol, engine.Options{Overrun: o})
	for _, ev := range evs {
		node := ev.node % len(p.Nodes)
		switch ev.kind {
		case 0:
			e.FailNode(ev.at, node, ev.requeue)
			e.RepairNode(ev.at+ev.down, node)
		case 1:
			e.RemoveNode(ev.at, node, ev.requeue)
			e.AddNode(ev.at+ev.down, model.NodeSpec{PEs: ev.pes, Speed: 1})
		default:
			e.AddNode(ev.at, model.NodeSpec{PEs: ev.pes, Speed: 1})
		}
	}
	if seed != 0 {
		e.AddHook(&stretcher{r: rand.New(rand.NewPCG(seed, 1)), submit: extra})
	}
	err := e.Run()
	var out []string
	for _, j := range e.Jobs() {
		out = append(out, fmt.Sprint(j.ID, j.Start, j.End, j.State, j.Alloc))
	}
	return out, err
}

// TestPropertyClassicBoundsEqualPlain: depth=all's bounds on the earliest
// fit (allState: a plain search below the end of the generation's rises,
// the class corners' bounds from there on) answer every placement as the
// plain search from now does, and the schedules equal those of plain
// searches, on the corner-case workloads of the conservative attack
// tests, with node failures, repairs, removals and additions (the
// processors up change: a new generation), requeues, kills and
// extensions, nodes of several speeds, and a model process that moves
// running jobs' ends and submits jobs at other events' instants.
func TestPropertyClassicBoundsEqualPlain(t *testing.T) {
	var bad []string
	policy.VerifyClassicFit(func(now, dur float64, procs int, bounded, plain float64) {
		if bounded != plain && len(bad) < 3 {
			bad = append(bad, fmt.Sprintf("at %v, %d processors for %v: %v, plain search %v", now, procs, dur, bounded, plain))
		}
	})
	defer policy.VerifyClassicFit(nil)
	placed := 0
	rapid.Check(t, func(t *rapid.T) {
		bad = bad[:0]
		s := genAllSpec(t)
		p, jobs := genCorner(t)
		if rapid.Bool().Draw(t, "speeds") {
			for i := range p.Nodes {
				p.Nodes[i].Speed = rapid.SampledFrom([]float64{1, 1, 0.5, 0.8, 1.5, 3}).Draw(t, "speed")
			}
		}
		for i := range jobs {
			jobs[i].Own()
			jobs[i].User = rapid.IntRange(0, 3).Draw(t, "user")
		}
		var extra []model.Job
		var seed uint64
		if rapid.Bool().Draw(t, "process") {
			extra, jobs = jobs[len(jobs)/2:], jobs[:len(jobs)/2]
			seed = rapid.Uint64Range(1, 1<<62).Draw(t, "seed")
		}
		o := engine.Overrun(rapid.IntRange(0, 1).Draw(t, "overrun"))
		var evs []platformEvent
		if rapid.IntRange(0, 2).Draw(t, "with-events") == 0 {
			for i, n := 0, rapid.IntRange(1, 4).Draw(t, "events"); i < n; i++ {
				evs = append(evs, platformEvent{
					kind:    rapid.IntRange(0, 2).Draw(t, "ev-kind"),
					node:    rapid.IntRange(0, 100).Draw(t, "node"),
					at:      float64(rapid.IntRange(0, 300).Draw(t, "at")),
					down:    float64(rapid.IntRange(0, 50).Draw(t, "down")),
					requeue: rapid.Bool().Draw(t, "requeue"),
					pes:     rapid.IntRange(1, 8).Draw(t, "add-pes"),
				})
			}
		}
		a, ea := runClassicEvents(p, jobs, extra, policy.NewClassic(s, policy.FirstFit{}), o, evs, seed)
		if len(bad) > 0 {
			t.Fatalf("%s: %v", s, bad)
		}
		placed += len(a)
		b, eb := runClassicEvents(p, jobs, extra, policy.NewClassicPlain(s, policy.FirstFit{}), o, evs, seed)
		if fmt.Sprint(ea) != fmt.Sprint(eb) {
			t.Fatalf("%s: error %v, plain %v", s, ea, eb)
		}
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s: job %s, plain %s", s, a[i], b[i])
			}
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d jobs, plain %d", s, len(a), len(b))
		}
	})
	if placed == 0 {
		t.Fatal("no job ran")
	}
}
