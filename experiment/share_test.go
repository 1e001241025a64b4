package experiment

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSharedGenerationEqualsOwn: in a sweep, the policies of one
// replication share one generated workload (generated once per seed and
// parameters but the policy, dropped when its last run is done), and
// every run's metrics are bit for bit those of the run generating its
// own workload, as outside a sweep; whatever the workers' count and the
// pairing base's extra simulation on the shared jobs.
func TestSharedGenerationEqualsOwn(t *testing.T) {
	for _, doc := range []string{small, small + "pairing: {base: fcfs, relative: [{name: rel_wait, metric: mean_wait}]}\n"} {
		s := mustParse(t, doc, "")
		runs := allRuns(s)
		want := map[string]string{}
		for _, r := range runs {
			m, err := s.Execute(r, NewCache())
			if err != nil {
				t.Fatal(err)
			}
			want[r.Key] = fmt.Sprint(m, err)
		}
		for _, workers := range []int{1, 2, 3} {
			c := NewCache()
			c.expect(runs)
			got := make([]string, len(runs))
			order := sharersTogether(runs, 0)
			next := make(chan int)
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						m, err := s.Execute(order[i], c)
						c.finished(order[i])
						got[i] = fmt.Sprint(m, err)
					}
				}()
			}
			for i := range order {
				next <- i
			}
			close(next)
			wg.Wait()
			for i, r := range order {
				if got[i] != want[r.Key] {
					t.Fatalf("workers %d: run %s: shared %q, own %q", workers, r.Key, got[i], want[r.Key])
				}
			}
			// 2 arrival scales × 3 replications: 6 workloads for 12 runs.
			if n := c.generations.Load(); n != 6 {
				t.Errorf("workers %d: %d generations, want 6", workers, n)
			}
			if len(c.generated) != 0 || len(c.users) != 0 {
				t.Errorf("workers %d: %d workloads still held after the sweep", workers, len(c.generated))
			}
		}
	}
}

// TestSharersTogether: runs that share a workload are moved next to the
// first of them, the skipped sample keeps its place, nothing is lost.
func TestSharersTogether(t *testing.T) {
	s := mustParse(t, small, "")
	runs := allRuns(s)
	out := sharersTogether(runs, 2)
	if len(out) != len(runs) || out[0].Key != runs[0].Key || out[1].Key != runs[1].Key {
		t.Fatalf("sample moved or runs lost: %d of %d", len(out), len(runs))
	}
	seen := map[string]bool{}
	last := ""
	for _, r := range out[2:] {
		k := sharedKey(r)
		if k != last && seen[k] {
			t.Fatalf("run %s apart from the other runs of its workload", r.Key)
		}
		seen[k], last = true, k
	}
	if len(seen) != 6 {
		t.Fatalf("%d workloads, want 6", len(seen))
	}
}

// allRuns lists every run of a fixed-count spec in sweep order.
func allRuns(s *Spec) []Run {
	var runs []Run
	cfgs := s.Configs()
	for i := range cfgs {
		for rep := 0; rep < s.Replications.Count; rep++ {
			runs = append(runs, s.NewRun(&cfgs[i], rep))
		}
	}
	return runs
}

// TestSweepGeneratesOncePerReplication: a sweep, as the command runs it,
// generates each replication's workload once for all its policies (6
// generations for the 12 runs of small: 2 arrival scales × 3
// replications × 2 policies), with or without the estimate's sample run
// first and with a pairing base; and its exports are byte for byte those
// of the same sweep in which every run generates its own (12
// generations, 18 with the pairing base's). An adaptive sweep (rounds of runs) exports the same
// with and without sharing and generates less than once per run.
func TestSweepGeneratesOncePerReplication(t *testing.T) {
	var caches []*Cache
	share := true
	newSweepCache = func() *Cache {
		c := NewCache()
		c.own = !share
		caches = append(caches, c)
		return c
	}
	defer func() { newSweepCache = NewCache }()
	sweepOnce := func(s *Spec, o Options, sharing bool) (string, int64) {
		t.Helper()
		share, caches = sharing, nil
		p := filepath.Join(t.TempDir(), "s.db")
		sweep(t, s, p, o)
		if len(caches) != 1 {
			t.Fatalf("%d caches for one sweep", len(caches))
		}
		return exports(t, p, s.Metrics), caches[0].generations.Load()
	}
	pairing := "pairing: {base: fcfs, relative: [{name: rel_wait, metric: mean_wait}]}\n"
	// Without sharing, every run generates, and so does its pairing
	// base's simulation (the 6 easy runs).
	for _, c := range []struct {
		doc string
		own int64
	}{{small, 12}, {small + pairing, 18}} {
		s := mustParse(t, c.doc, "")
		want, n := sweepOnce(s, Options{Workers: 2}, false)
		if n != c.own {
			t.Fatalf("without sharing: %d generations, want %d", n, c.own)
		}
		for _, o := range []Options{{Workers: 1}, {Workers: 2}, {Workers: 3, Estimate: func(Estimate) {}}} {
			got, n := sweepOnce(s, o, true)
			if n != 6 {
				t.Errorf("workers %d, sample %v: %d generations, want 6 (one per replication)", o.Workers, o.Estimate != nil, n)
			}
			if got != want {
				t.Errorf("workers %d, sample %v: exports with sharing differ from those without:\n%s\nvs\n%s", o.Workers, o.Estimate != nil, got, want)
			}
		}
	}
	doc := strings.Replace(small, "replications: {count: 3}", "replications: {min: 3, max: 12, metric: mean_wait, rel_halfwidth: 0.02}", 1)
	s := mustParse(t, doc, "")
	want, own := sweepOnce(s, Options{Workers: 2}, false)
	got, shared := sweepOnce(s, Options{Workers: 2}, true)
	if got != want {
		t.Errorf("adaptive: exports with sharing differ from those without:\n%s\nvs\n%s", got, want)
	}
	if runs := int64(strings.Count(want, "\n")); shared >= own || own < 12 {
		t.Errorf("adaptive: %d generations shared, %d own (export of %d lines)", shared, own, runs)
	}
}
