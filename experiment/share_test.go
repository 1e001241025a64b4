package experiment

import (
	"fmt"
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
