package reservation

import (
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/workload"
)

// TestOSCExactTypesExplainAdmission (seed 000 §3.3, figure 9; issue 15):
// on the OSC trace at flexibility 0 SRRM_r does not admit more than DRRM
// (the paper: 27% more at λ = 300 s). By request type: DRRM admits more
// of the quad requests (which need a 4-CPU node exactly) and SRRM_r more
// of the careless ones — SRRM_r's random binding puts careless requests
// on 4-CPU nodes that later quad requests needed, while DRRM's admission
// test keeps the assignment open until the window opens. The numbers are
// logged (docs/reservations.md quotes them); the test asserts the
// direction per type in each replication.
func TestOSCExactTypesExplainAdmission(t *testing.T) {
	if testing.Short() {
		t.Skip("converts the OSC trace")
	}
	path := testenv.Trace(t, "OSC-Clust-2000-3.1-cln.swf.gz")
	w, err := workload.Load(path, workload.Rules{}, workload.Transform{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		tp := gen.DefaultTraceReservationParams()
		tp.Lambda = 300
		jobs, err := gen.FromTrace(w.Jobs, tp, seed)
		if err != nil {
			t.Fatal(err)
		}
		adm := map[Mechanism]map[int64]bool{}
		for _, m := range []Mechanism{SRRMRandom, DRRM} {
			pol := New(m, seed)
			if err := engine.New(tp.Platform(), jobs, pol, engine.Options{}).Run(); err != nil {
				t.Fatal(err)
			}
			adm[m] = pol.Admitted()
		}
		typ := map[int64]int{}
		for _, j := range jobs {
			typ[j.ID] = j.Queue
		}
		// by type: requests, admitted by S, by D, S only, D only
		var req, s, d, so, do [5]int
		for _, j := range jobs {
			if j.Queue < gen.TypeQuad {
				continue
			}
			q := j.Queue
			req[q]++
			if adm[SRRMRandom][j.ID] {
				s[q]++
			}
			if adm[DRRM][j.ID] {
				d[q]++
			}
			if adm[SRRMRandom][j.ID] && !adm[DRRM][j.ID] {
				so[q]++
			}
			if !adm[SRRMRandom][j.ID] && adm[DRRM][j.ID] {
				do[q]++
			}
		}
		for _, q := range []int{gen.TypeQuad, gen.TypeDual, gen.TypeCareless} {
			name := map[int]string{gen.TypeQuad: "quad", gen.TypeDual: "dual", gen.TypeCareless: "careless"}[q]
			t.Logf("seed %d %-8s requests %4d SRRM_r %4d DRRM %4d  SRRM_r only %3d DRRM only %3d", seed, name, req[q], s[q], d[q], so[q], do[q])
		}
		if !(d[gen.TypeQuad] > s[gen.TypeQuad] && s[gen.TypeCareless] > d[gen.TypeCareless]) {
			t.Errorf("seed %d: quad admitted SRRM_r %d, DRRM %d; careless SRRM_r %d, DRRM %d: want DRRM ahead on quad and SRRM_r on careless",
				seed, s[gen.TypeQuad], d[gen.TypeQuad], s[gen.TypeCareless], d[gen.TypeCareless])
		}
	}
}

// TestOSCFlexibilitySparesShortTasks (seed 000 §3.3, figure 12; issue
// 15: TPC_SRRM_r rises with flexibility on OSC where the paper has it
// fall 25.8%): with slack a reservation waits for a task that ends in
// time, so the tasks SRRM_r — bound to one resource, unable to choose —
// still preempts are the long ones of the trace's heavy-tailed run times,
// and they have run longer when preempted; DRRM chooses the cheapest
// candidate and preempts younger tasks. The means are logged
// (docs/reservations.md quotes them); the test asserts the directions.
func TestOSCFlexibilitySparesShortTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("converts the OSC trace")
	}
	path := testenv.Trace(t, "OSC-Clust-2000-3.1-cln.swf.gz")
	w, err := workload.Load(path, workload.Rules{}, workload.Transform{})
	if err != nil {
		t.Fatal(err)
	}
	type stat struct{ age, runtime float64 }
	got := map[Mechanism][]stat{}
	for _, flex := range []float64{0, 0.9} {
		for _, m := range []Mechanism{SRRMRandom, DRRM} {
			var n, lost, rt, rtAll, nAll float64
			for seed := uint64(1); seed <= 2; seed++ {
				tp := gen.DefaultTraceReservationParams()
				tp.Flexibility = flex
				jobs, err := gen.FromTrace(w.Jobs, tp, seed)
				if err != nil {
					t.Fatal(err)
				}
				pol := New(m, seed)
				e := engine.New(tp.Platform(), jobs, pol, engine.Options{})
				if err := e.Run(); err != nil {
					t.Fatal(err)
				}
				for _, j := range e.Jobs() {
					if IsReservation(j) {
						continue
					}
					if j.Start <= 20*86400 {
						rtAll += j.Runtime
						nAll++
					}
					if j.Preemptions > 0 {
						n += float64(j.Preemptions)
						lost += j.LostTime
						rt += j.Runtime * float64(j.Preemptions)
					}
				}
			}
			t.Logf("flexibility %.1f, %s: %.0f preemptions per replication, mean age at preemption %.0f s, mean run time of a preempted task %.0f s (tasks started in the first 20 days: %.0f s)", flex, m, n/2, lost/n, rt/n, rtAll/nAll)
			got[m] = append(got[m], stat{lost / n, rt / n})
		}
	}
	if s := got[SRRMRandom]; !(s[1].runtime > 1.5*s[0].runtime && s[1].age > s[0].age) {
		t.Errorf("SRRM_r: preempted tasks %v at flexibility 0 and %v at 0.9 (age, run time): want longer and older at 0.9", s[0], s[1])
	}
	if d := got[DRRM]; !(d[1].age < d[0].age) {
		t.Errorf("DRRM: preempted tasks' age %g at flexibility 0, %g at 0.9: want younger", d[0].age, d[1].age)
	}
}
