package policy

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
)

// TestPropertyCappedIndexEqualsScan drives the capped index with random
// insertions and removals (processor counts that make its Fenwick tree
// grow) and compares every query with a scan of the queued jobs: the
// earliest job after the cursor with est >= m and at most b processors,
// and the uncapped part's order (est, arrival).
func TestPropertyCappedIndexEqualsScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := newCappedIndex()
		n := rapid.IntRange(1, 60).Draw(t, "jobs")
		jobs := make([]*engine.Job, n)
		est := make([]float64, n)
		for i := range jobs {
			jobs[i] = &engine.Job{Job: &model.Job{Procs: rapid.IntRange(0, 40).Draw(t, "procs")}, Index: int32(i)}
			est[i] = float64(rapid.IntRange(1, 20).Draw(t, "est"))
		}
		queued := make([]bool, n)
		for k, ops := 0, rapid.IntRange(1, 150).Draw(t, "ops"); k < ops; k++ {
			i := rapid.IntRange(0, n-1).Draw(t, "job")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				if !queued[i] {
					x.insert(jobs[i], est[i])
					queued[i] = true
				}
			case 1:
				x.remove(jobs[i])
				queued[i] = false
			}
			m := float64(rapid.IntRange(0, 22).Draw(t, "m"))
			if rapid.IntRange(0, 9).Draw(t, "inf") == 0 {
				m = math.Inf(1)
			}
			b := rapid.IntRange(-1, 45).Draw(t, "b")
			cursor := int32(rapid.IntRange(-1, n).Draw(t, "cursor"))
			var want *engine.Job
			for i, j := range jobs {
				if queued[i] && int32(i) > cursor && est[i] >= m && procsOf(j) <= b {
					want = j
					break
				}
			}
			if got := x.firstCapped(cursor, m, b); got != want {
				t.Fatalf("firstCapped(%d, %g, %d) = %v, want %v", cursor, m, b, got, want)
			}
			// The uncapped order: every queued job, by (est, arrival).
			key, seq := math.Inf(-1), int64(math.MinInt64)
			last := -1
			for count := 0; ; count++ {
				j := x.byEst.nextFrom(key, seq, math.MaxInt32, math.MaxInt32, 0, math.Inf(1))
				if j == nil {
					for i := range queued {
						if queued[i] {
							count--
						}
					}
					if count != 0 {
						t.Fatalf("byEst holds %d jobs more than are queued", count)
					}
					break
				}
				i := int(j.Index)
				if !queued[i] || (last >= 0 && (est[last] > est[i] || est[last] == est[i] && last > i)) {
					t.Fatalf("byEst gives job %d (est %g, queued %v) after job %d", i, est[i], queued[i], last)
				}
				last = i
				key, seq = x.byEst.cursor(j)
			}
		}
	})
}
