package experiment

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCTuner: during a sweep of small runs the collector's percentage is
// raised so the heap goal reaches the floor (issue 19, target 5), a live
// heap above the floor keeps 100 %, GOGC in the environment is left
// alone, and the sweep's end restores what it found.
func TestGCTuner(t *testing.T) {
	t.Setenv("GOGC", "")
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)
	runtime.GC() // a fresh live-heap figure: this test's heap is a few MB

	g := newGCTuner(2)
	if !g.on || g.pct <= 100 || g.pct > 1000 {
		t.Fatalf("small live heap: percentage %d (on %v), want 101..1000", g.pct, g.on)
	}
	if got := debug.SetGCPercent(g.pct); got != g.pct {
		t.Fatalf("runtime percentage %d, tuner says %d", got, g.pct)
	}
	g.floor = 1 // every live heap is above this floor
	g.adjust()
	if g.pct != 100 {
		t.Fatalf("live heap above the floor: percentage %d, want 100", g.pct)
	}
	g.restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after the sweep the percentage is %d, want the 150 it found", got)
	}
	// Two sweeps at once: the second's end keeps the first's setting, the
	// last end restores what the first found.
	a := newGCTuner(1)
	b := newGCTuner(1)
	a.restore()
	if got := debug.SetGCPercent(b.pct); got != b.pct {
		t.Fatalf("one sweep still running: percentage %d, want its %d", got, b.pct)
	}
	b.restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after both sweeps the percentage is %d, want the 150 the first found", got)
	}

	t.Setenv("GOGC", "50")
	g = newGCTuner(2)
	g.adjust()
	if g.on || debug.SetGCPercent(150) != 150 {
		t.Fatal("GOGC set: the tuner must leave the runtime's percentage alone")
	}
}
