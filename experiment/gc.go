package experiment

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// GCFloor is the least heap a sweep lets grow between two garbage
// collections, per worker (issue 19, target 5). Go's default (GOGC=100)
// collects whenever the heap has doubled, from 4 MB: a sweep of small
// simulations, whose live heap is a few megabytes, then collects after
// every run or two, and the collector and the runtime's scavenger
// (returning the freed pages to the system, which are then faulted in
// again) take the second core from the second worker. Raising the
// collector's percentage so that the goal is at least GCFloor × workers
// (never below 100 %, at most 1,000 %) removes most of those collections;
// a sweep of large simulations, whose live heap is above the floor, keeps
// Go's default. Set GOGC in the environment to keep the runtime's own
// setting.
var GCFloor uint64 = 32 << 20

// gcTuner sets the collector's percentage during a sweep from the live
// heap after each commit, and restores the previous setting at the end.
type gcTuner struct {
	on     bool
	floor  uint64
	prev   int // the percentage before the first running sweep
	pct    int // the percentage set now
	sample []metrics.Sample
}

// Sweeps at once in one process (tests run some in parallel) share the
// setting: the first saves the percentage it found, the last restores it.
var gcSweeps struct {
	sync.Mutex
	n    int
	prev int
}

func newGCTuner(workers int) *gcTuner {
	if os.Getenv("GOGC") != "" || GCFloor == 0 {
		return &gcTuner{}
	}
	t := &gcTuner{on: true, floor: GCFloor * uint64(max(workers, 1)),
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	gcSweeps.Lock()
	if gcSweeps.n == 0 {
		gcSweeps.prev = debug.SetGCPercent(100)
	}
	gcSweeps.n++
	t.prev = gcSweeps.prev
	gcSweeps.Unlock()
	t.pct = -1
	t.adjust()
	return t
}

// adjust sets the percentage so that the heap goal, live × (1 + pct/100),
// is at least the floor.
func (t *gcTuner) adjust() {
	if !t.on {
		return
	}
	metrics.Read(t.sample)
	pct := 1000
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		if live := t.sample[0].Value.Uint64(); live > 0 {
			pct = int(min(max(100*(float64(t.floor)/float64(live)-1), 100), 1000))
		}
	}
	if pct != t.pct {
		debug.SetGCPercent(pct)
		t.pct = pct
	}
}

// restore puts back the percentage the first running sweep found, when
// the last running sweep ends.
func (t *gcTuner) restore() {
	if !t.on {
		return
	}
	t.on = false
	gcSweeps.Lock()
	defer gcSweeps.Unlock()
	if gcSweeps.n--; gcSweeps.n == 0 {
		debug.SetGCPercent(gcSweeps.prev)
	}
}
