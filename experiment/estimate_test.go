package experiment

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSampleFirstSpreadsTheSample: the sample an estimate is made from
// is taken evenly over the runs (so over the configurations, in grid
// order) and comes first; the rest keep their order (issue 18, item 2).
func TestSampleFirstSpreadsTheSample(t *testing.T) {
	var runs []Run
	for i := range 20 {
		runs = append(runs, Run{Key: string(rune('a' + i))})
	}
	got := sampleFirst(runs, 8)
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Key)
	}
	// (j + 1/2) · 20/8 for j = 0..7: 1, 3, 6, 8, 11, 13, 16, 18
	if want := "b d g i l n q s a c e f h j k m o p r t"; strings.Join(keys, " ") != want {
		t.Fatalf("order %v, want %s", keys, want)
	}
	if got := sampleFirst(runs[:5], 8); len(got) != 5 || got[0].Key != "a" {
		t.Fatalf("a sweep smaller than the sample keeps its order: %v", got)
	}
}

// TestPlanAndEstimate: a sweep tells its plan before the first run and,
// once its sample has finished, an estimate whose arithmetic holds; the
// reordering changes no result (exports byte-identical to a sweep
// without an estimate).
func TestPlanAndEstimate(t *testing.T) {
	s := mustParse(t, small, "")
	dir := t.TempDir()
	var plans []Plan
	var ests []Estimate
	sweep(t, s, filepath.Join(dir, "a.db"), Options{Workers: 1,
		Plan: func(p Plan) { plans = append(plans, p) }, Estimate: func(e Estimate) { ests = append(ests, e) }})
	if len(plans) != 1 || plans[0] != (Plan{Configs: 4, Replications: 3, MaxReplications: 3, Shards: 1, ToRun: 12}) {
		t.Fatalf("plans %+v", plans)
	}
	if len(ests) != 1 {
		t.Fatalf("estimates %+v", ests)
	}
	e := ests[0]
	// Workers 1: the 8 sampled runs finish first, so 4 are left when the
	// last of them has finished, whatever else is committed with it.
	if e.Sampled != 8 || e.Workers != 1 || e.Left != 4 || e.PerRun <= 0 || e.Remaining != e.PerRun*time.Duration(e.Left) {
		t.Fatalf("estimate %+v", e)
	}
	sweep(t, s, filepath.Join(dir, "b.db"), Options{Workers: 1})
	if exports(t, filepath.Join(dir, "a.db"), s.Metrics) != exports(t, filepath.Join(dir, "b.db"), s.Metrics) {
		t.Fatal("the sample order changed the exports")
	}
	// Resumed: nothing to run, the plan says so and no estimate comes.
	plans, ests = nil, nil
	sweep(t, s, filepath.Join(dir, "a.db"), Options{Workers: 1,
		Plan: func(p Plan) { plans = append(plans, p) }, Estimate: func(e Estimate) { ests = append(ests, e) }})
	if len(plans) != 1 || plans[0].AlreadyDone != 12 || plans[0].ToRun != 0 || len(ests) != 0 {
		t.Fatalf("resumed: plans %+v, estimates %+v", plans, ests)
	}
	// Adaptive: the plan gives the minimum and maximum replications and
	// the first round.
	ad := mustParse(t, strings.Replace(small, "replications: {count: 3}", "replications: {min: 2, max: 6, metric: mean_wait, rel_halfwidth: 0.01}", 1), "")
	plans = nil
	sweep(t, ad, filepath.Join(dir, "c.db"), Options{Workers: 2, Plan: func(p Plan) { plans = append(plans, p) }})
	if len(plans) != 1 || plans[0] != (Plan{Configs: 4, Adaptive: true, Replications: 2, MaxReplications: 6, Shards: 1, ToRun: 8}) {
		t.Fatalf("adaptive plans %+v", plans)
	}
}

// TestAdmittedByBothSharedIsTheSame: seed 000's admitted-by-both requests
// are computed once per replication and parameters other than the policy
// and flexibility (issue 18, item 16: they were most of the quick
// reproduction's cost); every run's metrics are those it has with a
// cache of its own, which computes them afresh.
func TestAdmittedByBothSharedIsTheSame(t *testing.T) {
	s := mustParse(t, `name: adm
workload:
  model: reservations
  params: {lambda: 2, flexibility: 0.1, requests: 60, background_cover: 1.25}
  jobs: 1000000
  admitted_by_both: true
  admitted_at: 0.1
platform: {nodes: 10, levels: 5}
policies: [srrm-r, drrm]
grid:
  workload.params.flexibility: [0.1, 0.9]
  workload.params.duration_at: [0, 0.1]
replications: {count: 2}
seed: 2011
metrics: [pp, tpc, admitted]
`, "")
	shared := NewCache()
	cs := s.Configs()
	keys := map[string]bool{}
	for c := range cs {
		for rep := range 2 {
			r := s.NewRun(&cs[c], rep)
			keys[admittedKey(r)] = true
			got, err := s.Execute(r, shared)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.Execute(r, NewCache())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %v, alone %v", r.Key, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("%s: %s = %g, alone %g", r.Key, k, got[k], v)
				}
			}
		}
	}
	// 2 replications × 2 duration readings share admission runs; policy
	// and flexibility do not split them.
	if len(keys) != 4 || len(shared.admitted) != 4 {
		t.Fatalf("%d keys, %d cached admissions, want 4", len(keys), len(shared.admitted))
	}
}
